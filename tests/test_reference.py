"""Machinery tests of ``numerics.core.reference`` (raw-definition quadrature + precision ladder).

Known values used here are textbook facts about the normal law, not the lemmas' closed
forms: Phi_2(h, k; 0) = Phi(h) Phi(k) (independence), Phi_2(0, 0; rho) = 1/4 +
asin(rho)/(2 pi) (Sheppard 1899), the rho = +-1 limits, and the point mass at s = 0.
"""
from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

from numerics.core import reference as ref
from numerics.core.tolerance import Tol

DPS = 25
EXACT = Tol(1e-23, why="reference at 25 digits, ladder-checked to 22; known value exact")


@pytest.fixture(autouse=True)
def _high_precision():
    """Test-side arithmetic (2 * value, kappa^2, ...) at 60 digits, so it never limits a check."""
    with mp.workdps(60):
        yield


def close(x, y, tol=EXACT):
    with mp.workdps(60):
        x, y = mp.mpf(x), mp.mpf(y)
        return abs(x - y) <= tol.rtol * abs(y) + (0 if y else tol.rtol)


def normwise(A, B):
    diff = max(abs(A[i, j] - B[i, j]) for i in range(B.rows) for j in range(B.cols))
    scale = max(abs(B[i, j]) for i in range(B.rows) for j in range(B.cols))
    return diff / scale if scale else diff


# ------------------------------------------------------------------------------- ladder
def _starved(x, *, dps):
    """(exp(x) - 1 - x)/x^2 by the naive formula: loses ~2 log10(1/x) digits to cancellation."""
    with mp.workdps(dps):
        x = mp.mpf(x)
        return (mp.exp(x) - 1 - x) / x ** 2


def _healthy(x, *, dps):
    with mp.workdps(dps):
        return mp.expm1(mp.mpf(x))


def test_ladder_catches_a_precision_starved_function():
    with pytest.raises(ref.LadderError, match="precision ladder failed"):
        ref.ladder(_starved, "1e-12", dps=30)


def test_ladder_passes_and_rounds_a_healthy_function():
    v = ref.ladder(_healthy, "1e-12", dps=30)
    with mp.workdps(80):
        exact = mp.expm1(mp.mpf("1e-12"))
        assert abs(v - exact) <= mp.mpf(10) ** -29 * exact


def test_ladder_compares_matrices_normwise_and_tuples_componentwise():
    def fn(*, dps):
        with mp.workdps(dps):
            return mp.mpf(1) / 3, mp.matrix([[1, mp.mpf(1) / 7], [0, 2]])
    p, M = ref.ladder(fn, dps=20)
    assert isinstance(M, mp.matrix) and M.rows == 2

    def bad(*, dps):
        with mp.workdps(dps):
            return mp.matrix([[1, mp.mpf(10) ** -(dps // 2)]])   # changes with dps
    with pytest.raises(ref.LadderError):
        ref.ladder(bad, dps=8)


# ------------------------------------------------------------------------------- known values
@pytest.mark.parametrize("h,k", [(0.3, -1.1), (-4.0, 2.5), (-9.0, -7.0)])
def test_bvn_independent_is_product_of_marginals(h, k):
    with mp.workdps(40):
        exact = mp.ncdf(h) * mp.ncdf(k)
    assert close(ref.bvn_cdf(h, k, 0.0, dps=DPS), exact)


@pytest.mark.parametrize("rho", [-0.95, -0.3, 0.6, 0.999])
def test_bvn_at_origin_is_sheppard(rho):
    with mp.workdps(40):
        exact = mp.mpf(1) / 4 + mp.asin(mp.mpf(rho)) / (2 * mp.pi)
    assert close(ref.bvn_cdf(0, 0, rho, dps=DPS), exact)


def test_bvn_boundaries_rho_pm1_and_infinities():
    with mp.workdps(40):
        assert close(ref.bvn_cdf(-1.5, 2.5, 1.0, dps=DPS), mp.ncdf(-1.5))
        assert close(ref.bvn_cdf(1.0, 0.5, -1.0, dps=DPS), mp.ncdf(1.0) - mp.ncdf(-0.5))
        assert ref.bvn_cdf(-1.0, -2.0, -1.0, dps=DPS) == 0
        assert close(ref.bvn_cdf(math.inf, -3.0, 0.4, dps=DPS), mp.ncdf(-3))
    assert ref.bvn_cdf(-math.inf, 3.0, 0.4) == 0
    assert ref.bvn_cdf(math.inf, math.inf, -0.3) == 1


def test_bvn_famous_tail_value_is_not_flushed():
    """Phi_2(-8, -8; 0.5) = 1.79e-21: the normalised integrand keeps mp.quad-style absolute
    tests meaningful; a relative check against rho = 0 scaling would not catch a flush."""
    assert mp.nstr(ref.bvn_cdf(-8, -8, 0.5, dps=DPS), 3) == "1.79e-21"


def test_point_mass_at_zero_scale():
    assert ref.relu_moment1(2.5, 0.0, dps=DPS) == 2.5
    assert ref.relu_moment1(-2.5, 0.0, dps=DPS) == 0
    assert ref.relu_moment1(0.0, 0.0, dps=DPS) == 0
    assert ref.relu_moment1_second(-0.0, 0.0, dps=DPS) == 0
    assert ref.orthant_prob(0.0, 0.0, 0.0, 0.0, 0.3, dps=DPS) == 1          # 1{0 >= 0}^2
    assert ref.relu_moment2(3.0, 4.0, 0.0, 0.0, -1.0, dps=DPS) == 12
    assert ref.orthant_first(2.0, 1.0, 0.0, 0.0, 0.3, dps=DPS) == 2
    assert ref.relu_moment2(-2.0, 0.5, 0.0, 1.5, 0.7, dps=DPS) == 0
    # s1 = 0: z1 = mu1 a.s., so E[z1 z2 1{..}] = mu1 E[z2 1{z2 >= 0}] (two code paths)
    assert close(ref.relu_moment2(2.0, -0.5, 0.0, 1.5, 0.7, dps=DPS),
                 2 * ref.relu_moment1(-0.5, 1.5, dps=DPS))


def test_deep_tail_relative_accuracy():
    """E[z 1{z >= 0}] at mu/s = -30 is 5e-200 and must keep its digits (Mills' ratio)."""
    with mp.workdps(80):
        exact = mp.npdf(30) - 30 * mp.ncdf(-30)          # varphi(a) - a Phi(-a), a = 30
    assert close(ref.relu_moment1(-30.0, 1.0, dps=DPS), exact)


def test_rho_pm1_are_limits_of_the_interior():
    """The one-dimensional rho = +-1 path joins the nested quadrature continuously."""
    for rho, near in ((1.0, 1 - 1e-12), (-1.0, -1 + 1e-12)):
        a = ref.relu_moment2(0.4, -0.3, 1.0, 1.5, rho, dps=20)
        b = ref.relu_moment2(0.4, -0.3, 1.0, 1.5, near, dps=20)
        assert abs(a - b) <= 1e-5 * abs(a)


def test_mask_d1_is_the_relu_moment():
    """d = 1, u > 0: E[c 1{c >= 0}] with c ~ N(1, kappa^2) is relu_moment1(1, kappa)."""
    m1 = ref.mask_moment1([0.7], 0.4, dps=DPS)
    assert m1.rows == 1 and m1.cols == 1
    assert close(m1[0], ref.relu_moment1(1.0, 0.4, dps=DPS))
    m2 = ref.mask_moment2([2.0], None, 0.4, dps=DPS)
    assert close(m2[0, 0], ref.relu_moment1_second(1.0, 0.4, dps=DPS))


def test_mask_degenerate_cases():
    ones = mp.ones(2, 1)
    assert ref.mask_moment1([0.5, 0.5], 0.0, dps=DPS) == ones                  # kappa = 0
    assert ref.mask_moment1([-0.5, 0.2], 0.0, dps=DPS) == mp.zeros(2, 1)
    M = ref.mask_moment2([0.0, 0.0], None, 0.7, dps=DPS)                         # u = 0
    assert normwise(M, ones * ones.T + mp.mpf(0.7) ** 2 * mp.eye(2)) < 1e-24
    assert ref.mask_moment2([0.3, -0.8, 0.1], [-0.3, 0.8, -0.1], 0.5, dps=DPS) == mp.zeros(3, 3)
    par = ref.mask_moment2([0.3, -0.8, 0.1], [0.6, -1.6, 0.2], 0.5, dps=DPS)   # u || v
    half = ref.mask_moment2_half([0.3, -0.8, 0.1], 0.5, dps=DPS)
    assert normwise(par, half) < 1e-24
    assert normwise(ref.mask_moment2([0.3, -0.8, 0.1], None, 0.5, dps=DPS), half) == 0


def test_mask_wedge_approaches_half_space_as_v_turns_to_u():
    u = [0.3, -0.8, 0.1]
    near = ref.mask_moment2(u, [0.3, -0.8, 0.1 + 1e-9], 0.5, dps=20)
    half = ref.mask_moment2_half(u, 0.5, dps=20)
    assert normwise(near, half) < 1e-7


def test_mask_moment_matches_relu_moment_along_u():
    """u^T E[c 1{c^T u >= 0}] = E[z 1{z >= 0}], z = c^T u ~ N(1^T u, kappa^2 ||u||^2)."""
    u = [0.7, -0.2, 0.4]
    m1 = ref.mask_moment1(u, 0.3, dps=DPS)
    lhs = mp.fsum(mp.mpf(a) * m1[i] for i, a in enumerate(u))
    nu = mp.sqrt(mp.fsum(mp.mpf(a) ** 2 for a in u))
    z = ref.relu_moment1(mp.fsum(mp.mpf(a) for a in u), mp.mpf(0.3) * nu, dps=DPS)
    assert close(lhs, z, Tol(1e-22, why="two code paths, 25 digits each"))


def test_inputs_converted_exactly_and_results_are_mpf():
    v = ref.relu_moment1(np.float64(0.1), np.float64(1.0), dps=20)
    assert isinstance(v, mp.mpf)
    assert ref.relu_moment1(0.1, 1.0, dps=20) == v
    assert isinstance(ref.mask_moment1(np.array([0.3, 0.4]), 0.2, dps=15), mp.matrix)


def test_returned_matrices_are_not_shared_with_the_cache():
    a = ref.mask_moment1([0.3, 0.4], 0.2, dps=15)
    a[0] = 99
    assert ref.mask_moment1([0.3, 0.4], 0.2, dps=15)[0] != 99


# ------------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("call,name", [
    (lambda: ref.relu_moment1(math.nan, 1.0), "mu"),
    (lambda: ref.relu_moment1(0.0, -1.0), "s"),
    (lambda: ref.relu_moment1(0.0, math.inf), "s"),
    (lambda: ref.relu_moment2(0.0, 0.0, 1.0, 1.0, 1.5), "rho"),
    (lambda: ref.relu_moment2(0.0, 0.0, 1.0, -2.0, 0.1), "s2"),
    (lambda: ref.orthant_prob(0.0, math.nan, 1.0, 1.0, 0.1), "mu2"),
    (lambda: ref.bvn_cdf(0.0, 0.0, -1.0001), "rho"),
    (lambda: ref.bvn_cdf(math.nan, 0.0, 0.0), "h"),
    (lambda: ref.mask_moment1([0.1, 0.2], -0.5), "kappa"),
    (lambda: ref.mask_moment2([0.1, 0.2], [0.1, 0.2, 0.3], 0.5), "same length"),
    (lambda: ref.mask_moment1([], 0.5), "u"),
    (lambda: ref.mask_moment1([[0.1, 0.2]], 0.5), "u"),
    (lambda: ref.mask_moment1(np.ones((2, 2)), 0.5), "u"),
    (lambda: ref.mask_moment2([0.1, math.nan], [0.1, 0.2], 0.5), r"u\[1\]"),
    (lambda: ref.relu_moment1("abc", 1.0), "mu"),
])
def test_bad_input_raises_value_error_naming_the_parameter(call, name):
    with pytest.raises(ValueError, match=name):
        call()


# ------------------------------------------------------------------------------- meta
def test_reference_witness_fails_on_a_wrong_identity():
    """The paper's proxy sigma_hat = mu Phi(mu/s) is NOT E[z 1{z >= 0}]: the reference
    witness's judge must reject it (and accept the true closed form)."""
    from theory.masking import gaussian as g
    from verify.masking import test_s4_gaussian_reference as W

    def record(**kw):
        pass

    mu, s = 0.7, 1.3
    truth = ref.relu_moment1(mu, s, dps=W.DPS)
    with mp.workdps(W.CF_DPS):
        proxy = W.evaluate(g.sigma_hat, {g.mu: mp.mpf(mu), g.s: mp.mpf(s)})
        exact = W.cf_relu1("first", mu, s)
    W._judge([("true closed form", truth, exact)], record)
    with pytest.raises(AssertionError, match="disagrees"):
        W._judge([("proxy", truth, proxy)], record)
