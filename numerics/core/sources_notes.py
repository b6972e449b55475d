"""``python -m numerics.core.sources_notes [--paper ID] [--check]``: render the registered packs'
``sources.md`` from their source indexes (``numerics.core.sources``), or only validate them and say
their counts.

Apart from ``numerics.core.sources`` because it needs the registry, whose packs import that module
(one module for both would be an import cycle).
"""
from __future__ import annotations

import argparse
import sys

from theory.core.io import atomic_write

from . import sources
from .registry import select


def _counts(pack, index) -> str:
    carried = sum(1 for r in index.results if r.statements and not r.partial)
    part = sum(1 for r in index.results if r.partial)
    uncited = sorted({s.id for s in pack.paper.statements} - index.cited())
    return (f"{pack.id}: {len(index.results)} results, {carried} carried, {part} in part, "
            f"{len(index.results) - carried - part} not carried"
            + (f"; statements no result cites: {', '.join(uncited)}" if uncited else ""))


def main(argv: list[str] | None = None) -> int:
    """Exit 0; 1 when a pack fails to load (its index invalid: the message says where) or a pack
    has no index; 2 for bad usage."""
    parser = argparse.ArgumentParser(prog=sources.COMMAND, description=__doc__.split("\n\n")[0])
    parser.add_argument("--paper", action="append", metavar="ID", help="only this pack (repeatable)")
    parser.add_argument("--check", action="store_true", help="validate and count; write nothing")
    args = parser.parse_args(argv)
    try:
        packs = select(args.paper)
    except (KeyError, ValueError, RuntimeError) as exc:  # RuntimeError: a pack failed to load
        print(f"{sources.COMMAND}: {exc}", file=sys.stderr)
        return 1
    code = 0
    for pack in packs:
        index = pack.index
        if index is None:
            print(f"{pack.id}: no source index ({pack.sources}); nothing written")
            code = 1
        elif args.check:
            print(_counts(pack, index))
        else:
            path = atomic_write(sources.markdown_path(index), sources.render_markdown(index, pack.title))
            print(f"{pack.id}: wrote {path} ({len(index.results)} results)")
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
