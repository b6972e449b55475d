"""Fast witnesses of ``numerics.core.normal`` written to kill its mutants (bench/mutation.py,
notes/mutation.md): each kernel against mpmath on the raw definition, at points chosen to
reach every branch (deep lower tail, both switches of the continued fractions, the short-
interval Gauss-Legendre zone, straddling and reflected intervals, infinite ends).

References (never the kernels' own formulas):
- phi, Phi: mpmath's npdf/ncdf at 30 digits (Phi by mpmath's erfc, not by the erfcx route);
- the partial moments g_j(a) = E[(a - Y)_+^j] = int_0^inf t^j phi(a - t) dt, by mp.quad of that
  integrand (scaled by 1/phi(a) for the tails G_j);
- the interval moments I_{m,n}(a, b) = int_a^b (b - y)^m (y - a)^n phi(y) dy by mp.quad.
Tolerances: the accuracies the module docstrings claim, in units of eps = 2^-52.
"""
from __future__ import annotations

import math

import mpmath as mp
import pytest
import torch

from numerics.core import normal as nm

EPS = 2.0**-52
DPS = 30

# Points over the whole range: deep lower tail (to the underflow of phi near -37.5), both
# sides of the switches x = +-2 and +-4 of the tails' continued fractions, and the centre.
XS = [-37.0, -30.5, -12.25, -6.0, -4.5, -4.0, -3.5, -2.5, -2.0, -1.3, -0.6, -1e-3, 0.0,
      1e-3, 0.7, 1.9, 2.2, 3.1, 4.0, 4.4, 7.5, 15.0]


def t(v):
    return torch.tensor(v, dtype=torch.float64)


def rel(got, want):
    got, want = mp.mpf(float(got)), mp.mpf(want)
    return abs(got - want) / abs(want) if want else abs(got)


def scaled_g_ref(j: int, x: float):
    """G_j(x) = g_j(-x)/phi(x) = int_0^inf t^j exp(-x t - t^2/2) dt, x >= 0, by quadrature at
    DPS digits, split at multiples of the decay length 1/(x + 1) of the integrand."""
    with mp.workdps(DPS):
        x = mp.mpf(x)
        h = 1 / (x + 1)
        return mp.quad(lambda s: s**j * mp.exp(-x * s - s * s / 2), [0, h, 4 * h, 16 * h, 64 * h, mp.inf])


def g_ref(j: int, a: float):
    """g_j(a) = int_0^inf t^j phi(a - t) dt (Y = a - t): phi(a) G_j(-a) for a < 0 (the same
    integral with phi(a) taken out, so that the quadrature sees numbers of order 1)."""
    with mp.workdps(DPS):
        a = mp.mpf(a)
        if a < 0:
            return mp.npdf(a) * scaled_g_ref(j, -a)
        return mp.quad(lambda s: s**j * mp.npdf(a - s), [0, 1, 4, 16, mp.inf])


def interval_ref(a: float, b: float, m: int, n: int):
    """I_{m,n}(a, b) = int_a^b (b - y)^m (y - a)^n phi(y) dy by quadrature (0 when a >= b), with
    phi(c) taken out (c the point of [a, b] nearest 0, phi(y)/phi(c) = exp(-(y - c)(y + c)/2))
    so that the quadrature sees numbers of order 1 in the deep tails."""
    with mp.workdps(DPS):
        a, b = mp.mpf(a), mp.mpf(b)
        if a >= b:
            return mp.mpf(0)
        if (mp.isinf(a) and n) or (mp.isinf(b) and m):
            return mp.inf  # the weight grows without bound at the infinite end
        c = min(max(mp.mpf(0), a), b)

        def f(y):
            w = mp.exp(-(y - c) * (y + c) / 2)
            if m:  # (inf - y)^0 is NaN in mpmath: only finite factors are formed
                w *= (b - y) ** m
            if n:
                w *= (y - a) ** n
            return w
        h = 1 / (abs(c) + 1)
        if mp.isinf(a):
            pts = [a, b - 64 * h, b - 16 * h, b - 4 * h, b - h, b]
        elif mp.isinf(b):
            pts = [a, a + h, a + 4 * h, a + 16 * h, a + 64 * h, b]
        else:
            pts = sorted({a, b, *(p for p in (c - 4 * h, c - h, c + h, c + 4 * h) if a < p < b)})
        return mp.npdf(c) * mp.quad(f, pts)


def test_pdf_and_exp_half_sq():
    # exp(-x^2/2) from the exact split of x^2: ~2 ulp (pdf docstring) where the naive
    # exp(-x*x/2) is off by ~x^2 ulp; 4 eps allows the two roundings of the product.
    for x in XS:
        with mp.workdps(DPS):
            want = mp.npdf(x)
        assert rel(nm.pdf(t(x)), want) <= 4 * EPS, x
        assert rel(nm.exp_half_sq(t(x)), want * mp.sqrt(2 * mp.pi)) <= 4 * EPS, x
    # clamped at |x| = 40, where exp(-800) underflows to 0: no NaN from the split of a huge
    # or infinite x (its Veltkamp product overflows), on either side
    for x in (-math.inf, -1e300, -41.0, 41.0, 1e300, math.inf):
        assert float(nm.exp_half_sq(t(x))) == 0.0 and float(nm.pdf(t(x))) == 0.0, x


def test_split_is_exact_and_short():
    for x in [math.pi * 10**k for k in range(-5, 6)] + [-37.3, 1.0 + 2**-40]:
        hi, lo = nm._split(t(x))
        hi, lo = float(hi), float(lo)
        assert hi + lo == x  # exact: the split loses nothing
        m, _ = math.frexp(hi)
        assert (m * 2**26).is_integer()  # hi carries at most 26 significant bits


def test_cdf_ccdf_log_cdf():
    # cdf: relative error < 1e-15 (docstring) in the lower tail; for x >= 0 the value is
    # 1 - Phic(x) and is accurate to ~2 eps absolutely (a value near 1).
    for x in XS:
        with mp.workdps(DPS):
            want, want_c = mp.ncdf(x), mp.ncdf(-x)
        assert rel(nm.cdf(t(x)), want) <= 1e-15, x
        assert rel(nm.ccdf(t(-x)), want) <= 1e-15, x
        if x > -30:  # log Phi: measured < 1e-14 (docstring)
            assert abs(float(nm.log_cdf(t(x))) - float(mp.log(want))) <= 1e-14 * max(1.0, abs(float(mp.log(want)))), x
        assert rel(nm.ccdf(t(x)), want_c) <= 1e-15 or x > 8, x
    assert float(nm.cdf(t(-math.inf))) == 0.0 and float(nm.cdf(t(math.inf))) == 1.0


def test_mills_ratio():
    # R(x) = Phic(x)/phi(x) = sqrt(pi/2) erfcx(x/sqrt 2); erfcx is accurate to a few ulp, but
    # for x < 0 (R ~ sqrt(2 pi) exp(x^2/2)) the rounding of x/sqrt 2 (1 ulp) is amplified by
    # the condition number x^2 of exp(x^2/2): 8 + x^2 eps.
    for x in XS:
        with mp.workdps(DPS):
            want = mp.ncdf(-x) / mp.npdf(x)
        assert rel(nm.mills_ratio(t(x)), want) <= (8 + (x * x if x < 0 else 0.0)) * EPS, x


@pytest.mark.parametrize("fn", ["tuple", "g1"])
def test_scaled_tail_moments(fn):
    # G1, G2: < 4e-16 by the continued fraction above x = 2, < 1e-14 by erfcx below
    # (cancellation by a factor <= 20, docstring); scaled_g1: < 2e-15 (its docstring).
    xs = [0.0, 0.3, 1.0, 1.99, 2.0, 2.01, 3.0, 3.99, 4.0, 4.01, 6.0, 11.0, 40.0]
    vec = t(xs)
    if fn == "tuple":
        g1, g2 = nm.scaled_tail_moments(vec)
        for i, x in enumerate(xs):
            assert rel(g1[i], scaled_g_ref(1, x)) <= 1e-14, x
            assert rel(g2[i], scaled_g_ref(2, x)) <= 1e-14, x
    else:
        g1 = nm.scaled_g1(vec)
        for i, x in enumerate(xs):
            assert rel(g1[i], scaled_g_ref(1, x)) <= 2e-15, x


def test_partial_moments():
    # g1, g2 relatively accurate down to the underflow of phi: the tail form phi * G_j
    # (each ~1e-15) for a < 0, positive terms for a >= 0; 2e-14 covers both products.
    for a in XS:
        assert rel(nm.partial_moment1(t(a)), g_ref(1, a)) <= 2e-14, a
        assert rel(nm.partial_moment2(t(a)), g_ref(2, a)) <= 2e-14, a
    assert float(nm.partial_moment1(t(-math.inf))) == 0.0
    assert float(nm.partial_moment2(t(-math.inf))) == 0.0
    assert float(nm.partial_moment1(t(math.inf))) == math.inf
    assert float(nm.partial_moment2(t(math.inf))) == math.inf


# (a, b) covering: short intervals (GL zone, d <= 2.5 and d |A| <= 4), long ones in one tail,
# deep tails, intervals straddling 0 (both asymmetries), reflected ones in y >= 0, infinite ends.
INTERVALS = [(-1.0, -0.2), (-3.0, -2.0), (-8.0, -7.6), (-30.0, -29.9), (-9.0, -3.0),
             (-6.0, -1.0), (-2.0, 1.5), (-0.5, 3.0), (-4.0, 0.3), (0.3, 1.0), (2.0, 6.0),
             (7.0, 7.4), (1.0, 4.0), (-25.0, -0.5), (-12.0, 3.0), (0.5, 30.0), (0.0, 2.0),
             (-3.0, 0.0), (-math.inf, -5.0), (-math.inf, 1.2), (-math.inf, -0.3),
             (0.8, math.inf), (-2.5, math.inf), (5.5, math.inf), (-1.0, -1.0), (2.0, 1.0)]


@pytest.mark.parametrize("m,n", [(0, 0), (1, 0), (0, 1), (2, 0), (1, 1), (0, 2)])
def test_interval_moment(m, n):
    # relatively accurate (docstring): each one-sided difference loses at most a factor ~3,
    # the straddling sum has positive terms; 1e-13 = ~450 eps allows the factor 3 on
    # operands carrying up to ~1e-14 (the partial moments above) plus the sums.
    a = t([p[0] for p in INTERVALS])
    b = t([p[1] for p in INTERVALS])
    got = nm.interval_moment(a, b, m, n)
    for i, (lo, hi) in enumerate(INTERVALS):
        want = interval_ref(lo, hi, m, n)
        if mp.isinf(want):
            assert float(got[i]) == math.inf, (lo, hi)
        else:
            assert rel(got[i], want) <= 1e-13, (lo, hi, m, n, float(got[i]), want)


def test_interval_moment_rejects_orders():
    with pytest.raises(ValueError):
        nm.interval_moment(t(0.0), t(1.0), 2, 1)
    with pytest.raises(ValueError):
        nm.interval_moment(t(0.0), t(1.0), -1, 0)


def test_interval_prob():
    # P(a < Y <= b): Gauss-Legendre on short intervals (exact to ~1e-15), tail differences
    # losing at most a factor ~1.2 elsewhere (docstring); 1e-14 covers both.
    a = t([p[0] for p in INTERVALS])
    b = t([p[1] for p in INTERVALS])
    got = nm.interval_prob(a, b)
    for i, (lo, hi) in enumerate(INTERVALS):
        want = interval_ref(lo, hi, 0, 0)
        assert rel(got[i], want) <= 1e-14, (lo, hi, float(got[i]), want)
    assert float(nm.interval_prob(t(-math.inf), t(math.inf))) == 1.0


def test_gauss_legendre_rule():
    # an n-point rule integrates x^k over [-1, 1] exactly (2/(k+1), k even; 0, k odd) for
    # k <= 2n - 1; the polished rule to ~1 ulp per term, so 32 eps on the sum of 20 terms.
    x, w = nm.gauss_legendre(20, "cpu")
    for k in range(40):
        want = 2.0 / (k + 1) if k % 2 == 0 else 0.0
        assert abs(float((w * x**k).sum()) - want) <= 32 * EPS, k
    assert bool((x[1:] > x[:-1]).all()) and bool((w > 0).all())
    again = nm.gauss_legendre(20, "cpu")
    assert again[0] is x and again[1] is w  # cached per device
    # on the device asked for (the meta device stands for an accelerator: no data, a device tag)
    xm, wm = nm.gauss_legendre(20, "meta")
    assert xm.device.type == "meta" and wm.device.type == "meta"


def test_cached_rule_builds_each_rule_once(monkeypatch):
    # "built once by make(n) and cached": a second device or dtype reuses the host rule
    # (fresh caches for this test, so that nothing leaks into or out of it)
    monkeypatch.setattr(nm, "_RULE_CACHE", {})
    monkeypatch.setattr(nm, "_GL_CACHE", {})
    calls = []

    def make(n):
        calls.append(n)
        return nm._legendre_mp(n)

    nm.cached_rule("legendre", 5, make, "cpu", torch.float64)
    nm.cached_rule("legendre", 5, make, "cpu", torch.float32)
    nm.cached_rule("legendre", 5, make, "meta", torch.float64)
    assert calls == [5]
