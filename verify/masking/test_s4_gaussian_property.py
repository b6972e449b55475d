"""Property witness: Hypothesis over each lemma's whole domain.

Invariants that hold whatever the closed form looks like: symmetries, limits,
monotonicity, Jensen, Cauchy-Schwarz, positive semi-definiteness, Frechet bounds, and the
relations between the lemmas (u^T mask_moment2(u, v) v is relu_moment2 at the projected
parameters).  Each tolerance is tied to float64 rounding of the quantities compared.
"""
from __future__ import annotations

import math

import numpy as np
from hypothesis import assume, given, target
from hypothesis import strategies as st
import pytest

from numerics.core import closed_form as cf
from numerics.core.tolerance import EPS, Tol
from verify import strategies as S

pytestmark = pytest.mark.witness("property")
ROUND = Tol(1e-12, why="a few float64 operations on values accurate to ~1e-14, "
                       "plus the conditioning of the identity compared")


def close(a, b, scale, tol=ROUND):
    return abs(a - b) <= tol.rtol * scale


# ------------------------------------------------------------ lemma.relu_moment1
@pytest.mark.statement("lemma.relu_moment1")
@given(S.normal_params())
def test_smoothed_relu_dominates_relu_and_proxy(p):
    """Jensen: sigma_tilde >= ReLU(mu); gap sigma_tilde - sigma_hat = s varphi(mu/s) in [0, s/sqrt(2 pi)]."""
    mu, s = p
    st_, sh = float(cf.relu_moment1(mu, s)), float(cf.relu_proxy(mu, s))
    assert st_ >= max(mu, 0.0) * (1 - 4 * EPS)
    gap = st_ - sh
    bound = s / math.sqrt(2 * math.pi)
    target(gap / bound, label="gap / (s/sqrt(2pi))")
    assert gap >= -4 * EPS * (abs(mu) + s)
    assert gap <= bound + 4 * EPS * (abs(mu) + s)
    assert close(gap, s * math.exp(-0.5 * (mu / s) ** 2) / math.sqrt(2 * math.pi), abs(mu) + s)


@pytest.mark.statement("lemma.relu_moment1")
@given(S.normal_params())
def test_reflection_identities(p):
    """E[z_+] - E[(-z)_+] = E[z] = mu and E[z^2 1{z>=0}] + E[z^2 1{z<=0}] = mu^2 + s^2."""
    mu, s = p
    assert close(float(cf.relu_moment1(mu, s) - cf.relu_moment1(-mu, s)), mu, abs(mu) + s)
    total = float(cf.relu_square_moment(mu, s) + cf.relu_square_moment(-mu, s))
    assert close(total, mu**2 + s**2, mu**2 + s**2)


@pytest.mark.statement("lemma.relu_moment1")
@given(S.normal_params())
def test_cauchy_schwarz_and_positivity(p):
    """E[z 1]^2 <= E[z^2 1] P(z >= 0), all three >= 0 (tails included: no cancellation to < 0)."""
    mu, s = p
    m1, m2 = float(cf.relu_moment1(mu, s)), float(cf.relu_square_moment(mu, s))
    prob = float(cf.orthant_prob(mu, 1.0, s, 0.0, 0.0))  # P(z >= 0) as an orthant with a free 2nd axis
    assert m1 >= 0 and m2 >= 0
    assert m1 * m1 <= m2 * prob * (1 + 1e-12) + 1e-300


@pytest.mark.statement("lemma.relu_moment1")
@given(S.normal_params(), st.floats(0.01, 100), st.floats(0, 1))
def test_homogeneous_and_monotone(p, lam, frac):
    """sigma_tilde(lam mu, lam s) = lam sigma_tilde(mu, s); increasing in mu and in s."""
    mu, s = p
    base = float(cf.relu_moment1(mu, s))
    assert close(float(cf.relu_moment1(lam * mu, lam * s)), lam * base, lam * base + 1e-300)
    mu_lo = mu - frac * (abs(mu) + s)
    assert float(cf.relu_moment1(mu_lo, s)) <= base * (1 + 4 * EPS)
    assert float(cf.relu_moment1(mu, s * (1 + frac))) >= base * (1 - 4 * EPS)


@pytest.mark.statement("lemma.relu_moment1")
@given(st.floats(-1e3, 1e3))
def test_relu_limit_as_scale_vanishes(mu):
    """s -> 0+: sigma_tilde -> ReLU(mu), with error s varphi(mu/s) <= s/sqrt(2 pi)."""
    for s in (1e-3, 1e-8, 1e-200):
        assert abs(float(cf.relu_moment1(mu, s)) - max(mu, 0.0)) <= s / math.sqrt(2 * math.pi) + 4 * EPS * abs(mu)


# ------------------------------------------------------------ lemma.relu_moment2
@pytest.mark.statement("lemma.relu_moment2")
@given(S.bivariate_params())
def test_bivariate_symmetry_and_bounds(p):
    """Swap symmetry; Cauchy-Schwarz E[z1 z2 1_A]^2 <= E[z1^2 1] E[z2^2 1]; Frechet bounds on P."""
    mu1, mu2, s1, s2, rho = p
    m = float(cf.relu_moment2(mu1, mu2, s1, s2, rho))
    assert close(m, float(cf.relu_moment2(mu2, mu1, s2, s1, rho)), abs(m) + 1e-300)
    assert m >= 0
    cs = float(cf.relu_square_moment(mu1, s1) * cf.relu_square_moment(mu2, s2))
    assert m * m <= cs * (1 + 1e-12) + 1e-300
    P = float(cf.orthant_prob(mu1, mu2, s1, s2, rho))
    p1, p2 = (float(cf.orthant_prob(mu, 1.0, s, 0.0, 0.0)) for mu, s in ((mu1, s1), (mu2, s2)))
    assert max(0.0, p1 + p2 - 1) - 1e-15 <= P <= min(p1, p2) * (1 + 1e-13) + 1e-300
    first = float(cf.orthant_first(mu1, mu2, s1, s2, rho))
    assert 0 <= first <= float(cf.relu_moment1(mu1, s1)) * (1 + 1e-13) + 1e-300


@pytest.mark.statement("lemma.relu_moment2")
@given(S.bivariate_params())
def test_independent_and_comonotone_limits(p):
    """rho = 0 factorises; rho = 1 with equal standardised means is the second moment of one normal."""
    mu1, mu2, s1, s2, _ = p
    prod = float(cf.relu_moment1(mu1, s1) * cf.relu_moment1(mu2, s2))
    assert close(float(cf.relu_moment2(mu1, mu2, s1, s2, 0.0)), prod, prod + 1e-300, Tol(1e-11, why="tails: each factor 1e-13"))
    lam = s2 / s1
    same = float(cf.relu_moment2(mu1, lam * mu1, s1, s2, 1.0))
    sq = lam * float(cf.relu_square_moment(mu1, s1))
    assert close(same, sq, sq + 1e-300, Tol(1e-11, why="tails: each side accurate to 1e-13"))


@pytest.mark.statement("lemma.relu_moment2")
@given(S.bivariate_params(), st.floats(0, 1))
def test_increasing_in_correlation(p, frac):
    """dE_1/drho = s1 s2 Phi_2 >= 0 (Gaussian integration by parts), so E_1 grows with rho."""
    mu1, mu2, s1, s2, rho = p
    hi = rho + frac * (1 - rho)
    lo_v, hi_v = (float(cf.relu_moment2(mu1, mu2, s1, s2, r)) for r in (rho, hi))
    assert lo_v <= hi_v * (1 + 1e-13) + 1e-300


# ------------------------------------------------------------ lemma.mask_moment1
@pytest.mark.statement("lemma.mask_moment1")
@given(S.directions(), S.kappas)
def test_mask_moment1_projects_to_smoothed_relu(u, kappa):
    """u^T E[c 1{c^T u >= 0}] = E[z 1{z >= 0}], z = c^T u ~ N(1^T u, kappa^2 ||u||^2)."""
    m = cf.mask_moment1(u, kappa)
    lhs = float(u @ m)
    rhs = float(cf.relu_moment1(u.sum(), kappa * np.linalg.norm(u)))
    scale = np.abs(u) @ np.abs(m) + 1e-300
    target(abs(lhs - rhs) / scale, label="relative mismatch")
    assert close(lhs, rhs, scale, Tol(1e-12 * len(u), why="a length-d dot product"))


@pytest.mark.statement("lemma.mask_moment1")
@given(S.directions(), S.positive_kappas, st.floats(-3, 3))
def test_mask_moment1_halves_and_scale(u, kappa, e):
    """E[c 1{c^T u >= 0}] + E[c 1{c^T u <= 0}] = E[c] = 1 (kappa > 0: the boundary has measure 0);
    invariant under u -> lam u, lam > 0."""
    m = cf.mask_moment1(u, kappa)
    np.testing.assert_allclose(m + cf.mask_moment1(-u, kappa), np.ones_like(u), rtol=0, atol=1e-14)
    np.testing.assert_allclose(cf.mask_moment1(u * 10.0**e, kappa), m, rtol=1e-12, atol=1e-300)


# ------------------------------------------------------------ lemma.mask_moment2
def _psd(M, scale):
    return np.linalg.eigvalsh((M + M.T) / 2).min() >= -1e-12 * scale


@pytest.mark.statement("lemma.mask_moment2")
@given(st.integers(1, 5).flatmap(lambda d: st.tuples(S.directions(d), S.directions(d))), S.kappas)
def test_mask_moment2_psd_and_loewner(uv, kappa):
    """E[c c^T 1_A] is symmetric PSD and below E[c c^T 1{c^T u >= 0}] in the Loewner order."""
    u, v = uv
    M, H = cf.mask_moment2(u, v, kappa), cf.mask_moment2(u, None, kappa)
    scale = np.linalg.norm(H) + 1e-300
    np.testing.assert_array_equal(M, M.T)
    assert _psd(M, scale) and _psd(H - M, scale)


@pytest.mark.statement("lemma.mask_moment2")
@given(st.integers(1, 5).flatmap(lambda d: st.tuples(S.directions(d), S.directions(d))), S.kappas)
def test_mask_moment2_projects_to_relu_moment2(uv, kappa):
    """u^T E[c c^T 1_A] v = E[z1 z2 1{z1, z2 >= 0}] with z = (c^T u, c^T v) (Theorem 4.2 <-> 4.9)."""
    u, v = uv
    M = cf.mask_moment2(u, v, kappa)
    nu, nv = np.linalg.norm(u), np.linalg.norm(v)
    rho = float(np.clip(u @ v / (nu * nv), -1, 1))
    lhs = float(u @ M @ v)
    rhs = float(cf.relu_moment2(u.sum(), v.sum(), kappa * nu, kappa * nv, rho))
    # The natural size of u^T E[cc^T 1_A] v is |u|^T E[cc^T 1{c^T u >= 0}] |v|: rounding of the
    # inputs (rho from a float64 cosine, a_i = mu_i/s_i) moves both sides by ~eps of it.
    scale = float(np.abs(u) @ cf.mask_moment2(u, None, kappa) @ np.abs(v)) + 1e-300
    target(abs(lhs - rhs) / scale, label="relative mismatch")
    assert close(lhs, rhs, scale, Tol(1e-11, why="a bilinear form of d^2 terms; rho from a float64 cosine"))


@pytest.mark.statement("lemma.mask_moment2")
@given(st.integers(2, 5).flatmap(lambda d: st.tuples(S.directions(d), S.directions(d))), S.positive_kappas)
def test_mask_moment2_splits_the_half_space(uv, kappa):
    """For kappa > 0: E[cc^T 1{u, v}] + E[cc^T 1{u, -v}] = E[cc^T 1{u}], and the two half spaces
    of u add up to E[c c^T] = 1 1^T + kappa^2 I; u || v gives the half space, u = -v gives 0."""
    u, v = uv
    H = cf.mask_moment2(u, None, kappa)
    scale = np.linalg.norm(H) + 1e-300
    split = cf.mask_moment2(u, v, kappa) + cf.mask_moment2(u, -v, kappa)
    assume(abs(u @ v) < np.linalg.norm(u) * np.linalg.norm(v) * (1 - 1e-9))
    assert np.linalg.norm(split - H) <= 1e-12 * scale
    whole = H + cf.mask_moment2(-u, None, kappa)
    expect = np.ones((len(u), len(u))) + kappa**2 * np.eye(len(u))
    assert np.linalg.norm(whole - expect) <= 1e-12 * np.linalg.norm(expect)
    # exact multiples (powers of 2 scale without rounding): the half space, and the hyperplane
    np.testing.assert_array_equal(cf.mask_moment2(u, 2.0 * u, kappa), H)
    np.testing.assert_array_equal(cf.mask_moment2(u, -4.0 * u, kappa), np.zeros_like(H))
    # v = fl(3u) is parallel to u only up to rounding: continuity, not identity
    assert np.linalg.norm(cf.mask_moment2(u, 3.0 * u, kappa) - H) <= 1e-12 * scale
