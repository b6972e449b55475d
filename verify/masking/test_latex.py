"""LaTeX witness of the masking pack, the procedure of every pack
(``verify.latex_roundtrip.witness_tests``: each statement's fragment parses back to the
catalogue's expressions; constructs the parser cannot read are strict xfails in
``tests/test_latex_export.py``).  For this pack the slow tier's steps are those of the Gaussian-moment, network and NTK
derivations (minutes: the wedge's Meijer-G integrals dominate).
"""
from __future__ import annotations

from theory.masking.paper import PAPER
from verify.latex_roundtrip import witness_tests

test_fragment_states_every_equation_with_reference, test_checked_steps_parse_back = witness_tests(PAPER)
