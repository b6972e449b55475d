"""LaTeX witness of the meanfield pack: every statement exports a pasteable fragment, and every
formula in it parses back, from the fragment's text, to the expression it was printed from.

The procedure is the one of every pack (``verify.latex_roundtrip.statement_witness``: SymPy's
ANTLR LaTeX parser, ``parsed - original`` reduced to exactly 0 by expand or simplify, no symbol
the original lacks, no numerical tolerance); constructs the parser cannot read
(``verify.latex_roundtrip.UNPARSEABLE``) are strict xfails in ``tests/test_latex_export.py``.
The slow tier adds the typeset steps of the derivations SymPy checked
(``verify.latex_roundtrip.steps_witness``; it runs the derivations, minutes for this pack).
"""
from __future__ import annotations

from theory.meanfield.paper import PAPER
from verify.latex_roundtrip import witness_tests

test_fragment_states_every_equation_with_reference, test_checked_steps_parse_back = witness_tests(PAPER)
