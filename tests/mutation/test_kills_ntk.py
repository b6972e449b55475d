"""Fast witnesses of ``numerics.masking.ntk`` written to kill its mutants (bench/mutation.py,
notes/mutation.md).

- The eigenvalue bracket of the Arb Gram matrix must contain lambda_min of H^inf computed by
  mpmath (45 and 90 digits) from the raw closed form of eq. (11),
  H_ij = x_i^T x_j (pi - acos rho_ij)/(2 pi) (the acos form the float64 kernel avoids), as the least root of
  det(H - l I) -- and be a genuine bracket (lo < hi), since Arb's balls
  have positive radius;
- the Monte Carlo Gram accepts the smallest sample size its variance needs (N = 2);
- bad W is reported under its own name.
"""
from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest
from flint import arb

from numerics.core.certified import workprec
from numerics.masking import ntk as nk

X = np.array([[1.0, 0.0, 0.5], [0.3, 1.1, -0.2], [-0.7, 0.4, 0.9], [0.9, 0.1, 0.45]])


def lambda_min_reference(X, dps: int):
    """lambda_min(H^inf) at ``dps`` digits from the raw closed form of eq. (11)."""
    with mp.workdps(dps):
        rows = [[mp.mpf(float(v)) for v in r] for r in X]
        n = len(rows)
        H = mp.matrix(n, n)
        for i in range(n):
            for j in range(n):
                g = mp.fsum(a * b for a, b in zip(rows[i], rows[j]))
                if i == j:  # theta = 0 exactly (acos of a rounded 1 would be ~sqrt(eps))
                    H[i, j] = g / 2
                    continue
                ni = mp.sqrt(mp.fsum(a * a for a in rows[i]))
                nj = mp.sqrt(mp.fsum(b * b for b in rows[j]))
                H[i, j] = g * (mp.pi - mp.acos(g / (ni * nj))) / (2 * mp.pi)
        # the least root of det(H - l I) (a simple root here), by the secant method from
        # numpy's float64 eigenvalue; the determinant at dps digits (mpmath's LU)
        guess = float(np.linalg.eigvalsh(np.array(H.tolist(), dtype=float))[0])
        return mp.findroot(lambda t: mp.det(H - t * mp.eye(n)), mp.mpf(guess))


def test_eig_bracket_contains_lambda_min():
    # a precision ladder (the suite's rule): 45 and 90 digits agree to 40
    lam, lam2 = lambda_min_reference(X, 45), lambda_min_reference(X, 90)
    with mp.workdps(90):
        assert abs(lam - lam2) <= mp.mpf(10) ** -40 * lam2
    lam = lam2
    # at the working precision of lambda0_enclosure(dps=30); the comparisons too (arb compares
    # by subtracting at the current precision, and hi - lo is ~1e-38)
    with workprec(2 * nk._prec(30)):
        H = nk.ntk_gram_arb(X, prec=nk._prec(30))
        lo, hi = nk._eig_bracket(H, 30)
        ref = arb(mp.nstr(lam, 55))  # a ball of radius ~1e-55 around the reference
        assert lo < hi  # the eigenvalue balls have positive radius: a bracket, not a point
        assert lo < ref < hi
    flo, fhi = nk.lambda0_enclosure(X, dps=30)
    assert flo <= float(lam) <= fhi


def test_monte_carlo_gram_accepts_two_samples():
    # N = 2 is the least with a sample variance (N/(N - 1) finite); each p_hat is 0, 1/2 or 1
    est = nk.monte_carlo_gram(X, 2, seed=3)
    G = X @ X.T
    p = est.mean.numpy() / np.where(G != 0, G, 1.0)
    assert np.all(np.isin(np.round(2 * p, 12), [0.0, 1.0, 2.0]))
    with pytest.raises(ValueError, match="samples must be >= 2"):
        nk.monte_carlo_gram(X, 1, seed=3)


def test_bad_w_is_named():
    with pytest.raises(ValueError, match=r"^W must be real numbers"):
        nk.ntk_gram_finite([["a", "b", "c"]], X)
