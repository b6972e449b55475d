"""Run the verification catalogue (the pytest suite in ``verify/``) and tabulate it.

Each test in ``verify/`` is marked with the statement it witnesses and the kind of
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

WITNESSES = ("symbolic", "reference", "certified", "fast", "montecarlo", "property", "latex")


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
    def __init__(self, progress: bool):
        self.results: list[WitnessResult] = []
        #: nodeid -> (statement ids, witness); a test may witness several statements
        self.markers: dict[str, tuple[tuple[str, ...], str]] = {}
        self.progress = progress
        self.bar = None

    def pytest_collection_modifyitems(self, items):
        for item in items:
            ids = tuple(dict.fromkeys(m.args[0] for m in item.iter_markers("statement")))
            wi = item.get_closest_marker("witness")
            if ids and wi:
                self.markers[item.nodeid] = (ids, wi.args[0])

    def pytest_collection_finish(self, session):
        if self.progress:
            from tqdm import tqdm
            self.bar = tqdm(total=len(session.items), unit="test", desc="checking", leave=False)

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
        ids, wi = self.markers.get(report.nodeid, (("(unmarked)",), "other"))
        props = dict(report.user_properties)
        msg = None
        if report.failed and report.longrepr is not None:
            msg = str(getattr(report.longrepr, "reprcrash", None) or report.longrepr).splitlines()[-1][:300]
        for st in ids:
            self.results.append(WitnessResult(report.nodeid, st, wi, outcome, report.duration,
                                           props.get("error"), props.get("digits"), props.get("ratio"),
                                           props.get("detail"), msg))

    def pytest_sessionfinish(self):
        if self.bar is not None:
            self.bar.close()


def run(deep: bool = False, select: str | None = None, progress: bool = True,
        extra_args: tuple[str, ...] = ()) -> tuple[int, list[WitnessResult]]:
    """Run ``verify/`` and return pytest's exit code and every marked result."""
    import verify

    here = Path(verify.__file__).parent
    if deep:
        os.environ.setdefault("MASKVERIFY_PROFILE", "deep")
    args = [str(here), "-p", "no:cacheprovider", "-p", "no:terminal",
            "-o", "addopts=", "--strict-markers",
            "-m", "not gpu" if deep else "not slow and not gpu"]
    if select:
        args += ["-k", select]
    args += list(extra_args)
    collector = _Collector(progress)
    code = pytest.main(args, plugins=[collector])
    return int(code), collector.results


def table(results: list[WitnessResult]) -> list[Row]:
    from theory.catalogue import CATALOGUE

    rows: dict[str, Row] = {}
    for sid, st in CATALOGUE.items():
        rows[sid] = Row(sid, st.ref)
    for r in results:
        if r.statement == "(unmarked)" and r.outcome not in ("failed", "error", "xpass"):
            continue  # machinery tests without a statement show up only when they fail
        if r.statement not in rows:
            rows[r.statement] = Row(r.statement, "(not in catalogue)")
        rows[r.statement].add(r)
    return list(rows.values())


def format_table(rows: list[Row]) -> str:
    head = ["statement", "paper reference", *WITNESSES, "worst rel. err", "digits"]
    body = []
    for row in rows:
        err = "-" if row.error is None else f"{row.error:.1e}"
        dig = "-" if row.digits is None else f"{row.digits:.1f}"
        body.append([row.statement, row.ref, *(row.cell(w) for w in WITNESSES), err, dig])
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
            {"id": r.statement, "ref": r.ref, "worst_rel_err": r.error, "digits": r.digits,
             "ratio": r.ratio, "witnesses": {w: r.cell(w) for w in WITNESSES}}
            for r in rows
        ],
        "tests": [asdict(r) for r in results],
    }
    tmp = Path(path).with_suffix(Path(path).suffix + ".tmp")
    tmp.write_text(json.dumps(payload, indent=2, default=str))
    os.replace(tmp, path)
