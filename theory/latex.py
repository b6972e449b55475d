"""LaTeX export: one fragment per statement (``lhs = rhs`` with its paper reference)."""
from __future__ import annotations

import os
from pathlib import Path

from .catalogue import CATALOGUE


def fragment_name(statement_id: str) -> str:
    return statement_id.replace(".", "_") + ".tex"


def export(out_dir: str | os.PathLike) -> list[Path]:
    """Write ``<id>.tex`` for every statement into ``out_dir`` (atomically); return the paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for st in CATALOGUE.values():
        path = out / fragment_name(st.id)
        tmp = path.with_suffix(".tex.tmp")
        tmp.write_text(st.latex() + "\n")
        os.replace(tmp, path)
        paths.append(path)
    return paths
