"""The masking paper's own functions of eq. (3): phi(x) = exp(-x^2) (NOT the normal density,
which is ``theory.core.functions.varphi``) and psi(x) = |x| phi(x)."""
from __future__ import annotations

import sympy as sp


def paper_phi(x):
    """The paper's phi(x) = exp(-x^2) of eq. (3) (not the Gaussian density)."""
    return sp.exp(-x**2)


def paper_psi(x):
    """The paper's psi(x) = |x| phi(x) of eq. (3)."""
    return sp.Abs(x) * paper_phi(x)
