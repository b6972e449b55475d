"""LaTeX witness: every statement of the catalogue exports ``lhs REL rhs`` with its paper reference."""
from __future__ import annotations

import pytest
import sympy as sp

from theory.catalogue import CATALOGUE
from theory.latex import export, fragment_name
from theory.statement import Expectation
from verify.marks import per_statement

IDS = list(CATALOGUE)


def _balanced(tex: str) -> bool:
    depth = 0
    for ch in tex.replace(r"\{", "").replace(r"\}", ""):
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0


@pytest.mark.witness("latex")
@pytest.mark.parametrize("sid", per_statement(IDS))
def test_fragment_states_every_equation_with_reference(sid, tmp_path, record):
    st = CATALOGUE[sid]
    tex = st.latex()
    assert st.ref in tex and st.id in tex
    assert _balanced(tex), "unbalanced braces in the exported fragment"
    for eq in st.equations:
        assert f"\\tag{{{sid}:{eq.label}}}" in tex
        assert sp.latex(eq.rhs) in tex
        if isinstance(eq.lhs, Expectation):  # definitions stay unevaluated
            assert r"\mathbb{E}" in sp.latex(eq.lhs)
    path = next(p for p in export(tmp_path) if p.name == fragment_name(sid))
    assert path.read_text().strip() == tex.strip()
    record(detail=f"{len(st.equations)} equations exported")
