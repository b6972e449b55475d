"""Property witness: Hypothesis over each lemma's whole domain.

Invariants that hold whatever the closed form looks like: symmetries, limits,
monotonicity, Jensen, Cauchy-Schwarz, positive semi-definiteness, Frechet bounds, and the
relations between the lemmas (u^T mask_moment2(u, v) v is relu_moment2 at the projected
parameters).  Each tolerance is tied to float64 rounding of the quantities compared.
"""
from __future__ import annotations

import math

import mpmath as mp
import numpy as np
from hypothesis import assume, example, given, settings, target
from hypothesis import strategies as st
import pytest

from numerics.core import closed_form as cf
from numerics.core import reference as ref
from numerics.core.tolerance import EPS, Tol
from verify import strategies as S
from verify.masking.test_s4_gaussian_fast import mask_tol
from verify.profiles import examples as budget

pytestmark = pytest.mark.witness("property")
TINY = 2.2250738585072014e-308  # the smallest normal float64
#: the scaled kernels' absolute term, where the value itself is subnormal (closed_form's module docstring,
#: "Below the normal range": the rounding of the last products into the subnormal grid)
GRID = 2 * 2.0**-1074
#: a kernel against the product (or the rescaled value) of one-dimensional kernels: three values
#: each within 1e-13 of exact (the contract) and one float64 product
FACTORS = Tol(4e-13, why="three sides each within the 1e-13 contract, plus a rounding")
ROUND = Tol(1e-12, why="a few float64 operations on values accurate to ~1e-14, "
                       "plus the conditioning of the identity compared")
#: an inequality between two kernel values, each within the contract (1e-13 relative, + GRID where the
#: value is subnormal: closed_form's module docstring): x <= y holds exactly, so the floats satisfy
#: x~ <= (1 + 1e-13)/(1 - 1e-13) (y~ + GRID) + GRID <= (1 + PAIR.rtol) y~ + 3 GRID
PAIR = Tol(2.1e-13, why="two values each within 1e-13 of exact: (1 + 1e-13)/(1 - 1e-13) < 1 + 2.1e-13")


def close(a, b, scale, tol=ROUND):
    return abs(a - b) <= tol.rtol * scale


#: the mpmath reference of each one-dimensional moment (quadrature of the raw definition)
REFERENCE = {"relu_moment1": ref.relu_moment1, "relu_square_moment": ref.relu_moment1_second}


def moment(f, mu, s):
    """A one-dimensional moment f(mu, s) as an mpmath number (unbounded exponent, so that products of
    them neither underflow nor overflow and keep every digit): f(mu, s) where it is a normal float64
    (its own contract there: 1e-13 relative, witnessed against mpmath in test_s4_gaussian_fast), else
    its mpmath reference (``REFERENCE``, the raw definition integrated), never a subnormal float."""
    v = float(f(mu, s))
    if abs(v) >= TINY:
        return mp.mpf(v)
    return REFERENCE[f.__name__](mu, s)


# ------------------------------------------------------------ lemma.relu_moment1
@pytest.mark.statement("lemma.relu_moment1")
@given(S.normal_params(degree=1))
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
    """E[z 1] <= E[z^2 1]^(1/2) P(z >= 0)^(1/2), all three >= 0 (tails included: no cancellation to
    < 0).  Taken in square roots of mpmath numbers (``moment``; P(z >= 0) = Phi(mu/s) in mpmath where
    its float is subnormal), so that nothing underflows: the squares of the floats did below 1e-150,
    where the old slack 1e-300 made the check vacuous.  Tolerance: m1 and the product under the root
    each within the contract (``PAIR``), GRID where m1 is subnormal."""
    mu, s = p
    m1, m2 = float(cf.relu_moment1(mu, s)), float(cf.relu_square_moment(mu, s))
    prob = float(cf.orthant_prob(mu, 1.0, s, 0.0, 0.0))  # P(z >= 0) as an orthant with a free 2nd axis
    assert m1 >= 0 and m2 >= 0 and prob >= 0
    prob_mp = mp.mpf(prob) if prob >= TINY else (mp.ncdf(mp.mpf(mu) / s) if s > 0 else mp.mpf(mu >= 0))
    cs = mp.sqrt(moment(cf.relu_square_moment, mu, s) * prob_mp)
    assert m1 <= cs * (1 + PAIR.rtol) + GRID, (m1, float(cs))


@pytest.mark.statement("lemma.relu_moment1")
@given(S.normal_params(degree=1), st.floats(0.01, 100), st.floats(0, 1))
@example(p=(-1e300, 1e300), lam=1.0, frac=1.0)  # NaN: Dekker's split of s = 2e300 overflowed (_rounding)
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
@S.tiers(20)
def test_bivariate_symmetry_and_bounds(examples):
    """Swap symmetry; Cauchy-Schwarz E[z1 z2 1_A] <= E[z1^2 1]^(1/2) E[z2^2 1]^(1/2); Frechet bounds on P."""

    @S.limit(examples)
    @given(S.bivariate_params())
    @example(p=(0.0, -6.657068189652973e-153, 1.0, 10.0, -0.5))  # was 0.0 for 0.545 (Gaussian cut-off overflowed)
    @example(p=(0.0, -9132.703869756515, 1.0, 253.68621860434766, 1.0))  # P(z2 >= 0) lacked the a-rounding correction
    @example(p=(0.0, 0.0, 1e5, 1e150, 0.0))  # the test squared m = 1.6e154: Cauchy-Schwarz is now taken in square roots
    @example(p=(39.0, -38.328125, 1.0, 1.0, -1.0))  # relu_moment2 -8e-323 (deep profile): constraint 1 dropped
    @example(p=(38.5, -38.5, 1.0, 1.0, -1.0))  # at a1 > 38 where rho = -1 confines Y1 to [-a1, a2]; orthant_first
    # -5.4e-323 here (closed_form._INACTIVE, now 39)
    @example(p=(0.0, -3.1e-55, 1.0, 1e-56, 0.0))  # the test's E[z2^2 1] underflowed to 0 (Cauchy-Schwarz at s = 1)
    @example(p=(40.0, -38.5, 1.0, 1.0, -1.0))  # orthant_first -5.4e-323 (deep profile, 2026-12-02): clamped at 0
    @example(p=(-3.8e25, -4.0, 1e24, 1.0, 0.5))  # relu_moment1 7.58e-294 6.5e-7 off: g1(-38) subnormal (deep)
    @example(p=(-38.0, 2e12, 1.0, 1e12, 0.96875))  # the swapped orders 1.7e-8 apart at 2.9e-304 (deep)
    def check(p):
        mu1, mu2, s1, s2, rho = p
        m = float(cf.relu_moment2(mu1, mu2, s1, s2, rho))
        # the two orders take different branches, each accurate to 1e-13 relative plus GRID where the
        # value is subnormal (closed_form, "Below the normal range")
        assert abs(m - float(cf.relu_moment2(mu2, mu1, s2, s1, rho))) <= ROUND.rtol * abs(m) + 2 * GRID
        assert m >= 0
        # compared as m <= sqrt(E[z1^2 1]) sqrt(E[z2^2 1]) (``moment``): E[z^2 1] underflows where
        # E[z1 z2 1] does not (s2 = 1e-56, a2 = -31: 1e-329 against 3.5e-269)
        cs = float(mp.sqrt(moment(cf.relu_square_moment, mu1, s1) * moment(cf.relu_square_moment, mu2, s2)))
        assert m <= cs * (1 + 1e-12) + GRID
        P = float(cf.orthant_prob(mu1, mu2, s1, s2, rho))
        p1, p2 = (float(cf.orthant_prob(mu, 1.0, s, 0.0, 0.0)) for mu, s in ((mu1, s1), (mu2, s2)))
        assert max(0.0, p1 + p2 - 1) - 1e-15 <= P <= min(p1, p2) * (1 + 1e-13) + GRID
        first = float(cf.orthant_first(mu1, mu2, s1, s2, rho))
        # each side 1e-13 relative, plus GRID where it is subnormal (closed_form's module docstring)
        assert 0 <= first <= float(cf.relu_moment1(mu1, s1)) * (1 + 2e-13) + 2 * GRID

    check()


@pytest.mark.statement("lemma.relu_moment2")
@S.tiers(20)
def test_independent_and_comonotone_limits(examples):
    """rho = 0 factorises; rho = 1 with equal standardised means is the second moment of one normal."""

    @S.limit(examples)
    @given(S.bivariate_params())
    @example(p=(-7e-150, 0.0, 1e-150, 1.0, 0.0))  # the test's E[z1^2 1] = 4.8e-314 was subnormal (now at s = 1)
    @example(p=(-38.0, 0.0, 1.0, 1e150, 0.0))  # the factor 7.6e-318 subnormal at s = 1 too (deep profile, 2026-12-02)
    @example(p=(-38.0, 1e13, 1.0, 1e13, 0.0))  # 8.2145132914e-305 for 8.2145123503e-305 (issue 24): M subnormal
    def check(p):
        mu1, mu2, s1, s2, _ = p
        # the reference: the one-dimensional moments as mpmath numbers (``moment``), whose product
        # keeps every digit where a factor is subnormal and the bivariate moment is not
        prod = moment(cf.relu_moment1, mu1, s1) * moment(cf.relu_moment1, mu2, s2)
        got = float(cf.relu_moment2(mu1, mu2, s1, s2, 0.0))
        assert abs(got - prod) <= FACTORS.rtol * prod + GRID, (got, float(prod))
        # z2 = lam z1 exactly only up to the roundings of lam and lam mu1 (2 ulp of a2 against a1, which
        # the value feels ~a^2 times: at rho = 1 it is Phi(min(a1, a2))-like, relative condition ~a^2)
        lam = s2 / s1
        same = float(cf.relu_moment2(mu1, lam * mu1, s1, s2, 1.0))
        sq = lam * moment(cf.relu_square_moment, mu1, s1)
        a = mu1 / s1
        assert abs(same - sq) <= (FACTORS.rtol + 2 * (1 + a * a) * EPS) * sq + GRID, (same, float(sq))

    check()


@pytest.mark.statement("lemma.relu_moment2")
@S.tiers(20)
def test_increasing_in_correlation(examples):
    """dE_1/drho = s1 s2 Phi_2 >= 0 (Gaussian integration by parts), so E_1 grows with rho."""

    @S.limit(examples)
    @given(S.bivariate_params(), st.floats(0, 1))
    # values below 1e-300, where the old slack of 1e-300 held nothing (the drawn examples give 0 or
    # values far above it): normal (8.2e-305 -> 1.5e-303) and subnormal (4.0e-313 -> 7.4e-312)
    @example(p=(-38.0, 1e13, 1.0, 1e13, 0.0), frac=0.5)
    @example(p=(-38.5, 1e13, 1.0, 1e13, 0.0), frac=0.5)
    def check(p, frac):
        mu1, mu2, s1, s2, rho = p
        hi = rho + frac * (1 - rho)
        lo_v, hi_v = (float(cf.relu_moment2(mu1, mu2, s1, s2, r)) for r in (rho, hi))
        assert lo_v <= hi_v * (1 + PAIR.rtol) + 3 * GRID, (lo_v, hi_v)

    check()


#: (name, mu1, mu2, s1, s2, rho) on both sides of the boundary where the standardised moment M (N1, g1)
#: leaves the normal range while the value stays normal: before the kernels carried the binary exponent
#: apart (issue 24) the right-hand column was their relative error, now it must be <= 1e-13 everywhere
BELOW_NORMAL = [
    ("relu_moment2", -26.3e6, -26.3e6, 1e6, 1e6, 0.0),      # M = 1.3e-307 normal: 1e-16 before too
    ("relu_moment2", -26.7e6, -26.7e6, 1e6, 1e6, 0.0),      # M = 7.7e-317: 1.1e-8 before
    ("relu_moment2", -37e100, -37e100, 1e100, 1e100, 0.5),  # M underflowed: 0 for 2.1e-203 before
    ("relu_moment2", -38.0, 1e13, 1.0, 1e13, 0.0),          # issue 24's example: 1.1e-7 before
    ("relu_moment2", -5e151, -1e150, 1e150, 1e150, 0.7),    # a1 = -50: M = 7e-546, the shift capped
    ("relu_moment2", -4.5e101, 1e100, 1e100, 1e100, -0.3),  # phi(a2) Phi(b1) shared the shift: 1.3e-11
    ("relu_moment2", -2.7666222724950017e-84, 4.638009630759619e+104, 7.594637183125317e-86,
     2.998654625887643e+102, -0.996766184559399),           # Stein branch: s1 g1 underflowed, negative
    ("orthant_first", -26.8e10, -26.8e10, 1e10, 1e10, 0.0),  # N1 = 9.7e-318: 6.2e-8 before
    ("orthant_first", 45e100, -40e100, 1e100, 1e100, -1.0),  # rho = -1, Y confined to [40, 45]
    ("orthant_first", -5e281, 3e10, 1e280, 1e10, 0.5),      # N1 ~ 1e-547 times s1 = 1e280
]


def _reference(name, mu1, mu2, s1, s2, rho):
    """The mpmath reference (``numerics.core.reference``, 20 digits with its ladder).  With rho within
    ~1e-12 of -1, 20 and 40 digits agree only to ~1e-14 and the ladder (a few digits short of full
    agreement) refuses; the checks here need ~1e-16, so 40 and 80 digits are compared at 1e-20."""
    fn = getattr(ref, name)
    try:
        return fn(mu1, mu2, s1, s2, rho, dps=20)
    except ref.LadderError:
        exact, finer = (fn(mu1, mu2, s1, s2, rho, dps=d, ladder=False) for d in (40, 80))
        assert abs(exact - finer) <= mp.mpf(1e-20) * abs(finer), (exact, finer)
        return exact


def _contract(name, mu1, mu2, s1, s2, rho, exact):
    """(|E - E_exact|, the contract's bound 1e-13 |E_exact| + GRID, E) for an mpmath ``exact``."""
    got = float(getattr(cf, name)(mu1, mu2, s1, s2, rho))
    return abs(mp.mpf(got) - exact), mp.mpf(1e-13) * abs(exact) + GRID, got


@pytest.mark.statement("lemma.relu_moment2")
@pytest.mark.parametrize("name, mu1, mu2, s1, s2, rho", BELOW_NORMAL)
def test_scaled_moments_relative_below_the_normal_range(name, mu1, mu2, s1, s2, rho):
    """relu_moment2 = s1 s2 M and orthant_first = s1 N1 are normal numbers here while M (N1) is far below
    the smallest normal float64: relative accuracy 1e-13 against the mpmath reference (the kernels carry
    the binary exponent apart: a kernel that took M as a float64, ``closed_form._DEEP = 0``, fails every
    row but the first, where M is normal, and the Stein branch's, which fails a kernel that forms that
    branch's coefficient times (s g1) instead of (coef s) g1: s g1 underflows there)."""
    exact = _reference(name, mu1, mu2, s1, s2, rho)
    assert abs(exact) >= TINY, "the value itself must be a normal float64 here"
    err, _, got = _contract(name, mu1, mu2, s1, s2, rho, exact)
    assert err <= mp.mpf(1e-13) * abs(exact), f"{name}: relative error {float(err / abs(exact)):.3g} (got {got!r}, exact {float(exact)!r})"


@pytest.mark.slow  # ~0.5 s of mpmath per example
@pytest.mark.statement("lemma.relu_moment2")
@settings(max_examples=budget(20))
@given(a1=st.floats(-27.5, -26.0), a2=st.floats(-56.0, 5.0), rho=S.correlations,
       log_s1=st.floats(-150.0, 150.0), log_s2=st.floats(-150.0, 150.0))
@example(a1=-26.7, a2=-26.7, rho=0.0, log_s1=6.0, log_s2=6.0)
@example(a1=-26.794712945135153, a2=-26.794712945135153, rho=0.015625, log_s1=0.0,
         log_s2=1.0)  # 1.1 units of the earlier one-unit form s1 s2 2^-1074 (deep profile)
@example(a1=-26.0, a2=0.0, rho=-0.999999999999, log_s1=0.0, log_s2=0.0)  # the reference's ladder refused
def test_relu_moment2_across_the_normal_boundary(a1, a2, rho, log_s1, log_s2):
    """Across the boundary (M from ~1e-300 down to ~1e-600) with s1, s2 over the whole degree-2 range:
    |E_1 - exact| <= 1e-13 |exact| + GRID against the mpmath reference."""
    s1, s2 = 10.0**log_s1, 10.0**log_s2
    exact = _reference("relu_moment2", a1 * s1, a2 * s2, s1, s2, rho)
    err, bound, got = _contract("relu_moment2", a1 * s1, a2 * s2, s1, s2, rho, exact)
    target(float(err / bound), label="error / bound")
    assert err <= bound, f"error {float(err):.3g} > contract {float(bound):.3g} (got {got!r}, exact {float(exact)!r})"


@pytest.mark.slow  # ~0.5 s of mpmath per example
@pytest.mark.statement("lemma.relu_moment2")
@settings(max_examples=budget(20))
@given(name=st.sampled_from(["relu_moment2", "orthant_first"]), a1=st.floats(-2.0, 300.0),
       a2=st.floats(-56.0, -36.5), rho=S.correlations, log_s1=st.floats(-150.0, 150.0),
       log_s2=st.floats(-150.0, 150.0))
@example(name="orthant_first", a1=40.0, a2=-38.5, rho=-1.0, log_s1=0.0, log_s2=0.0)  # was -5.4e-323
@example(name="relu_moment2", a1=258.0, a2=-37.8, rho=-1.0, log_s1=math.log10(678.0),
         log_s2=math.log10(0.00114))  # 3.4e4 units of the one-unit form
@example(name="relu_moment2", a1=0.0, a2=-37.0, rho=-0.9999999999999999, log_s1=0.0,
         log_s2=0.0)  # the reference's 20/40-digit ladder failed here (deep profile)
@example(name="orthant_first", a1=0.0, a2=-38.0, rho=1.0, log_s1=0.0, log_s2=0.0)  # 6.4 units (deep)
@example(name="relu_moment2", a1=-36.428629910619264, a2=154.66968388821053, rho=-0.996766184559399,
         log_s1=-85.11947, log_s2=102.47692)  # s1 g1 underflowed in the Stein branch: negative (fuzz)
def test_scaled_moments_in_the_deep_tail(name, a1, a2, rho, log_s1, log_s2):
    """The other constraint in its deep tail (standardised values down to ~1e-690), the Stein branch
    (a1 > 39) included, scales over the whole degree-2 range: |E - exact| <= 1e-13 |exact| + GRID against
    the mpmath reference (relative wherever the value is normal), and orthant_first >= 0."""
    s1, s2 = 10.0**log_s1, 10.0**log_s2
    mu1, mu2 = a1 * s1, a2 * s2
    exact = _reference(name, mu1, mu2, s1, s2, rho)
    err, bound, got = _contract(name, mu1, mu2, s1, s2, rho, exact)
    target(float(err / bound), label="error / bound")
    assert err <= bound, f"{name}: error {float(err):.3g} > {float(bound):.3g} (got {got!r}, exact {float(exact)!r})"
    assert name != "orthant_first" or got >= 0.0


# ------------------------------------------------------------ lemma.mask_moment1
#: the mask moments' promise (README, test_s4_gaussian_fast.MASK): normwise relative accuracy
MASK_NORMWISE = Tol(1e-13, why="the mask moments are promised accurate normwise, ||M - M_exact|| <= 1e-13 ||M_exact||")


def _norm(A):
    """Frobenius norm without underflow: numpy squares the entries, so a deep-tail moment with
    entries ~1e-186 had norm 0 (and a relative test, a tolerance of 1e-300)."""
    A = np.asarray(A)
    top = float(np.abs(A).max())
    return top * float(np.linalg.norm(A / top)) if top > 0 else 0.0


def _a_conditioning(x, kappa):
    """Relative sensitivity of the Gaussian moments to the rounding of a = 1^T x / (kappa ||x||),
    in units of (d + 2) eps.

    Forming 1^T x, ||x|| and the quotient moves a by ~ (d + 2) eps sum_i |x_i| / (kappa ||x||)
    (the sum may cancel), and a moment by (1 + max(0, -a)) times that, relatively (it behaves
    like exp(-a^2/2) in the lower tail).  kappa = 0: the degenerate moments are exact.
    """
    if kappa == 0:
        return 0.0
    n = float(np.linalg.norm(x))
    return (1 + max(0.0, -float(x.sum()) / (kappa * n))) * float(np.abs(x).sum()) / (kappa * n)


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
@example(u=np.array([0.9375, -1.0]), kappa=10.0**-2.75, e=1.0)  # a = -25.6 with 1^T u cancelling 30-fold:
# componentwise rtol = 1e-12 failed by 1.55e-12, within the conditioning (a test not tied to it)
@example(u=np.array([1.0]), kappa=1e7, e=0.0)  # halves of size 4e6 cancel to 1: an absolute 1e-14 was no tolerance
def test_mask_moment1_halves_and_scale(u, kappa, e):
    """E[c 1{c^T u >= 0}] + E[c 1{c^T u <= 0}] = E[c] = 1 (kappa > 0: the boundary has measure 0);
    invariant under u -> lam u, lam > 0: normwise, as promised, up to the rounding of a = 1^T u /
    (kappa ||u||), which lam u changes, times its conditioning (``_a_conditioning``)."""
    m, m_neg = cf.mask_moment1(u, kappa), cf.mask_moment1(-u, kappa)
    # the two halves are ~kappa/sqrt(2 pi) along u_hat and cancel to 1: rounding relative to their size
    halves = Tol(4 * EPS, why="the sum of two vectors, each accurate to ~eps of its size, cancelling to 1")
    size = max(1.0, float(np.abs(m).max()), float(np.abs(m_neg).max()))
    np.testing.assert_allclose(m + m_neg, np.ones_like(u), rtol=0, atol=halves.rtol * size)
    cond = _a_conditioning(u, kappa)
    tol = Tol(MASK_NORMWISE.rtol + (len(u) + 2) * EPS * cond,
              why=f"mask_moment1 normwise promise; plus (d + 2) eps times the a-conditioning {cond:.3g}")
    err = _norm(cf.mask_moment1(u * 10.0**e, kappa) - m)
    assert err <= tol.rtol * _norm(m) + 1e-300, f"normwise change {err:.3e} > {tol}"


# ------------------------------------------------------------ lemma.mask_moment2
def _psd(M, scale):
    return np.linalg.eigvalsh((M + M.T) / 2).min() >= -1e-12 * scale


@pytest.mark.statement("lemma.mask_moment2")
@given(st.integers(1, 5).flatmap(lambda d: st.tuples(S.directions(d), S.directions(d))), S.kappas)
@example(uv=(np.array([0.875, -0.875, -0.25, -0.25]), np.array([1.0, 0.0, 0.0, 0.0])), kappa=10.0**-1.875)
# entries ~1e-186: np.linalg.norm(H) underflowed to 0, so H - M (exactly ~0) had to be PSD to 1e-312
@example(uv=(np.array([0.0, 0.0, 0.0, 0.0, -1.0]), np.array([0.0, 0.0, 1.0, -1.0, 0.0])), kappa=1.0)  # the
# cancellation-free wedge (closed_form._cone) came out symmetric only to rounding (1.4e-17)
@example(uv=(np.array([0.0, 0.0, 1e52, -1e52]), np.array([1e50, 0.0, 0.0, 0.0])), kappa=1.0)  # not below
# the half space: the geometry's products overflowed (closed_form._binary_scaled)
def test_mask_moment2_psd_and_loewner(uv, kappa):
    """E[c c^T 1_A] is symmetric PSD and below E[c c^T 1{c^T u >= 0}] in the Loewner order."""
    u, v = uv
    M, H = cf.mask_moment2(u, v, kappa), cf.mask_moment2(u, None, kappa)
    scale = _norm(H) + 1e-300
    np.testing.assert_array_equal(M, M.T)
    assert _psd(M, scale) and _psd(H - M, scale)


@pytest.mark.statement("lemma.mask_moment2")
@S.tiers(20)
def test_mask_moment2_projects_to_relu_moment2(examples):
    """u^T E[c c^T 1_A] v = E[z1 z2 1{z1, z2 >= 0}] with z = (c^T u, c^T v) (Theorem 4.2 <-> 4.9).

    mask_moment2 is promised accurate normwise: |u^T (M - M_exact) v| <= 1e-13 ||M|| ||u|| ||v||.
    relu_moment2 sees the geometry through rounded parameters (1^T u, kappa ||u||, rho from a
    float64 cosine), which move its value by (d + 2) eps times their conditioning
    (``_a_conditioning``) in units of the natural size |u|^T |E[cc^T 1{c^T u >= 0}]| |v| (a d = 1
    pair u = -v / 0.875 is a hyperplane for M, exactly 0, but an interval of width ~eps for
    relu_moment2).  For d = 1 and u, v alike the test is relative; at a = -34 the conditioning
    is ~a^2.
    """

    @S.limit(examples)
    @given(st.integers(1, 5).flatmap(lambda d: st.tuples(S.directions(d), S.directions(d))), S.kappas)
    @example(uv=(np.array([-0.7]), np.array([-3.0])), kappa=10.0**-1.54)  # 1 x 1 at a = -34.7: the half-space
    # display cancelled like a^4 there (relative error 2.5e-10); numerics.core.closed_form._half_space
    @example(uv=(np.array([0.0, -1.0]), np.array([-1.0, 0.0])), kappa=0.1)  # |u|^T H |v| < 0: a scale must use |H|
    @example(uv=(np.array([-3.1e-05, -1.2e-05]), np.array([1.0, 0.0])), kappa=10.0**-1.25)  # a = (-23.0, 17.8):
    # the wedge's Stein form cancelled (P 1 1^T against kappa (1 t^T + t 1^T)), normwise error 6.8e-10;
    # numerics.core.closed_form._wedge_tail
    @example(uv=(np.array([0.0, 0.0, 0.0, -1.0]), np.array([0.0, 0.25, -1.0, 0.0])), kappa=1e-11)  # relu_moment2
    # NaN (deep profile, 2026-12-03): a = -1e11 recomputed with the exponent apart, exp(-el) of E ~ 5e21 overflowed
    def check(uv, kappa):
        u, v = uv
        d = len(u)
        M = cf.mask_moment2(u, v, kappa)
        nu, nv = np.linalg.norm(u), np.linalg.norm(v)
        # relu_moment2 = s1 s2 M must be finite: s_i = kappa ||u_i|| within the degree-2 range
        assume(kappa * nu <= S.SECOND[1] and kappa * nv <= S.SECOND[1])
        rho = float(np.clip(u @ v / (nu * nv), -1, 1))
        lhs = float(u @ M @ v)
        rhs = float(cf.relu_moment2(u.sum(), v.sum(), kappa * nu, kappa * nv, rho))
        cond = max(_a_conditioning(u, kappa), _a_conditioning(v, kappa))
        inputs = Tol((d + 2) * EPS * (1 + cond), why=f"(d + 2) eps times the a-conditioning 1 + {cond:.3g}, "
                                                     "in units of |u|^T |E[cc^T 1{c^T u >= 0}]| |v|")
        natural = float(np.abs(u) @ np.abs(cf.mask_moment2(u, None, kappa)) @ np.abs(v))  # off-diagonals may be < 0
        bound = MASK_NORMWISE.rtol * _norm(M) * nu * nv + inputs.rtol * natural + 1e-300
        target(abs(lhs - rhs) / bound, label="mismatch / tolerance")
        assert abs(lhs - rhs) <= bound, f"|{lhs!r} - {rhs!r}| > {MASK_NORMWISE} ||M|| |u| |v| + {inputs} * {natural:.3e}"

    check()


@pytest.mark.statement("lemma.mask_moment2")
@S.tiers(20)
def test_mask_moment2_splits_the_half_space(examples):
    """For kappa > 0: E[cc^T 1{u, v}] + E[cc^T 1{u, -v}] = E[cc^T 1{u}], and the two half spaces
    of u add up to E[c c^T] = 1 1^T + kappa^2 I; u || v gives the half space, u = -v gives 0."""

    @S.limit(examples)
    @given(st.integers(2, 5).flatmap(lambda d: st.tuples(S.directions(d), S.directions(d))), S.positive_kappas)
    @example(uv=(np.array([1.0, 0.0]), np.array([0.0, 1.0])), kappa=1e150)
    @example(uv=(np.array([1e4, 0.0, 0.0, 0.0]), np.array([0.0, 0.0, 1e75, 1e75])), kappa=1.0)  # geometry overflow
    def check(uv, kappa):
        u, v = uv
        H = cf.mask_moment2(u, None, kappa)
        scale = _norm(H) + 1e-300
        split = cf.mask_moment2(u, v, kappa) + cf.mask_moment2(u, -v, kappa)
        assume(abs(u @ v) < np.linalg.norm(u) * np.linalg.norm(v) * (1 - 1e-9))
        assert _norm(split - H) <= 1e-12 * scale
        whole = H + cf.mask_moment2(-u, None, kappa)
        expect = np.ones((len(u), len(u))) + kappa**2 * np.eye(len(u))
        assert _norm(whole - expect) <= 1e-12 * _norm(expect)  # _norm: kappa^2 up to 1e300 squared overflowed
        # exact multiples (powers of 2 scale without rounding): the half space, and the hyperplane
        np.testing.assert_array_equal(cf.mask_moment2(u, 2.0 * u, kappa), H)
        np.testing.assert_array_equal(cf.mask_moment2(u, -4.0 * u, kappa), np.zeros_like(H))
        # v = fl(3u) is parallel to u only up to rounding: continuity, not identity
        assert _norm(cf.mask_moment2(u, 3.0 * u, kappa) - H) <= 1e-12 * scale

    check()


@pytest.mark.slow  # ~1 s of mpmath per example
@pytest.mark.statement("lemma.mask_moment2")
@settings(max_examples=budget(30))
@given(st.integers(2, 4).flatmap(lambda d: st.tuples(S.directions(d), S.directions(d))),
       st.floats(-9, -1), st.floats(-1, 1), st.floats(-2, 0.5))  # t below 1e-9: the reference's precision
# ladder fails (the slab's width cancels more digits than its guard digits: u = e1, v = -e1 - 1e-12 e2, kappa = 0.1)
@example(uv=(np.array([0.8636908465283903, -0.5122070133539303]), np.array([1.0, 0.0])), log_angle=-10.4,
         log_lam=-0.44, log_kappa=-0.66)  # a narrow antiparallel wedge: the Stein form's cancellation went unseen
def test_mask_moment2_narrow_antiparallel_wedges_against_mpmath(uv, log_angle, log_lam, log_kappa):
    """v = -lam u + t ||u|| w/||w||, t = 10^-9 .. 10^-1: the event {c^T u >= 0, c^T v >= 0} is a slab
    of width ~t, which independent directions never draw; E[c c^T 1] against the mpmath definition,
    normwise within the promise plus the width's conditioning (``test_s4_gaussian_fast.mask_tol``)."""
    u, w = uv
    uh, wh = u / np.linalg.norm(u), w / np.linalg.norm(w)
    assume(1 - abs(float(uh @ wh)) > 1e-2)  # w off the line of u: else v is -lam u to rounding
    v = -(10.0**log_lam) * u + 10.0**log_angle * np.linalg.norm(u) * wh
    kappa = 10.0**log_kappa
    exact = np.array(ref.mask_moment2(u.tolist(), v.tolist(), kappa, dps=20).tolist(), dtype=float)
    err, size = _norm(cf.mask_moment2(u, v, kappa) - exact), _norm(exact)
    tol = mask_tol([u, v], kappa)
    target(err / (tol.rtol * size + 1e-300), label="error / tolerance")
    assert err <= tol.rtol * size + 1e-300, f"normwise error {err / max(size, 1e-300):.3e} > {tol}"
