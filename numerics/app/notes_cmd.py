"""``maskverify notes``: regenerate what the selected packs commit that is generated
(``numerics.core.notes``: ``errata.md`` from ``errata.toml``, ``sources.md`` from the source index, the LaTeX under
``notes/<id>/latex/``), or with ``--check`` only list what is stale (exit status 1)."""
from __future__ import annotations

import os
from pathlib import Path


def add_subcommand(sub) -> None:
    """Register ``maskverify notes`` on the CLI's subparsers."""
    from numerics.core.cliargs import add_paper_argument

    p = sub.add_parser(
        "notes", help="regenerate a pack's generated notes (errata.md, sources.md, LaTeX); --check lists what is stale",
        description="Regenerate, for each selected pack, the files it commits that are generated from its "
                    "data: errata.md beside errata.toml (when the pack has findings' data), sources.md beside "
                    "sources.toml (its source index) and the LaTeX "
                    "under notes/<id>/latex/ (one fragment per statement and formulas.tex).  Only files "
                    "that differ are written; .tex files no statement makes any more are removed.",
        epilog="With --check nothing is written: every stale file is listed (missing, differs, left over) "
               "and the exit status is 1 if there is any, 0 if all are current (what tests/"
               "test_notes_current.py asserts).  Run it before a commit.")
    add_paper_argument(p)
    p.add_argument("--check", action="store_true", help="list stale files and exit 1 if any; write nothing")
    p.set_defaults(func=run)


def _shown(path: Path) -> str:
    try:
        return os.path.relpath(path)
    except ValueError:  # another drive
        return str(path)


def run(args) -> int:
    """Exit status: 0 current (or regenerated), 1 ``--check`` found stale files; invalid errata
    data are a ``UsageError`` naming the file and entry."""
    from numerics.core import notes
    from numerics.core.cliargs import UsageError, papers

    found = 0
    for pack in papers(args):
        try:
            todo = notes.stale(pack) if args.check else notes.write(pack)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        found += len(todo)
        for s in todo:
            verb = s.why if args.check else ("removed" if s.why == "left over" else "wrote")
            print(f"{pack.id}: {verb} {_shown(s.path)}")
        if not todo:
            print(f"{pack.id}: current ({_shown(notes.notes_dir(pack))})")
    if args.check and found:
        print(f"{found} stale file(s): run `maskverify notes` (or `maskverify notes --paper ID`) and commit them")
        return 1
    return 0
