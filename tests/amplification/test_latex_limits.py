"""The amplification formulas SymPy's LaTeX parser cannot read back (``LIMITS`` of
``verify/amplification/test_latex.py``): strict xfails, so that a parser that learns them is noticed.
Limits of the parser, not findings about the paper."""
from __future__ import annotations

import pytest

from theory.amplification.paper import PAPER
from theory.core.latex import statement_fragment
from verify.amplification.test_latex import LIMITS
from verify.latex_roundtrip import formulas_in_fragment, paper_formulas, round_trip


@pytest.mark.parametrize("sid, key", [pytest.param(sid, key, marks=pytest.mark.xfail(strict=True, reason=why))
                                      for (sid, key), why in LIMITS.items()])
def test_formula_parses_back(sid, key):
    texts, originals = formulas_in_fragment(statement_fragment(PAPER, sid)), paper_formulas(PAPER, sid, steps=False)
    round_trip(texts[key], originals[key])
