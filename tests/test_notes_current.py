"""The generated LaTeX committed in ``notes/<pack>/latex/`` (one fragment per statement and the
pack's formulas.tex) matches a fresh export, for every registered pack.  Regenerate with
``python -c "from numerics.core import registry; from theory.core.latex import export;
[export(p.paper, f'notes/{p.id}/latex') for p in registry.select(None)]"``
(``maskverify latex`` writes the same files, under ``DIR/<pack>/``)."""
from __future__ import annotations

from pathlib import Path

import pytest

from numerics.core import registry
from theory.core.latex import export

NOTES = Path(__file__).resolve().parent.parent / "notes"


@pytest.mark.parametrize("pack", [pytest.param(p, id=p.id) for p in registry.select(None)])
def test_committed_latex_is_current(pack, tmp_path):
    committed_dir = NOTES / pack.id / "latex"
    fresh = {p.name: p.read_text() for p in export(pack.paper, tmp_path)}
    committed = {p.name: p.read_text() for p in committed_dir.glob("*.tex")}
    assert committed == fresh, f"{committed_dir} is stale: regenerate it (see this module's docstring)"
