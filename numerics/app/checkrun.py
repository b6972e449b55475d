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
from pathlib import Path

import pytest

from theory.core.io import atomic_write

WITNESSES = ("symbolic", "reference", "certified", "fast", "montecarlo", "property", "dynamics", "latex")


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


@dataclass
class Row:
    statement: str
    ref: str
    cells: dict = field(default_factory=dict)  # witness -> {outcome: count}
    error: float | None = None
    digits: float | None = None
    ratio: float | None = None
    provenance: str = "as printed"

    def add(self, r: WitnessResult) -> None:
        counts = self.cells.setdefault(r.witness, defaultdict(int))
        counts[r.outcome] += 1
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
    with xdist workers; ``pack_of`` maps a test's node id to its pack."""

    def __init__(self, progress: bool, pack_of):
        self.results: list[WitnessResult] = []
        self.progress = progress
        self.pack_of = pack_of
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
            self.results.append(WitnessResult(report.nodeid or "(collection)", "(unmarked)", "other", "error", 0.0,
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
        msg = None
        if report.failed and report.longrepr is not None:
            msg = str(getattr(report.longrepr, "reprcrash", None) or report.longrepr).splitlines()[-1][:300]
        for st in ids:
            qualified = st if pack is None or st == "(unmarked)" else pack.paper.qualify(st)
            self.results.append(WitnessResult(report.nodeid, qualified, wi, outcome, report.duration,
                                              props.get("error"), props.get("digits"), props.get("ratio"),
                                              props.get("detail"), msg))

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


def run(packs=None, deep: bool = False, select: str | None = None, progress: bool = True,
        workers: int | None = None, extra_args: tuple[str, ...] = ()) -> tuple[int, list[WitnessResult]]:
    """Run the witnesses of ``packs`` (default every registered pack) and return pytest's exit
    code and every marked result, statement ids qualified by pack.  ``workers`` > 1 runs them
    in that many xdist processes (default: every core)."""
    from numerics.core import registry

    chosen = registry.select(None) if packs is None else list(packs)
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

    if deep:
        os.environ.setdefault("MASKVERIFY_PROFILE", "deep")
    workers = default_workers() if workers is None else workers
    args = [*map(str, dirs.values()), "--rootdir", str(root), "-p", "no:cacheprovider", "-p", "no:terminal",
            "-o", "addopts=", "--strict-markers", "--continue-on-collection-errors",
            "-m", "not gpu" if deep else "not slow and not gpu"]
    if workers > 1:
        args += ["-n", str(workers)]
    if select:
        args += ["-k", select]
    args += list(extra_args)
    collector = _Collector(progress, pack_of)
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


def format_table(rows: list[Row]) -> str:
    show_provenance = any(row.provenance != "as printed" for row in rows)
    head = ["statement", "paper reference", *(["provenance"] if show_provenance else []), *WITNESSES,
            "worst rel. err", "digits"]
    body = []
    for row in rows:
        err = "-" if row.error is None else f"{row.error:.1e}"
        dig = "-" if row.digits is None else f"{row.digits:.1f}"
        prov = ["printed" if row.provenance == "as printed" else "reconstructed"] if show_provenance else []
        body.append([row.statement, row.ref, *prov, *(row.cell(w) for w in WITNESSES), err, dig])
    widths = [max(len(str(x)) for x in col) for col in zip(head, *body)]
    line = lambda cells: "  ".join(str(c).ljust(w) for c, w in zip(cells, widths))  # noqa: E731
    out = [line(head), line("-" * w for w in widths)]
    out += [line(b) for b in body]
    return "\n".join(out)


def write_json(path: str, code: int, results: list[WitnessResult], rows: list[Row]) -> None:
    """Atomically write the machine-readable report."""
    payload = {
        "pytest_exit_code": code,
        "statements": [
            {"id": r.statement, "ref": r.ref, "provenance": r.provenance, "worst_rel_err": r.error, "digits": r.digits,
             "ratio": r.ratio, "witnesses": {w: r.cell(w) for w in WITNESSES}}
            for r in rows
        ],
        "tests": [asdict(r) for r in results],
    }
    atomic_write(path, json.dumps(payload, indent=2, default=str))
