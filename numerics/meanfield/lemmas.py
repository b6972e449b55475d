"""Lemma 3 (56) numerically: its constants (as printed, and the repaired K* of (71)), the
Gaussian interval probabilities pi(J; G) = P(N(0, G) in J), and the exact probability of the
lemma's event for data whose pre-activations are independent across points.

With W^0 ~ N(0, 1) (Assumption 3), h_i^0(x_a) ~ N(0, G_aa) independently over i; for pairwise
orthogonal embeddings (G diagonal) they are independent over a too, so
P(eta > K) = prod_a P(Binomial(m, pi(J; G_aa)) > m K) exactly (J = I for eta^0, the middle
third I_0 for tilde eta^0), by ``numerics.core.binomial``.
"""
from __future__ import annotations

import math

import mpmath as mp

from numerics.core.binomial import binomial_sf
from numerics.core.compile import compile_expr
from theory.meanfield import dynamics as th

#: K(I, lambda_1, lambda_2) as printed and K*(I, G_min, G_max), of (I_l, I_r, G_min, G_max)
K_printed = compile_expr(th.K_PRINTED.subs({th.lam1: th.G_min, th.lam2: th.G_max}), (th.I_l, th.I_r, th.G_min, th.G_max))
K_star = compile_expr(th.K_STAR, (th.I_l, th.I_r, th.G_min, th.G_max))


def interval_prob(lo, hi, G, *, dps=30):
    """P(lo < N(0, G) < hi), G > 0, by mpmath's normal CDF (differences taken on the side of the
    tail that keeps them accurate)."""
    with mp.workdps(dps + 10):
        s = mp.sqrt(mp.mpf(G))
        a, b = mp.mpf(lo) / s, mp.mpf(hi) / s
        if a >= 0:
            return mp.ncdf(-a) - mp.ncdf(-b)
        return mp.ncdf(b) - mp.ncdf(a)


def middle_third(lo, hi):
    xi = (hi - lo) / 3
    return lo + xi, hi - xi


def event_probability(lo, hi, diag, m: int, K: float, *, tilde: bool, dps: int = 30):
    """P(eta > K) (``tilde``: P(tilde eta^0 > K)) for independent rows with variances ``diag``."""
    J = middle_third(lo, hi) if tilde else (lo, hi)
    with mp.workdps(dps + 10):
        out = mp.mpf(1)
        for g in diag:
            out *= binomial_sf(mp.mpf(m) * mp.mpf(K), m, interval_prob(*J, g, dps=dps), dps=dps)
        return out


def log_required_width(n: int, delta: float, K: float) -> int:
    """ceil(log(n/delta)/(2 K^2)): the width a Hoeffding union bound over n events asks for (K > 0)."""
    if not K > 0:
        raise ValueError(f"K must be > 0, got {K!r}")
    return max(1, math.ceil(math.log(n / delta) / (2 * K * K)))
