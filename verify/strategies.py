"""Hypothesis strategies over the lemmas' parameter domains, spanning orders of magnitude.

Per DESIGN.md the domains are the whole of what the hypotheses allow: means of either
sign from 1e-6 to 1e6 (and 0), scales from 1e-6 to 1e6 (and exactly 0), standardised
means mu/s out to +-40 (deep tails), correlations on all of [-1, 1] including the
endpoints, dimensions d = 1 (parallel neurons) to 5, kappa in {0} U [1e-3, 1e2].
"""
from __future__ import annotations

import numpy as np
from hypothesis import assume
from hypothesis import strategies as st

magnitudes = st.floats(-6, 6).map(lambda e: 10.0**e)
scales = st.one_of(st.just(0.0), magnitudes)
positive_scales = magnitudes
standardised = st.one_of(st.floats(-40, 40), st.sampled_from([-37.0, -8.0, 0.0, 8.0]))
correlations = st.one_of(st.floats(-1, 1), st.sampled_from([-1.0, -0.999999, 0.0, 0.999999, 1.0]))
kappas = st.one_of(st.just(0.0), st.floats(-3, 2).map(lambda e: 10.0**e))
positive_kappas = st.floats(-3, 2).map(lambda e: 10.0**e)


@st.composite
def normal_params(draw):
    """(mu, s) with mu/s anywhere in [-40, 40] and s over 12 orders of magnitude."""
    s = draw(positive_scales)
    return draw(standardised) * s, s


@st.composite
def bivariate_params(draw):
    (mu1, s1), (mu2, s2) = draw(normal_params()), draw(normal_params())
    return mu1, mu2, s1, s2, draw(correlations)


@st.composite
def directions(draw, d=None, nonzero=True):
    d = draw(st.integers(1, 5)) if d is None else d
    entries = st.floats(-1, 1, allow_subnormal=False).filter(lambda x: x == 0 or abs(x) > 1e-3)
    u = np.array(draw(st.lists(entries, min_size=d, max_size=d)))
    if nonzero and not np.any(u):
        u[0] = 1.0
    scale = draw(magnitudes)
    return u * scale


def _not_parallel(X: np.ndarray) -> bool:
    """Assumption 3.1: no two inputs parallel (x_i != q x_j for every real q), none zero."""
    norms = np.linalg.norm(X, axis=1)
    if np.any(norms == 0):
        return False
    U = X / norms[:, None]
    G = np.abs(U @ U.T)
    return bool(np.all(G[np.triu_indices(len(X), 1)] < 1 - 1e-9))


@st.composite
def networks(draw, max_n=3, max_m=3, max_d=3, scale=(-3.0, 3.0), kappa=(-1.5, 1.0), label_bound=True):
    """(W, a, X, y, kappa) satisfying Assumption 3.1, over orders of magnitude.

    Inputs in the unit ball, pairwise non-parallel (so d = 1 forces n = 1); W with entries in
    [-1, 1] times 10^e, e in ``scale``; a uniform +-1; kappa = 10^e, e in ``kappa``; labels
    |y_i| <= 3 sqrt(m) R_w (Theorem 4.2's hypothesis) when ``label_bound``, else in [-1, 1].
    """
    d = draw(st.integers(1, max_d))
    n = 1 if d == 1 else draw(st.integers(1, max_n))
    m = draw(st.integers(1, max_m))
    entry = st.floats(-1, 1, allow_subnormal=False).filter(lambda v: abs(v) > 1e-3)
    X = np.array(draw(st.lists(st.lists(entry, min_size=d, max_size=d), min_size=n, max_size=n)))
    X = X / np.maximum(np.linalg.norm(X, axis=1, keepdims=True), 1.0)
    if not _not_parallel(X):
        X = X + np.eye(n, d) * 0.5
        X = X / np.maximum(np.linalg.norm(X, axis=1, keepdims=True), 1.0)
    assume(_not_parallel(X))
    W = np.array(draw(st.lists(st.lists(entry, min_size=d, max_size=d), min_size=m, max_size=m)))
    W = W * 10.0 ** draw(st.floats(*scale))
    a = np.array(draw(st.lists(st.sampled_from([-1.0, 1.0]), min_size=m, max_size=m)))
    y = np.array(draw(st.lists(st.floats(-1, 1), min_size=n, max_size=n)))
    if label_bound:
        y = y * 3 * np.sqrt(m) * np.linalg.norm(W, axis=1).max()
    return W, a, X, y, 10.0 ** draw(st.floats(*kappa))
