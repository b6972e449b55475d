"""The ``maskverify`` command line."""
from __future__ import annotations

import argparse
import sys

EPILOG = """\
Witness columns: symbolic (SymPy derivation), reference (mpmath quadrature of the raw
definition, >= 30 digits), certified (python-flint ball arithmetic), fast (float64
numpy/torch kernels vs mpmath), montecarlo (raw Gaussian masks, z-test), property
(Hypothesis invariants and relations), latex (export).  A cell reads 'ok N' (N tests
passed), 'FAIL k/N', 'finding N' (an expected failure recorded in notes/errata.md:
the paper is wrong there) or '-' (no such witness for that statement).
"""


def _check(args) -> int:
    from . import checkrun

    code, results = checkrun.run(deep=args.deep, select=args.k, progress=not args.no_progress)
    if code in (2, 3, 4):  # interrupted, internal error, usage error: no table to show
        print(f"maskverify check: pytest could not run the catalogue (exit code {code})", file=sys.stderr)
        return 2
    rows = checkrun.table(results)
    print(checkrun.format_table(rows))
    failed = [r for r in results if r.outcome in ("failed", "error", "xpass")]
    for r in failed:
        print(f"\nFAILED {r.nodeid}\n  {r.message or ''}")
    n = len(results)
    print(f"\n{n} witness tests: {sum(r.outcome == 'passed' for r in results)} passed, "
          f"{len(failed)} failed, {sum(r.outcome == 'xfail' for r in results)} recorded findings, "
          f"{sum(r.outcome == 'skipped' for r in results)} skipped"
          + (" (deep tier)" if args.deep else " (default tier; --deep for the slow tier)"))
    if args.json:
        checkrun.write_json(args.json, code, results, rows)
        print(f"wrote {args.json}")
    if code not in (0, 5):  # 5: nothing selected
        return 1
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="maskverify",
        description="Check the theorems of 'Convergence Analysis of Two-Layer Neural Networks "
                    "under Gaussian Input Masking' symbolically and numerically.")
    sub = parser.add_subparsers(dest="command", required=True)
    check = sub.add_parser(
        "check", help="run the verification catalogue and print one row per statement",
        description="Run every witness of every statement in the catalogue (the tests in "
                    "verify/) and print a table: statement id, paper reference, each "
                    "witness's outcome, worst relative error, digits of agreement.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    check.add_argument("--json", metavar="FILE", help="also write the results as JSON to FILE")
    check.add_argument("--deep", action="store_true",
                       help="include the slow tier (high precision, large Monte Carlo, long "
                            "Hypothesis campaigns); takes several minutes")
    check.add_argument("-k", metavar="EXPR", help="only tests matching this pytest -k expression")
    check.add_argument("--no-progress", action="store_true", help="no progress bar")
    check.set_defaults(func=_check)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
