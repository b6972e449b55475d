"""Figs. 1(a) and 2(a)'s captions (``fig.1a``, ``fig.2a``): the proxy against ReLU, and the caption's
closed form of the smoothed ReLU against raw masks.

- ``fig.1a`` (reference, mpmath on the raw definitions, precision ladder): sup_z |z Phi(z/s) - max(z, 0)|
  found by a grid and golden-section search on the raw gap equals c_1 s, c_1 = t_* Phi(-t_*) with
  Phi(-t_*) = t_* varphi(t_*) (the statement's constant); the largest second difference of the raw proxy
  is 2 varphi(0)/s, at z = 0, and falls as s = kappa ||w . x|| grows.
- ``fig.2a`` (Monte Carlo, raw masks at the caption's kappa = 0.2, ||w . x|| = 1, the authors' 200,000
  samples, z = w^T x over their [-2.1, 2.1]): the closed form with the normal density holds; with eq. (3)'s
  phi(x) = exp(-x^2), which is what the caption prints, it does not (masking:E12, strict xfail).
"""
from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp
import torch
from mpmath import mp

from numerics.core import montecarlo as mc
from numerics.core.reference import ladder
from numerics.core.tolerance import Tol, ZTest
from theory.core.functions import to_elementary
from theory.masking import figures as T

SCALES = (1e-3, 0.01, 0.2, 1.0, 7.0)
AGREE = Tol(rtol=1e-15, why="golden section to a bracket of 1e-18 s: the maximum's value is then exact to ~1e-30; "
                            "the ladder holds 17 digits at dps = 20")


def _c1(dps):
    """The statement's constant: t_* solves Phi(-t) = t varphi(t) (its 'where'), c_1 = t_* Phi(-t_*)."""
    with mp.workdps(dps):
        ts = mp.findroot(lambda t: mp.ncdf(-t) - t * mp.npdf(t), 0.75)
        return ts * mp.ncdf(-ts)


def _raw_sup_gap(s, *, dps):
    """max_z |z Phi(z/s) - max(z, 0)| from the raw definition: a grid over z = s t, t in [-4, 4], then a
    golden-section search in the bracket of the grid's maximum."""
    with mp.workdps(dps):
        s = mp.mpf(s)
        gap = lambda z: abs(z * mp.ncdf(z / s) - max(z, 0))  # noqa: E731
        ts = [mp.mpf(-4) + mp.mpf(8) * k / 800 for k in range(801)]
        k = max(range(801), key=lambda j: gap(s * ts[j]))
        lo, hi = s * ts[max(k - 1, 0)], s * ts[min(k + 1, 800)]
        g = (mp.sqrt(5) - 1) / 2
        while hi - lo > s * mp.mpf(10) ** (-dps // 2 - 8):
            a, b = hi - g * (hi - lo), lo + g * (hi - lo)
            if gap(a) > gap(b):
                hi = b
            else:
                lo = a
        return gap((lo + hi) / 2)


def _raw_max_curvature(s, *, dps):
    """max over a grid t in [-6, 6] (0 included) of |second difference| of the raw z Phi(z/s), step 1e-12 s,
    and the t where it is attained."""
    with mp.workdps(dps):
        s = mp.mpf(s)
        f = lambda z: z * mp.ncdf(z / s)  # noqa: E731
        h = s * mp.mpf(10) ** -12
        best, where = mp.mpf(0), None
        for k in range(-60, 61):
            z = s * mp.mpf(k) / 10
            d2 = abs((f(z + h) - 2 * f(z) + f(z - h)) / h**2)
            if d2 > best:
                best, where = d2, k / 10
        return best, where


@pytest.mark.statement("fig.1a")
@pytest.mark.witness("reference")
def test_proxy_is_within_c1_s_of_relu(record):
    worst = 0.0
    for s in SCALES:
        sup = ladder(_raw_sup_gap, s, dps=20)
        with mp.workdps(40):
            err = float(abs(sup / (_c1(40) * mp.mpf(s)) - 1))
        worst = max(worst, err)
        assert err <= AGREE.rtol, f"s = {s}: raw sup gap {sup} against c_1 s ({err:.3g} relative; {AGREE})"
    record(error=worst, judged=len(SCALES),
           detail=f"c_1 = {mp.nstr(_c1(30), 12)}; at kappa = 0.01, ||w . x|| = 1 the proxy is within "
                  f"{float(_c1(20)) * 0.01:.5f} of ReLU")


@pytest.mark.statement("fig.1a")
@pytest.mark.witness("reference")
def test_largest_curvature_is_at_zero_and_falls_with_kappa(record):
    prev = math.inf
    for s in SCALES:
        best, where = _raw_max_curvature(s, dps=40)
        claimed = 2 / (mp.sqrt(2 * mp.pi) * s)
        err = float(abs(best / claimed - 1))
        assert where == 0 and err <= 1e-10, f"s = {s}: raw max |sigma_hat''| {best} at t = {where}, claimed {claimed}"
        assert best < prev
        prev = best
    record(judged=len(SCALES), detail="max |sigma_hat''| = 2 varphi(0)/s at z = 0 for s in "
                                      f"{SCALES}, strictly decreasing")


# ----------------------------------------------------------------------------- Fig. 2(a)
KAPPA = 0.2
ZS = np.linspace(-2.1, 2.1, 9)
SAMPLES = 200_000


def _neuron(z0):
    """w, x in d = 5 with w^T x = z0 and ||w . x|| = 1 (x = 1, w = z0/5 1 + a unit direction orthogonal to 1)."""
    x = np.ones(5)
    w = z0 / 5 * x + math.sqrt(1 - z0**2 / 5) * np.array([1.0, -1.0, 0, 0, 0]) / math.sqrt(2)
    return w, x


def _raw(seed=21):
    means, ses = [], []
    for j, z0 in enumerate(ZS):
        w, x = _neuron(z0)
        wt, xt = torch.as_tensor(w), torch.as_tensor(x)
        est = mc.mask_mean(lambda c: torch.relu((c * xt) @ wt), 5, KAPPA, SAMPLES, seed=seed + j)
        means.append(est.mean)
        ses.append(est.stderr)
    return mc.Estimate(torch.stack(means), torch.stack(ses), SAMPLES)


def _closed(part):
    f = sp.lambdify((T.z, T.s), to_elementary(T.FIG_2A.equation(part).rhs), "mpmath")
    return [float(f(mp.mpf(z), mp.mpf(KAPPA))) for z in ZS]


@pytest.fixture(scope="module")
def raw():
    return _raw()


@pytest.mark.statement("fig.2a")
@pytest.mark.witness("montecarlo")
def test_closed_form_with_the_density_matches_raw_masks(raw, record):
    test = ZTest(alpha=1e-6, comparisons=len(ZS))
    z = float(raw.z_scores(torch.tensor(_closed("as_meant"))).abs().max())
    record(ratio=z / test.z, judged=len(ZS), detail=f"max |z| = {z:.2f} over z in [-2.1, 2.1] ({test})")
    assert z <= test.z


E12 = ("Fig. 2(a)'s caption: sigma~ = z Phi(z/sigma) + sigma phi(z/sigma) with eq. (3)'s phi(x) = exp(-x^2) is not "
       "E_c[sigma(w^T(x . c))]: at z = 0, kappa = 0.2 it gives 0.2, the expectation is 0.0798 (masking:E12)")


@pytest.mark.statement("fig.2a")
@pytest.mark.witness("montecarlo")
@pytest.mark.xfail(strict=True, raises=AssertionError, reason=E12)
def test_closed_form_as_printed_matches_raw_masks(raw, record):
    test = ZTest(alpha=1e-6, comparisons=len(ZS))
    z = float(raw.z_scores(torch.tensor(_closed("as_printed"))).abs().max())
    record(ratio=z / test.z, judged=len(ZS), detail=f"max |z| = {z:.1f} ({test})")
    assert z <= test.z, f"the printed closed form is {z:.1f} standard errors from the raw-mask mean ({test})"


@pytest.mark.statement("fig.2a")
@pytest.mark.witness("fast")
def test_closed_form_as_printed_counterexample_pinned(record):
    """masking:E12's numbers from the catalogue's two right sides at z = 0, s = 0.2: 0.2 as printed,
    0.2/sqrt(2 pi) = 0.0797885 with the density; equal only where exp(-t^2) = varphi(t), |t| = 1.3557."""
    printed, meant = (to_elementary(T.FIG_2A.equation(p).rhs).subs({T.z: 0, T.s: sp.Rational(1, 5)})
                      for p in ("as_printed", "as_meant"))
    record(detail=f"as printed {float(printed):.7f}, as meant {float(meant):.7f}")
    assert printed == sp.Rational(1, 5) and round(float(meant), 7) == 0.0797885
    assert sp.nsolve(sp.exp(-T.z**2) - sp.exp(-T.z**2 / 2) / sp.sqrt(2 * sp.pi), T.z, 1.3) == pytest.approx(1.3557, abs=1e-4)
