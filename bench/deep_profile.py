"""The ``deep`` Hypothesis profile as a standing check: every ``property`` test of all packs
(slow tier included) under ``MASKVERIFY_PROFILE=deep`` (2000 random examples per campaign,
example database in ``.hypothesis/``), with the number of examples each test actually ran.

    python bench/deep_profile.py                         # all packs, a local cluster of every core
    python bench/deep_profile.py verify/masking -n 0     # one pack, serially in this process
    python bench/deep_profile.py --scheduler tcp://host:8786 --resume   # on a cluster, skip groups done
    python bench/deep_profile.py --out results/deep_profile.json

The tests are collected (``pytest PATHS -m "property and not gpu" --collect-only``) and grouped by
test file; each group is one task of the execution layer (``numerics.core.execution``): on a Dask
worker, ``pytest IDS -m "property and not gpu" -n 0`` with this file loaded as a pytest plugin
(``-p deep_profile``).  ``-n/--workers N`` sizes the local cluster (default: the cores; 0: the
groups one after another in this process), ``--scheduler`` uses a running cluster, whose workers
must see this checkout at the same path (the tests run there, and Hypothesis' example database
``.hypothesis/`` in it is shared by every worker and every run); each finished group is stored in
``--store`` (keyed by its test ids and the tree's git commit and uncommitted changes), and
``--resume`` skips the groups stored.  The profile is random by design (it is not a seeded run):
a rerun draws new examples, replaying the database's first.

The plugin counts, for each test, the test cases of every Hypothesis run inside it (a two-tier or
hand-written campaign may run several): ``examples`` are the valid ones of the reuse, generate and
target phases (Hypothesis stops generating when they reach ``max_examples``; explicit ``@example``
rows and shrinking are not counted), ``invalid`` those rejected by ``assume`` or a filter; and why
each run stopped, which names its budget (``settings.max_examples=2000``).  The counts come from
Hypothesis' own statistics (``hypothesis.statistics.collector``, the hook behind
``--hypothesis-show-statistics``), chained so that that option keeps working.

It prints one row per test (outcome, examples, invalid, time, why it stopped), then the totals
and two lists: tests whose run was held below the profile's count by a fixed budget (the
``default`` variant of a two-tier campaign, whose ``full`` sibling runs the profile's count), and
``property`` tests that ran no Hypothesis example (a marker on a test without a campaign).
Each group's pytest output goes to ``LOG_DIR/groups/FILE.log``.  Exit status: 1 if a group's
pytest exited 1 (a test failed), else the first other non-zero pytest status, else 0 (every test
passed or failed as a strict xfail expects); bad input prints one line and exits with status 2.
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
sys.path.insert(0, str(ROOT))  # this checkout's packages, also when another copy is installed
#: the phases whose test cases are examples run (explicit rows and shrinking are not)
PHASES = ("reuse-phase", "generate-phase", "target-phase")
#: the controller writes one JSON line per test report here (set by ``run_group`` for its pytest run)
LOG_ENV = "MASKVERIFY_DEEP_LOG"
#: the tests the profile runs
MARK = "property and not gpu"


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


def _pytest_env(extra: dict) -> dict:
    return dict(os.environ, **extra,
                PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT / "bench"), os.environ.get("PYTHONPATH")])))


def collect_ids(paths: list[str], keyword: str | None) -> list[str]:
    """The node ids of the profile's tests under ``paths`` (``-k keyword``)."""
    cmd = [sys.executable, "-m", "pytest", *paths, "-m", MARK, "--collect-only", "-q", "-p", "no:cacheprovider"]
    out = subprocess.run(cmd + (["-k", keyword] if keyword else []), cwd=ROOT, capture_output=True, text=True,
                         env=_pytest_env({}))
    return [line for line in out.stdout.splitlines() if "::" in line and not line.startswith(" ")]


def groups(ids: list[str]) -> dict[str, list[str]]:
    """The test ids by test file (a file's module fixtures and xdist groups stay together)."""
    out: dict[str, list[str]] = {}
    for nodeid in ids:
        out.setdefault(nodeid.split("::")[0], []).append(nodeid)
    return out


def run_group(params: dict) -> dict:
    """One task: pytest on the group's test ids under the deep profile, serially (``-n 0``), in
    the checkout ``params["root"]``; its rows (``collect``) and pytest's exit status."""
    root, logs = Path(params["root"]), Path(params["log_dir"]) / "groups"
    logs.mkdir(parents=True, exist_ok=True)
    name = params["file"].replace("/", "__")
    lines, out = logs / f"{name}.jsonl", logs / f"{name}.log"
    lines.unlink(missing_ok=True)
    env = _pytest_env({"MASKVERIFY_PROFILE": "deep", LOG_ENV: str(lines)})
    env.pop("PYTEST_XDIST_WORKER", None)
    cmd = [sys.executable, "-m", "pytest", *params["ids"], "-m", MARK, "-p", "deep_profile",
           "-p", "no:cacheprovider", "-q", "-n", "0"]
    with open(out, "w") as fh:
        rc = subprocess.run(cmd, cwd=root, env=env, stdout=fh, stderr=subprocess.STDOUT).returncode
    return {"file": params["file"], "exit_status": rc, "log": str(out), "rows": collect(lines) if lines.exists() else []}


def exit_status(codes: list[int]) -> int:
    """1 if a group had a failing test, else the first other non-zero status, else 0."""
    return 1 if 1 in codes else next((c for c in codes if c), 0)


def main(argv=None) -> int:
    from numerics.app.cli import Parser  # a one-line usage error
    from numerics.core import execution
    from numerics.core.cliargs import UsageError

    ap = Parser(prog="deep_profile.py", description=__doc__.split("\n\n")[0],
                formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", nargs="*", default=["verify"], help="test paths (default: verify, all packs)")
    ap.add_argument("-k", dest="keyword", help="pytest -k expression (a subset of the tests)")
    ap.add_argument("--log-dir", default="/tmp/deep", help="where each group's pytest log and report lines go "
                                                            "(a directory the workers see)")
    ap.add_argument("--out", help="also write the rows and totals as JSON here")
    ap.add_argument("--no-progress", action="store_true", help="no progress bar")
    execution.add_arguments(ap, store="results/tasks/deep_profile", workers_flags=("-n", "--workers"))
    args = ap.parse_args(argv)
    try:
        for p in args.paths:
            if not (ROOT / p.split("::")[0]).exists():
                raise UsageError(f"no such test path: {p}")
        engine = execution.engine_from_args(args)
        ids = collect_ids(args.paths, args.keyword)
        if not ids:
            raise UsageError(f"no {MARK!r} test under {' '.join(args.paths)}"
                             + (f" matching -k {args.keyword!r}" if args.keyword else ""))
        from hypothesis import settings
        import verify.profiles  # noqa: F401  (registers the profiles)
        count = settings.get_profile("deep").max_examples
        log_dir = Path(args.log_dir).resolve()
        params = [{"file": f, "ids": group, "root": str(ROOT), "log_dir": str(log_dir)}
                  for f, group in groups(ids).items()]
        print(f"MASKVERIFY_PROFILE=deep pytest {' '.join(args.paths)} -m {MARK!r}: {len(ids)} tests in "
              f"{len(params)} groups (logs: {log_dir}/groups)", flush=True)
        start = time.monotonic()
        with engine:
            import cloudpickle
            cloudpickle.register_pickle_by_value(sys.modules[__name__])  # workers need no bench/ on their path
            parts = execution.run(run_group, params, engine, store=execution.Store(args.exec_store),
                                  resume=args.exec_resume, version=execution.tree_version(ROOT),
                                  desc="deep profile", progress=not args.no_progress)
    except UsageError as exc:
        print(f"deep_profile.py: error: {exc}", file=sys.stderr)
        return 2
    except execution.TasksFailed as exc:
        print(f"deep_profile.py: {exc}", file=sys.stderr)
        return 1
    wall = time.monotonic() - start
    rows = [r for part in parts for r in part["rows"]]
    rc = exit_status([part["exit_status"] for part in parts])
    if not rows:
        print(f"no test ran (pytest exit status {rc}); see {log_dir}/groups", file=sys.stderr)
        return rc or 1
    print(report(rows, count, wall))
    if args.out:
        from theory.core.io import write_json
        write_json(args.out, {"paths": args.paths, "keyword": args.keyword, "groups": len(parts),
                              "profile_examples": count, "wall_s": wall,
                              "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "exit_status": rc,
                              "tests": rows})
    return rc


if __name__ == "__main__":
    sys.exit(main())
