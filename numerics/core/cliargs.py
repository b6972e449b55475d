"""Argument types and the usage error shared by ``maskverify`` and the packs' subcommands.

A user's mistake ends in one line on stderr and exit status 2, never a traceback: argparse
types raise ``argparse.ArgumentTypeError`` (reported by the parser), and a subcommand that
finds bad input after parsing raises ``UsageError``, which ``maskverify``'s ``main`` prints.
"""
from __future__ import annotations

import argparse
import math


class UsageError(Exception):
    """Bad input to a command (reported as one line, exit status 2)."""


def count(lo: int):
    """An argparse type: an integer >= ``lo``."""
    def parse(text: str) -> int:
        try:
            n = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if n < lo:
            raise argparse.ArgumentTypeError(f"must be >= {lo}, got {n}")
        return n
    parse.__name__ = f"integer >= {lo}"
    return parse


def real(lo: float = -math.inf, hi: float = math.inf, *, open_lo: bool = False, open_hi: bool = False):
    """An argparse type: a finite float in [lo, hi] (``open_lo``/``open_hi``: the end excluded)."""
    def parse(text: str) -> float:
        try:
            x = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
        if not math.isfinite(x):
            raise argparse.ArgumentTypeError(f"must be finite, got {text!r}")
        if x < lo or x > hi or (open_lo and x == lo) or (open_hi and x == hi):
            left, right = "(" if open_lo else "[", ")" if open_hi else "]"
            raise argparse.ArgumentTypeError(f"must lie in {left}{lo:g}, {hi:g}{right}, got {x:g}")
        return x
    parse.__name__ = "number"
    return parse


def add_paper_argument(parser, *, many: bool = True, required: bool = False) -> None:
    """``--paper ID`` (``many``: repeatable, default every registered pack)."""
    from . import registry

    known = ", ".join(registry.packs()) or "none installed"
    if many:
        parser.add_argument("--paper", metavar="ID", action="append", default=None,
                            help=f"only this paper's pack (repeatable; default every pack: {known})")
    else:
        parser.add_argument("--paper", metavar="ID", required=required, default=None,
                            help=f"the paper's pack ({known})")


def papers(args):
    """The packs ``--paper`` names (every pack when it is not given); an unknown id is a
    ``UsageError``."""
    from . import registry

    chosen = getattr(args, "paper", None)
    if isinstance(chosen, str):
        chosen = [chosen]
    try:
        return registry.select(chosen)
    except KeyError as exc:
        raise UsageError(exc.args[0]) from None
