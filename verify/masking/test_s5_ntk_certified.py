"""Eq. (11), certified witness: Arb ball arithmetic (python-flint) against the float64 kernels.

- ``lambda0_enclosure`` brackets lambda_0 rigorously (Arb's verified eigenvalue enclosures, or
  an inertia certificate where eigenvalues coincide); the bracket must be tight, and the
  float64 ``lambda0`` must lie within its backward-error bound of it: the symmetric
  eigensolver is backward stable and H's entries are accurate to a few eps, so
  |lambda0 - lambda_0| <= c n eps ||H||_2.  Where Arb's eigenvalue balls isolate, the inertia
  certificate (a different algorithm) is run as well and the two brackets must overlap.
- ``ntk_gram`` entrywise against ``ntk_gram_arb`` (the angle by atan2 of Lagrange's wedge
  norm in Arb, by the half-angle atan2 in float64): the error of H_ij is judged relative to
  ||x_i|| ||x_j||; the textbook acos(rho) form is measured alongside as a baseline (it loses
  half the digits where inputs are nearly parallel).
Sets with n <= 8, including a nearly parallel pair (x_j = x_i + 1e-7 v), a zero input,
orthonormal inputs (a multiple eigenvalue), and +-x, +-y, +-(x + y), whose H^inf is exactly
singular (x 1{w^T x >= 0} - (-x) 1{-w^T x >= 0} = x almost surely).
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from flint import acb_mat

from numerics.masking import ntk
from numerics.core.certified import workprec
from numerics.core.tolerance import EPS, Tol, digits

pytestmark = pytest.mark.witness("certified")

DPS = 30
_x, _y = np.array([0.5, 0.25]), np.array([-0.25, 0.5])
_rng = np.random.default_rng(31)
_generic = _rng.uniform(-1, 1, (8, 5))
_generic /= np.maximum(np.linalg.norm(_generic, axis=1, keepdims=True), 1.0)
_base = np.array([[0.6, 0.0, 0.8], [0.1, 0.9, -0.3], [-0.7, 0.2, 0.4], [0.3, -0.6, -0.5]])
SETS = {
    "generic_n8": _generic,
    "nearly_parallel": np.vstack([_base, _base[0] + 1e-7 * np.array([0.2, 0.5, -0.1])]),
    "small_scale": 1e-3 * _base,
    "zero_input": np.vstack([_base[:3], np.zeros(3)]),
    "orthonormal": np.eye(4),
    "singular_pm": np.array([_x, -_x, _y, -_y, _x + _y, -(_x + _y)]),
}
LAMBDA = Tol(rtol=4 * EPS, why="backward-stable eigvalsh on entries accurate to a few eps: |error| <= c n eps ||H||_2, c = 4")
ENTRY = Tol(rtol=8 * EPS, why="H_ij from x_i^T x_j and the half-angle atan2: a few eps of ||x_i|| ||x_j|| (observed <= 2 eps)")
WIDTH = Tol(rtol=1e-25, why="the bracket at 30 digits is ~1e-30 max|H_ij| wide, plus float64 outward rounding", atol=0.0)


@pytest.mark.statement("eq.11")
@pytest.mark.parametrize("name", list(SETS))
def test_float64_lambda0_within_the_certified_bracket(name, record):
    X = SETS[name]
    lo, hi = ntk.lambda0_enclosure(X, dps=DPS)
    lam = float(ntk.lambda0(X))
    H = ntk.ntk_gram(X)
    scale = len(X) * np.linalg.norm(H, 2)
    ulp = math.ulp(max(abs(lo), abs(hi)))
    assert lo <= hi and hi - lo <= WIDTH.bound(scale) + 2 * ulp, f"{name}: bracket [{lo!r}, {hi!r}] too wide"
    gap = max(lo - lam, lam - hi, 0.0)
    record(error=gap / scale,
           detail=f"{name}: lambda_0 in [{lo:.17g}, {hi:.17g}]; float64 {lam:.17g}, off by {gap / (EPS * scale):.2f} n eps ||H||")
    assert gap <= LAMBDA.bound(scale), (f"{name}: float64 lambda0 = {lam!r} outside [{lo!r}, {hi!r}] by {gap:.2e} "
                                        f"> {LAMBDA} x n||H|| ; reproduce: numerics.masking.ntk.lambda0_enclosure(SETS[{name!r}])")


@pytest.mark.statement("eq.11")
@pytest.mark.parametrize("name", ["generic_n8", "nearly_parallel", "small_scale"])
def test_inertia_certificate_agrees_with_eigenvalue_enclosures(name, record):
    """Two rigorous methods, one ball matrix: Arb's isolated eigenvalue balls and the LDL^T
    inertia bracket (``numerics.masking.ntk._inertia_bracket``) must overlap."""
    prec = 256
    with workprec(prec):
        H = ntk.ntk_gram_arb(SETS[name], prec)
        balls = [e.real for e in acb_mat(H).eig()]
        lo, hi = ntk._inertia_bracket(H, DPS)
        least = min(balls, key=lambda b: float(b.mid()))
        record(detail=(f"{name}: lambda_0 = {least.mid().str(20, radius=False)}; eigenvalue ball radius "
                       f"{float(least.rad()):.1e}, inertia bracket width {float(hi - lo):.1e}"))
        assert least.overlaps(lo.union(hi))


@pytest.mark.statement("eq.11")
@pytest.mark.parametrize("name", ["generic_n8", "nearly_parallel", "small_scale", "singular_pm"])
def test_gram_entries_against_arb(name, record):
    X = SETS[name]
    H = ntk.ntk_gram(X)
    Hb = ntk.ntk_gram_arb(X, prec=256)
    norms = np.linalg.norm(X, axis=1)
    scale = np.outer(norms, norms)
    exact = np.array([[float(Hb[i, j].mid()) for j in range(len(X))] for i in range(len(X))])
    err = np.abs(H - exact) / scale
    G = X @ X.T
    naive = G * (np.pi - np.arccos(np.clip(G / scale, -1, 1))) / (2 * np.pi)
    naive_err = np.abs(naive - exact) / scale
    record(error=err.max(), digits=digits(err.max()),
           detail=(f"{name}: max |H_ij - arb|/(||x_i|| ||x_j||) = {err.max() / EPS:.2f} eps "
                   f"(the acos(rho) form: {naive_err.max() / EPS:.3g} eps)"))
    i, j = np.unravel_index(np.argmax(err), err.shape)
    assert err.max() <= ENTRY.rtol, (f"{name}: H[{i},{j}] = {H[i, j]!r}, Arb {Hb[i, j].str(20)}: "
                                     f"{err.max() / EPS:.1f} eps > {ENTRY}")
