"""Section 5's statements about the Gaussian mask (Corollaries 5.3, ...), as statements.

Notation as in ``theory/network.py`` and Definition 4.1; L(W) = 1/2 sum_i (f(W, x_i) - y_i)^2
is the clean loss (Section 3).
"""
from __future__ import annotations

import sympy as sp

from .network import L_C, LAWC, R_u, R_w, THEOREM_4_2, kappa, m, n, phi_max, psi_max
from .statement import Equation, Expectation, Kind, Statement, Tex

L_clean = Tex(r"\mathcal{L}(W)")
eps1 = (2 * m * n * kappa**2 * R_u**2 + m * n * (kappa**2 * R_u**2 + kappa * R_w) * phi_max**2
        + m * n * kappa**2 * (R_u**2 + 1) * psi_max**2)
#: the sentence after Corollary 5.3 writes the first term without the square (errata E7)
eps1_as_restated = eps1 - 2 * m * n * kappa**2 * R_u**2 + 2 * m * n * kappa**2 * R_u

COROLLARY_5_3 = Statement(
    id="cor.5.3",
    ref="Corollary 5.3 (Assumption 5.1 (8), epsilon_1)",
    title="the expected surrogate loss is at most twice the clean loss plus epsilon_1",
    kind=Kind.UPPER_BOUND,
    params=THEOREM_4_2.params,
    equations=(
        Equation("bound", Expectation(L_C, LAWC), 2 * L_clean + sp.Symbol(r"\varepsilon_1"), "<="),
        Equation("restated", sp.Symbol(r"\varepsilon_1"), eps1_as_restated),
    ),
    assumptions=("Assumption 3.1", "B_y <= 3 sqrt(m) R_w"),
    where=((sp.Symbol(r"\varepsilon_1"), eps1),),
    notes=("The part 'restated' is the sentence after the corollary, 2 m n kappa^2 R_u without the "
           "square; it is a typo (notes/errata.md, E7)."),
)

STATEMENTS = (COROLLARY_5_3,)
