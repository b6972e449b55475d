"""The generated LaTeX in notes/latex/ (one fragment per statement and formulas.tex) matches the
catalogue (regenerate with ``maskverify latex``, or
``python -c "from theory.core.latex import export; export(PAPER, 'notes/latex')"``)."""
from __future__ import annotations

from pathlib import Path

from theory.core.latex import export
from theory.masking.paper import PAPER

NOTES = Path(__file__).resolve().parent.parent / "notes" / "masking" / "latex"


def test_committed_latex_is_current(tmp_path):
    fresh = {p.name: p.read_text() for p in export(PAPER, tmp_path)}
    committed = {p.name: p.read_text() for p in NOTES.glob("*.tex")}
    assert committed == fresh, "notes/latex is stale: regenerate it (see this module's docstring)"
