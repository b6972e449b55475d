"""The ``deep`` Hypothesis profile as a standing check: every ``property`` test of all packs
(slow tier included) under ``MASKVERIFY_PROFILE=deep`` (2000 random examples per campaign,
example database in ``.hypothesis/``), with the number of examples each test actually ran.

    python bench/deep_profile.py                         # all packs, -n 2
    python bench/deep_profile.py verify/masking -n 0     # one pack, serially
    python bench/deep_profile.py --out results/deep_profile.json

It runs ``pytest PATHS -m "property and not gpu" -n JOBS`` with this file loaded as a pytest
plugin (``-p deep_profile``, in every xdist worker too).  The plugin counts, for each test, the
test cases of every Hypothesis run inside it (a two-tier or hand-written campaign may run
several): ``examples`` are the valid ones of the reuse, generate and target phases (Hypothesis
stops generating when they reach ``max_examples``; explicit ``@example`` rows and shrinking are
not counted), ``invalid`` those rejected by ``assume`` or a filter; and why each run stopped,
which names its budget (``settings.max_examples=2000``).  The counts come from Hypothesis' own
statistics (``hypothesis.statistics.collector``, the hook behind ``--hypothesis-show-statistics``),
chained so that that option keeps working.

It prints one row per test (outcome, examples, invalid, time, why it stopped), then the totals
and two lists: tests whose run was held below the profile's count by a fixed budget (the
``default`` variant of a two-tier campaign, whose ``full`` sibling runs the profile's count), and
``property`` tests that ran no Hypothesis example (a marker on a test without a campaign).
The pytest output goes to ``LOG_DIR/pytest.log``.  Exit status: pytest's (0 when every test passed
or failed as a strict xfail expects); bad input prints one line and exits with status 2.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: the phases whose test cases are examples run (explicit rows and shrinking are not)
PHASES = ("reuse-phase", "generate-phase", "target-phase")
#: the controller writes one JSON line per test report here (set by ``main`` for its pytest run)
LOG_ENV = "MASKVERIFY_DEEP_LOG"


# ----------------------------------------------------------------------------- pytest plugin
@pytest.hookimpl(hookwrapper=True, trylast=True)  # inside Hypothesis' own wrapper, which sets the collector
def pytest_runtest_call(item):
    from hypothesis.statistics import collector

    outer, runs = collector.value, []

    def note(stats):
        runs.append(stats)
        if outer is not None:
            outer(stats)

    with collector.with_value(note):
        yield
    cases = Counter(case["status"] for run in runs for phase in PHASES for case in run.get(phase, {}).get("test-cases", []))
    item.user_properties += [("deep_runs", len(runs)), ("deep_examples", cases["valid"]),
                             ("deep_invalid", cases["invalid"] + cases["overrun"]),
                             ("deep_stopped", sorted({run.get("stopped-because", "?") for run in runs}))]


def pytest_runtest_logreport(report):
    path = os.environ.get(LOG_ENV)
    if not path or os.environ.get("PYTEST_XDIST_WORKER"):  # the controller sees every worker's reports
        return
    row = {"nodeid": report.nodeid, "when": report.when, "outcome": report.outcome,
           "duration": report.duration, "xfail": hasattr(report, "wasxfail"),
           **{k: v for k, v in report.user_properties if k.startswith("deep_")}}
    with open(path, "a") as fh:
        fh.write(json.dumps(row) + "\n")


# ----------------------------------------------------------------------------- summary
def collect(log: Path) -> list[dict]:
    """One row per test from the per-phase report lines: its outcome (a failed setup or teardown
    counts), total time and the counts of its call phase."""
    tests: dict[str, dict] = {}
    for line in log.read_text().splitlines():
        r = json.loads(line)
        t = tests.setdefault(r["nodeid"], {"test": r["nodeid"], "outcome": "passed", "time": 0.0, "examples": 0,
                                           "invalid": 0, "runs": 0, "stopped": []})
        t["time"] += r["duration"]
        if r["outcome"] != "passed" or r["xfail"]:
            t["outcome"] = ("xfailed" if r["outcome"] == "skipped" else "XPASS") if r["xfail"] else (
                r["outcome"] if r["when"] == "call" else f"{r['outcome']} ({r['when']})")
        if r["when"] == "call":
            t.update(examples=r.get("deep_examples", 0), invalid=r.get("deep_invalid", 0),
                     runs=r.get("deep_runs", 0), stopped=r.get("deep_stopped", []))
    return list(tests.values())


def held_below(row: dict, count: int) -> bool:
    """A run stopped by a max_examples budget below the profile's count."""
    return any(s.startswith("settings.max_examples=") and int(s.split("=")[1]) < count for s in row["stopped"])


def report(rows: list[dict], count: int, wall: float) -> str:
    w = max(len(r["test"]) for r in rows)
    lines = [f"{'test':<{w}}  {'outcome':<8} {'examples':>8} {'invalid':>7} {'time s':>8}  stopped because"]
    for r in sorted(rows, key=lambda r: r["test"]):
        lines.append(f"{r['test']:<{w}}  {r['outcome']:<8} {r['examples']:>8} {r['invalid']:>7} {r['time']:>8.1f}  "
                     + "; ".join(r["stopped"]))
    outcomes = Counter(r["outcome"] for r in rows)
    lines.append(f"\n{len(rows)} tests, {sum(r['examples'] for r in rows)} examples, "
                 + ", ".join(f"{n} {o}" for o, n in sorted(outcomes.items())) + f"; wall time {wall:.0f} s")
    held = [r["test"] for r in rows if held_below(r, count)]
    empty = [r["test"] for r in rows if r["runs"] == 0 and r["outcome"] in ("passed", "failed")]
    if held:
        lines.append(f"held below {count} examples by a fixed budget ({len(held)}): " + ", ".join(held))
    if empty:
        lines.append(f"marked property but ran no Hypothesis campaign ({len(empty)}): " + ", ".join(empty))
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", nargs="*", default=["verify"], help="test paths (default: verify, all packs)")
    ap.add_argument("-n", "--jobs", default="2", help="pytest-xdist workers (0: serial; default 2)")
    ap.add_argument("-k", dest="keyword", help="pytest -k expression (a subset of the tests)")
    ap.add_argument("--log-dir", default="/tmp/deep", help="where pytest.log and the report lines go")
    ap.add_argument("--out", help="also write the rows and totals as JSON here")
    args = ap.parse_args(argv)
    try:
        from numerics.core.cliargs import UsageError
        if not (args.jobs.isdigit() or args.jobs == "auto"):
            raise UsageError(f"-n: expected a number of workers or 'auto', got {args.jobs!r}")
        for p in args.paths:
            if not (ROOT / p.split("::")[0]).exists():
                raise UsageError(f"no such test path: {p}")
    except UsageError as exc:
        print(f"deep_profile.py: error: {exc}", file=sys.stderr)
        return 2
    from hypothesis import settings
    import verify.profiles  # noqa: F401  (registers the profiles)
    count = settings.get_profile("deep").max_examples
    log_dir = Path(args.log_dir)
    log_dir.mkdir(parents=True, exist_ok=True)
    lines, out = log_dir / "reports.jsonl", log_dir / "pytest.log"
    lines.unlink(missing_ok=True)
    env = dict(os.environ, MASKVERIFY_PROFILE="deep", **{LOG_ENV: str(lines)},
               PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT / "bench"), os.environ.get("PYTHONPATH")])))
    cmd = [sys.executable, "-m", "pytest", *args.paths, "-m", "property and not gpu", "-p", "deep_profile",
           "-p", "no:cacheprovider", "-q", "-n", args.jobs] + (["-k", args.keyword] if args.keyword else [])
    print(f"MASKVERIFY_PROFILE=deep {' '.join(cmd[1:])}  (log: {out})", flush=True)
    start = time.monotonic()
    with open(out, "w") as fh:
        rc = subprocess.run(cmd, cwd=ROOT, env=env, stdout=fh, stderr=subprocess.STDOUT).returncode
    wall = time.monotonic() - start
    rows = collect(lines) if lines.exists() else []
    if not rows:
        print(f"no test ran (pytest exit status {rc}); see {out}", file=sys.stderr)
        return rc or 1
    print(report(rows, count, wall))
    if args.out:
        from theory.core.io import write_json
        write_json(args.out, {"command": " ".join(cmd[1:]), "profile_examples": count, "wall_s": wall,
                              "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "exit_status": rc,
                              "tests": rows})
    return rc


if __name__ == "__main__":
    sys.exit(main())
