"""Mutation score of one module: mutmut 3 (pinned in constraints.txt, extra ``mutation``) run on
a module of ``bench/mutation/modules.toml`` with that module's fast subset of tests, then a
summary of the outcome.

    python bench/mutation.py --module binomial                # every mutant of the module
    python bench/mutation.py --module normal --sample 40 --seed 1   # 40 of them, drawn by seed
    python bench/mutation.py --module normal --mutant numerics.core.normal.x_cdf__mutmut_39
    python bench/mutation.py --list                           # the configured modules

It prints the number of mutants run, killed, survived (no covering test counts as survived),
timed out, and equivalent (survivors listed in ``bench/mutation/equivalent.toml`` with a
reason), the kill rate over the non-equivalent mutants,
    rate = (killed + timeout) / (run - equivalent),
and each surviving mutant as file:line with its diff.  A sampled run draws its mutants with
``random.Random(seed).sample`` from the sorted mutant names, which mutmut numbers
deterministically from the source: the same sources, seed and N give the same mutants.

Why mutmut 3 and why in-process: its trampolines put every mutant of a file into one copy of
the sources (``mutants/``) and select the mutant by an environment variable, so all mutants
run in children forked from one process that imported torch and the tests once (torch costs
~2 s per process start); a per-module selection of mutants and tests is made here by
overriding mutmut's configuration object ([tool.mutmut] in pyproject.toml) before calling its
``run`` entry, which is why mutmut is pinned.  ``mutants/`` is created afresh at the start
(so that no cached verdict of another selection is reused) and removed at the end unless
``--keep`` (then ``mutmut browse`` and ``mutmut show NAME`` work on it); it is git-ignored.

Exit status: 0, or 1 if mutmut stopped early or the rate is below ``--fail-under PCT``; bad
input prints one line and exits with status 2.
"""
from __future__ import annotations

import argparse
import ast
import os
import random
import shutil
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODULES = ROOT / "bench" / "mutation" / "modules.toml"
EQUIVALENT = ROOT / "bench" / "mutation" / "equivalent.toml"

#: exit codes mutmut records for a mutant (mutmut.stats.status_by_exit_code), grouped
KILLED, TIMEOUT, SURVIVED, NO_TESTS = "killed", "timeout", "survived", "no tests"


class UsageError(Exception):
    """A user's mistake: printed as one line, exit status 2."""


def load_modules() -> dict:
    return tomllib.loads(MODULES.read_text())["modules"]


def load_equivalent() -> list[dict]:
    """The kept list of equivalent mutants: each entry names the module, the function, the
    source line the mutant removes and the line it adds (mutant numbers change when the file
    changes, the text of the mutation does not), and the reason it cannot be killed."""
    if not EQUIVALENT.exists():
        return []
    entries = tomllib.loads(EQUIVALENT.read_text()).get("equivalent", [])
    for e in entries:
        missing = {"module", "function", "removed", "added", "reason"} - set(e)
        if missing:
            raise UsageError(f"{EQUIVALENT}: an entry lacks {', '.join(sorted(missing))}: {e}")
    return entries


def parse_args(argv):
    ap = argparse.ArgumentParser(
        description="Mutation score of one module (mutmut 3): killed, survived, timeout, "
        "equivalent, kill rate over non-equivalent mutants, and the survivors' diffs.")
    ap.add_argument("--module", help="a name of bench/mutation/modules.toml (e.g. binomial) or its path")
    ap.add_argument("--sample", type=int, metavar="N", help="run N mutants drawn by --seed (default: all)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the sample (default 0)")
    ap.add_argument("--mutant", action="append", default=[], metavar="NAME",
                    help="run only this mutant (repeatable; names as printed, e.g. after a survivor's file:line)")
    ap.add_argument("--fail-under", type=float, metavar="PCT",
                    help="exit with status 1 if the kill rate is below PCT percent (for CI)")
    ap.add_argument("--jobs", type=int, default=1, help="parallel mutant workers (default 1: shared machine)")
    ap.add_argument("--keep", action="store_true", help="keep mutants/ afterwards (for mutmut browse/show)")
    ap.add_argument("--list", action="store_true", help="list the configured modules and exit")
    args = ap.parse_args(argv)
    if args.list:
        return args
    if not args.module:
        raise UsageError("--module is required (see --list)")
    if args.sample is not None and args.sample < 1:
        raise UsageError(f"--sample must be >= 1, got {args.sample}")
    if args.mutant and args.sample is not None:
        raise UsageError("--mutant and --sample exclude each other")
    if args.fail_under is not None and not 0 <= args.fail_under <= 100:
        raise UsageError(f"--fail-under must lie in [0, 100], got {args.fail_under}")
    if args.jobs < 1:
        raise UsageError(f"--jobs must be >= 1, got {args.jobs}")
    return args


def resolve_module(name: str, modules: dict) -> tuple[str, dict]:
    for key, spec in modules.items():
        if name in (key, spec["path"]):
            return key, spec
    raise UsageError(f"unknown module {name!r}; configured: {', '.join(modules)}")


def function_line(path: Path, function: str, removed: str) -> int:
    """The line of ``path`` where the mutated text ``removed`` sits inside ``function``
    (a top-level function or a method), or the function's first line if not found."""
    tree = ast.parse(path.read_text())
    lines = path.read_text().splitlines()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == function:
            for i in range(node.lineno - 1, node.end_lineno):
                if removed and lines[i].strip() == removed:
                    return i + 1
            return node.lineno
    return 0


def changed_lines(diff: str) -> tuple[str, str]:
    """The first removed and the first added line of a unified diff, stripped."""
    body = diff.splitlines()[2:]
    removed = next((ln[1:].strip() for ln in body if ln.startswith("-")), "")
    added = next((ln[1:].strip() for ln in body if ln.startswith("+")), "")
    return removed, added


def is_equivalent(module_path: str, function: str, removed: str, added: str, kept: list[dict]):
    for e in kept:
        if (e["module"], e["function"], e["removed"].strip(), e["added"].strip()) == (
                module_path, function, removed, added):
            return e
    return None


def main(argv=None) -> int:
    try:
        args = parse_args(argv)
        modules = load_modules()
        if args.list:
            for key, spec in modules.items():
                full = "" if spec.get("full_run", True) else "  (sampled runs only)"
                print(f"{key:12s} {spec['path']}{full}")
            return 0
        key, spec = resolve_module(args.module, modules)
        missing = [t for t in spec["tests"] if not (ROOT / t.split("::")[0]).exists()]
        if missing:
            raise UsageError(f"module {key}: test paths not found: {', '.join(missing)}")
        kept = load_equivalent()
        import mutmut  # noqa: F401  (the extra: pip install -e '.[mutation]')
    except UsageError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except ImportError:
        print("error: mutmut is not installed: pip install -c constraints.txt -e '.[mutation]'", file=sys.stderr)
        return 2
    return run(key, spec, args, kept)


def run(key: str, spec: dict, args, kept: list[dict]) -> int:
    # One thread per mutant worker (the machine is shared, and forked children must not
    # inherit a busy OpenMP pool); the derandomised Hypothesis profile for reproducibility.
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    os.environ.setdefault("MKL_NUM_THREADS", "1")
    os.environ["MASKVERIFY_PROFILE"] = "ci"
    os.chdir(ROOT)
    work = ROOT / "mutants"
    if work.exists():
        shutil.rmtree(work)

    from mutmut import __main__ as mm
    from mutmut.configuration import config
    from mutmut.mutation.data import SourceFileMutationData
    from mutmut.mutation.diff_apply import get_diff_for_mutant
    from mutmut.stats import status_by_exit_code
    from mutmut.utils.format_utils import orig_function_and_class_names_from_key

    cfg = config()
    cfg.only_mutate = [spec["path"]]
    cfg.pytest_add_cli_args_test_selection = list(spec["tests"])
    try:
        # generate the mutants first, to know their names and draw the sample
        mm.makedirs(work, exist_ok=True)
        with mm.CatchOutput():
            mm.copy_src_dir()
            mm.copy_also_copy_files()
            mm.setup_source_paths()
            mm.create_mutants(1)
        data = SourceFileMutationData(path=Path(spec["path"]))
        data.load()
        names = sorted(data.exit_code_by_key)
        if not names:
            print(f"error: mutmut made no mutants of {spec['path']}", file=sys.stderr)
            return 2
        unknown = sorted(set(args.mutant) - set(names))
        if unknown:
            print(f"error: no such mutant of {spec['path']}: {', '.join(unknown)}", file=sys.stderr)
            return 2
        if args.mutant:
            chosen = sorted(set(args.mutant))
        elif args.sample is None:
            chosen = names
        else:
            chosen = sorted(random.Random(args.seed).sample(names, min(args.sample, len(names))))
        try:
            mm._run(chosen, args.jobs)
        except SystemExit as e:
            if e.code:
                print(f"error: mutmut stopped (exit {e.code}) before testing the mutants", file=sys.stderr)
                return 1
        data = SourceFileMutationData(path=Path(spec["path"]))
        data.load()
        counts = {KILLED: 0, TIMEOUT: 0, SURVIVED: 0, NO_TESTS: 0, "other": 0}
        survivors, equivalent = [], []
        for name in chosen:
            status = status_by_exit_code[data.exit_code_by_key.get(name)]
            if status in (KILLED, TIMEOUT):
                counts[status] += 1
                continue
            if status not in (SURVIVED, NO_TESTS):
                counts["other"] += 1
                print(f"  {name}: {status}")
                continue
            counts[status] += 1
            diff = get_diff_for_mutant(name, path=spec["path"])
            function, _cls = orig_function_and_class_names_from_key(name)
            removed, added = changed_lines(diff)
            entry = is_equivalent(spec["path"], function, removed, added, kept)
            line = function_line(ROOT / spec["path"], function, removed)
            (equivalent if entry else survivors).append((name, status, line, diff, entry))
    finally:
        if not args.keep and work.exists():
            shutil.rmtree(work)

    run_n = len(chosen)
    denom = run_n - len(equivalent)
    rate = (counts[KILLED] + counts[TIMEOUT]) / denom if denom else float("nan")
    if args.mutant:
        sample = f"{run_n} named of {len(names)}"
    elif args.sample:
        sample = f"sample {run_n} of {len(names)} (seed {args.seed})"
    else:
        sample = f"all {len(names)}"
    print()
    print(f"mutation score of {spec['path']} ({key}): {sample} mutants")
    print(f"  run {run_n}  killed {counts[KILLED]}  timeout {counts[TIMEOUT]}  "
          f"survived {counts[SURVIVED]}  no tests {counts[NO_TESTS]}  other {counts['other']}  "
          f"equivalent {len(equivalent)}")
    print(f"  kill rate over non-equivalent mutants: {rate:.1%} "
          f"({counts[KILLED] + counts[TIMEOUT]}/{denom})")
    for title, rows in (("surviving mutants", survivors), ("equivalent (bench/mutation/equivalent.toml)", equivalent)):
        if not rows:
            continue
        print(f"\n{title}:")
        for name, status, line, diff, entry in rows:
            print(f"--- {spec['path']}:{line}  {name}  [{status}]")
            if entry:
                print(f"    reason: {entry['reason']}")
            print("\n".join("    " + ln for ln in diff.splitlines()[2:]))
    if args.fail_under is not None and not rate * 100 >= args.fail_under:
        print(f"\nkill rate {rate:.1%} is below --fail-under {args.fail_under}%")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
