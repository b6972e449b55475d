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
    tests = {r.nodeid: r for r in results}.values()  # a test witnessing several statements counts once
    failed = [r for r in tests if r.outcome in ("failed", "error", "xpass")]
    for r in failed:
        print(f"\nFAILED {r.nodeid}\n  {r.message or ''}")
    print(f"\n{len(tests)} witness tests: {sum(r.outcome == 'passed' for r in tests)} passed, "
          f"{len(failed)} failed, {sum(r.outcome == 'xfail' for r in tests)} recorded findings, "
          f"{sum(r.outcome == 'skipped' for r in tests)} skipped"
          + (" (deep tier)" if args.deep else " (default tier; --deep for the slow tier)"))
    if args.json:
        checkrun.write_json(args.json, code, results, rows)
        print(f"wrote {args.json}")
    if code not in (0, 5):  # 5: nothing selected
        return 1
    return 0


def _figures(args) -> int:
    from . import figures

    panels = figures.make_all(args.out, samples=args.samples, seed=args.seed, points=args.points,
                              progress=not args.no_progress)
    for p in panels:
        print(f"{p.name}: " + ", ".join(str(f) for f in p.files))
        for key in ("z_mc_vs_sigma_tilde", "z_mc_vs_sigma_hat"):
            if key in p.meta:
                print(f"  MC {key[5:].replace('_', ' ')}: {figures.describe(p.meta[key])}")
    return 0


def _fuzz(args) -> int:
    from . import fuzzing

    if args.id not in fuzzing.CAMPAIGNS:
        print(f"maskverify fuzz: unknown campaign {args.id!r}; known ids: {', '.join(fuzzing.CAMPAIGNS)}",
              file=sys.stderr)
        return 2
    result = fuzzing.run(args.id, examples=args.examples, seed=args.seed, deep=args.deep,
                         progress=not args.no_progress)
    print(fuzzing.format_result(result))
    if args.json:
        fuzzing.write_json(args.json, result)
        print(f"wrote {args.json}")
    return 1 if (result.failed or result.error) else 0


def count(lo: int):
    """An argparse type: an integer >= lo."""
    def parse(text: str) -> int:
        try:
            n = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if n < lo:
            raise argparse.ArgumentTypeError(f"must be >= {lo}, got {n}")
        return n
    return parse


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

    figs = sub.add_parser(
        "figures", help="redraw the paper's Figs. 1(a), 1(b), 2(a), 2(b) with Monte Carlo z-tests",
        description="Redraw the paper's Figures 1 and 2 (smoothed ReLU under Gaussian input\n"
                    "masking: the exact expectation sigma_tilde, the proxy sigma_hat of Theorem 4.2,\n"
                    "and a Monte Carlo over raw masks) as PNG and PDF, with their data.",
        epilog=(
            "Produces, in DIR, for NAME in fig1a fig1b fig2a fig2b: NAME.png, NAME.pdf, NAME.csv\n"
            "(the plotted columns) and NAME.json (the columns, the construction of w and x, the\n"
            "settings, and the max |z-score| of the Monte Carlo against sigma_tilde and sigma_hat\n"
            "with its Bonferroni bound at family-wise false-alarm rate 1e-6).  Written atomically.\n\n"
            "  fig1a  proxy sigma_hat = z Phi(z/kappa) (solid), exact sigma_tilde (dashed) vs z at\n"
            "         ||w . x|| = 1, kappa in {0.01, 0.1, 0.2, 0.5, 1}; ReLU dotted (paper Fig. 1(a))\n"
            "  fig1b  sigma_hat, sigma_tilde and Monte Carlo E_c[ReLU(w^T (x . c))] vs kappa in\n"
            "         [0.01, 2] at w^T x = 0.77, ||w . x|| = 1; lower panel MC - theory (Fig. 1(b))\n"
            "  fig2a  exact sigma_tilde vs Monte Carlo at kappa = 0.2, P points z in [-2.1, 2.1]\n"
            "         (Fig. 2(a))\n"
            "  fig2b  proxy sigma_hat vs the same Monte Carlo; the gap s varphi(z/s), 0.0798 at\n"
            "         z = 0, is the term Remark 4.4 drops (Fig. 2(b))\n\n"
            "The Monte Carlo samples raw masks c ~ N(1, kappa^2 I) (seeded), never a closed form;\n"
            "points with fewer than 100 expected positive pre-activations are not z-tested.\n"),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    figs.add_argument("--out", metavar="DIR", required=True, help="output directory (created if missing)")
    figs.add_argument("--samples", metavar="N", type=count(2), default=200_000,
                      help="Monte Carlo masks per point (default 200000, as the paper's script)")
    figs.add_argument("--seed", metavar="S", type=count(0), default=0, help="random seed (default 0)")
    figs.add_argument("--points", metavar="P", type=count(2), default=400,
                      help="points of z in [-2.1, 2.1] for Figs. 1(a) and 2 (default 400)")
    figs.add_argument("--no-progress", action="store_true", help="no progress bar")
    figs.set_defaults(func=_figures)

    from . import fuzzing
    fuzz = sub.add_parser(
        "fuzz", help="fuzz one inequality of the catalogue with Hypothesis; exit 1 on a counterexample",
        description="Run a Hypothesis campaign on one inequality lhs <= rhs of the catalogue: draw\n"
                    "examples over the whole domain its hypotheses allow (recorded in the output),\n"
                    "evaluate ratio = lhs/rhs (> 1 means the inequality fails), push it up with\n"
                    "hypothesis.target(), and on the first failure let Hypothesis shrink it to a\n"
                    "minimal counterexample.",
        epilog=(
            "Campaigns (ID):\n" + fuzzing.describe_campaigns() + "\n\n"
            "Output: the statement, the domain covered, the seed, examples tried and how many were\n"
            "valid (judged: the statement's hypothesis holds and the left side is resolved, as the\n"
            "campaign says), the worst ratio with the example where it occurred (JSON) and a\n"
            "reproducer; on failure the shrunk counterexample as JSON and a one-line reproducer: a\n"
            "Python expression that evaluates to its ratio with the library's public functions\n"
            "(e.g. python -c 'print(EXPR)').\n\n"
            "Without --seed, examples are drawn at random and the campaign resumes: it replays,\n"
            f"then updates, the example database {fuzzing.DATABASE_DIR} (under the working\n"
            "directory), so the last counterexample found, and the best examples for target(),\n"
            "come first.  With --seed S the run is reproducible: the same examples every time,\n"
            "and (as Hypothesis does for @seed) the database is neither read nor written.\n"
            "--json FILE writes the full result (the fields above, the details of the worst and\n"
            "shrunk examples, timings) atomically.\n\n"
            "Exit status: 0 no counterexample (always 0 for a campaign without a threshold);\n"
            "1 the inequality failed (or its evaluation raised on an example of the domain: a bug,\n"
            "reported with the shrunk example and a reproducer); 2 bad usage (unknown ID: the\n"
            "known ids are listed).\n"),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    fuzz.add_argument("id", metavar="ID", help="campaign id: " + ", ".join(fuzzing.CAMPAIGNS))
    fuzz.add_argument("--examples", metavar="N", type=count(1), default=None,
                      help="examples to try (default: the campaign's, listed below; 10x with --deep)")
    fuzz.add_argument("--seed", metavar="S", type=count(0), default=None,
                      help="seed: a reproducible run that ignores the example database (default: "
                           "random draws that resume from the database)")
    fuzz.add_argument("--deep", action="store_true",
                      help="a long campaign: 10x the default examples and, where the campaign has one, a "
                           "wider domain (n, m, d up to 5, weights over 12 orders of magnitude, kappa to 100)")
    fuzz.add_argument("--json", metavar="FILE", help="also write the result as JSON to FILE (atomically)")
    fuzz.add_argument("--no-progress", action="store_true", help="no progress bar")
    fuzz.set_defaults(func=_fuzz)

    from . import bounds, latex_cmd, report, train_cmd
    for module in (bounds, train_cmd, latex_cmd, report):
        module.add_subcommand(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
