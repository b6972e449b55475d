"""Section 5's bounds for the Gaussian mask, evaluated on concrete networks.

``corollary_5_3``: Corollary 5.3, E_C[L_C(W)] <= 2 L(W) + epsilon_1 with
epsilon_1 = 2 m n kappa^2 R_u^2 + m n (kappa^2 R_u^2 + kappa R_w) phi_max^2
+ m n kappa^2 (R_u^2 + 1) psi_max^2 (Definition 4.1's constants; hypothesis B_y <= 3 sqrt(m) R_w).
The left side is exact (``numerics.masking.network.expected_loss``), not sampled.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from numerics.core.compile import compile_expr
from theory.masking import convergence as T
from theory.masking import network as TN

from . import network as nw


def epsilon_1(m: int, n: int, kappa: float, dfn: nw.Definition41) -> float:
    """Corollary 5.3's epsilon_1 from Definition 4.1's constants: the catalogue's expression
    (``theory.masking.convergence.eps1``) compiled, not re-typed (a sum of non-negative terms,
    so the displayed form is stable in float64)."""
    return float(_EPS1(m, n, kappa, dfn.R_u, dfn.R_w, dfn.phi_max, dfn.psi_max))


_EPS1 = compile_expr(T.eps1, (TN.m, TN.n, TN.kappa, TN.R_u, TN.R_w, TN.phi_max, TN.psi_max), "math")


@dataclass(frozen=True)
class Corollary53:
    """E_C[L_C] (exact), L(W), epsilon_1, and the hypothesis B_y <= 3 sqrt(m) R_w."""

    expected_loss: float
    clean_loss: float
    eps1: float
    hypothesis: bool

    @property
    def excess(self) -> float:
        """E_C[L_C] - 2 L(W): what epsilon_1 must cover."""
        return self.expected_loss - 2 * self.clean_loss

    @property
    def ratio(self) -> float:
        """(E_C[L_C] - 2 L(W)) / epsilon_1; the corollary holds iff this is <= 1."""
        if self.eps1 > 0:
            return self.excess / self.eps1
        return -math.inf if self.excess <= 0 else math.inf

    @property
    def holds(self) -> bool:
        return self.excess <= self.eps1


def corollary_5_3(W, a, X, y, kappa) -> Corollary53:
    """Corollary 5.3 on one network (W: (m, d), a: (m,), X: (n, d), y: (n,), kappa >= 0)."""
    loss = float(nw.expected_loss(W, a, X, y, kappa))
    clean = float(nw.clean_loss(W, a, X, y))
    dfn = nw.definition_4_1(W, X, y, kappa)
    m, n = len(W), len(X)
    return Corollary53(loss, clean, epsilon_1(m, n, float(kappa), dfn),
                       dfn.B_y <= 3 * math.sqrt(m) * dfn.R_w)


@dataclass(frozen=True)
class Corollary54:
    """Corollary 5.4 on one network, per neuron r, with every O(.) constant set to 1:

    lhs_r = ||E_C[grad_{w_r} L_C] - grad_{w_r} L||_2 (exact: ``expected_grad`` - ``clean_grad``),
    A = (n kappa^2 B_x^2 R_w + n kappa R_u sqrt(d)) phi_max,
    B = sigma_max(X) phi_max / sqrt(m) * L(W)^{1/2}   (epsilon_3 L^{1/2}; sigma_max(X) read as the
        largest singular value of the n x d data matrix -- the paper does not define it),
    C = n kappa R_u psi_max + kappa^2 sqrt(m) B_x^2 R_w.
    ``constant`` = max_r lhs_r / (A + B + C): the smallest common constant in front of the
    three O(.) terms that makes the corollary hold on this network.
    """

    lhs: tuple
    A: float
    B: float
    C: float
    hypothesis: bool

    @property
    def constant(self) -> float:
        rhs = self.A + self.B + self.C
        worst = max(self.lhs)
        if rhs > 0:
            return worst / rhs
        return 0.0 if worst == 0 else math.inf


def corollary_5_4(W, a, X, y, kappa) -> Corollary54:
    """Corollary 5.4's two sides (constants 1) on one network; see ``Corollary54``."""
    Xn = np.asarray(X, dtype=float)
    m, d = np.shape(W)
    n = len(Xn)
    diff = np.asarray(nw.expected_grad(W, a, X, y, kappa)) - np.asarray(nw.clean_grad(W, a, X, y))
    lhs = tuple(float(v) for v in np.linalg.norm(diff, axis=1))
    dfn = nw.definition_4_1(W, X, y, kappa)
    k = float(kappa)
    sigma_max = float(np.linalg.norm(Xn, 2))
    L = float(nw.clean_loss(W, a, X, y))
    A = (n * k**2 * dfn.B_x**2 * dfn.R_w + n * k * dfn.R_u * math.sqrt(d)) * dfn.phi_max
    B = sigma_max * dfn.phi_max / math.sqrt(m) * math.sqrt(L)
    C = n * k * dfn.R_u * dfn.psi_max + k**2 * math.sqrt(m) * dfn.B_x**2 * dfn.R_w
    return Corollary54(lhs, A, B, C, dfn.B_y <= 3 * math.sqrt(m) * dfn.R_w)
