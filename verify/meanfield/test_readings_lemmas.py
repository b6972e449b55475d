"""Witnesses of the readings of the meanfield pack's repaired (reconstructed) Lemmas 1-3:
``lemma.1.proof`` (which kappa), ``lemma.2.proof`` (how the width grows, and whether sigma(0) = 0 is
needed), ``lemma.3.proof`` (which fraction K* bounds, and how large K may be taken).  The readings
are listed in each statement's provenance (``theory/meanfield/``).

- Lemma 1: (19) on the exact flow of meanfield:E1's instance (ReLU, n = d = 1, G = 1, y = 1, m = 2,
  c = (2, -2), W^0 = (1, 1), I = (3/4, 5/4)): r = -e^{-4t}, h = 1 +- (1 - e^{-4t})/2, L = e^{-8t}/2
  (the pack's RK4 integrator reproduces it: test_s3_lemma1_errata.py), evaluated in mpmath;
- Lemma 2: the exact law of L^0 (noncentral chi-square for sigma(t) = t; a two-point mixture for
  sigma(t) = 1 + t at m = 1), mpmath;
- Lemma 3: exact binomial tails of the active fractions for independent rows (G diagonal).
"""
from __future__ import annotations

import math

import mpmath as mp
import pytest
import sympy as sp

from numerics.meanfield import lemmas as L
from theory.meanfield import dynamics as th

pytestmark = pytest.mark.witness("reference")

# ------------------------------------------------------------------------------------ lemma.1.proof
I_E1 = (mp.mpf(3) / 4, mp.mpf(5) / 4)


def _kappa(expr) -> mp.mpf:
    """A kappa of theory.meanfield.dynamics at the instance (lambda_1 = lambda_2 = K = 1)."""
    v = expr.subs({th.I_l: sp.Rational(3, 4), th.I_r: sp.Rational(5, 4), th.lam1: 1, th.lam2: 1, th.K_s: 1})
    return mp.mpf(str(v.evalf(40)))


def _lemma1_slack(kappa, times=400) -> tuple[mp.mpf, int]:
    """min over t of (eta^t)^{3/2} - [(tilde eta^0)^{3/2} - kappa (sqrt L^0 - sqrt L^t)/c_hat] along the
    exact flow, c_hat = 2, on a grid of t in [0, log 2] that contains log(2)/4 (where both neurons leave I)
    and its right neighbours."""
    lo, hi = I_E1
    third = (hi - lo) / 3
    h0 = [mp.mpf(1), mp.mpf(1)]
    eta0 = sum(lo + third < h < hi - third for h in h0) / mp.mpf(2)
    worst, judged = mp.inf, 0
    for k in range(times + 1):
        t = mp.log(2) * k / times
        s = 1 - mp.exp(-4 * t)
        h = (1 + s / 2, 1 - s / 2)
        eta = sum(lo < x < hi for x in h) / mp.mpf(2)
        L0, Lt = mp.mpf(1) / 2, mp.exp(-8 * t) / 2
        worst = min(worst, eta**1.5 - (eta0**1.5 - kappa * (mp.sqrt(L0) - mp.sqrt(Lt)) / 2))
        judged += 1
    return worst, judged


@pytest.mark.statement("lemma.1.proof")
@pytest.mark.parametrize("name, expr", [
    pytest.param("kappa*", th.KAPPA_STAR, marks=pytest.mark.reading("kappa-star"), id="kappa-star"),
    pytest.param("(53)", th.KAPPA_53, marks=pytest.mark.reading("kappa-53"), id="kappa-53")])
def test_lemma1_kappa_holds_on_the_E1_flow(name, expr, record):
    """Both hold here: (19) needs kappa >= 4 sqrt 2 = 5.657 on this flow (at t = log(2)/4, eta drops
    from 1 to 0 and sqrt L^0 - sqrt L^t = 1/(2 sqrt 2)); kappa(53) = 9, kappa* = 12.73."""
    with mp.workdps(30):
        kappa = _kappa(expr)
        slack, judged = _lemma1_slack(kappa)
    record(detail=f"kappa {name} = {mp.nstr(kappa, 6)}: min slack {mp.nstr(slack, 6)}", judged=judged)
    assert kappa >= 4 * mp.sqrt(2) and slack >= 0


@pytest.mark.statement("lemma.1.proof")
@pytest.mark.reading("kappa-printed", refutes=True)
def test_lemma1_printed_kappa_fails_on_the_E1_flow(record):
    """kappa as printed, 9 lambda_2 (I_r - I_l)/(2 lambda_1 K) = 2.25 < 4 sqrt 2 (meanfield:E1)."""
    with mp.workdps(30):
        kappa = _kappa(th.KAPPA_PRINTED)
        slack, _ = _lemma1_slack(kappa)
    record(detail=f"kappa = {mp.nstr(kappa, 6)}: min slack {mp.nstr(slack, 6)} < 0")
    assert kappa == mp.mpf("2.25") and slack < -0.5


# ------------------------------------------------------------------------------------ lemma.2.proof
@pytest.mark.statement("lemma.2.proof")
@pytest.mark.reading("n-linear")
def test_lemma2_repaired_width_grows_with_n(record):
    """sigma(t) = t, G = I_n, c = |y| = 1, delta = 0.1: at m = ceil(m*_min(n)) the exact P(L^0 > |y|^2) <= delta
    for n = 1, 4, 16."""
    delta = 0.1
    out = {}
    for n in (1, 4, 16):
        m = math.ceil(L.width_repaired(n, delta, 1.0, 1.0, 1.0, 1.0))
        out[n] = (m, L.lemma2_failure_linear(n, m, 1, 1, 1, dps=20))
    record(detail=", ".join(f"n = {n}: m = {m}, failure {mp.nstr(p, 3)}" for n, (m, p) in out.items()), judged=len(out))
    assert all(p <= delta for _, p in out.values())


@pytest.mark.statement("lemma.2.proof")
@pytest.mark.reading("n-free", refutes=True)
def test_lemma2_no_n_free_constant(record):
    """The width that works is m*(n) = n at delta = 1/2 (sigma(t) = t, G = I_n, c = |y| = 1), so the
    constant C*(n) = m*(n)/log(n/delta) in m >= C c^2 log(n/delta) G_max/|y|^2 grows without bound (meanfield:E3)."""
    widths = {n: L.smallest_width(lambda m, n=n: L.lemma2_failure_linear(n, m, 1, 1, 1, dps=20), 0.5) for n in (2, 8, 32)}
    need = {n: w / math.log(2 * n) for n, w in widths.items()}
    record(detail=f"m*(n) = {widths}; C*(n) = " + ", ".join(f"{v:.3f}" for v in need.values()))
    assert widths == {n: n for n in widths} and need[32] > 2 * need[2]


@pytest.mark.statement("lemma.2.proof")
@pytest.mark.reading("any-sigma0", refutes=True)
def test_lemma2_needs_sigma_zero_at_zero(record):
    """sigma(t) = 1 + t (1-Lipschitz, sigma(0) = 1), n = 1, G = 1e-4, c = |y| = 1, delta = 0.1: the repaired
    width is 0.0035, so m = 1 and f^0 = c_1 (1 + h), h ~ N(0, 1e-4). L^0 > 1 iff |f^0 - 1| > sqrt 2:
    P = [P(|h| > sqrt 2) + P(|2 + h| > sqrt 2)]/2 = 0.5 > delta."""
    g, delta = mp.mpf("1e-4"), 0.1
    width = L.width_repaired(1, delta, 1.0, float(g), 1.0, 1.0)
    m = math.ceil(width)
    with mp.workdps(30):
        s = mp.sqrt(g)
        plus = 2 * mp.ncdf(-mp.sqrt(2) / s)                                   # c = +1: |h| > sqrt 2
        minus = mp.ncdf((-2 - mp.sqrt(2)) / s) + mp.ncdf(-(mp.sqrt(2) - 2) / s)   # c = -1: |2 + h| > sqrt 2
        p = (plus + minus) / 2
    record(detail=f"width {width:.4g} -> m = {m}; P(L^0 > |y|^2) = {mp.nstr(p, 6)} > delta = {delta}")
    assert m == 1 and p > 0.49


# ------------------------------------------------------------------------------------ lemma.3.proof
#: (I, diagonal of G, delta): independent rows, the cases of test_e2_lemma3.py's repaired check
CASES = [((-1.0, 1.0), [1.0, 0.5, 2.0], 0.1), ((0.0, 1.5), [0.3], 0.5), ((1.0, 4.0), [1.0], 0.5)]


def _half_mass(I, diag) -> float:
    lo, hi = L.middle_third(*I)
    return float(min(L.interval_prob(lo, hi, g) for g in diag)) / 2


@pytest.mark.statement("lemma.3.proof")
@pytest.mark.parametrize("tilde, constant", [
    pytest.param(False, "K*", marks=pytest.mark.reading("eta-over-I"), id="eta-over-I"),
    pytest.param(True, "K*", marks=pytest.mark.reading("eta-tilde"), id="eta-tilde"),
    pytest.param(True, "half", marks=pytest.mark.reading("half-mass"), id="half-mass")])
def test_lemma3_readings_that_hold(tilde, constant, record):
    """P(fraction > K) >= 1 - delta at m = ceil(log(n/delta)/(2 K^2)), exact, for K = K* or K = half the
    smallest middle-third mass min_a pi(I_0; G_aa)/2 (>= K*, the largest constant Hoeffding allows)."""
    out = []
    for I, diag, delta in CASES:
        K = L.K_star(*I, min(diag), max(diag)) if constant == "K*" else _half_mass(I, diag)
        m = L.log_required_width(len(diag), delta, K)
        p = L.event_probability(*I, diag, m, K, tilde=tilde, dps=20)
        out.append((K, m, p, delta))
    record(ratio=max(float((1 - p) / d) for _, _, p, d in out),
           detail="; ".join(f"K = {K:.4g}, m = {m}, P = {mp.nstr(p, 5)}" for K, m, p, _ in out), judged=len(out))
    assert all(p >= 1 - d for _, _, p, d in out)


@pytest.mark.statement("lemma.3.proof")
@pytest.mark.reading("full-mass", refutes=True)
def test_lemma3_the_whole_mass_is_not_a_bound(record):
    """K = pi(I_0; G) itself (n = 1, I = (0, 1.5), G = 0.3, delta = 0.1): tilde eta^0 is a binomial fraction with
    mean K, so it exceeds K with probability near 1/2 (0.55 at the lemma's width m = 54, 0.50 at m = 1000), far below
    1 - delta."""
    I, g, delta = (0.0, 1.5), 0.3, 0.1
    K = 2 * _half_mass(I, [g])
    ps = {m: L.event_probability(*I, [g], m, K, tilde=True, dps=20) for m in (L.log_required_width(1, delta, K), 1000)}
    record(detail=f"K = {K:.4f}: " + ", ".join(f"P(tilde eta^0 > K) = {mp.nstr(p, 4)} at m = {m}" for m, p in ps.items()))
    assert all(p < 1 - delta for p in ps.values())
