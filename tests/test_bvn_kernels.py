"""Accuracy of the float64 torch kernels ``numerics.core.normal`` and ``numerics.core.bvn``.

Every value is compared with an mpmath reference that integrates the RAW definition
(``tests/_mp_bvn.py``: a one-dimensional integral over Y1 of the conditional law of Y2,
at 40 digits; it never uses Plackett's identity, which is what the kernels use).

Tolerance: relative error <= 1e-13 wherever the true value is a normal float64
(> 2.2e-308).  Reason: this is the accuracy the kernels are designed for; it leaves a
margin of ~10x over the largest error measured on ~10^5 fuzzed points, and it is still
~500 ulp, which absorbs the unavoidable amplification of input-independent rounding by
the exponent (a value exp(-E) with E ~ 700 moves by E * eps ~ 8e-14 per ulp of E; the
kernels form E in double-double to stay below that).

The default tier uses a modest curated set (a few seconds); ``-m slow`` runs a fuzzed
sweep, ``-m gpu`` compares CUDA against the CPU.
"""
from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
import torch

from numerics.core import bvn, bvn_rules
from numerics.core import normal as nm

import _mp_bvn as ref  # tests/ is on sys.path (no package __init__)

TOL = 1e-13
TINY = mp.mpf("2.2250738585072014e-308")
INF = math.inf


def T(x):
    return torch.as_tensor(np.asarray(x, dtype=np.float64))


def _relerr(value, exact):
    exact = mp.mpf(exact)
    if exact == 0:
        return 0.0 if value == 0 else math.inf
    if not math.isfinite(value):
        return math.inf
    with mp.workdps(40):
        return float(abs(mp.mpf(value) / exact - 1))


def _check(fn, refn, points, tol=TOL, dps=40):
    """Max relative error of ``fn`` over ``points`` (only where the reference is a normal
    float64); fails with the worst point."""
    arr = np.array(points, dtype=np.float64)
    got = fn(T(arr[:, 0]), T(arr[:, 1]), T(arr[:, 2])).numpy()
    worst, where = 0.0, None
    for (a, b, r), g in zip(points, got):
        assert not np.isnan(g), f"NaN at {(a, b, r)}"
        exact = refn(a, b, r, dps=dps)
        if abs(exact) < TINY:
            assert g >= 0.0 and g < 1e-290, f"{(a, b, r)}: expected ~0, got {g}"
            continue
        e = _relerr(float(g), exact)
        if e > worst:
            worst, where = e, ((a, b, r), float(g), mp.nstr(exact, 20))
    print(f"[{fn.__name__}] max relative error {worst:.2e} over {len(points)} points (worst {where})")
    assert worst <= tol, f"max relative error {worst:.3e} > {tol:g} at {where}"
    return worst


# ----------------------------------------------------------------------------- points
RHOS = [-1.0, -0.999999, -0.9, -0.5, -0.1, 0.0, 0.1, 0.5, 0.9, 0.999999, 1.0]

CDF_POINTS = [
    (-8.0, -8.0, 0.5),                      # 1.79e-21, must be relatively right
    (0.0, 0.0, 0.3),
    (1.5, -0.7, -0.6),
    (-37.0, -37.0, 0.99),                   # 5e-302
    (-36.5, -37.2, 0.5),
    (-30.0, -29.99, 0.999999),
    (-33.33431352814416, 33.33431352811921, -0.3763370959790291),  # h ~ -k
    (5.0, 0.0, 0.999999),
    (-3.0, 2.0, -0.9),
    (10.0, 12.0, -0.5),
    (-20.0, 3.0, 0.7),
    (2.0, -2.0, -0.999999),
    (-1.0, 1.0000001, -0.9999999),
    (1.4094264788018478, -1.4094264601647541, -0.9999999646762381),
    (-14.265781426369175, -14.232481304030184, 0.999999),
    (3.3505803108725314e-09, 5.006021806497622e-09, -0.1),
    (-6.0, -6.0, 1e-10),
    (-25.0, -5.0, -0.2),
    (-30.0, -20.0, 1.0),
    (3.0, -2.9, -1.0),
    (-2.0, -3.0, -1.0),
    (0.0, 0.0, -0.999999),
]

MOMENT_POINTS = [
    (-8.0, -8.0, 0.5),
    (1.5, -0.7, -0.6),
    (-3.0, 1.2, 0.7),
    (-30.0, -29.99, 0.999999),
    (-37.0, -37.0, 0.99),
    (-2.0, 1.0, -0.3),
    (1.4094264788018478, -1.4094264601647541, -0.9999999646762381),
    (-15.031462783090731, 15.031463162094134, -0.999999),
    (4.0, -6.0, 0.9),
    (0.5, 0.5, 1.0),
    (-3.0, 2.5, -1.0),
]


# ------------------------------------------------------------------------- univariate
def test_univariate_against_mpmath():
    xs = np.concatenate([np.linspace(-38.0, 8.0, 461), [-37.5, -1e-300, 0.0, 1e-10, -4.0, -2.0]])
    t = T(xs)
    cases = {
        "pdf": (nm.pdf, lambda x: mp.npdf(x)),
        "cdf": (nm.cdf, lambda x: mp.ncdf(x)),
        "g1": (nm.partial_moment1, lambda x: x * mp.ncdf(x) + mp.npdf(x)),
        "g2": (nm.partial_moment2, lambda x: (x * x + 1) * mp.ncdf(x) + x * mp.npdf(x)),
    }
    with mp.workdps(40):
        for name, (fn, rf) in cases.items():
            got = fn(t).numpy()
            worst, where = 0.0, None
            for x, g in zip(xs, got):
                exact = rf(mp.mpf(float(x)))
                if exact < TINY:
                    continue
                e = _relerr(float(g), exact)
                if e > worst:
                    worst, where = e, x
            assert worst <= TOL, f"{name}: {worst:.2e} at x={where}"
        # log_cdf: relative error of log Phi (away from x = 0, where log Phi -> -log 2)
        got = nm.log_cdf(t).numpy()
        for x, g in zip(xs, got):
            exact = mp.log(mp.ncdf(mp.mpf(float(x))))
            if exact != 0:
                assert _relerr(float(g), exact) <= TOL, x


def test_cdf_lower_tail_down_to_underflow():
    # torch.special.ndtr returns 0 below x = -10 on the CPU; ours must not
    x = T([-10.0, -20.0, -37.0, -37.5])
    got = nm.cdf(x).numpy()
    with mp.workdps(40):
        for xi, g in zip(x.numpy(), got):
            assert _relerr(float(g), mp.ncdf(mp.mpf(float(xi)))) <= TOL


def test_interval_prob_short_and_tail_intervals():
    pts = [
        (-30.0, -29.999), (-1e-9, 1e-9), (29.0, 29.5), (-37.0, -36.9), (-5.0, 5.0),
        (2.0, 30.0), (-3.0, 0.1), (-37.5, -37.4), (-1.0, -1.0 + 1e-12), (0.3, 0.7),
        (-33.33431352814416, -33.33431352811921), (-INF, -30.0), (3.0, INF), (-INF, INF),
    ]
    a, b = T([p[0] for p in pts]), T([p[1] for p in pts])
    got = nm.interval_prob(a, b).numpy()
    for (lo, hi), g in zip(pts, got):
        with mp.workdps(40):
            if math.isinf(lo) or math.isinf(hi):
                exact = mp.ncdf(mp.mpf(hi)) - mp.ncdf(mp.mpf(lo))
            else:
                exact = ref._interval_integral(mp.mpf(lo), mp.mpf(hi), lambda y: 1)
        assert _relerr(float(g), exact) <= TOL, (lo, hi, g, exact)
    assert float(nm.interval_prob(T(2.0), T(1.0))) == 0.0


@pytest.mark.parametrize("m,n", [(1, 0), (0, 1), (2, 0), (1, 1), (0, 2)])
def test_interval_moments(m, n):
    pts = [(-30.0, -29.99), (-2.0, 3.0), (0.5, 4.0), (-1e-6, 2e-6), (-36.0, -30.0), (1.0, 1.0 + 1e-9)]
    a, b = T([p[0] for p in pts]), T([p[1] for p in pts])
    got = nm.interval_moment(a, b, m, n).numpy()
    for (lo, hi), g in zip(pts, got):
        with mp.workdps(40):
            L, H = mp.mpf(lo), mp.mpf(hi)
            exact = ref._interval_integral(L, H, lambda y: (H - y) ** m * (y - L) ** n)
        assert _relerr(float(g), exact) <= TOL, (lo, hi, g, exact)


# ---------------------------------------------------------------------- bivariate CDF
def test_phi2_minus8_minus8_half_is_relatively_accurate():
    got = float(bvn.bvn_cdf(T(-8.0), T(-8.0), T(0.5)))
    exact = ref.bvn_cdf(-8.0, -8.0, 0.5)
    assert 1.78e-21 < got < 1.80e-21
    assert _relerr(got, exact) <= TOL, (got, mp.nstr(exact, 20))


def test_bvn_cdf_curated():
    _check(bvn.bvn_cdf, ref.bvn_cdf, CDF_POINTS)


def test_bvn_cdf_rho_grid():
    # rho = -0.999999 is ~exp(-1e7) here: skipped (and slow for the reference); the
    # slow sweep covers the grid with many more (h, k)
    pts = [(-7.0, -6.0, r) for r in RHOS if r != -0.999999] + [(-12.0, 12.0, -0.9), (-12.0, 12.0, 0.999999)]
    _check(bvn.bvn_cdf, ref.bvn_cdf, pts)


def test_bvn_cdf_exact_limits_and_infinities():
    h = T([-3.0, 2.0, 0.7, -1.0, 5.0])
    k = T([1.0, -4.0, 0.7, 1.0, -5.0])
    one = torch.ones_like(h)
    assert torch.equal(bvn.bvn_cdf(h, k, one), nm.cdf(torch.minimum(h, k)))
    assert torch.equal(bvn.bvn_cdf(h, k, -one), nm.interval_prob(-k, h))
    assert float(bvn.bvn_cdf(T(-1.0), T(1.0), T(-1.0))) == 0.0
    x = T([-30.0, 0.0, 2.5])
    for r in (-1.0, -0.3, 0.0, 0.999, 1.0):
        rr = torch.full_like(x, r)
        inf = torch.full_like(x, INF)
        assert torch.equal(bvn.bvn_cdf(x, inf, rr), nm.cdf(x))
        assert torch.equal(bvn.bvn_cdf(inf, x, rr), nm.cdf(x))
        assert torch.all(bvn.bvn_cdf(x, -inf, rr) == 0)
        assert torch.all(bvn.bvn_cdf(-inf, x, rr) == 0)
    assert float(bvn.bvn_cdf(T(INF), T(INF), T(0.5))) == 1.0


def test_bvn_cdf_origin_closed_form_and_symmetry():
    rho = T(np.linspace(-1, 1, 41))
    z = torch.zeros_like(rho)
    got = bvn.bvn_cdf(z, z, rho).numpy()
    for r, g in zip(rho.numpy(), got):
        exact = mp.mpf(1) / 4 + mp.asin(mp.mpf(float(r))) / (2 * mp.pi)
        if exact > 0:
            assert _relerr(float(g), exact) <= TOL, r
    rng = np.random.default_rng(3)
    h, k, r = T(rng.uniform(-20, 5, 200)), T(rng.uniform(-20, 5, 200)), T(rng.uniform(-1, 1, 200))
    a, b = bvn.bvn_cdf(h, k, r), bvn.bvn_cdf(k, h, r)
    assert torch.allclose(a, b, rtol=1e-14, atol=0.0)


def test_no_nan_on_extreme_grid():
    vals = [-INF, -1e300, -40.0, -37.0, -1e-300, 0.0, 1e-300, 3.0, 40.0, 1e300, INF]
    rhos = [-1.0, -1.0 + 1e-16, -0.5, 0.0, 1e-300, 0.5, 1.0 - 1e-16, 1.0]
    g = np.array([(a, b, r) for a in vals for b in vals for r in rhos])
    out = bvn.orthant_moments(T(g[:, 0]), T(g[:, 1]), T(g[:, 2]))
    for key, v in out.items():
        assert not torch.isnan(v).any(), key
        assert (v >= 0).all(), key
    p = out["P"]
    assert ((p >= 0) & (p <= 1)).all()


# ------------------------------------------------------- accurate q = sqrt(1 - rho^2)
Q_TS = ["1e-3", "1e-6", "1e-9", "1e-12"]
Q_HK = [(1.0, 1.0), (-3.0, -3.0), (-25.0, -25.0), (1.5, -0.7), (-6.0, 4.0)]
Q_HK_MORE = [(0.0, 0.0), (-30.0, -29.5), (0.5, 0.5), (-8.0, -8.0), (-2.0, -2.5), (2.0, 3.0), (-5.0, 5.0),
             (3.0, -3.0), (-20.0, -20.000001), (4.0, -6.0), (-12.0, 12.0), (5.0, 5.0),
             (-37.0, -36.0)]


def _check_q(hk, ts=Q_TS):
    """rho = +-cos t, q = sin t from the exact t (mpmath, 80 digits): the kernels given
    (float(rho), q=float(q)) match the reference at the exact rho to TOL, although
    float(rho) alone has lost 1 - |rho| (it rounds to +-1 for t <= 1e-8)."""
    pts, exact = [], {name: [] for name in ref.REFERENCES}
    for t in ts:
        for s in (1, -1):
            with mp.workdps(80):
                rho, q = s * mp.cos(mp.mpf(t)), mp.sin(mp.mpf(t))
            for h, k in hk:
                pts.append((h, k, float(rho), float(q), t))
                for name, fn in ref.REFERENCES.items():
                    exact[name].append(fn(h, k, rho))
    arr = np.array([p[:4] for p in pts], dtype=np.float64)
    args = [T(arr[:, i]) for i in range(3)]
    qq = T(arr[:, 3])
    keys = {"bvn_cdf": "P", "orthant_m1": "N1", "orthant_m2": "M", "orthant_m11": "M11"}
    together = bvn.orthant_moments(*args, q=qq)
    for name, key in keys.items():
        alone = getattr(bvn, name)(*args, q=qq)
        worst, where = 0.0, None
        got = list(zip(pts, alone.numpy(), exact[name])) + list(zip(pts, together[key].numpy(), exact[name]))
        for p, g, ex in got:
            if abs(ex) < TINY:
                assert 0.0 <= g < 1e-290, (name, p, g)
                continue
            e = _relerr(float(g), ex)
            if e > worst:
                worst, where = e, (p, float(g), mp.nstr(ex, 20))
        print(f"[{name}, q given] max relative error {worst:.2e} (worst {where})")
        assert worst <= TOL, (name, worst, where)


def test_accurate_q_near_rho_pm1():
    _check_q(Q_HK)


@pytest.mark.slow
def test_accurate_q_near_rho_pm1_more():
    _check_q(Q_HK_MORE)


def test_accurate_q_limits_and_consistency():
    h = T([-3.0, 2.0, 0.7, -1.0, 5.0, -30.0])
    k = T([1.0, -4.0, 0.7, 1.0, -5.0, -29.0])
    one, zero = torch.ones_like(h), torch.zeros_like(h)
    # q = 0: the exact limits, whatever rho's rounding (sign from rho)
    for key in ("P", "N1", "M", "M11"):
        lim_p = bvn.orthant_moments(h, k, one)[key]
        lim_m = bvn.orthant_moments(h, k, -one)[key]
        assert torch.equal(bvn.orthant_moments(h, k, one, q=zero)[key], lim_p)
        assert torch.equal(bvn.orthant_moments(h, k, one - 1e-16, q=zero)[key], lim_p)
        assert torch.equal(bvn.orthant_moments(h, k, -one, q=zero)[key], lim_m)
    # q consistent with a float rho away from +-1: same values to rounding; broadcasting
    r = T([-0.9, -0.5, 0.0, 0.3, 0.8, 0.99])
    q = torch.sqrt((1 - r) * (1 + r))
    a, b = bvn.orthant_moments(h, k, r), bvn.orthant_moments(h, k, r, q=q)
    for key in a:
        assert torch.allclose(a[key], b[key], rtol=1e-13, atol=0.0), key
    s = bvn.bvn_cdf(h[:, None], k[None, :], T(0.6), q=T(0.8))
    assert s.shape == (6, 6)
    assert torch.allclose(s, bvn.bvn_cdf(h[:, None], k[None, :], T(0.6)), rtol=1e-13, atol=0.0)
    # infinite arguments keep their closed forms
    inf = torch.full_like(h, INF)
    assert torch.equal(bvn.bvn_cdf(h, inf, one, q=T(1e-12)), nm.cdf(h))
    assert torch.all(bvn.bvn_cdf(-inf, h, one, q=T(1e-12)) == 0)


# ------------------------------------------------------------------------- moments
@pytest.mark.parametrize(
    "name", ["orthant_m1", "orthant_m2", "orthant_m11"]
)
def test_moments_curated(name):
    _check(getattr(bvn, name), ref.REFERENCES[name], MOMENT_POINTS)


def test_moments_match_closed_forms_in_the_body():
    """Away from the tails the textbook closed forms are accurate; the kernels agree."""
    rng = np.random.default_rng(7)
    a1, a2 = rng.uniform(0.0, 3.0, 300), rng.uniform(0.0, 3.0, 300)
    r = rng.uniform(0.0, 0.9, 300)
    A1, A2, R = T(a1), T(a2), T(r)
    out = bvn.orthant_moments(A1, A2, R)
    q = torch.sqrt(1 - R * R)
    b1, b2 = (A1 - R * A2) / q, (A2 - R * A1) / q
    P = out["P"]
    n1 = A1 * P + nm.pdf(A1) * nm.cdf(b2) + R * nm.pdf(A2) * nm.cdf(b1)
    m = (A1 * A2 + R) * P + A1 * nm.pdf(A2) * nm.cdf(b1) + A2 * nm.pdf(A1) * nm.cdf(b2) + q * nm.pdf(A1) * nm.pdf(b2)
    assert torch.allclose(out["N1"], n1, rtol=1e-13, atol=0)
    assert torch.allclose(out["M"], m, rtol=1e-13, atol=0)
    # N2 by symmetry and M symmetric
    out2 = bvn.orthant_moments(A2, A1, R)
    assert torch.allclose(out2["M"], out["M"], rtol=1e-14, atol=0)


LADDER = [(ref.bvn_cdf, (-8.0, -8.0, 0.5)), (ref.orthant_m2, (-30.0, -29.99, 0.999999)),
          (ref.orthant_m11, (1.5, -0.7, -0.6)), (ref.orthant_m1, (-33.3, 33.29, -0.999999)),
          (ref.bvn_cdf, (1.4094264788018478, -1.4094264601647541, -0.9999999646762381))]


def _ladder(fn, pt):
    a, b = fn(*pt, dps=40), fn(*pt, dps=80)
    with mp.workdps(80):
        assert abs(a / b - 1) < mp.mpf(10) ** -35, (fn.__name__, pt, a, b)


def test_reference_precision_ladder():
    """The reference itself: 40 and 80 digits agree (checks its own quadrature)."""
    _ladder(*LADDER[0])


@pytest.mark.slow
@pytest.mark.parametrize("case", range(1, len(LADDER)))
def test_reference_precision_ladder_more(case):
    _ladder(*LADDER[case])


# ---------------------------------------------------------------------- slow sweep
def fuzz_points(n, seed):
    """Fuzzed (h, k, rho): deep lower tails, mixed signs, large positive arguments,
    h ~ +-k, tiny arguments, rho on the grid, near +-1 and tiny."""
    rng = np.random.default_rng(seed)
    rhos = np.array(RHOS)
    out = []
    for _ in range(n):
        c = rng.integers(0, 9)
        if c == 0:
            h, k = rng.uniform(-37, -5, 2)
        elif c == 1:
            h, k = rng.uniform(-6, 6, 2)
        elif c == 2:
            h, k = rng.uniform(-37, 5), rng.uniform(-5, 37)
        elif c == 3:
            h = rng.uniform(-37, 37)
            k = h * (1 + rng.choice([-1, 1]) * 10 ** rng.uniform(-14, -1))
        elif c == 4:
            h = rng.uniform(-37, 37)
            k = -h * (1 + rng.choice([-1, 1]) * 10 ** rng.uniform(-14, -1))
        elif c == 5:
            h, k = rng.uniform(3, 40, 2)
        elif c == 6:
            h, k = rng.uniform(-1, 1, 2) * 10 ** rng.uniform(-8, 0)
        elif c == 7:
            h, k = rng.uniform(-20, 20, 2)
        else:
            h = rng.uniform(-37, -2)
            k = h + rng.uniform(-3, 3)
        u = rng.random()
        if u < 0.3:
            r = rng.choice(rhos)
        elif u < 0.5:
            r = rng.choice([-1, 1]) * (1 - 10 ** rng.uniform(-16, -2))
        elif u < 0.55:
            r = rng.choice([-1, 1]) * 10 ** rng.uniform(-12, -1)
        else:
            r = rng.uniform(-1, 1)
        if rng.random() < 0.5:
            h, k = k, h
        out.append((float(h), float(k), float(r)))
    return out


@pytest.mark.slow
@pytest.mark.parametrize(
    "name,seed", [("bvn_cdf", 101), ("orthant_m1", 102), ("orthant_m2", 103), ("orthant_m11", 104)]
)
def test_fuzzed_sweep(name, seed):
    _check(getattr(bvn, name), ref.REFERENCES[name], fuzz_points(300, seed))


@pytest.mark.slow
def test_fuzzed_sweep_bvn_cdf_more():
    _check(bvn.bvn_cdf, ref.bvn_cdf, fuzz_points(600, 105))


# ---------------------------------------------------------------------------- GPU
@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_cuda_matches_cpu_and_reference():
    pts = np.array(CDF_POINTS + MOMENT_POINTS + fuzz_points(2000, 7), dtype=np.float64)
    cpu = bvn.orthant_moments(T(pts[:, 0]), T(pts[:, 1]), T(pts[:, 2]))
    dev = torch.device("cuda")
    gpu = bvn.orthant_moments(*(T(pts[:, i]).to(dev) for i in range(3)))
    for key in cpu:
        g = gpu[key].cpu()
        assert g.device.type == "cpu" and gpu[key].device.type == "cuda"
        c = cpu[key]
        ok = torch.isfinite(c) & (c > 1e-300)
        rel = ((g[ok] - c[ok]).abs() / c[ok]).max().item()
        assert rel <= TOL, (key, rel)
        assert not torch.isnan(g).any()
    got = float(bvn.bvn_cdf(T(-8.0).to(dev), T(-8.0).to(dev), T(0.5).to(dev)))
    assert _relerr(got, ref.bvn_cdf(-8.0, -8.0, 0.5)) <= TOL


def test_precomputed_rules_match_their_builders():
    """The rule table stored in ``bvn_rules`` (no mpmath at run time) equals what the mpmath
    builders produce, bit for bit."""
    builders = {"legendre": nm._legendre_mp, "half_hermite": bvn_rules._half_hermite_mp,
                "laguerre": bvn_rules._laguerre_mp}
    for (kind, n), (xs, ws) in bvn_rules._RULES_HEX.items():
        x, w = builders[kind](n)
        assert [float.fromhex(v) for v in xs] == [float(v) for v in x], (kind, n)
        assert [float.fromhex(v) for v in ws] == [float(v) for v in w], (kind, n)


def test_install_rules_seeds_the_cache_with_the_stored_rules(monkeypatch):
    """``bvn_rules._install_rules`` (run at import) puts every rule of ``_RULES_HEX`` into
    ``normal``'s rule cache as float64 arrays equal to the stored hex: what the kernels read
    instead of building the rules in mpmath.  Called here into an empty cache, so that the
    check sees this call and not the one at import."""
    monkeypatch.setattr(nm, "_RULE_CACHE", {})
    bvn_rules._install_rules()
    assert set(nm._RULE_CACHE) == set(bvn_rules._RULES_HEX)
    for key, (xs, ws) in bvn_rules._RULES_HEX.items():
        x, w = nm._RULE_CACHE[key]
        assert x.dtype == w.dtype == np.float64, key
        assert x.tolist() == [float.fromhex(v) for v in xs], key
        assert w.tolist() == [float.fromhex(v) for v in ws], key


# ------------------------------------------------------------------- fast paths (P)
def _fast_path_points(seed=7, per_tier=60, n_boundary=90):
    """Fuzzed points that ``bvn_cdf`` serves by its fast paths (``bvn._fast_paths``):
    ``per_tier`` from each of Phi(h)Phi(k), Phi(min(h, k)), P(-k <= Y <= h), the
    Gauss-Legendre rules from 0 in theta (|rho| <= _FP_RHO; its 16- and 24-node tiers) and
    in s = atanh(r) (beyond)
    and the rule from rho = -1 (``bvn_rules._fast_p_m1``), plus
    ``n_boundary`` quadrature points at the edges of their regions (|rho| near _FP_RHO and
    the s-rule's tier bounds _FP_RHO_S, max(|h|, |k|) near _FP_HMAX, the exponent range
    near _FP_DF, Phi(h)Phi(k)/Phi2 near _FP_CANCEL for rho < 0; for the rule from -1, its
    exponent excess F(rho) near _FP_JF; for the 16-node tier, |rho| near _FP_RHO_SMALL and
    the range near _FP_DF_SMALL)."""
    rng = np.random.default_rng(seed)
    n = 100000
    h = rng.uniform(-11, 11, n)
    k = rng.uniform(-11, 11, n)
    c = rng.integers(0, 5, n)
    s = c == 1
    k[s] = h[s] * rng.uniform(-1.1, 1.1, s.sum())
    s = c == 2
    h[s], k[s] = rng.uniform(-38, 40, s.sum()), rng.uniform(-38, 40, s.sum())
    s = c == 3
    h[s] = rng.uniform(-38, -5, s.sum())
    k[s] = h[s] + rng.uniform(-3, 3, s.sum())
    rho = rng.uniform(-0.95, 0.95, n)
    u = rng.random(n)
    s = u < 0.3
    rho[s] = rng.choice([-1, 1], s.sum()) * (1 - 10 ** rng.uniform(-16, -1, s.sum()))
    s = (u > 0.3) & (u < 0.45)
    rho[s] = rng.choice([-1, 1], s.sum()) * rng.uniform(0.85, bvn._FP_RHO, s.sum())
    s = (u > 0.45) & (u < 0.5)
    rho[s] = rng.choice([-1, 1], s.sum()) * rng.choice((bvn._FP_RHO,) + bvn._FP_RHO_S, s.sum())
    s = (u > 0.5) & (u < 0.6)  # around the s-rule's tier bounds 0.99 and 1 - 1e-6
    rho[s] = rng.choice([-1, 1], s.sum()) * np.where(rng.random(s.sum()) < 0.5, rng.uniform(0.985, 0.995, s.sum()),
                                                     1 - 10 ** rng.uniform(-6.3, -5.7, s.sum()))
    s = rng.random(n) < 0.05
    h[s] = rng.choice([-1, 1], s.sum()) * bvn._FP_HMAX
    th, tk, tr = T(h), T(k), T(rho)
    rt = bvn._fast_p_route(th, tk, tr)
    quad, n0, n1, nm1, jm1 = rt.quad, rt.n0, rt.n1, rt.nm1, rt.jm1
    res = {"P": torch.zeros(n, dtype=torch.float64)}
    done = bvn._fast_paths(th, tk, tr, torch.ones(n, dtype=torch.bool), res)
    done = done.numpy()
    m = np.maximum(np.abs(h), np.abs(k))
    cancel = (nm.cdf(th) * nm.cdf(tk)).numpy() / np.maximum(res["P"].numpy(), 1e-300)
    # exponent range over [0, rho] as in the routing
    hh = np.where(np.abs(h) >= np.abs(k), h, k)
    kk = np.where(np.abs(h) >= np.abs(k), k, h)
    f0 = 0.5 * kk ** 2
    fr = (rho * hh - kk) ** 2 / (2 * (1 - rho) * (1 + rho))
    inside = (h * k * rho >= 0) & ((rho * hh - kk) * hh * rho >= 0)
    rng_f = np.maximum(f0, fr) - np.where(inside, 0.0, np.minimum(f0, fr))
    picks = []
    theta = np.abs(rho) <= bvn._FP_RHO
    small = (np.abs(rho) <= bvn._FP_RHO_SMALL) & (rt.rng.numpy() <= bvn._FP_DF_SMALL)
    for mask in (n0.numpy(), n1.numpy(), nm1.numpy(), quad.numpy() & theta & small, quad.numpy() & theta & ~small,
                 quad.numpy() & ~theta, jm1.numpy() & ~nm1.numpy()):
        pool = np.nonzero(mask & done)[0]
        picks += list(rng.choice(pool, per_tier, replace=False))
    q = quad.numpy() & done
    edge = q & ((np.abs(np.abs(rho) - bvn._FP_RHO) < 0.02) | (np.abs(np.abs(rho) - bvn._FP_RHO_S[0]) < 0.005)
                | (1 - np.abs(rho) < 2e-6) | (m > 9.5) | (rng_f > 0.8 * bvn._FP_DF) | (cancel > 1.6))
    edge |= jm1.numpy() & ~nm1.numpy() & done & (fr < 1.25 * bvn._FP_JF)
    edge |= q & small & ((np.abs(rho) > bvn._FP_RHO_SMALL - 0.02) | (rt.rng.numpy() > 0.9 * bvn._FP_DF_SMALL))
    pool = np.setdiff1d(np.nonzero(edge)[0], picks)
    picks += list(rng.choice(pool, n_boundary, replace=False))
    return [(float(h[i]), float(k[i]), float(rho[i])) for i in picks]


def test_fast_path_points_are_on_the_fast_path():
    pts = np.array(_fast_path_points())
    assert len(pts) >= 300
    th, tk, tr = T(pts[:, 0]), T(pts[:, 1]), T(pts[:, 2])
    done = bvn._fast_paths(th, tk, tr, torch.ones(len(pts), dtype=torch.bool),
                           {"P": torch.zeros(len(pts), dtype=torch.float64)})
    assert bool(done.all())


@pytest.fixture(params=[True, False], ids=["compiled", "tensor"])
def fast_impl(request, monkeypatch):
    """Each implementation of the fast paths on the CPU: the compiled twin (the default) and
    the tensor formulation (which CUDA runs)."""
    monkeypatch.setattr(bvn, "_COMPILED", request.param)
    return request.param


@pytest.mark.parametrize("per_tier,n_boundary", [(10, 30), pytest.param(60, 90, marks=pytest.mark.slow)])
def test_fast_path_against_mpmath(per_tier, n_boundary, fast_impl):
    """The fast paths of bvn_cdf (inside their region and at its boundary) are accurate
    to 1e-14 relative (10x margin on the 1e-13 contract); 100 points by default, 510 slow;
    both implementations."""
    _check(bvn.bvn_cdf, ref.bvn_cdf, _fast_path_points(per_tier=per_tier, n_boundary=n_boundary),
           tol=1e-14, dps=30)


def _deep_tail_m1_points(n, seed=3):
    """Rows of the rule from rho = -1 (``jm1``) whose Phi2 lies below 1e-100: h, k out to
    +-37, rho from -1e-12 to -1 + 1e-12, the exponent excess F(rho) from its threshold up."""
    rng = np.random.default_rng(seed)
    N = 20000
    h, k = rng.uniform(-37, 37, N), rng.uniform(-37, 37, N)
    rho = -np.where(rng.random(N) < 0.5, 10 ** rng.uniform(-12, 0, N), 1 - 10 ** rng.uniform(-12, 0, N))
    th, tk, tr = T(h), T(k), T(rho)
    jm1 = bvn._fast_p_route(th, tk, tr).jm1.numpy()
    val = bvn.bvn_cdf(th, tk, tr).numpy()
    pool = np.nonzero(jm1 & (val < 1e-100) & (val > 1e-290))[0]
    return [(float(h[i]), float(k[i]), float(rho[i])) for i in rng.choice(pool, n, replace=False)]


@pytest.mark.parametrize("n", [12, pytest.param(120, marks=pytest.mark.slow)])
def test_fast_path_from_minus_one_deep_tail(n, fast_impl):
    """The rule from rho = -1 keeps relative accuracy where Phi2 is 1e-100 ... 1e-290 (its
    exp(-E(rho)) is formed from exp(-H^2/2) and F(rho) in double-double): 1e-14 against
    mpmath (10x margin on the 1e-13 contract; measured ~2e-15 against the general path)."""
    _check(bvn.bvn_cdf, ref.bvn_cdf, _deep_tail_m1_points(n), tol=1e-14, dps=30)


def test_fast_path_matches_general_path():
    """On 2e5 fuzzed points the fast paths agree with the general quadrature to 1e-14."""
    pts = np.array(fuzz_points_np(200000, 11))
    th, tk, tr = T(pts[:, 0]), T(pts[:, 1]), T(pts[:, 2])
    fast = bvn.bvn_cdf(th, tk, tr)
    old = bvn._FAST_P
    try:
        bvn._FAST_P = False
        slow = bvn.bvn_cdf(th, tk, tr)
    finally:
        bvn._FAST_P = old
    ok = slow > 1e-300
    err = ((fast[ok] - slow[ok]) / slow[ok]).abs().max().item()
    assert err <= 1e-14, err
    assert torch.equal(fast[~ok] == 0, slow[~ok] == 0)


def fuzz_points_np(n, seed):
    """Vectorised variant of :func:`fuzz_points` (generic and tail arguments, rho uniform,
    on the grid and near +-1)."""
    rng = np.random.default_rng(seed)
    h = rng.uniform(-12, 12, n)
    k = rng.uniform(-12, 12, n)
    c = rng.integers(0, 4, n)
    s = c == 1
    h[s], k[s] = rng.uniform(-37, 37, s.sum()), rng.uniform(-37, 37, s.sum())
    s = c == 2
    k[s] = h[s] * rng.uniform(-1.2, 1.2, s.sum())
    rho = rng.uniform(-1, 1, n)
    u = rng.random(n)
    s = u < 0.2
    rho[s] = rng.choice(np.array(RHOS), s.sum())
    s = (u >= 0.2) & (u < 0.4)
    rho[s] = rng.choice([-1, 1], s.sum()) * (1 - 10 ** rng.uniform(-16, -2, s.sum()))
    return np.stack([h, k, rho], axis=1)


def test_chunk_size_changes_nothing_but_summation_order(monkeypatch):
    """``_evaluate`` cuts its input into chunks (64k points on the CPU, 2^19 on a device);
    every row is computed on its own, so another chunk size may only reorder the sums of
    the quadrature nodes (matrix-vector products blocked differently).  Tolerance: a sum
    of at most 48 positive node terms (the longest panel) computed in two orders differs
    by at most 2 * 47 eps relatively; the moments' weights are positive too."""
    pts = fuzz_points_np(6000, 11)
    th, tk, tr = (torch.from_numpy(np.ascontiguousarray(pts[:, i])) for i in range(3))
    whole_p = bvn.bvn_cdf(th, tk, tr)
    whole_m = bvn.orthant_moments(th[:2000], tk[:2000], tr[:2000])
    monkeypatch.setattr(bvn, "_CHUNK", 777)
    cut_p = bvn.bvn_cdf(th, tk, tr)
    cut_m = bvn.orthant_moments(th[:2000], tk[:2000], tr[:2000])
    tol = 2 * 47 * torch.finfo(torch.float64).eps
    for whole, cut in [(whole_p, cut_p)] + [(whole_m[q], cut_m[q]) for q in whole_m]:
        assert torch.equal(torch.isfinite(whole), torch.isfinite(cut))
        fin = torch.isfinite(whole) & (whole.abs() > 0)
        assert torch.equal(whole[~fin], cut[~fin])
        err = ((cut[fin] - whole[fin]) / whole[fin]).abs().max().item()
        assert err <= tol, err


def _cancelling_rows(n, seed):
    """Points with rho < 0 routed to the fixed rule but rejected by its cancellation check
    (Phi(h)Phi(k) > _FP_CANCEL Phi2): the rows that ``relative=False`` adds to the rule."""
    g = torch.Generator().manual_seed(seed)
    h = torch.randn(n, generator=g, dtype=torch.float64) * 3
    k = torch.randn(n, generator=g, dtype=torch.float64) * 3
    rho = -0.9 * torch.rand(n, generator=g, dtype=torch.float64)
    quad = bvn._fast_p_route(h, k, rho)[0]
    base = nm.cdf(h) * nm.cdf(k)
    exact = bvn.bvn_cdf(h, k, rho)
    sel = quad & (base > bvn._FP_CANCEL * exact)
    return h[sel], k[sel], rho[sel], h[~sel], k[~sel], rho[~sel]


def interior(h, k, rho):
    """The rows ``bvn._evaluate_chunk`` hands to the fast paths: finite h, k and |rho| < 1."""
    return torch.isfinite(h) & torch.isfinite(k) & (rho.abs() < 1)


def fast_path_mix(n_fuzz, seed_fuzz, n_cancel, seed_cancel):
    """(h, k, rho) tensors: ``fuzz_points_np(n_fuzz, seed_fuzz)``, the fast paths' own points
    (``_fast_path_points``) and the cancelling rows of ``_cancelling_rows(n_cancel, ...)``,
    for comparing implementations of the fast paths row by row."""
    pts = np.concatenate([fuzz_points_np(n_fuzz, seed_fuzz), np.array(_fast_path_points())])
    h, k, rho = (torch.from_numpy(np.ascontiguousarray(pts[:, i])) for i in range(3))
    ch, ck, cr, *_ = _cancelling_rows(n_cancel, seed_cancel)
    return torch.cat((h, ch)), torch.cat((k, ck)), torch.cat((rho, cr))


def test_absolute_mode_only_changes_the_cancelling_rows():
    """``bvn_cdf(..., relative=False)``: rows outside the cancelling set are bit for bit the
    default's; on the cancelling rows the difference from the (relatively accurate) default
    is at most 1e-14 Phi(h)Phi(k) -- the fixed rule's accuracy, as in
    ``test_fast_path_against_mpmath`` -- and never negative."""
    h, k, rho, ho, ko, rhoo = _cancelling_rows(12000, 5)
    assert h.numel() > 300
    assert torch.equal(bvn.bvn_cdf(ho, ko, rhoo, relative=False), bvn.bvn_cdf(ho, ko, rhoo))
    fast, exact = bvn.bvn_cdf(h, k, rho, relative=False), bvn.bvn_cdf(h, k, rho)
    assert bool((fast >= 0).all())
    err = ((fast - exact).abs() / (nm.cdf(h) * nm.cdf(k))).max().item()
    assert err <= 1e-14, err


def test_absolute_mode_against_mpmath(fast_impl):
    """The cancelling rows of ``relative=False`` against the raw-definition reference:
    |error| <= 1e-14 Phi(h)Phi(k) (the absolute accuracy its docstring states)."""
    h, k, rho, *_ = _cancelling_rows(4000, 6)
    pick = torch.linspace(0, h.numel() - 1, 12).long()
    h, k, rho = h[pick], k[pick], rho[pick]
    got = bvn.bvn_cdf(h, k, rho, relative=False)
    scale = nm.cdf(h) * nm.cdf(k)
    for i in range(len(pick)):
        with mp.workdps(30):
            exact = ref.bvn_cdf(float(h[i]), float(k[i]), float(rho[i]))
            err = abs(mp.mpf(float(got[i])) - exact) / mp.mpf(float(scale[i]))
        assert err <= 1e-14, (float(h[i]), float(k[i]), float(rho[i]), float(err))
