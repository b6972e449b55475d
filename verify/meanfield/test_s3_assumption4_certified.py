"""Assumption 4 (and Corollary 1's hypothesis) for the experiments' data, certified: Arb enclosures
of lambda_min(Gbar^(1)) for Exp. 3's data (ReLU, d = 50, (93)-(96)) and of lambda_min(G^(0)) for
Exp. 1's (x_a ~ N(0, I_20)), by ``numerics.meanfield.certified`` and
``numerics.core.certified_linalg.symmetric_eig_bounds``; the float64 kernels' eigenvalues must lie
in the certified balls up to their own rounding."""
from __future__ import annotations

import numpy as np
import pytest
from flint import arb, arb_mat

from numerics.core.certified_linalg import symmetric_eig_bounds
from numerics.core.tolerance import EPS, Tol
from numerics.meanfield import certified as C
from numerics.meanfield import gram_bar
from numerics.meanfield.kernels import gram_shallow


def _eig_tol(n, scale):
    #: float64 eigvalsh of a matrix whose entries carry O(eps) relative rounding: Weyl, n eps |G|_2
    return Tol(rtol=0.0, atol=8 * n * EPS * scale, why="Weyl: entrywise rounding of float64 Gbar, times n")


@pytest.mark.statement("asm.4")
@pytest.mark.witness("certified")
@pytest.mark.parametrize("n", [50, pytest.param(400, marks=pytest.mark.slow), pytest.param(600, marks=pytest.mark.slow),
                               pytest.param(800, marks=pytest.mark.slow)])
def test_gbar_positive_definite_on_exp3_data(n, record):
    X, _ = C.exp3_data(n, seed=0)
    lo, hi = C.lambda_bounds(X)
    record(detail=f"n = {n}: lambda_min(Gbar^(1)) in {lo.str(6, radius=False)} +- {float(lo.rad()):.1e}, "
                  f"lambda_max in {hi.str(6, radius=False)}, condition <= {float((hi / lo).upper()):.4g}")
    assert lo > 0, f"Assumption 4 not certified: lambda_min in {lo}"
    ev = np.linalg.eigvalsh(gram_bar(X, "relu"))
    tol = _eig_tol(n, ev[-1])
    for val, ball in ((ev[0], lo), (ev[-1], hi)):
        assert float(ball.lower()) - tol.bound(0) <= val <= float(ball.upper()) + tol.bound(0), f"{val!r} outside {ball} ({tol})"


@pytest.mark.statement("cor.1")
@pytest.mark.witness("certified")
@pytest.mark.parametrize("n", [10, 20])
def test_shallow_gram_positive_definite_on_exp1_data(n, record):
    """n <= d = 20: G^(0) = X X^T/d is positive definite (Corollary 1's hypothesis), certified."""
    X = C.exp1_data(n, seed=0)
    Xa = arb_mat(X.tolist())
    lo, hi = symmetric_eig_bounds(Xa * Xa.transpose() / 20)
    record(detail=f"n = {n}: lambda_min(G^(0)) in {lo.str(6, radius=False)}, lambda_max {hi.str(6, radius=False)}")
    assert lo > 0
    ev = np.linalg.eigvalsh(gram_shallow(X))
    assert float(lo.lower()) - _eig_tol(n, ev[-1]).bound(0) <= ev[0] <= float(lo.upper()) + _eig_tol(n, ev[-1]).bound(0)


@pytest.mark.statement("asm.4")
@pytest.mark.witness("certified")
def test_eig_bounds_detect_a_singular_matrix():
    """Planted check: Exp. 1's G^(0) at n = 40 > d = 20 has rank 20, so its certified lambda_min ball
    must contain 0 (lower end <= 0), and a known spectrum is enclosed."""
    X = C.exp1_data(40, seed=0)
    Xa = arb_mat(X.tolist())
    lo, _ = symmetric_eig_bounds(Xa * Xa.transpose() / 20)
    assert not lo > 0 and lo.lower() <= 0
    Q, _ = np.linalg.qr(np.random.default_rng(3).standard_normal((6, 6)))
    spec = np.array([1e-3, 0.5, 1, 2, 3, 7.0])
    A = arb_mat(((Q * spec) @ Q.T).tolist())
    lo, hi = symmetric_eig_bounds(A)
    #: the float64 product Q diag Q^T differs from the exact spectrum by O(eps |A|) (Weyl)
    slack = arb(0, 64 * EPS * 7)
    assert (lo + slack).contains(arb(1e-3)) and (hi + slack).contains(arb(7.0))
