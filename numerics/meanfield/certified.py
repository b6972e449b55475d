"""Assumption 4 certified: Arb enclosures of Gbar^(1) (eq. (23)) for ReLU and z ~ N(0, I_d), and of
its extreme eigenvalues for the experiments' data sets.

Entry (a, b): the arc-cosine closed form ``theory.core.dual_kernels.RELU`` (proved from the polar
definition by ``theory.meanfield.derivations.relu``), compiled into ball arithmetic, at
a = |x_a|/sqrt d, b = |x_b|/sqrt d, theta = atan2(|x_a ^ x_b|, x_a . x_b), |x_a ^ x_b|^2 =
|x_a|^2 |x_b|^2 - (x_a . x_b)^2 (Lagrange); the float64 data are exact binary numbers, so at 128+
bits the dot products are exact and only the square roots, atan2 and the closed form round.
Eigenvalues: ``numerics.core.certified_linalg.symmetric_eig_bounds``.

Data: Exp. 1 (Section 4.1) x_a ~ N(0, I_20); Exp. 3 (Section 4.3, (93)-(96)) (x_1, x_2) uniform over
{(+-1, 0), (0, +-1)} and x_3..x_d ~ U[-1, 1], d = 50 (both seeded here; the paper gives no seeds).
"""
from __future__ import annotations

import numpy as np
from flint import arb, arb_mat

from numerics.core.certified import workprec
from numerics.core.certified_linalg import symmetric_eig_bounds
from numerics.core.compile import compile_expr
from theory.core import dual_kernels as dk

_relu = compile_expr(dk.RELU, (dk.a, dk.b, dk.theta), "arb")


def exp3_data(n: int, d: int = 50, *, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(X, y) of Exp. 3, (93)-(96): (x_1, x_2, y) uniform over {(1,0,1), (-1,0,1), (0,1,-1), (0,-1,-1)},
    x_3..x_d ~ U[-1, 1] independently."""
    rng = np.random.default_rng(seed)
    heads = np.array([[1.0, 0.0, 1.0], [-1.0, 0.0, 1.0], [0.0, 1.0, -1.0], [0.0, -1.0, -1.0]])
    pick = heads[rng.integers(0, 4, n)]
    X = np.hstack([pick[:, :2], rng.uniform(-1.0, 1.0, (n, d - 2))])
    return X, pick[:, 2]


def exp1_data(n: int, d: int = 20, *, seed: int = 0) -> np.ndarray:
    """The inputs of Exp. 1 as ``numerics.meanfield.exp1.run`` draws them (x_a ~ N(0, I_d))."""
    return np.random.default_rng([seed, n]).standard_normal((n, d))


def gram_bar_relu_arb(X, *, prec: int = 128) -> arb_mat:
    """Gbar^(1) of eq. (23) for ReLU as an Arb matrix (module docstring); X (n, d), rows nonzero."""
    X = np.asarray(X, dtype=np.float64)
    n, d = X.shape
    with workprec(prec):
        xa = [[arb(float(v)) for v in row] for row in X]
        Xa = arb_mat(xa)
        dots = Xa * Xa.transpose()                   # exact: products of doubles summed at >= 128 bits
        sd = arb(d).sqrt()
        out = arb_mat(n, n)
        norms = [dots[i, i].sqrt() for i in range(n)]
        if any(not (v > 0) for v in norms):
            raise ValueError("every row of X must be nonzero")
        for i in range(n):
            for j in range(i, n):
                wedge2 = dots[i, i] * dots[j, j] - dots[i, j] ** 2
                wedge = arb(0) if i == j else (wedge2 if wedge2 > 0 else arb(0, wedge2.rad())).sqrt()
                theta = arb(0) if i == j else arb.atan2(wedge, dots[i, j])
                out[i, j] = out[j, i] = _relu(norms[i] / sd, norms[j] / sd, theta)
        return out


def lambda_bounds(X, *, prec: int = 128) -> tuple[arb, arb]:
    """Certified balls for (lambda_min, lambda_max) of Gbar^(1) (ReLU) at the data X."""
    return symmetric_eig_bounds(gram_bar_relu_arb(X, prec=prec), prec=prec)
