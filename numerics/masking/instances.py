"""Hypothesis strategies over the paper's instances: two-layer networks and data under
Assumption 3.1, drawn over orders of magnitude.  Used by the verify/ witnesses and by
``maskverify fuzz`` (``numerics.core.fuzzing``), so it lives here (data flows theory -> numerics
-> verify; DESIGN.md).
"""
from __future__ import annotations

import numpy as np
from hypothesis import assume
from hypothesis import strategies as st


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
