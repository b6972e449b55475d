"""The two pieces of issue 24 that change what the kernels may return below and beside the
normal range: the binary shift of ``numerics.core.normal`` / ``bvn`` (keyword ``shift``: a value
times 2^S, the power carried inside its Gaussian factors) and ``bvn_cdf``'s ``atol`` route.
References are mpmath (50 digits) of the raw formulas; the kernels' own values without the
keyword serve only where a test says that the keyword must not change them."""
from __future__ import annotations

import inspect
import math

import mpmath as mp
import pytest
import torch

from numerics.core import bvn
from numerics.core import normal as nm

TINY = 2.2250738585072014e-308
EPS = 2.0**-52

#: the one-dimensional functions with their mpmath definitions
ONE_D = {
    "exp_half_sq": (nm.exp_half_sq, lambda x: mp.exp(-x * x / 2)),
    "pdf": (nm.pdf, mp.npdf),
    "cdf": (nm.cdf, mp.ncdf),
    "partial_moment1": (nm.partial_moment1, lambda a: a * mp.ncdf(a) + mp.npdf(a)),
    "partial_moment2": (nm.partial_moment2, lambda a: (a * a + 1) * mp.ncdf(a) + a * mp.npdf(a)),
}


@pytest.mark.parametrize("name", sorted(ONE_D))
def test_shifted_one_dimensional_against_mpmath(name):
    """f(x, shift=S) = f(x) 2^S to a few ulps over x in [-56, 4] and S in [0, 1000] wherever the
    shifted value is normal (the unshifted one underflows below x ~ -37.5); the tolerance: the
    functions' own accuracy without a shift (tests/test_bvn_kernels.py), 8 eps for exp/pdf/cdf and
    the erfcx/continued-fraction scaled tails, 64 eps for g2's erfcx formula below x = 4."""
    f, exact = ONE_D[name]
    g = torch.Generator().manual_seed(7)
    x = torch.rand(400, generator=g, dtype=torch.float64) * 60.0 - 56.0
    S = torch.randint(0, 1001, (400,), generator=g).to(torch.float64)
    got = f(x, S).tolist()
    tol = 64 * EPS if name == "partial_moment2" else 8 * EPS
    checked = 0
    with mp.workdps(50):
        for xi, si, gi in zip(x.tolist(), S.tolist(), got):
            e = exact(mp.mpf(xi)) * mp.mpf(2) ** int(si)
            if e < TINY or e > 1e300:
                continue
            checked += 1
            assert abs(gi - e) <= tol * e, (name, xi, si, gi, float(e))
    assert checked > 150


def test_shift_zero_agrees_with_no_shift():
    """S = 0 takes the shifted code (the exponent split by two_sum, ``exp_scaled``) and must give the
    plain values to 2 ulps."""
    x = torch.linspace(-37.0, 6.0, 301, dtype=torch.float64)
    zero = torch.zeros_like(x)
    for name, (f, _) in ONE_D.items():
        plain, shifted = f(x), f(x, zero)
        ok = plain > 0
        assert ((shifted[ok] - plain[ok]).abs() <= 2 * EPS * plain[ok]).all(), name


def _interval_exact(a, b, m, n):
    """int_a^b (b - y)^m (y - a)^n varphi(y) dy from the moments int y^j varphi (j <= 2) at 80 digits:
    their cancellation is polynomial in |a|, far inside that precision (mpmath's quad on the raw
    integrand was 6e-5 off at a = -45, where varphi falls by e^22 across the interval)."""
    with mp.workdps(80):
        A, B = mp.mpf(a), mp.mpf(b)
        p0 = mp.ncdf(B) - mp.ncdf(A) if A < 0 else mp.ncdf(-A) - mp.ncdf(-B)  # no 1 - 1 in the upper tail
        mom = [p0, mp.npdf(A) - mp.npdf(B)]
        mom.append(mom[0] + A * mp.npdf(A) - B * mp.npdf(B))
        # (b - y)^m (y - a)^n as a polynomial in y
        poly = [mp.mpf(1)]
        for root, sign, times in ((B, -1, m), (A, 1, n)):
            for _ in range(times):  # multiply by sign * (y - root)
                poly = [sign * (c1 - root * c0) for c0, c1 in zip(poly + [0], [0] + poly)]
        return sum(c * mom[j] for j, c in enumerate(poly))


def test_shifted_interval_moments_against_mpmath():
    """interval_moment / interval_prob with a shift: short, long and straddling intervals deep in the
    lower tail (where the unshifted value underflows) against mpmath (``_interval_exact``)."""
    rows = [(-45.0, -44.5, 1, 1), (-50.0, -40.0, 1, 0), (-42.0, -41.99, 2, 0), (-40.0, 3.0, 1, 1),
            (-60.0, -39.0, 0, 0), (38.5, 45.0, 0, 1), (-44.0, -43.0, 0, 2)]
    S = torch.tensor(900.0, dtype=torch.float64)
    for a, b, m, n in rows:
        ta, tb = torch.tensor(a, dtype=torch.float64), torch.tensor(b, dtype=torch.float64)
        got = float(nm.interval_prob(ta, tb, shift=S)) if (m, n) == (0, 0) else float(nm.interval_moment(ta, tb, m, n, S))
        with mp.workdps(80):
            e = _interval_exact(a, b, m, n) * mp.mpf(2) ** 900
        assert e > TINY
        assert abs(got - e) <= 64 * EPS * e, (a, b, m, n, got, float(e))


def test_shifted_orthant_moments_scale_exactly():
    """bvn.orthant_moments(shift=S) = 2^S times the unshifted moments (to 4 ulps) on rows whose
    values are normal either way: every path (rho = 0, +-1, both signs, rho -> +-1) carries the shift."""
    g = torch.Generator().manual_seed(3)
    n = 3000
    a1 = torch.rand(n, generator=g, dtype=torch.float64) * 36.0 - 30.0
    a2 = torch.rand(n, generator=g, dtype=torch.float64) * 36.0 - 30.0
    rho = torch.rand(n, generator=g, dtype=torch.float64) * 2.0 - 1.0
    rho[:200], rho[200:400], rho[400:600] = 1.0, -1.0, 0.0
    rho[600:800] = 1.0 - 1e-9
    S = torch.randint(0, 301, (n,), generator=g).to(torch.float64)
    plain = bvn.orthant_moments(a1, a2, rho)
    shifted = bvn.orthant_moments(a1, a2, rho, shift=S)
    for key in plain:
        p, s = plain[key], torch.ldexp(shifted[key], -S)
        ok = (p > 1e-290) & torch.isfinite(p)
        assert int(ok.sum()) > 1500, key
        assert ((s[ok] - p[ok]).abs() <= 4 * EPS * p[ok]).all(), key


def test_shifted_orthant_moments_below_the_normal_range():
    """Where the moments themselves underflow, the shifted ones match mpmath (the product g1(a1) g1(a2)
    at rho = 0 and the one-dimensional limits at rho = 1), with S = 1000."""
    S = torch.tensor([1000.0], dtype=torch.float64)
    t = lambda v: torch.tensor([v], dtype=torch.float64)  # noqa: E731
    g1 = lambda a: a * mp.ncdf(a) + mp.npdf(a)  # noqa: E731
    g2 = lambda a: (a * a + 1) * mp.ncdf(a) + a * mp.npdf(a)  # noqa: E731
    with mp.workdps(50):
        for a1, a2 in ((-50.0, -1.0), (-38.0, -20.0), (-45.0, 2.0), (-52.0, 3.0)):
            got = float(bvn.orthant_moments(t(a1), t(a2), t(0.0), shift=S)["M"])
            e = g1(mp.mpf(a1)) * g1(mp.mpf(a2)) * mp.mpf(2) ** 1000
            assert abs(got - e) <= 16 * EPS * e, (a1, a2, got, float(e))
            m = min(a1, a2)
            got1 = float(bvn.orthant_moments(t(a1), t(a2), t(1.0), shift=S)["M"])
            e1 = (g2(mp.mpf(m)) + (abs(a1 - a2)) * g1(mp.mpf(m))) * mp.mpf(2) ** 1000
            assert abs(got1 - e1) <= 16 * EPS * e1, (a1, a2, got1, float(e1))


# ------------------------------------------------------------------ bvn_cdf(atol=...)
def _pairs_like_small_kappa(n, seed):
    """Points like Fig. 3(a)'s pairs at small kappa: standardised means out to +-25, rho in [-0.7, 0.9]."""
    g = torch.Generator().manual_seed(seed)
    h = torch.randn(n, generator=g, dtype=torch.float64) * 10
    k = torch.randn(n, generator=g, dtype=torch.float64) * 10
    rho = torch.rand(n, generator=g, dtype=torch.float64) * 1.6 - 0.7
    return h, k, rho


@pytest.mark.parametrize("masked", [False, True])
def test_atol_route_changes_only_pinned_rows(masked, monkeypatch):
    """With atol, the rows whose Phi2 a one-dimensional tail pins (Phi(min) or Phic(max) <= atol), and
    those of the rule's band (_FP_HMAX2 < max(|h|, |k|) <= _FP_HMAX_ATOL, ``bvn._band_within_atol``),
    may change, by at most atol plus the rounding of the value returned; every other row is bit for
    bit the value without atol (routed and masked formulations)."""
    monkeypatch.setattr(bvn, "_MASKED", masked)
    h, k, rho = _pairs_like_small_kappa(40000, 11)
    atol = 2.0**-60
    plain = bvn.bvn_cdf(h, k, rho, relative=False)
    fast = bvn.bvn_cdf(h, k, rho, relative=False, atol=atol)
    lo, hi = torch.minimum(h, k), torch.maximum(h, k)
    pinned = (nm.cdf(lo) <= atol) | (nm.cdf(-hi) <= atol)
    big = torch.maximum(h.abs(), k.abs())
    pinned |= (big > bvn._FP_HMAX2) & (big <= bvn._FP_HMAX_ATOL)
    changed = fast != plain
    assert int(changed.sum()) > 1000
    assert not bool((changed & ~pinned).any())
    assert ((fast - plain).abs() <= atol + 4 * EPS * plain).all()


def test_atol_zero_and_bad_values():
    """atol = 0 (the default) takes no row by the route: on rows that atol = 2^-60 would pin by
    Phi(min(h, k)) (min(h, k) < -8.77, max(h, k) < 3, |rho| > 0.3: Phi(h)Phi(k) off by more than 1e-14
    relatively, checked in mpmath), atol = 0 keeps the relative accuracy of the fast rules and the
    general path (1e-14, as tests/test_bvn_kernels.py holds them) against mpmath's raw definition.
    A negative, infinite or NaN atol, or atol with q, is an error."""
    import _mp_bvn  # tests/ is on sys.path

    assert inspect.signature(bvn.bvn_cdf).parameters["atol"].default == 0.0
    h, k, rho = _pairs_like_small_kappa(5000, 12)
    atol = 2.0**-60
    lo, hi = torch.minimum(h, k), torch.maximum(h, k)
    rows = torch.nonzero((nm.cdf(lo) <= atol) & (hi < 3) & (rho.abs() > 0.3)).squeeze(-1)[:4].tolist()
    assert len(rows) == 4
    plain = bvn.bvn_cdf(h, k, rho, relative=False, atol=0.0)
    for i in rows:
        p = float(h[i]), float(k[i]), float(rho[i])
        exact = _mp_bvn.bvn_cdf(*p, dps=20)
        with mp.workdps(20):
            assert mp.ncdf(min(p[:2])) <= atol
            assert abs(mp.ncdf(p[0]) * mp.ncdf(p[1]) - exact) > 1e-14 * exact, p  # the route would be off
        assert abs(float(plain[i]) - exact) <= 1e-14 * exact, (p, float(plain[i]), float(exact))
    for bad in (-1e-20, math.inf, math.nan):
        with pytest.raises(ValueError, match="atol"):
            bvn.bvn_cdf(h, k, rho, atol=bad)
    with pytest.raises(ValueError, match="atol"):
        bvn.bvn_cdf(h, k, rho, q=torch.sqrt(1 - rho * rho), atol=1e-18)
