"""Section 5's bounds for the Gaussian mask, evaluated on concrete networks.

``corollary_5_3``: Corollary 5.3, E_C[L_C(W)] <= 2 L(W) + epsilon_1 with
epsilon_1 = 2 m n kappa^2 R_u^2 + m n (kappa^2 R_u^2 + kappa R_w) phi_max^2
+ m n kappa^2 (R_u^2 + 1) psi_max^2 (Definition 4.1's constants; hypothesis B_y <= 3 sqrt(m) R_w).
The left side is exact (``numerics.network.expected_loss``), not sampled.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from . import network as nw


def epsilon_1(m: int, n: int, kappa: float, dfn: nw.Definition41) -> float:
    """Corollary 5.3's epsilon_1 from Definition 4.1's constants."""
    Ru2 = dfn.R_u**2
    return m * n * (2 * kappa**2 * Ru2 + (kappa**2 * Ru2 + kappa * dfn.R_w) * dfn.phi_max**2
                    + kappa**2 * (Ru2 + 1) * dfn.psi_max**2)


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
