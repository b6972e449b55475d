"""The branch-free kernels of ``numerics.core.vmath`` against mpmath, in ulps, over the whole
float64 range: exp <= 1 ulp (subnormal results included, where 1 ulp = 2^-1074), sin and cos
<= 2 ulp on |x| <= REDUCE_MAX (the hardest reduced arguments included) and the routed
``sin``/``cos`` on every float64.  The values are computed by a numba loop over an array, the
way the kernels are used (that loop is the vectorised code), and a test checks that LLVM did
vectorise it."""
from __future__ import annotations

import functools
import math

import llvmlite.binding as llvm
import mpmath as mp
import numpy as np
import pytest

from numerics.core import vmath as vm

DPS = 40


_loop_exp, _loop_sin_reduced, _loop_cos_reduced, _loop_sin_small, _loop_sin, _loop_cos = (
    vm.elementwise(f) for f in (vm.exp, vm.sin_reduced, vm.cos_reduced, vm.sin_small, vm.sin, vm.cos))


def _apply(loop, x):
    x = np.ascontiguousarray(x, dtype=np.float64)
    out = np.empty_like(x)
    loop(x, out)
    return out


def _ulps(y, ref):
    """|y - ref| in units of the last place of ref (the float64 spacing at |ref|: 2^-1074 in
    the subnormal range); where ref is beyond DBL_MAX, 0 if y is inf of its sign, else inf."""
    big = mp.mpf(2) ** 1024 * (1 - mp.mpf(2) ** -54)  # rounds to inf from here up
    out = np.empty(len(y))
    for i, (yi, ri) in enumerate(zip(y, ref)):
        if abs(ri) >= big:
            out[i] = 0.0 if (math.isinf(yi) and (yi > 0) == (ri > 0)) else math.inf
            continue
        if not math.isfinite(yi):
            out[i] = math.inf
            continue
        e = -1022 if ri == 0 else max(int(mp.floor(mp.log(abs(ri), 2))), -1022)
        out[i] = float(abs(mp.mpf(yi) - ri) / mp.mpf(2) ** (e - 52))
    return out


def _sided(points):
    """Each point with its two float64 neighbours."""
    p = np.asarray(points, dtype=np.float64)
    return np.concatenate([p, np.nextafter(p, -np.inf), np.nextafter(p, np.inf)])


def _exp_points():
    rng = np.random.default_rng(20261202)
    mag = 10.0 ** rng.uniform(-320, math.log10(745.2), 6000)  # |x| over orders of magnitude
    x = np.concatenate([mag, -mag, rng.uniform(-745.2, 709.8, 6000),
                        rng.uniform(709.0, 800.0, 300), rng.uniform(-800.0, -700.0, 600)])
    with mp.workdps(DPS):
        edges = [float(mp.log(mp.mpf(2) ** 1024)), float(mp.log(mp.mpf(2) ** -1022)),
                 float(mp.log(mp.mpf(2) ** -1074)), float(mp.log(mp.mpf(2) ** -1075)),
                 float(mp.log(2) / 2), -float(mp.log(2) / 2)]
    # k ln 2 and (k + 1/2) ln 2: where the reduction's k changes, over the whole range
    kl = [float(mp.mpf(k) / 2 * mp.log(2)) for k in range(-2151, 2049, 7)]
    return np.concatenate([x, _sided(edges + kl), [709.0, 709.78, -708.0, -708.4, -744.0, -745.0,
                                                   -745.1332, 1e-300, -1e-300, 5e-324]])


@functools.lru_cache(maxsize=1)
def _exp_errors():
    x = _exp_points()
    y = _apply(_loop_exp, x)
    with mp.workdps(DPS):
        ref = [mp.exp(mp.mpf(v)) for v in x]
    return x, y, _ulps(y, ref)


def test_exp_within_one_ulp_over_the_whole_range():
    """<= 1 ulp on ~22000 arguments: |x| from 1e-320 to the overflow and underflow thresholds,
    both signs, the subnormal results (x < -708.4) and both sides of every k ln 2 and
    (k + 1/2) ln 2 (where the reduction switches k) and of the thresholds."""
    x, y, u = _exp_errors()
    worst = int(np.argmax(u))
    assert u[worst] <= 1.0, (x[worst], y[worst], u[worst])
    sub = (y > 0) & (y < 2.2250738585072014e-308)
    assert sub.sum() > 100  # the gradual-underflow range was sampled
    assert (np.isinf(y) & (x > 709.78)).sum() > 10  # and the overflow one


def test_exp_special_values():
    """+-0, +-inf, NaN, far beyond the thresholds, and the two thresholds from both sides: the
    last double whose e^x rounds to a finite value / to 2^-1074 and the next one."""
    with mp.workdps(DPS):
        over = mp.log(mp.mpf(2) ** 1024 * (1 - mp.mpf(2) ** -54))  # e^x rounds to inf above
        under = mp.log(mp.mpf(2) ** -1075)  # e^x rounds to 0 at and below
        xo = float(over)
        xo = xo if xo < over else float(np.nextafter(xo, -np.inf))
        xu = float(under)
        xu = xu if xu > under else float(np.nextafter(xu, np.inf))
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 710.0, 1e308, -746.0, -1e308,
                  xo, np.nextafter(xo, np.inf), xu, np.nextafter(xu, -np.inf)])
    y = _apply(_loop_exp, x)
    assert y[0] == 1.0 and y[1] == 1.0
    assert y[2] == np.inf and y[3] == 0.0 and np.isnan(y[4])
    assert y[5] == np.inf and y[6] == np.inf and y[7] == 0.0 and y[8] == 0.0
    assert np.isfinite(y[9]) and y[10] == np.inf
    assert y[11] == 5e-324 and y[12] == 0.0


def _hard_reductions(count=400):
    """The float64 x in (0, REDUCE_MAX] nearest to multiples q pi/2 (where sin or cos is
    smallest and the reduction cancels most): for every q, the double nearest q pi/2, ranked
    by |x - q pi/2| / |x| in longdouble, the hardest ``count`` kept (checked against mpmath)."""
    q = np.arange(1, int(vm.REDUCE_MAX / (math.pi / 2)) + 1, dtype=np.float64)
    with mp.workdps(40):
        hi = float(mp.pi / 2)
        lo = float(mp.pi / 2 - hi)
    x = q * hi + q * lo
    cand = np.concatenate([x, np.nextafter(x, 0), np.nextafter(x, np.inf)])
    qq = np.concatenate([q, q, q])
    resid = np.abs(cand.astype(np.longdouble) - qq.astype(np.longdouble)
                   * (np.longdouble(hi) + np.longdouble(lo))) / cand
    return cand[np.argsort(resid)[:count]]


def _sin_points():
    rng = np.random.default_rng(7)
    mag = 10.0 ** rng.uniform(-320, math.log10(vm.REDUCE_MAX), 6000)
    x = np.concatenate([mag, -mag, rng.uniform(-math.pi / 2, math.pi / 2, 2000)])
    with mp.workdps(DPS):
        quarter = [float((2 * j + 1) * mp.pi / 4) for j in range(-8, 8)]  # quadrant switches
    hard = _hard_reductions()
    return np.concatenate([x, _sided(quarter + [vm.REDUCE_MAX]), hard, -hard])


@functools.lru_cache(maxsize=1)
def _sin_cos_errors():
    x = _sin_points()
    x = x[np.abs(x) <= vm.REDUCE_MAX]
    out = {}
    with mp.workdps(DPS):
        mx = [mp.mpf(v) for v in x]
        out["sin"] = _ulps(_apply(_loop_sin_reduced, x), [mp.sin(v) for v in mx])
        out["cos"] = _ulps(_apply(_loop_cos_reduced, x), [mp.cos(v) for v in mx])
    return x, out


def test_sin_small_within_two_ulp_up_to_its_bound():
    """``sin_small`` on |x| <= 2: the sin points of that range (orders of magnitude from
    1e-320, both sides of +-pi/4 and +-pi/2, where its reduction switches or cancels) and a
    dense uniform sample, <= 2 ulp; NaN beyond 2, inf and NaN."""
    rng = np.random.default_rng(11)
    x = _sin_points()
    with mp.workdps(DPS):
        edges = [float(j * mp.pi / 4) for j in (-2, -1, 1, 2)] + [vm.SMALL_MAX, -vm.SMALL_MAX]
    x = np.concatenate([x[np.abs(x) <= vm.SMALL_MAX], rng.uniform(-2, 2, 4000), _sided(edges)])
    x = x[np.abs(x) <= vm.SMALL_MAX]
    with mp.workdps(DPS):
        u = _ulps(_apply(_loop_sin_small, x), [mp.sin(mp.mpf(v)) for v in x])
    assert len(x) > 9000
    assert u.max() <= 2.0, (x[int(np.argmax(u))], u.max())
    bad = _apply(_loop_sin_small, np.array([np.nextafter(2.0, 3.0), -2.5, 1e6, np.inf, np.nan]))
    assert np.isnan(bad).all()
    assert math.copysign(1.0, _apply(_loop_sin_small, np.array([-0.0]))[0]) == -1.0


@pytest.mark.parametrize("fn", ["sin", "cos"])
def test_sin_cos_within_two_ulp_up_to_the_reduction_bound(fn):
    """<= 2 ulp on ~15000 arguments of |x| <= 2^20: over orders of magnitude from 1e-320, both
    sides of each (2j + 1) pi/4 (quadrant switches) and the 400 doubles nearest to multiples
    of pi/2 (the reduction's worst cancellations, both signs)."""
    x, errs = _sin_cos_errors()
    u = errs[fn]
    worst = int(np.argmax(u))
    assert u[worst] <= 2.0, (fn, x[worst], u[worst])


def test_sin_cos_routed_beyond_the_bound_and_special_values():
    """``sin``/``cos`` beyond 2^20 (libm) against mpmath to 2 ulp up to 1e308; the reduced
    kernels give NaN there (their contract), inf and NaN give NaN, sin keeps -0."""
    rng = np.random.default_rng(3)
    mag = 10.0 ** rng.uniform(math.log10(vm.REDUCE_MAX), 308, 300)
    x = np.concatenate([mag, -mag, _sided([vm.REDUCE_MAX])])
    with mp.workdps(DPS + 320):  # huge arguments: pi to 360 digits for the reduction
        for loop, f in ((_loop_sin, mp.sin), (_loop_cos, mp.cos)):
            u = _ulps(_apply(loop, x), [f(mp.mpf(v)) for v in x])
            assert u.max() <= 2.0, (f, x[int(np.argmax(u))])
    out = np.nextafter(vm.REDUCE_MAX, np.inf)
    sp = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, out, -out])
    s, c = _apply(_loop_sin_reduced, sp), _apply(_loop_cos_reduced, sp)
    assert s[0] == 0.0 and math.copysign(1.0, s[1]) == -1.0 and c[0] == 1.0 and c[1] == 1.0
    assert np.isnan(s[2:]).all() and np.isnan(c[2:]).all()
    s, c = _apply(_loop_sin, sp), _apply(_loop_cos, sp)
    assert math.copysign(1.0, s[1]) == -1.0 and np.isnan(s[2:5]).all() and np.isnan(c[2:5]).all()
    assert np.isfinite(s[5:]).all() and np.isfinite(c[5:]).all()


def test_split_constants_are_the_binary_expansions():
    """The Cody--Waite parts: ln 2 = _LN2_HI + _LN2_LO with a 32-bit head, pi/2 = the sum of
    three 30-bit parts and a rounded tail, each part the truncation of what is left."""
    def head(v, bits):
        m, e = mp.frexp(v)
        return float(mp.ldexp(mp.floor(m * 2 ** bits), e - bits))

    with mp.workdps(60):
        ln2 = mp.log(2)
        assert vm._LN2_HI == head(ln2, 32) and vm._LN2_LO == float(ln2 - vm._LN2_HI)
        rest = mp.pi / 2
        for part in (vm._PIO2_1, vm._PIO2_2, vm._PIO2_3):
            assert part == head(rest, 30)
            rest -= part
        assert vm._PIO2_4 == float(rest)
        assert vm._PIO2_HI == float(mp.pi / 2) and vm._PIO2_LO == float(mp.pi / 2 - vm._PIO2_HI)


@pytest.mark.skipif("avx2" not in llvm.get_host_cpu_features().flatten(), reason="no AVX2 here")
def test_the_loops_are_vectorised():
    """The point of the kernels: LLVM turns a loop calling them into packed (ymm/zmm) float64
    arithmetic, with no call inside."""
    import re
    for loop in (_loop_exp, _loop_sin_reduced, _loop_sin_small):
        _apply(loop, np.zeros(4))
        asm = next(iter(loop.inspect_asm().values()))
        assert re.search(r"vmulpd\s+[^\n]*%[yz]mm", asm), loop


def test_bvn_compiled_caches_only_against_this_vmath():
    """``bvn_compiled``'s cached machine code inlines these kernels, but numba keys its cache
    on ``bvn_compiled.py`` alone: that file records vmath's digest and caches only when it
    matches.  A change to vmath.py fails here until the digest there is updated (an edit of
    bvn_compiled.py, which invalidates its cache)."""
    import hashlib
    import pathlib

    from numerics.core import bvn_compiled as bc

    digest = hashlib.sha256(pathlib.Path(vm.__file__).read_bytes()).hexdigest()
    assert bc._VMATH_SHA256 == digest, "update bvn_compiled._VMATH_SHA256 to " + digest
    assert bc._CACHE
