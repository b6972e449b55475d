"""Atomic file writes: the one helper every result, figure, report and LaTeX file goes through.

A reader never sees a half-written file: the data go to a temporary file in the target's
directory, which then replaces the target (``os.replace`` is atomic on POSIX within one file
system).  The file gets the permissions a plain ``open`` would give (``0o666 & ~umask``), not
``mkstemp``'s 0600.  Pure Python, so ``theory`` may use it too.
"""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Callable


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write(path: str | os.PathLike, data: str | bytes | Callable[[Path], None]) -> Path:
    """Write ``data`` to ``path`` atomically and return the path.

    ``data`` is text (UTF-8), bytes, or a function that writes the file it is given (for
    writers that need a file name, such as matplotlib's ``savefig`` or ``torch.save``).  The
    parent directory must exist.
    """
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix="." + path.name + ".", suffix=".tmp")
    tmp_path = Path(tmp)
    try:
        if callable(data):
            os.close(fd)
            data(tmp_path)
        else:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data.encode("utf-8") if isinstance(data, str) else data)
        os.chmod(tmp_path, 0o666 & ~_umask())
        os.replace(tmp_path, path)
    except BaseException:
        tmp_path.unlink(missing_ok=True)
        raise
    return path


def write_json(path: str | os.PathLike, payload, **kw) -> Path:
    """``payload`` as JSON (indent 2 unless given; NaN and infinity refused), atomically."""
    kw.setdefault("indent", 2)
    kw.setdefault("allow_nan", False)
    return atomic_write(path, json.dumps(payload, **kw) + "\n")
