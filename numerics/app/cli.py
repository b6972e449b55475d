"""The ``maskverify`` command line: the application's subcommands (``papers``, ``check``,
``figures``, ``fuzz``, ``latex``, ``lint``, ``new``, ``notes``, ``report``) and those the packs add (``PaperPack.commands``).

Bad input is answered with one line on stderr and exit status 2, never a traceback: the
parser's own errors (``Parser.error``) and every ``UsageError`` a subcommand raises.
"""
from __future__ import annotations

import argparse
import json
import sys

from numerics.core.cliargs import UsageError, add_paper_argument, count, output, papers

EPILOG = """\
Witness columns: symbolic (SymPy derivation), reference (mpmath quadrature of the raw
definition, >= 30 digits), certified (python-flint ball arithmetic), fast (float64
numpy/torch kernels vs mpmath), montecarlo (raw randomness sampled, z-test), property
(Hypothesis invariants and relations), dynamics (training runs), latex (export).  A cell
reads 'ok N' (N tests passed), 'FAIL k/N', 'finding N' (an expected failure recorded in the
pack's errata: the paper is wrong there) or '-' (no such witness for that statement).
Statement ids are qualified by their paper: masking:thm.4.2.

Status (DESIGN.md, "Verdicts"): 'holds' / 'supported' (an empirical claim) when an
evidential witness -- every kind but latex -- passed and judged something, none failed and
no finding is recorded; 'finding' / 'not supported' when the pack's errata record one;
'fails' when an evidential witness failed; 'not checked in this tier' when only the slow
tier, a fuzz campaign or a command checks it (the reason says which); 'not checked' when
nothing does (the reason is the statement's).  A LaTeX round trip alone is no evidence.
"""


class Parser(argparse.ArgumentParser):
    """argparse with a one-line error: ``maskverify check: error: ... (see --help)``."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _count(n: int, noun: str) -> str:
    """``1 finding``, ``2 findings``, ``0 findings``."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _papers(args) -> int:
    from numerics.core import errata, registry

    for pid, path in registry.unregistered().items():
        print(f"maskverify papers: warning: {pid!r} is declared in {path} but not installed (left out "
              f"below): run `{registry.install_command(path)}`", file=sys.stderr)
    chosen = papers(args)
    rows = []
    for pack in chosen:
        found = errata.load(pack)
        rows.append({"id": pack.id, "title": pack.title, "authors": list(pack.paper.authors),
                     "reference": pack.paper.reference, "statements": len(pack.paper.statements),
                     "findings": len(found), "campaigns": [pack.paper.qualify(c.id) for c in pack.campaigns],
                     "figures": [f.name for f in pack.figures], "verify_dir": str(pack.verify_dir)})
    from . import checkrun, coverage

    for row, pack, catalogue in zip(rows, chosen, checkrun.static_verdicts(chosen)):
        row["statement_list"] = catalogue
        row["coverage"] = coverage.from_statement_rows(pack, catalogue)
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    for r in rows:
        print(f"{r['id']}: {r['title']} ({', '.join(r['authors'])}; {r['reference']})\n"
              f"  {_count(r['statements'], 'statement')}, {_count(r['findings'], 'finding')}; campaigns: "
              f"{', '.join(r['campaigns']) or 'none'}; figures: {', '.join(r['figures']) or 'none'}\n"
              f"  {r['coverage']['line']}")
    return 0


def _check(args) -> int:
    from . import checkrun, coverage

    chosen = papers(args)
    code, results = checkrun.run(chosen, deep=args.deep, select=args.k, progress=not args.no_progress,
                                 workers=args.workers)
    if code == 5 or (code == 0 and not results):
        raise UsageError(f"no witness test matches{' -k ' + repr(args.k) if args.k else ''} in "
                         + ", ".join(p.id for p in chosen))
    if code in (3, 4) or (code == 2 and not results):  # internal or usage error, interrupted: no table
        print(f"maskverify check: pytest could not run the catalogue (exit code {code})", file=sys.stderr)
        return 2
    rows = checkrun.table(results, chosen)
    checkrun.judge_rows(rows, results, chosen, deep=args.deep)
    print(checkrun.format_table(rows))
    tests = {r.nodeid: r for r in results}.values()  # a test witnessing several statements counts once
    failed = [r for r in tests if r.outcome in ("failed", "error", "xpass")]
    for r in failed:
        print(f"\nFAILED {r.nodeid}\n  {r.message or ''}")
    print(f"\n{len(tests)} witness tests: {sum(r.outcome == 'passed' for r in tests)} passed, "
          f"{len(failed)} failed, {sum(r.outcome == 'xfail' for r in tests)} recorded findings, "
          f"{sum(r.outcome == 'skipped' for r in tests)} skipped"
          + (" (deep tier)" if args.deep else " (default tier; --deep for the slow tier)"))
    print(checkrun.status_line(rows))
    covs = coverage.from_rows(chosen, rows)
    print("\nCoverage of the papers (their source indexes; maskverify report lists every result):")
    print("\n".join(coverage.lines(covs)))
    if args.json:
        checkrun.write_json(args.json, code, results, rows, covs)
        print(f"wrote {args.json}")
    return 0 if code == 0 else 1


def _figures(args) -> int:
    from pathlib import Path

    (pack,) = papers(args) if args.paper else _only_pack("figures")
    names = [f.name for f in pack.figures]
    chosen = names if args.only is None else [n.strip() for n in args.only.split(",") if n.strip()]
    unknown = [n for n in chosen if n not in names]
    if unknown or not chosen:
        raise UsageError(f"unknown figure(s) {', '.join(unknown) or '(none given)'} in {pack.id}; "
                         f"known: {', '.join(names) or 'none'}")
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    for fig in pack.figures:
        if fig.name in chosen:
            files = fig.produce(out, args.quick, not args.no_progress, args.seed)
            print(f"{pack.id}:{fig.name}: " + ", ".join(str(f) for f in files))
    return 0


def _only_pack(command: str):
    from numerics.core import registry

    packs = registry.select(None)
    if len(packs) != 1:
        raise UsageError(f"{command} needs --paper ID (one of {', '.join(p.id for p in packs)})")
    return packs


def _campaign(args):
    """The pack and campaign ``args.id`` names: a qualified id, a short one with ``--paper``, or a
    short one that exactly one installed pack has a campaign of (the packs that have it are listed
    when several do; every campaign when none does)."""
    from numerics.core import registry

    every = [pack.paper.qualify(c.id) for pack in registry.select(None) for c in pack.campaigns]
    if not args.id.strip():
        raise UsageError(f"an empty campaign id; known: {', '.join(every) or 'none'}")
    if registry.SEP not in args.id and args.paper is None:
        having = [q for q in every if q.split(registry.SEP, 1)[1] == args.id]
        if len(having) > 1:
            raise UsageError(f"{args.id!r} is a campaign of several papers: qualify it ({', '.join(having)})")
        if not having:
            raise UsageError(f"no fuzz campaign {args.id!r}; known: {', '.join(every) or 'none'}")
        args.id = having[0]
    try:
        pack, short = registry.split(args.id, args.paper)
        return pack, pack.campaign(short)
    except KeyError as exc:
        raise UsageError(exc.args[0]) from None


def _fuzz(args) -> int:
    from numerics.core import execution, fuzzing

    from . import fuzz_cmd

    pack, campaign = _campaign(args)
    try:
        result = fuzz_cmd.run_tasks(pack.paper.qualify(campaign.id), campaign, args)
    except execution.TasksFailed as exc:
        print(f"maskverify fuzz: {exc}", file=sys.stderr)
        return 1
    print(fuzzing.format_result(result))
    if result.failed:
        print(_recorded_line(pack, campaign, result.shrunk_counterexample))
    if args.json:
        fuzzing.write_json(args.json, result)
        print(f"wrote {args.json}")
    return 1 if (result.failed or result.error) else 0


def _recorded_line(pack, campaign, example) -> str:
    """Whether the pack's errata record a counterexample of ``campaign`` (``errata.covering``)."""
    from numerics.core import errata

    found = errata.covering(errata.load(pack), campaign, example)
    if not found:
        return ("no erratum of the pack covers this counterexample: a new failure of the statement "
                "(or record it in the errata, [[erratum.covers]])")
    whens = [next(c.when for c in e.covers if c.campaign == campaign.id) for e in found]
    return "recorded by " + "; ".join(f"{e.qualified} ({w})" for e, w in zip(found, whens))


def _fuzz_epilog() -> str:
    from numerics.core import fuzzing, registry

    parts = []
    for pack in registry.select(None):
        if pack.campaigns:
            parts.append(f"Campaigns of {pack.id} (ID {pack.id}:NAME):\n"
                         + fuzzing.describe_campaigns(pack.campaigns))
    return "\n\n".join(parts) + f"""

Output: the statement, the domain covered, the seed, examples tried and how many were
valid (judged: the statement's hypothesis holds and the left side is resolved, as the
campaign says), the worst ratio with the example where it occurred (JSON) and a
reproducer; on failure the shrunk counterexample as JSON and a one-line reproducer: a
Python expression that evaluates to its ratio with the library's public functions
(e.g. python -c 'print(EXPR)').

Without --seed, examples are drawn at random and the campaign resumes: it replays,
then updates, the example database {fuzzing.DATABASE_DIR} (under the working
directory), so the last counterexample found, and the best examples for target(),
come first.  With --seed S the run is reproducible: the same examples every time,
and (as Hypothesis does for @seed) the database is neither read nor written.
--json FILE writes the full result (the fields above, the details of the worst and
shrunk examples, timings) atomically.

Tasks: a campaign of more examples than --chunk is split into tasks of --chunk
examples (task i has seed S+i; unseeded tasks share the example database), run on
Dask (--workers, --scheduler) and each stored in --store as it finishes (--resume
skips those stored); the output merges them (counts summed, the worst ratio, the
first task's shrunk counterexample).  One task and none of these options: it runs
in this process, as it always did.

Exit status: 0 no counterexample (always 0 for a campaign without a threshold);
1 the inequality failed (or its evaluation raised on an example of the domain: a bug,
reported with the shrunk example and a reproducer); 2 bad usage (unknown ID: the
known ids are listed).
"""


def build_parser() -> argparse.ArgumentParser:
    from numerics.core import registry

    from numerics.core import execution, fuzzing

    from . import checkrun, fuzz_cmd, latex_cmd, lint, new_cmd, notes_cmd, report

    parser = Parser(
        prog="maskverify",
        description="Check the theorems of machine-learning theory papers symbolically and numerically, "
                    "one pack per paper (maskverify papers lists them).")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)

    ps = sub.add_parser("papers", help="list the installed paper packs",
                        description="List every paper pack: id, title, authors, reference, counts of "
                                    "statements and recorded findings, fuzz campaigns and figures. With "
                                    "--json, also every statement with its witnesses per tier and the "
                                    "status that is known without running anything (a recorded "
                                    "finding; not checked in the default tier; not checked); a status "
                                    "that needs the witnesses run is null: maskverify check decides it.")
    add_paper_argument(ps)
    ps.add_argument("--json", action="store_true", help="print JSON instead of text")
    ps.set_defaults(func=_papers)

    check = sub.add_parser(
        "check", help="run the witnesses and print one row per statement",
        description="Run every witness of every statement (the tests in each pack's verify/<pack>/) "
                    "and print a table: statement id, paper reference, each witness's outcome, worst "
                    "relative error, digits of agreement.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_paper_argument(check)
    check.add_argument("--json", metavar="FILE", type=output("file"), help="also write the results as JSON to FILE")
    check.add_argument("--deep", action="store_true",
                       help="include the slow tier (high precision, large Monte Carlo, long "
                            "Hypothesis campaigns); takes several minutes")
    check.add_argument("-k", metavar="EXPR", type=checkrun.k_expression, help="only tests matching this pytest -k expression "
                                                  "(one that matches nothing is an error)")
    check.add_argument("-n", "--workers", metavar="N", default=None,
                       type=count(1, execution.max_local_workers, "8 per core, 512 MiB each"),
                       help=f"worker processes (pytest-xdist; default every core: {checkrun.default_workers()})")
    check.add_argument("--no-progress", action="store_true", help="no progress bar")
    check.set_defaults(func=_check)

    figs = sub.add_parser(
        "figures", help="redraw a paper's figures (PNG, PDF and their data)",
        description="Redraw the figures of one paper pack into DIR: PNG and PDF, with the plotted data as "
                    "CSV/JSON where the figure has them.  The masking pack's: fig1a, fig1b, fig2 (the "
                    "smoothed ReLU, its proxy and a raw-mask Monte Carlo with z-tests), fig3a, fig3b "
                    "(training under masks, FedAvg).",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    add_paper_argument(figs, many=False)
    figs.add_argument("--out", metavar="DIR", required=True, type=output("dir"), help="output directory (created if missing)")
    figs.add_argument("--only", metavar="NAMES", help="only these figures, comma-separated (default all)")
    figs.add_argument("--quick", action="store_true", help="reduced sizes (as the default report); default: "
                                                           "the paper's sizes")
    figs.add_argument("--seed", metavar="S", type=count(0), default=0, help="random seed (default 0)")
    figs.add_argument("--no-progress", action="store_true", help="no progress bar")
    figs.set_defaults(func=_figures)

    fuzz = sub.add_parser(
        "fuzz", help="fuzz one inequality with Hypothesis; exit 1 on a counterexample",
        description="Run a Hypothesis campaign on one inequality lhs <= rhs: draw examples over the whole\n"
                    "domain its hypotheses allow (recorded in the output), evaluate ratio = lhs/rhs (> 1\n"
                    "means the inequality fails), push it up with hypothesis.target(), and on the first\n"
                    "failure let Hypothesis shrink it to a minimal counterexample.",
        epilog=_fuzz_epilog(), formatter_class=argparse.RawDescriptionHelpFormatter)
    fuzz.add_argument("id", metavar="ID", help="campaign id, qualified by its paper (masking:thm.4.2); a short "
                                               "id needs --paper where several packs are installed")
    add_paper_argument(fuzz, many=False)
    fuzz.add_argument("--examples", metavar="N", default=None,
                      type=count(1, fuzzing.MAX_EXAMPLES, "about 1e6 CPU-seconds at 1 ms an example: split a longer "
                                                           "search into runs with --seed"),
                      help="examples to try (default: the campaign's, listed below; 10x with --deep)")
    fuzz.add_argument("--seed", metavar="S", type=count(0), default=None,
                      help="seed: a reproducible run that ignores the example database (default: "
                           "random draws that resume from the database)")
    fuzz.add_argument("--deep", action="store_true",
                      help="a long campaign: 10x the default examples and, where the campaign has one, a "
                           "wider domain")
    fuzz.add_argument("--json", metavar="FILE", type=output("file"), help="also write the result as JSON to FILE (atomically)")
    fuzz.add_argument("--no-progress", action="store_true", help="no progress bar")
    fuzz_cmd.add_task_arguments(fuzz)
    fuzz.set_defaults(func=_fuzz)

    latex_cmd.add_subcommand(sub)
    notes_cmd.add_subcommand(sub)
    lint.add_subcommand(sub)
    new_cmd.add_subcommand(sub)
    report.add_subcommand(sub)
    taken = set(sub.choices)
    for pack in registry.select(None):
        for command in pack.commands:
            if command.name in taken:
                raise registry.RegistryError(f"pack {pack.id!r} adds subcommand {command.name!r}, "
                                             "which is taken")
            taken.add(command.name)
            command.add(sub)
    return parser


def _allocation(exc: BaseException) -> str:
    """'it asked for 745 GiB' from torch's allocator message, or the error's type."""
    import re

    from numerics.core.cliargs import _bytes

    m = re.search(r"allocate (\d+) bytes", str(exc))
    return f"it asked for {_bytes(int(m.group(1)))}" if m else type(exc).__name__


def main(argv: list[str] | None = None) -> int:
    """Parse and run one subcommand: its exit status; 2 (one line) on a ``UsageError``; 130 on
    Ctrl-C, also one that a callback swallowed while the command went on (``interrupts``), and
    one that arrives while the packs load.  Called with ``argv`` (in-process: tests, scripts) it
    puts SIGINT's handler back when it returns; as the console script it keeps it to the end."""
    from numerics.core import interrupts

    previous = interrupts.install()
    command = [a for a in (argv if argv is not None else sys.argv[1:])[:1] if a]  # until the parser names it
    try:
        args = build_parser().parse_args(argv)
        command = [args.command]
        code = args.func(args)
    except UsageError as exc:
        print(" ".join(["maskverify", *command[:1]]) + f": error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        code = None
    except (MemoryError, RuntimeError) as exc:  # a size no estimate at the door caught: one line, not a traceback
        if not isinstance(exc, MemoryError) and "can't allocate memory" not in str(exc):
            raise
        print(" ".join(["maskverify", *command[:1]]) + f": error: not enough memory for these sizes ({_allocation(exc)})",
              file=sys.stderr)
        return 2
    finally:
        interrupted = interrupts.received()  # before restore, which forgets it
        if argv is not None:
            interrupts.restore(previous)
        else:  # the console script's work is done: a Ctrl-C while the interpreter shuts down changes nothing
            import signal

            signal.signal(signal.SIGINT, signal.SIG_IGN)
    if code is None or interrupted:
        print(" ".join(["maskverify", *command[:1]]).strip() + ": interrupted", file=sys.stderr)
        return 130
    return code


if __name__ == "__main__":
    sys.exit(main())
