"""Argument types and the usage error shared by ``maskverify`` and the packs' subcommands.

A user's mistake ends in one line on stderr and exit status 2, never a traceback: argparse
types raise ``argparse.ArgumentTypeError`` (reported by the parser), and a subcommand that
finds bad input after parsing raises ``UsageError``, which ``maskverify``'s ``main`` prints.
"""
from __future__ import annotations

import argparse
import math
import os
import tempfile
from pathlib import Path


class UsageError(Exception):
    """Bad input to a command (reported as one line, exit status 2)."""


def count(lo: int, hi=None, why: str = ""):
    """An argparse type: an integer >= ``lo`` and, with ``hi`` (an int, or a function giving one
    when the value is parsed: a machine's limit), <= ``hi``; ``why`` says what the limit is."""
    def parse(text: str) -> int:
        try:
            n = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if n < lo:
            raise argparse.ArgumentTypeError(f"must be >= {lo}, got {n}")
        top = hi() if callable(hi) else hi
        if top is not None and n > top:
            raise argparse.ArgumentTypeError(f"must be <= {top:,}{f' ({why})' if why else ''}, got {n:,}")
        return n
    parse.__name__ = f"integer >= {lo}"
    return parse


def memory_available() -> int:
    """Bytes of memory this machine can give now (psutil, which Dask distributed brings)."""
    import psutil

    return int(psutil.virtual_memory().available)


def check_memory(nbytes: float, what: str) -> None:
    """``UsageError`` when ``what`` needs more than 80 % of the memory available: said before the
    work starts, instead of an allocator's error (or swapping) in the middle of it."""
    avail = memory_available()
    if nbytes > 0.8 * avail:
        raise UsageError(f"{what} needs about {_bytes(nbytes)} of memory; this machine has {_bytes(avail)} available")


def _bytes(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if n < 1024 or unit == "PiB":
            return f"{n:.3g} {unit}"
        n /= 1024
    return f"{n:.3g} PiB"


def real(lo: float = -math.inf, hi: float = math.inf, *, open_lo: bool = False, open_hi: bool = False):
    """An argparse type: a finite float in [lo, hi] (``open_lo``/``open_hi``: the end excluded)."""
    def parse(text: str) -> float:
        try:
            x = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
        if not math.isfinite(x) or x < lo or x > hi or (open_lo and x == lo) or (open_hi and x == hi):
            raise argparse.ArgumentTypeError(f"must be {domain}, got {text!r}")
        return x
    if math.isinf(lo) and math.isinf(hi):
        domain = "a finite number"
    elif math.isinf(hi):
        domain = f"a finite number {'>' if open_lo else '>='} {lo:g}"
    elif math.isinf(lo):
        domain = f"a number {'<' if open_hi else '<='} {hi:g}"
    else:
        domain = f"a number in {'(' if open_lo else '['}{lo:g}, {hi:g}{')' if open_hi else ']'}"
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


# ----------------------------------------------------------------------------- output paths
def _first_existing(path: Path) -> Path:
    """``path`` or its nearest ancestor that exists (the working directory's for a relative one)."""
    p = Path(os.path.abspath(path))
    while not p.exists() and p != p.parent:
        p = p.parent
    return p


def _cannot_write(folder: Path) -> str | None:
    """Why no file can be made in the existing folder ``folder`` (None: one can).  Probed by making
    and removing a temporary file there, so that read-only file systems, /proc and permissions are
    all told apart from the truth, root included (for whom ``os.access`` says yes to everything)."""
    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        return f"cannot write in {folder} ({exc.strerror or type(exc).__name__})"
    return None


def output_problem(path, kind: str) -> str | None:
    """Why ``path`` cannot be written as ``kind`` ("dir": a folder made if missing, "file": a file
    replaced if present), or None.  Nothing is created: a missing folder is judged by its nearest
    existing ancestor, which must be a folder one can write in."""
    if kind not in ("dir", "file"):
        raise ValueError(f"kind must be 'dir' or 'file', got {kind!r}")
    text = os.fspath(path)
    if not text.strip():
        return "an empty path (name a folder, e.g. '.')" if kind == "dir" else "an empty path (name a file)"
    p = Path(text)
    if p.exists():
        if kind == "dir" and not p.is_dir():
            return f"{text} exists and is not a directory"
        if kind == "file" and p.is_dir():
            return f"{text} is a directory, not a file"
        return _cannot_write(p if kind == "dir" else p.parent)
    base = _first_existing(p)
    if not base.is_dir():
        return f"{text} lies inside {base}, which is a file"
    return _cannot_write(base)


def check_output(path, kind: str, flag: str) -> Path:
    """``path`` as a ``Path`` if it can be written as ``kind`` (``output_problem``), else a
    ``UsageError`` naming ``flag``: for a default value, checked before the work starts."""
    why = output_problem(path, kind)
    if why is not None:
        raise UsageError(f"{flag} {os.fspath(path)!r}: {why}")
    return Path(path)


def output(kind: str):
    """An argparse type for an output path of ``kind`` ("dir" or "file"): checked when the command
    line is parsed, before any work (``output_problem``), so a mistake costs nothing."""
    def parse(text: str) -> Path:
        why = output_problem(text, kind)
        if why is not None:
            raise argparse.ArgumentTypeError(why)
        return Path(text)
    parse.__name__ = "folder" if kind == "dir" else "file"
    return parse
