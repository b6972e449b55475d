"""Certified extreme eigenvalues of a symmetric matrix of Arb balls (python-flint).

``symmetric_eig_bounds(A)`` returns balls guaranteed to contain lambda_min and lambda_max of every
symmetric matrix inside the balls of ``A``.  Method (no rigorous eigensolver is needed):

1. float64 ``numpy.linalg.eigh`` of the midpoints gives an approximate orthonormal V;
2. in ball arithmetic B = V^T A V and E = V^T V - I; eps >= |E|_F >= |E|_2, so the singular values
   of V satisfy sigma^2 in [1 - eps, 1 + eps] (requires eps < 1);
3. Gershgorin on B: every eigenvalue of B lies in a disc [B_ii - R_i, B_ii + R_i],
   R_i = sum_{j != i} |B_ij|, so min_i (B_ii - R_i) <= lambda_min(B) <= min_i B_ii (the upper
   bound is the Rayleigh quotient at e_i), and likewise for lambda_max;
4. Ostrowski's theorem (Horn and Johnson, *Matrix Analysis*, Thm 4.5.9): lambda_k(V^T A V) =
   theta_k lambda_k(A) with theta_k in [sigma_min(V)^2, sigma_max(V)^2], so lambda_k(A) is
   lambda_k(B)/theta_k for some theta_k in [1 - eps, 1 + eps].

Written here because no library at hand encloses eigenvalues of a large symmetric ball matrix in
reasonable time (``arb_mat.eig`` is general and slow for n in the hundreds); the matrix products
are Arb's (C), the O(n^2) loops Python.
"""
from __future__ import annotations

import numpy as np
from flint import arb, arb_mat

from .certified import workprec

__all__ = ["symmetric_eig_bounds"]


def _interval(lo: arb, hi: arb) -> arb:
    """The smallest ball holding [lo.lower(), hi.upper()]."""
    return arb(lo.lower()).union(arb(hi.upper()))


def _divide(interval: arb, eps: arb) -> arb:
    """{x / theta : x in interval, theta in [1 - eps, 1 + eps]} (eps < 1), as a ball."""
    lo, hi = arb(interval.lower()), arb(interval.upper())
    cands = [lo / (1 - eps), lo / (1 + eps), hi / (1 - eps), hi / (1 + eps)]
    low = min((c.lower() for c in cands), key=float)
    high = max((c.upper() for c in cands), key=float)
    return _interval(arb(low), arb(high))


def symmetric_eig_bounds(A: arb_mat, *, prec: int = 128) -> tuple[arb, arb]:
    """Balls containing (lambda_min, lambda_max) of the symmetric matrix ``A`` (module docstring).
    Raises ``ValueError`` for a non-square matrix or when V is too far from orthogonal (eps >= 1)."""
    n = A.nrows()
    if A.ncols() != n or n < 1:
        raise ValueError(f"A must be square and non-empty, got {n} x {A.ncols()}")
    with workprec(prec):
        mid = np.array([[float(A[i, j].mid()) for j in range(n)] for i in range(n)])
        _, V = np.linalg.eigh((mid + mid.T) / 2)
        Va = arb_mat(V.tolist())
        B = Va.transpose() * A * Va
        E = Va.transpose() * Va
        frob2 = arb(0)
        for i in range(n):
            for j in range(n):
                e = E[i, j] - (1 if i == j else 0)
                frob2 += e * e
        eps = arb(frob2.sqrt().upper())
        if not eps < 1:
            raise ValueError(f"the float64 eigenvectors are not orthogonal enough (eps = {eps})")
        lo_min = hi_min = lo_max = hi_max = None
        for i in range(n):
            R = arb(0)
            for j in range(n):
                if j != i:
                    R += abs(B[i, j])
            b = B[i, i]
            low, high = b - R, b + R
            lo_min = low if lo_min is None or low.lower() < lo_min.lower() else lo_min
            hi_min = b if hi_min is None or b.upper() < hi_min.upper() else hi_min
            lo_max = b if lo_max is None or b.lower() > lo_max.lower() else lo_max
            hi_max = high if hi_max is None or high.upper() > hi_max.upper() else hi_max
        return _divide(_interval(lo_min, hi_min), eps), _divide(_interval(lo_max, hi_max), eps)
