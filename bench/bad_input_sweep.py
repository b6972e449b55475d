"""A sweep of careless invocations of every ``maskverify`` subcommand, run as a user runs them.

Each invocation is a fresh ``python -m numerics.app.cli ...`` process in an empty working folder,
with a time limit; the classes (issue 35):

- every numeric option of every subcommand, found by walking the parser, given values no type
  admits (not a number, NaN, infinite, below its least value, past a machine limit);
- every output option given a path that cannot be written (/proc, an existing thing of the other
  kind, a file's child, the empty path);
- unknown and malformed ids (papers, campaigns, packs, -k expressions) and bad data files;
- damaged stores and checkpoints given to --resume (a record cut short, emptied, of another
  shape; a torn checkpoint.pt; a file of runs that is not JSON), which must be set aside and rerun;
- SIGINT at seeded moments of a real run, which must end with status 130.

An invocation passes when it ends as its class requires -- exit 2 with one line on stderr (130 for
an interrupt, 0 with the damaged record set aside for a resume) -- with no traceback, within the
time limit, and nothing written into the working folder but Hypothesis' own cache (``.hypothesis/``:
its cache of the source's constants, and the fuzz example database there by design), which is
counted apart.  The summary counts tracebacks, hangs, wrong exit codes, messages of more than one
line, and stray files; ``--json`` writes every invocation's outcome.  About 20 minutes on 2 idle
cores (each process imports torch; 41 min on the loaded machine of 2026-12-03).

    python bench/bad_input_sweep.py [-n WORKERS] [--json FILE] [--limit N] [--only CLASS ...]
"""
from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 120.0

#: a valid command line for each subcommand, so that the one bad option is what is judged
BASE = {
    "papers": ["papers"],
    "check": ["check", "--paper", "masking", "--no-progress"],
    "figures": ["figures", "--paper", "masking", "--out", "{tmp}/figs", "--quick", "--no-progress"],
    "fuzz": ["fuzz", "masking:cor.5.3", "--examples", "2", "--no-progress", "--workers", "0"],
    "latex": ["latex", "--paper", "masking", "--out", "{tmp}/latex"],
    "notes": ["notes", "--check"],
    "new": ["new", "toyx", "--title", "T", "--authors", "A", "--reference", "R", "--dist", "{tmp}/dist"],
    "report": ["report", "--paper", "masking", "--out", "{tmp}/rep", "--no-progress"],
    "bounds": ["bounds", "--n", "5", "--d", "3", "--m", "4"],
    "train": ["train", "--steps", "1", "--seeds", "1", "--no-progress", "--out", "{tmp}/train"],
    "privacy": ["privacy", "--no-progress", "--out", "{tmp}/privacy"],
    "amplification-train": ["amplification-train", "--no-progress", "--out", "{tmp}/amp"],
    "meanfield-train": ["meanfield-train", "--no-progress", "--out", "{tmp}/mf"],
    "meanfield-exp2": ["meanfield-exp2", "--no-progress", "--out", "{tmp}/e2"],
    "meanfield-exp3": ["meanfield-exp3", "--no-progress", "--out", "{tmp}/e3"],
}
BAD_PATHS = {"folder": ["/proc/maskverify-x", "{tmp}/a-file", "{tmp}/a-file/child", ""],
             "file": ["/proc/maskverify-x", "{tmp}/a-dir", "{tmp}/a-file/child", ""]}


@dataclass
class Case:
    klass: str
    argv: list[str]
    expect: int = 2                       # the exit status the class requires
    setup: str | None = None              # a damage to make before the run (``_setup``)
    sigint_at: float | None = None        # seconds after the start
    must_say: str | None = None           # a phrase the output must hold
    outcome: dict = field(default_factory=dict)


def _replace_option(argv, option, value):
    """``argv`` with ``option``'s value set to ``value`` (appended when absent)."""
    out, skip = [], False
    for i, a in enumerate(argv):
        if skip:
            skip = False
            continue
        if a == option:
            skip = True
            continue
        out.append(a)
    return out + [option, value]


def numeric_cases() -> list[Case]:
    sys.path.insert(0, str(ROOT))
    from numerics.app.cli import build_parser

    sub = next(a for a in build_parser()._actions if a.dest == "command")
    cases = []
    for name, parser in sub.choices.items():
        base = BASE[name]
        for action in parser._actions:
            if not action.option_strings or action.type is None:
                continue
            opt = next((o for o in action.option_strings if o.startswith("--")), action.option_strings[0])
            kind = getattr(action.type, "__name__", "")
            if kind.startswith("integer >= "):
                lo = int(kind.split()[-1])
                values = ["abc", "1.5", "", str(lo - 1), "1e20"]
                if opt in ("--workers", "--cluster-workers") or (opt == "-n"):
                    values.append("100000")
            elif kind == "number":
                values = ["abc", "nan", "inf", "-inf", ""]
            elif kind in BAD_PATHS:
                values = BAD_PATHS[kind]
            else:
                continue
            for v in values:
                cases.append(Case(f"{'path' if kind in BAD_PATHS else 'number'}:{name}", _replace_option(base, opt, v)))
    return cases


def named_cases() -> list[Case]:
    c = [
        *(Case("id", [cmd, "--paper", "no-such-paper", *extra]) for cmd, extra in (
            ("papers", []), ("check", []), ("figures", ["--out", "{tmp}/f"]), ("latex", ["--out", "{tmp}/l"]),
            ("notes", ["--check"]), ("report", ["--out", "{tmp}/r"]))),
        Case("id", ["fuzz", "masking:no-such-campaign"]), Case("id", ["fuzz", "other-paper:thm.4.2"]),
        Case("id", ["fuzz", ""]), Case("id", ["fuzz", "nope"]), Case("id", ["fuzz", ":"]),
        Case("id", ["fuzz", "meanfield:thm.4.2"]),
        Case("id", ["new", "Bad-Id", "--title", "T", "--authors", "A", "--reference", "R"]),
        Case("id", ["new", "masking", "--title", "T", "--authors", "A", "--reference", "R"]),
        Case("id", ["new", "core", "--title", "T", "--authors", "A", "--reference", "R"]),
        Case("id", ["new", "toy", "--title", "", "--authors", "A", "--reference", "R"]),
        Case("id", ["check", "-k", "and or (", "--no-progress"]), Case("id", ["check", "-k", "(", "--no-progress"]),
        Case("id", ["check", "--paper", "masking", "-k", "no_test_is_called_this", "--no-progress", "-n", "1"]),
        Case("id", ["report", "-k", "x and (", "--out", "{tmp}/r"]),
        Case("id", ["figures", "--paper", "masking", "--out", "{tmp}/f", "--only", "no-such-figure"]),
        Case("id", ["figures", "--out", "{tmp}/f"]), Case("id", ["no-such-command"]),
        Case("data", ["bounds", "--data", "{tmp}/missing.npz"]), Case("data", ["bounds", "--data", "{tmp}/a-file"]),
        Case("data", ["bounds", "--data", "{tmp}/a-dir"]), Case("data", ["bounds", "--data", "{tmp}/cut.npz"]),
        Case("data", ["bounds", "--data", "{tmp}/nokey.npz"]), Case("data", ["bounds", "--data", "{tmp}/objects.npz"]),
        Case("data", ["bounds", "--data", "{tmp}/parallel.npz"]),
        Case("data", ["privacy", "attack", "--data", "{tmp}/no-cifar-here", "--out", "{tmp}/p"]),
        Case("data", ["privacy", "attack", "--data", "{tmp}/a-file", "--out", "{tmp}/p"]),
        Case("domain", ["bounds", "--n", "20", "--d", "5", "--m", "10", "--kappa", "1e308"]),
        Case("domain", ["bounds", "--n", "20", "--d", "5", "--m", "10", "--kappa", "1e200"]),
        Case("domain", ["train", "--kappa", "1e300", "--steps", "1", "--seeds", "1", "--out", "{tmp}/t", "--no-progress"]),
        *(Case("size", argv) for argv in (
            ["fuzz", "masking:cor.5.3", "--examples", "99999999999999999999999", "--workers", "0"],
            ["fuzz", "masking:cor.5.3", "--examples", "100000000", "--chunk", "1", "--workers", "0"],
            ["train", "--m", "99999999999", "--out", "{tmp}/t", "--no-progress"],
            ["train", "--n", "99999999999", "--out", "{tmp}/t", "--no-progress"],
            ["bounds", "--m", "99999999999"], ["bounds", "--d", "99999999999"], ["bounds", "--n", "99999999999"],
            ["amplification-train", "--m", "99999999998", "--out", "{tmp}/a", "--no-progress"],
            ["amplification-train", "--d", "99999999999", "--out", "{tmp}/a", "--no-progress"],
            ["meanfield-train", "--m", "99999999998", "--out", "{tmp}/m"],
            ["meanfield-exp2", "--m", "99999999998", "--out", "{tmp}/e2", "--no-progress"],
            ["meanfield-exp3", "--m", "99999999998", "--out", "{tmp}/e3", "--no-progress"])),
    ]
    store = ["fuzz", "masking:cor.5.3", "--examples", "4", "--chunk", "2", "--seed", "0", "--workers", "0",
             "--store", "{tmp}/st", "--no-progress", "--resume"]
    for damage in ("cut", "empty", "not-a-record", "list", "null-result", "foreign-key", "partial-torn"):
        c.append(Case("store", store, expect=0, setup=f"store:{damage}", must_say="set aside"
                      if damage != "partial-torn" else None))
    for damage in ("empty", "text", "zip-cut"):
        c.append(Case("store", ["train", "--out", "{tmp}/tr", "--resume", "--steps", "1", "--seeds", "1", "--no-progress"],
                      setup=f"checkpoint:{damage}", must_say="start afresh"))
    rng = random.Random(35)
    for t in sorted(rng.uniform(2.0, 9.0) for _ in range(6)):
        c.append(Case("sigint", ["fuzz", "masking:cor.5.3", "--examples", "300", "--chunk", "100", "--seed", "0",
                                 "--workers", "0", "--store", "{tmp}/si", "--no-progress"], expect=130, sigint_at=t))
    return c


def _setup(case: Case, tmp: Path, env) -> None:
    """The files a case needs: a file and a folder to misuse, bad .npz files, a damaged store."""
    import numpy as np

    (tmp / "a-file").write_text("x")
    (tmp / "a-dir").mkdir()
    np.savez(tmp / "good.npz", X=np.eye(3), y=np.ones(3))
    (tmp / "cut.npz").write_bytes((tmp / "good.npz").read_bytes()[:100])
    np.savez(tmp / "nokey.npz", Z=np.ones(3))
    np.savez(tmp / "objects.npz", X=np.array([{}], dtype=object), y=np.ones(1))
    np.savez(tmp / "parallel.npz", X=np.ones((3, 2)), y=np.ones(3))
    if case.setup is None:
        return
    what, damage = case.setup.split(":")
    if what == "store":
        first = [a.replace("{tmp}", str(tmp)) for a in case.argv if a != "--resume"]
        subprocess.run([sys.executable, "-m", "numerics.app.cli", *first], cwd=tmp / "cwd", env=env,
                       capture_output=True, timeout=TIMEOUT, check=True)
        rec = sorted((tmp / "st").glob("*.json"))[0]
        text = rec.read_text()
        body = json.loads(text)
        if damage == "partial-torn":
            (tmp / "st" / "partial").mkdir(exist_ok=True)
            (tmp / "st" / "partial" / rec.name).write_text('{"step": 1, "to')
            rec.unlink()
            return
        rec.write_text({"cut": text[: len(text) // 2], "empty": "", "not-a-record": '{"not": "a record"}',
                        "list": "[1, 2, 3]", "null-result": json.dumps({**body, "result": None}),
                        "foreign-key": json.dumps({**body, "params": {**body["params"], "task": 99}})}[damage])
    elif what == "checkpoint":
        (tmp / "tr").mkdir()
        (tmp / "tr" / "checkpoint.pt").write_bytes({"empty": b"", "text": b"not a checkpoint",
                                                    "zip-cut": b"PK\x03\x04\x14\x00cut"}[damage])


def run_case(case: Case) -> Case:
    with tempfile.TemporaryDirectory(prefix="mv-sweep-") as d:
        tmp = Path(d)
        (tmp / "cwd").mkdir()
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        _setup(case, tmp, env)
        before = set(p.name for p in tmp.iterdir())
        argv = [a.replace("{tmp}", str(tmp)) for a in case.argv]
        t0 = time.monotonic()
        proc = subprocess.Popen([sys.executable, "-m", "numerics.app.cli", *argv], cwd=tmp / "cwd", env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        hung = False
        try:
            if case.sigint_at is not None:
                time.sleep(case.sigint_at)
                if proc.poll() is None:
                    proc.send_signal(signal.SIGINT)
            out, err = proc.communicate(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
            hung = True
        lines = [ln for ln in err.replace("\r", "\n").splitlines() if ln.strip() and "%|" not in ln]
        stray = sorted(p.name for p in (tmp / "cwd").iterdir() if p.name != ".hypothesis")
        cache = (tmp / "cwd" / ".hypothesis").exists()
        code = proc.returncode
        finished_anyway = case.sigint_at is not None and code == 0  # the signal came after the work
        ok_code = code == case.expect or finished_anyway
        problems = []
        if hung:
            problems.append("hang")
        if "Traceback" in err:
            problems.append("traceback")
        if not hung and not ok_code:
            problems.append(f"exit {code}")
        if case.expect == 2 and len(lines) != 1:
            problems.append(f"{len(lines)} lines")
        if case.must_say and case.must_say not in out + err:
            problems.append(f"does not say {case.must_say!r}")
        if stray:
            problems.append("wrote into the working folder")
        if case.expect == 2 and not hung:
            made = sorted(set(p.name for p in tmp.iterdir()) - before)
            if made:
                problems.append(f"wrote {made}")
        case.outcome = {"exit": code, "seconds": round(time.monotonic() - t0, 2), "problems": problems,
                        "hypothesis_cache": cache,
                        "stderr": (lines[-1] if lines else "")[:300]}
    return case


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", "--workers", type=int, default=2, help="invocations at once (default 2)")
    ap.add_argument("--json", metavar="FILE", help="write every invocation and its outcome")
    ap.add_argument("--limit", type=int, default=None, help="only the first N invocations")
    ap.add_argument("--only", nargs="+", metavar="CLASS", help="only these classes (number path id data domain size "
                                                                  "store sigint)")
    args = ap.parse_args(argv)
    cases = numeric_cases() + named_cases()
    cases = [c for c in cases if c.klass.split(":")[0] in args.only] if args.only else cases
    cases = cases[: args.limit] if args.limit else cases
    t0 = time.monotonic()
    done = 0
    with ThreadPoolExecutor(args.workers) as pool:
        for case in pool.map(run_case, cases):
            done += 1
            if case.outcome["problems"]:
                print(f"[{done}/{len(cases)}] {case.klass}: {' '.join(case.argv)!r}: {', '.join(case.outcome['problems'])}"
                      f" -- {case.outcome['stderr']}", flush=True)
            elif done % 25 == 0:
                print(f"[{done}/{len(cases)}] ...", flush=True)
    bad = [c for c in cases if c.outcome["problems"]]
    tally: dict[str, int] = {}
    for c in bad:
        for p in c.outcome["problems"]:
            key = p.split()[0] if p.startswith(("exit", "wrote")) else p
            tally[key] = tally.get(key, 0) + 1
    classes: dict[str, int] = {}
    for c in cases:
        k = c.klass.split(":")[0]
        classes[k] = classes.get(k, 0) + 1
    print(f"\n{len(cases)} invocations ({', '.join(f'{k} {v}' for k, v in classes.items())}) in "
          f"{time.monotonic() - t0:.0f} s: {len(cases) - len(bad)} as required, {len(bad)} not"
          + (f" ({', '.join(f'{k} {v}' for k, v in tally.items())})" if tally else "")
          + f"; {sum(c.outcome['hypothesis_cache'] for c in cases)} left Hypothesis' .hypothesis/ cache")
    if args.json:
        Path(args.json).write_text(json.dumps([asdict(c) for c in cases], indent=1))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
