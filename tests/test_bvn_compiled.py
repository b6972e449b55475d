"""The compiled fast paths of ``bvn_cdf`` (``numerics.core.bvn_compiled``, numba) against
the tensor formulation they twin (``numerics.core.bvn``, which CUDA uses) and against mpmath.

Both implement the same routing and rules; they differ only in rounding (the CPU's libm exp,
sin and erfcx row by row against torch's vectorised ones, and the order of the node sums), so
the routing must agree row for row and the values to a few ulps.  Accuracy against the raw
definition is checked on both implementations by ``test_bvn_kernels.py``
(``test_fast_path_against_mpmath`` and ``test_fast_path_from_minus_one_deep_tail`` run once
per implementation).
"""
from __future__ import annotations

import functools
import math

import mpmath as mp
import numpy as np
import pytest
import torch

from numerics.core import bvn, bvn_compiled as bc, ddarith as dd
from numerics.core import normal as nm

from test_bvn_kernels import fast_path_mix, interior as _interior

EPS = float(np.finfo(np.float64).eps)


def _both(h, k, rho, relative, monkeypatch):
    """(P, done) of ``bvn._fast_paths`` compiled and as tensors, on every row."""
    out = []
    for compiled in (True, False):
        monkeypatch.setattr(bvn, "_COMPILED", compiled)
        res = {"P": torch.zeros(h.numel(), dtype=torch.float64)}
        done = bvn._fast_paths(h, k, rho, _interior(h, k, rho), res, relative)
        out.append((res["P"], torch.zeros(h.numel(), dtype=torch.bool) if done is None else done))
    return out


@functools.lru_cache(maxsize=1)
def _points():
    return fast_path_mix(100000, 11, 12000, 5)


@pytest.mark.parametrize("relative", [True, False])
def test_compiled_fast_paths_match_the_tensor_formulation(relative, monkeypatch):
    """Same rows done (the routing is the same arithmetic on the same thresholds) and the same
    values to 4 eps (1 + m sqrt(R)) relative, m = max(|h|, |k|), R the exponent's range over
    the rule (``_Route.rng``) -- with ``relative=False`` relative to max(Phi2, Phi(h)Phi(k)),
    as that mode promises.  Reason: a node term is exp(-F) with F up to R, and F moves by
    ~m sqrt(2F) times the relative rounding of r = sin(theta) (or of e^s), which the two
    libraries round differently by an ulp: their values differ by ~eps m sqrt(R) per term
    (measured at most 2.2 eps (1 + m sqrt(R)), 16 eps in all, on these points).  Both are
    held to mpmath separately."""
    h, k, rho = _points()
    (pc, dc), (pt, dt) = _both(h, k, rho, relative, monkeypatch)
    assert int(dc.sum()) > 75000
    assert torch.equal(dc, dt)
    scale = pt.abs() if relative else torch.maximum(pt.abs(), nm.cdf(h) * nm.cdf(k))
    ok = dc & (scale > 1e-300)
    rng = bvn._fast_p_route(h, k, rho).rng
    tol = 4 * EPS * (1 + torch.maximum(h.abs(), k.abs()) * rng.clamp_min(0).sqrt())
    err = ((pc - pt).abs() / scale)[ok] / tol[ok]
    assert err.max().item() <= 1.0, err.max().item()
    assert torch.equal(pc[dc & ~ok] == 0, pt[dc & ~ok] == 0)


def test_compiled_thresholds_are_read_at_each_call(monkeypatch):
    """A threshold changed in ``bvn`` reaches the compiled loop (it is passed as data, not
    frozen at compile time): with the rule from -1 switched off (_FP_JF = inf) its rows leave
    the fast paths in both implementations alike."""
    h, k, rho = (x[:30000] for x in _points())
    before = _both(h, k, rho, True, monkeypatch)[0][1]
    monkeypatch.setattr(bvn, "_FP_JF", math.inf)
    (_, dc), (_, dt) = _both(h, k, rho, True, monkeypatch)
    assert torch.equal(dc, dt)
    assert int(before.sum()) - int(dc.sum()) > 1500


def test_compiled_double_double_is_ddarith_bit_for_bit():
    """The compiled twins of ``ddarith.two_sum, two_prod, dd_mul, dd_div`` (floats) against
    ddarith itself (tensors), on operands spread over 1e-150..1e150 with both signs: every
    result identical (error-free transformations: there is exactly one right answer)."""
    rng = np.random.default_rng(3)
    n = 2000
    a, b, c, d = (rng.choice([-1, 1], n) * 10 ** rng.uniform(-150, 150, n) for _ in range(4))
    al = a * EPS * rng.uniform(-0.5, 0.5, n)  # valid low parts: |lo| <= ulp(hi)/2
    cl = c * EPS * rng.uniform(-0.5, 0.5, n)
    ta, tal, tb, tc, tcl = (torch.from_numpy(x) for x in (a, al, b, c, cl))
    ts = dd.two_sum(ta, tb)
    tp = dd.two_prod(ta, tb)
    tm = dd.dd_mul(ta, tal, tc, tcl)
    tq = dd.dd_div(ta, tal, tc, tcl)
    for i in range(n):
        assert bc._two_sum(a[i], b[i]) == (ts[0][i].item(), ts[1][i].item())
        if abs(a[i] * b[i]) < 1e300:
            assert bc._two_prod(a[i], b[i]) == (tp[0][i].item(), tp[1][i].item())
        if abs(a[i] * c[i]) < 1e300:
            assert bc._dd_mul(a[i], al[i], c[i], cl[i]) == (tm[0][i].item(), tm[1][i].item())
        assert bc._dd_div(a[i], al[i], c[i], cl[i]) == (tq[0][i].item(), tq[1][i].item())


def test_compiled_normal_cdf_and_interval_against_mpmath():
    """The compiled Phi and P(a < Y <= b) (scipy's erfcx by symbol, as ``normal.cdf`` uses
    torch's) against mpmath at 30 digits, from the float64 underflow near -37.5 to 8 and on
    short and tail intervals: relative error <= 1e-15 (``normal.cdf``'s contract, which the
    fast paths rely on; measured ~2e-16)."""
    clamp = nm._CLAMP
    xs = np.concatenate([np.linspace(-37.5, 8, 400), [-0.0, 0.0, 1e-300, -1e-300]])
    worst = 0.0
    with mp.workdps(30):
        for x in xs:
            exact = mp.ncdf(mp.mpf(float(x)))
            worst = max(worst, float(abs(mp.mpf(bc._cdf(float(x), clamp)) / exact - 1)))
        gx, gw = (t.numpy() for t in nm.gauss_legendre(nm._GL_SHORT, "cpu"))
        rng = np.random.default_rng(5)
        for _ in range(300):
            a = rng.uniform(-37, 37)
            b = a + 10 ** rng.uniform(-12, 1.5) * (1 if rng.random() < 0.9 else 20)
            # the tail difference on the side where it does not cancel, at 50 digits
            with mp.workdps(50):
                exact = (mp.ncdf(b) - mp.ncdf(a)) if a + b <= 0 else (mp.ncdf(-a) - mp.ncdf(-b))
            if exact < mp.mpf("2.3e-308"):
                continue
            got = bc._interval_prob(a, b, gx, gw, clamp)
            worst = max(worst, float(abs(mp.mpf(got) / exact - 1)))
    assert worst <= 1e-15, worst
