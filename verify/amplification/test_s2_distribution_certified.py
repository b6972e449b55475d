"""Certified witness of ``prose.bayes``: the step 2 Phi(m) Phi(-m) <= exp(-m^2/2) that the symbolic
derivation of the (A1)-(A2) bounds takes as given (Chernoff), enclosed by Arb on every point of a
grid m in [0, 60] (m = 1/(sqrt 2 sigma); (A2) makes m >= C sqrt(d/2)), and the exact Bayes error
enclosed against its float64 evaluation."""
from __future__ import annotations

import pytest
from flint import arb

from numerics.amplification import data
from numerics.core.certified import TRUE, Phi_arb, certify_float, workprec
from numerics.core.tolerance import Tol

pytestmark = [pytest.mark.statement("prose.bayes"), pytest.mark.witness("certified")]


def test_chernoff_step_on_a_grid():
    with workprec(128):
        for i in range(601):
            m = arb(i) / 10
            lhs = 2 * Phi_arb(m) * Phi_arb(-m)
            rhs = (-(m * m) / 2).exp()
            assert lhs <= rhs, (i, lhs, rhs)        # Arb's <= holds for every point of the balls


@pytest.mark.parametrize("sigma", [0.05, 0.3, 1.0, 10.0])
def test_bayes_error_float64(sigma, record):
    with workprec(128):
        m = 1 / (arb(2).sqrt() * arb(sigma))
        ball = 2 * Phi_arb(m) * Phi_arb(-m)
    tol = Tol(1e-12, why="math.erfc to a few eps, times the conditioning m^2 <= 200 of Phi(-m) in its argument "
                         "m = 1/(sqrt 2 sigma), which carries two roundings")
    assert certify_float(data.bayes_error(sigma), ball, tol.rtol) == TRUE
