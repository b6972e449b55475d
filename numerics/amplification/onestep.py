"""Lemma 4.10's population first step (``theory.amplification.training.ONE_STEP``, 'population
step'; ours) and Lemma 4.4's expected count gap, in float64 from theory's expressions.

In the limit of a small initialisation (f(x; W^(0)) -> 0, so -l'(y f) -> 1/2) and n -> infinity,
one GD step from w_j^(0) = ||w_j^(0)|| u gives

    w_j^(1)/(alpha a_j) -> (1 - 2 eta)/8 [ (2 Phi(b_1/sigma) - 1) mu_1 - (2 Phi(b_2/sigma) - 1) mu_2
                                           + 2 sigma (phi(b_1/sigma) - phi(b_2/sigma)) u ],

b_s = <u, mu_s>, for Gaussian noise and independent flips of probability eta.  The Monte Carlo
witness (``verify/amplification/test_s4_onestep.py``) runs the finite-sample step instead.
"""
from __future__ import annotations

import math

from numerics.core.compile import compile_expr
from theory.amplification import training as R

_ARGS = (R.b1, R.b2, R.sigma)


def population_step(b1: float, b2: float, sigma: float, eta: float) -> tuple[float, float, float]:
    """(coefficient of mu_1, of mu_2, of u) of lim w_j^(1)/(alpha a_j)."""
    if not (math.isfinite(sigma) and sigma > 0):
        raise ValueError(f"sigma must be finite and > 0, got {sigma!r}")
    if not (-1 <= b1 <= 1 and -1 <= b2 <= 1 and b1 * b1 + b2 * b2 <= 1 + 1e-12):
        raise ValueError(f"(b1, b2) must be the coordinates of a unit vector, got {(b1, b2)!r}")
    scale = (1 - 2 * eta) / 8
    return tuple(scale * compile_expr(e, _ARGS, "math")(float(b1), float(b2), float(sigma))
                 for e in (R.POP_MU1, R.POP_MU2, R.POP_U))


def population_correlation(b1: float, b2: float, sigma: float, eta: float) -> float:
    """<v/||v||, mu_1> for the population step v of a positive neuron (a_j > 0) with b_s = <u, mu_s>:
    <v, mu_1> = c_1 + c_u b_1, ||v||^2 = c_1^2 + c_2^2 + c_u^2 + 2 c_u (c_1 b_1 + c_2 b_2)."""
    c1, c2, cu = population_step(b1, b2, sigma, eta)
    return (c1 + cu * b1) / math.sqrt(c1 * c1 + c2 * c2 + cu * cu + 2 * cu * (c1 * b1 + c2 * b2))


def expected_count_gap(b: float, sigma: float, eta: float) -> float:
    """E[N_mu(j) - N_-mu(j)]/n = (1 - eta)/4 (2 Phi(b/sigma) - 1) (Lemma 4.4, 'mean')."""
    return (1 - eta) / 4 * compile_expr(R.EDGE, (R.b, R.sigma), "math")(float(b), float(sigma))
