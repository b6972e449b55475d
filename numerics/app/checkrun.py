"""Run the packs' witnesses (the pytest files in each pack's ``verify/<pack>/``) and tabulate them.

Each witness test is marked with the statement it witnesses and the kind of
witness it is; this module runs them through pytest with a small plugin that collects
every outcome and the figures a test recorded (worst error, digits, ratio), and folds
them into one row per statement.  ``maskverify check`` prints the table.
"""
from __future__ import annotations

import json
import math
import os
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path

import pytest

from numerics.core import nodeids
from theory.core.io import atomic_write

#: the paper-reference column of the terminal table is cut to this width (the JSON has it whole)
REF_WIDTH = 40
#: the table's witness columns: the evidential kinds, then the LaTeX export and the suite's self-checks
#: (``verdicts.PRESENTATIONAL``, ``verdicts.SELF_CHECKS``: shown, never evidence)
WITNESSES = ("symbolic", "reference", "certified", "fast", "montecarlo", "property", "dynamics", "latex", "selfcheck")


@dataclass
class WitnessResult:
    nodeid: str
    statement: str
    witness: str
    outcome: str  # passed, failed, xfail (a recorded finding), xpass, skipped, error
    duration: float
    error: float | None = None
    digits: float | None = None
    ratio: float | None = None
    detail: str | None = None
    message: str | None = None
    judged: int | None = None  # points the witness judged (record(judged=...)); None: not recorded
    reading: tuple[str, bool] | None = None  # (reading id, refutes) of a reconstructed statement
    supported: bool | None = None  # an empirical witness's measured verdict (record(supported=...))


@dataclass
class Row:
    statement: str
    ref: str
    cells: dict = field(default_factory=dict)  # witness -> {outcome: count}
    error: float | None = None
    digits: float | None = None
    ratio: float | None = None
    provenance: str = "as printed"
    verdict: object = None  # verdicts.Verdict, set by ``judge_rows``

    def add(self, r: WitnessResult) -> None:
        """Count ``r``'s outcome in its witness's cell; its figures (error, digits, ratio) are the
        statement's only when it is evidence for the claim (a self-check's error is a reference's)."""
        from .verdicts import EVIDENTIAL

        counts = self.cells.setdefault(r.witness, defaultdict(int))
        counts[r.outcome] += 1
        if r.witness not in EVIDENTIAL:
            return
        if r.error is not None and math.isfinite(r.error):
            self.error = r.error if self.error is None else max(self.error, r.error)
        if r.digits is not None:
            self.digits = r.digits if self.digits is None else min(self.digits, r.digits)
        if r.ratio is not None:
            self.ratio = r.ratio if self.ratio is None else max(self.ratio, r.ratio)

    def cell(self, witness: str) -> str:
        counts = self.cells.get(witness)
        if not counts:
            return "-"
        bad = counts.get("failed", 0) + counts.get("error", 0) + counts.get("xpass", 0)
        if bad:
            return f"FAIL {bad}/{sum(counts.values())}"
        parts = [f"ok {counts['passed']}"] if counts.get("passed") else []
        if counts.get("xfail"):
            parts.append(f"finding {counts['xfail']}")
        return " + ".join(parts) or "skipped"


class _Collector:
    """Folds pytest's reports into ``WitnessResult``s.  The statement and witness of each test
    travel in its report's ``user_properties`` (``verify.plugin``), so this works the same
    with xdist workers; ``pack_of`` maps a test's node id to its pack, ``name`` to the id a user
    types (``numerics.core.nodeids``: relative to the repository root, or ``--pyargs``-importable
    for a distribution's test), which is the id every result carries."""

    def __init__(self, progress: bool, pack_of, name=lambda nodeid: nodeid):
        self.results: list[WitnessResult] = []
        self.progress = progress
        self.pack_of = pack_of
        self.name = name
        self.bar = None
        self.collected = 0

    def _open_bar(self, total):
        if self.progress and self.bar is None:
            from tqdm import tqdm
            self.bar = tqdm(total=total, unit="test", desc="checking", leave=False)

    def pytest_collection_finish(self, session):
        if session.items:
            self.collected = len(session.items)
            self._open_bar(self.collected)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node, ids):
        if self.bar is None:
            self.collected = len(ids)
            self._open_bar(self.collected)

    def pytest_collectreport(self, report):
        """A file that does not even import is a failure of every witness in it: shown, not lost."""
        if report.failed:
            msg = str(report.longrepr).strip().splitlines()[-1][:300] if report.longrepr else "collection failed"
            self.results.append(WitnessResult(self.name(report.nodeid) if report.nodeid else "(collection)",
                                              "(unmarked)", "other", "error", 0.0,
                                              message=f"collection failed: {msg}"))

    def pytest_runtest_logreport(self, report):
        done = report.when == "call" or (report.when == "setup" and not report.passed)
        if not done:
            if report.when == "teardown" and report.failed:
                self._add(report, "error")
            return
        if self.bar is not None:
            self.bar.update(1)
        if hasattr(report, "wasxfail"):
            outcome = "xpass" if report.passed else "xfail"
        elif report.when == "setup" and report.failed:
            outcome = "error"
        else:
            outcome = report.outcome
        self._add(report, outcome)

    def _add(self, report, outcome):
        props = dict(report.user_properties)
        pack = self.pack_of(report.nodeid)
        ids = props.get("statements") or ("(unmarked)",)
        wi = props.get("witness", "other")
        reading = props.get("reading")
        msg = None
        if report.failed and report.longrepr is not None:
            msg = str(getattr(report.longrepr, "reprcrash", None) or report.longrepr).splitlines()[-1][:300]
        for st in ids:
            qualified = st if pack is None or st == "(unmarked)" else pack.paper.qualify(st)
            self.results.append(WitnessResult(self.name(report.nodeid), qualified, wi, outcome, report.duration,
                                              props.get("error"), props.get("digits"), props.get("ratio"),
                                              props.get("detail"), msg, props.get("judged"),
                                              tuple(reading) if reading else None, props.get("supported")))

    def pytest_sessionfinish(self):
        if self.bar is not None:
            self.bar.close()


def default_workers() -> int:
    """Worker processes for the check: every core (pytest-xdist), 1 where it is not installed."""
    try:
        import xdist  # noqa: F401
    except ImportError:
        return 1
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)


def k_expression(text: str) -> str:
    """An argparse type for ``-k EXPR``: parsed by pytest's own matcher (its ``Expression``; pytest
    exposes no public parser), so that a malformed expression is one line at the door instead of an
    internal error in every xdist worker."""
    import argparse

    try:
        from _pytest.mark.expression import Expression
    except ImportError:  # a pytest that moved it: pytest itself will judge the expression
        return text
    try:
        Expression.compile(text)
    except SyntaxError as exc:
        raise argparse.ArgumentTypeError(f"not a pytest -k expression: {exc.msg}") from None
    return text


def run(packs=None, deep: bool = False, select: str | None = None, progress: bool = True,
        workers: int | None = None, extra_args: tuple[str, ...] = ()) -> tuple[int, list[WitnessResult]]:
    """Run the witnesses of ``packs`` (default every registered pack) and return pytest's exit
    code and every marked result, statement ids qualified by pack.  ``workers`` > 1 runs them
    in that many xdist processes (default: every core)."""
    from numerics.core import registry

    chosen = registry.select(None) if packs is None else list(packs)
    dirs, root, pack_of = _pack_locator(chosen)
    if deep:
        os.environ.setdefault("MASKVERIFY_PROFILE", "deep")
    workers = default_workers() if workers is None else workers
    args = [*map(str, dirs.values()), "--rootdir", str(root), "-p", "no:cacheprovider", "-p", "no:terminal",
            "-o", "addopts=", "--strict-markers", "--continue-on-collection-errors",
            "-m", "not gpu" if deep else "not slow and not gpu"]
    args += ["-n", str(workers) if workers > 1 else "0"]
    if select:
        args += ["-k", select]
    args += list(extra_args)
    collector = _Collector(progress, pack_of, partial(nodeids.from_root, root))
    code = pytest.main(args, plugins=[collector])
    return int(code), collector.results


def table(results: list[WitnessResult], packs=None) -> list[Row]:
    """One row per statement of ``packs`` (default every registered pack), in pack and paper
    order, then any statement only the results name."""
    from numerics.core import registry

    rows: dict[str, Row] = {}
    for pack in (registry.select(None) if packs is None else packs):
        for st in pack.paper.statements:
            qid = pack.paper.qualify(st.id)
            rows[qid] = Row(qid, st.ref, provenance=st.provenance.describe())
    for r in results:
        if r.statement == "(unmarked)" and r.outcome not in ("failed", "error", "xpass"):
            continue  # machinery tests without a statement show up only when they fail
        if r.statement not in rows:
            rows[r.statement] = Row(r.statement, "(not in catalogue)")
        rows[r.statement].add(r)
    return list(rows.values())


class _Inventory:
    """Collects (without running) every marked witness test and the tier its markers put it in."""

    def __init__(self, pack_of, name=lambda nodeid: nodeid):
        self.pack_of = pack_of
        self.name = name  # the runnable id of a node id (``numerics.core.nodeids``)
        self.items: list[tuple[str, str, str, str]] = []  # (qualified statement, witness, tier, node id)

    def pytest_collection_finish(self, session):
        for item in session.items:
            ids = tuple(dict.fromkeys(a for m in item.iter_markers("statement") for a in m.args))
            wi = item.get_closest_marker("witness")
            rd = item.get_closest_marker("reading")
            if not ids or wi is None or (rd is not None and rd.kwargs.get("refutes")):
                continue
            tier = "gpu tier" if item.get_closest_marker("gpu") else "slow tier" if item.get_closest_marker("slow") \
                else "default tier"
            pack = self.pack_of(item.nodeid)
            for st in ids:
                qualified = st if pack is None else pack.paper.qualify(st)
                self.items.append((qualified, wi.args[0], tier, self.name(item.nodeid)))


def _pack_locator(chosen):
    dirs = {p.id: Path(p.verify_dir).resolve() for p in chosen}
    missing = [f"{pid}: {d}" for pid, d in dirs.items() if not d.is_dir()]
    if missing:
        raise FileNotFoundError("witness folder missing for " + "; ".join(missing))
    root = Path(os.path.commonpath([str(d) for d in dirs.values()] + [str(Path.cwd())]))

    def pack_of(nodeid: str):
        path = (root / nodeid.split("::")[0]).resolve()
        for p in chosen:
            if dirs[p.id] == path or dirs[p.id] in path.parents:
                return p
        return None

    return dirs, root, pack_of


def inventory(packs) -> list[tuple[str, str, str, str]]:
    """Every evidential-or-not witness test of ``packs`` in every tier, collected without
    running (a few seconds): (qualified statement, witness, tier, node id), the node id as a user
    runs it (``numerics.core.nodeids.runnable``: from the repository root for a pack inside it,
    ``pytest --pyargs`` for a distribution's).  Refuting tests
    of a reading are left out: they are no witness for the statement."""
    dirs, root, pack_of = _pack_locator(list(packs))
    inv = _Inventory(pack_of, partial(nodeids.from_root, root))
    args = [*map(str, dirs.values()), "--rootdir", str(root), "-p", "no:cacheprovider", "-p", "no:terminal",
            "-p", "no:xdist", "-o", "addopts=", "--collect-only"]
    code = pytest.main(args, plugins=[inv])
    if int(code) not in (0, 5):
        raise RuntimeError(f"collecting the witnesses failed (pytest exit code {int(code)})")
    return inv.items


def elsewhere(items, statement: str, tier_run: set[str], campaigns=()) -> list:
    """The evidential witnesses of ``statement`` outside the tiers that ran (``tier_run``, e.g.
    {"default tier"}), and the campaigns of it that were not run (``campaigns``: their
    qualified ids), as ``verdicts.Elsewhere``."""
    from . import verdicts

    out = [verdicts.Elsewhere(tier, nodeid) for st, wi, tier, nodeid in items
           if st == statement and wi in verdicts.EVIDENTIAL and tier not in tier_run]
    out += [verdicts.Elsewhere("campaign", f"maskverify fuzz {c}") for c in campaigns]
    return out


def judge_rows(rows: list[Row], results: list[WitnessResult], packs, *, deep: bool = False, items=None,
               errata=None, runs=()) -> None:
    """Set each row's ``verdict`` (``verdicts.judge``): from its results in this run, the pack's
    errata (``{pack id: [Erratum]}``; loaded when None), the campaigns run (``runs``:
    ``report.CampaignRun``; those not run count as witnesses elsewhere) and the inventory
    ``items`` of other tiers (collected when None)."""
    from numerics.core import errata as errata_data

    from . import verdicts

    packs = list(packs)
    items = inventory(packs) if items is None else items
    errata = {p.id: errata_data.load(p) for p in packs} if errata is None else errata
    tiers = {"default tier", "slow tier"} if deep else {"default tier"}
    ran = {run.qualified for run in runs}
    by_pack = {p.id: p for p in packs}
    for row in rows:
        pid, _, short = row.statement.partition(":")
        pack = by_pack.get(pid)
        st = pack.paper.catalogue.get(short) if pack is not None else None
        mine = [r for r in results if r.statement == row.statement]
        found = [e for e in errata.get(pid, []) if short in e.statements]
        camp = [pack.paper.qualify(c.id) for c in pack.campaigns if c.statement_id == short] if pack else []
        my_runs = [run for run in runs if run.qualified in camp]
        row.verdict = verdicts.judge(st, mine, errata=found, campaigns=my_runs,
                                     elsewhere=elsewhere(items, row.statement, tiers, [c for c in camp if c not in ran]),
                                     tier="deep" if deep else "default")


def readings_cell(verdict) -> str:
    """'-' or e.g. '3 readings: strongest holding R2, weakest failing R3'."""
    if verdict is None or not verdict.readings:
        return "-"
    n = len(verdict.readings)
    parts = [f"strongest holding {verdict.strongest_holding or 'none'}"]
    if verdict.weakest_failing:
        parts.append(f"weakest failing {verdict.weakest_failing}")
    unchecked = sum(r["outcome"] == "not checked" for r in verdict.readings)
    if unchecked:
        parts.append(f"{unchecked} not checked")
    return f"{n} readings: " + ", ".join(parts)


def static_verdicts(packs) -> list[list[dict]]:
    """Per pack, every statement with its witnesses per tier (collected, not run) and the
    status known without running: a recorded finding, or -- where the default tier holds no
    evidential witness -- not checked in this tier / not checked; ``None`` where the default
    tier's witnesses decide it (``maskverify check``)."""
    from numerics.core import errata as errata_data

    from . import verdicts

    packs = list(packs)
    items = inventory(packs)
    out = []
    for pack in packs:
        found = errata_data.load(pack)
        rows = []
        for st in pack.paper.statements:
            q = pack.paper.qualify(st.id)
            tiers: dict[str, dict[str, int]] = {}
            for s_, wi, tier, _node in items:
                if s_ == q:
                    tiers.setdefault(tier, {}).setdefault(wi, 0)
                    tiers[tier][wi] += 1
            mine = [e for e in found if st.id in e.statements]
            default = {w for w in tiers.get("default tier", {}) if w in verdicts.EVIDENTIAL}
            if mine or not default:
                camp = [pack.paper.qualify(c.id) for c in pack.campaigns if c.statement_id == st.id]
                v = verdicts.judge(st, [], errata=mine, elsewhere=elsewhere(items, q, {"default tier"}, camp))
                status, reason = v.status, v.reason
            else:
                status, reason = None, "decided by the default tier's witnesses: maskverify check"
            rows.append({"id": q, "ref": st.ref, "kind": st.kind.value, "provenance": st.provenance.describe(),
                         "readings": [r.id for r in st.provenance.readings], "witnesses": tiers,
                         "errata": [e.qualified for e in mine], "status": status, "reason": reason})
        out.append(rows)
    return out


def format_table(rows: list[Row]) -> str:
    """The check table: one line per statement (its status, each witness's cell, worst error,
    digits, and for reconstructed statements their readings), then the reason of every status
    other than holds/supported."""
    from . import verdicts

    show_provenance = any(row.provenance != "as printed" for row in rows)
    show_readings = any(row.verdict is not None and row.verdict.readings for row in rows)
    head = ["statement", "paper reference", *(["provenance"] if show_provenance else []), "status", *WITNESSES,
            "worst rel. err", "digits", *(["readings"] if show_readings else [])]
    body = []
    for row in rows:
        err = "-" if row.error is None else f"{row.error:.1e}"
        dig = "-" if row.digits is None else f"{row.digits:.1f}"
        prov = ["printed" if row.provenance == "as printed" else "reconstructed"] if show_provenance else []
        status = row.verdict.status if row.verdict is not None else "-"
        ref = row.ref if len(row.ref) <= REF_WIDTH else row.ref[:REF_WIDTH - 3] + "..."
        body.append([row.statement, ref, *prov, status, *(row.cell(w) for w in WITNESSES), err, dig,
                     *([readings_cell(row.verdict)] if show_readings else [])])
    widths = [max(len(str(x)) for x in col) for col in zip(head, *body)]
    line = lambda cells: "  ".join(str(c).ljust(w) for c, w in zip(cells, widths))  # noqa: E731
    out = [line(head), line("-" * w for w in widths)]
    out += [line(b) for b in body]
    why = [f"  {row.statement}: {row.verdict.status}: {row.verdict.reason}" for row in rows
           if row.verdict is not None and row.verdict.status not in verdicts.POSITIVE]
    if why:
        out += ["", "Statements that do not hold in this run, and why:", *why]
    return "\n".join(out)


def status_counts(rows: list[Row]) -> dict[str, int]:
    from . import verdicts

    return verdicts.counts(row.verdict.status for row in rows if row.verdict is not None)


def status_line(rows: list[Row]) -> str:
    """'72 statements: 40 hold, 3 supported, ...' (every status, zeros left out)."""
    c = status_counts(rows)
    total = sum(c.values())
    return f"{total} statement{'s' * (total != 1)}: " + ", ".join(f"{n} {s}" for s, n in c.items() if n)


def write_json(path: str, code: int, results: list[WitnessResult], rows: list[Row], coverage=None) -> None:
    """Atomically write the machine-readable report; ``coverage``: per pack, the coverage of its
    paper (``numerics.app.coverage.from_rows``)."""
    payload = {
        "pytest_exit_code": code,
        "statements": [
            {"id": r.statement, "ref": r.ref, "provenance": r.provenance,
             **(r.verdict.as_json() if r.verdict is not None else {"status": None}),
             "worst_rel_err": r.error, "digits": r.digits, "ratio": r.ratio,
             "witnesses": {w: r.cell(w) for w in WITNESSES}}
            for r in rows
        ],
        "statuses": status_counts(rows),
        "coverage": coverage,
        "tests": [asdict(r) for r in results],
    }
    atomic_write(path, json.dumps(payload, indent=2, default=str))
