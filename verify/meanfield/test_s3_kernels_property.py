"""Hypothesis over data (scales 1e-3 .. 1e3, d = 1 .. 6, nearly parallel pairs) and activations:
Gbar^(1) and the derivative kernel are symmetric, positive semi-definite Gram matrices obeying
Cauchy-Schwarz, and the homogeneous kernels scale exactly (relu, abs, leaky: degree 2 in the
norms; their step kernels: degree 0)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, target
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from numerics.core.tolerance import EPS, Tol
from numerics.meanfield import gram_bar, gram_bar_prime

ACTS = ("relu", "abs", "leaky_relu:0.3", "erf")
HOM_TOL = Tol(rtol=256 * EPS, why="a few roundings on each side, and X / 10^s rounds each entry")
PSD_TOL = Tol(rtol=64 * EPS, why="eigenvalues of a float64 PSD matrix: rounding of O(eps |G|) each")
rows = st.integers(1, 6).flatmap(lambda d: arrays(np.float64, st.tuples(st.integers(1, 5), st.just(d)),
                                                  elements=st.floats(-1, 1, allow_subnormal=False)))


def _psd_cauchy_schwarz_homogeneous(kernel, power, X, log_scale, act, tilt):
    """``kernel`` (gram_bar or gram_bar_prime) on X with a nearly parallel extra row, scaled by
    10^log_scale: symmetric, finite, PSD, |G_ab| <= sqrt(G_aa G_bb), and for the homogeneous
    activations (relu, abs, leaky: degree 1) G(s X) = s^power G(X)."""
    X = 10.0**log_scale * np.vstack([X, X[:1] * (1 + tilt) + tilt])      # a nearly parallel extra row
    G = kernel(X, act)
    assert np.array_equal(G, G.T) and np.isfinite(G).all()
    scale = max(np.abs(G).max(), 1e-300)
    ev = np.linalg.eigvalsh(G)
    target(float(-ev[0] / scale))
    assert ev[0] >= -len(G) * PSD_TOL.bound(scale), f"lambda_min = {ev[0]} ({PSD_TOL})"
    diag = np.sqrt(np.clip(np.diag(G), 0, None))
    assert (np.abs(G) <= np.outer(diag, diag) * (1 + 64 * EPS) + 64 * EPS * scale).all()
    if act != "erf":
        base = kernel(X / 10.0**log_scale, act)
        assert np.allclose(G, 10.0 ** (power * log_scale) * base, rtol=HOM_TOL.rtol,
                           atol=HOM_TOL.rtol * scale), f"not homogeneous ({HOM_TOL})"


_DATA = dict(X=rows, log_scale=st.floats(-3, 3), act=st.sampled_from(ACTS), tilt=st.floats(0, 1e-6))


@pytest.mark.statement("eq.23")
@pytest.mark.witness("property")
@given(**_DATA)
def test_gram_is_psd_and_cauchy_schwarz(X, log_scale, act, tilt):
    """Gbar^(1) (23): a Gram matrix; degree 2 in the norms for the homogeneous activations."""
    _psd_cauchy_schwarz_homogeneous(gram_bar, 2, X, log_scale, act, tilt)


@pytest.mark.statement("eq.23.prime")
@pytest.mark.witness("property")
@given(**_DATA)
# the deep profile's counterexample: a row whose squared norm is subnormal lost its angle
@example(X=np.array([[6.9479213e-161, 6.9479213e-161]]), log_scale=1.0, act="relu", tilt=1.347950483882632e-08)
def test_derivative_kernel_is_psd_and_cauchy_schwarz(X, log_scale, act, tilt):
    """The derivative kernel E[sigma'(u) sigma'(v)]: a Gram matrix; degree 0 (the steps) for the
    homogeneous activations."""
    _psd_cauchy_schwarz_homogeneous(gram_bar_prime, 0, X, log_scale, act, tilt)


@pytest.mark.statement("eq.23.prime")
@pytest.mark.witness("fast")
@pytest.mark.parametrize("scale", [5e-324, 1e-310, 1e-160, 1.0, 1e150, 1e300])
def test_step_kernels_of_parallel_and_orthogonal_rows_at_every_scale(scale):
    """Exact values at every float64 scale, subnormal rows included: parallel rows have
    theta = 0 (relu step 1/2, abs step 1), orthogonal ones pi/2 (relu step 1/4); the rows'
    norms and angle are taken after an exact power-of-two scaling, so no squared norm under-
    or overflows (a row of subnormals once became inf, one of norm 1e-160 lost 5 digits)."""
    par = np.array([[1.0, 1.0], [2.0, 2.0]]) * scale
    ort = np.array([[1.0, 1.0], [1.0, -1.0]]) * scale
    assert gram_bar_prime(par, "relu")[0, 1] == 0.5 and gram_bar_prime(par, "abs")[0, 1] == 1.0
    assert gram_bar_prime(ort, "relu")[0, 1] == 0.25
