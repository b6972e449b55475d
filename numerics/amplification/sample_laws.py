"""Lemma 4.3 (``theory.amplification.training.SAMPLE``, reconstructed) under the exact laws of the
sample: Gaussian noise and independent label flips (``data.sample``).

- (b) ||x_i - mu||^2/sigma^2 ~ chi^2_d independently over i, so
  P(max_i ||x_i - mu||^2 <= C_1 sigma^2 d) = F_{chi^2_d}(C_1 d)^n;
- (a) <x_i, mu> - 1 and <x_i, mu^perp> are N(0, sigma^2): P(all i: <x_i, mu> >= 1 - r, |<x_i, mu^perp>| <= r)
  = ((1 - Phi(-r/sigma))(1 - 2 Phi(-r/sigma)))^n with r = sqrt(C_1) sigma sqrt d;
- (c) |N| ~ Binomial(n, eta): P(|N|/n <= eta + C_1 sqrt(log(1/delta)/n));
- (d) |I_mu| ~ Binomial(n, 1/4) for each mu: P(||I_mu| - n/4| <= C_1 sqrt(n log(1/delta))) per cluster
  (the four are dependent; the union bound gives the joint event at least 1 - 4 (1 - per cluster)).

``smallest_C1(part, ...)`` inverts each for a target probability: the constant the lemma needs.
"""
from __future__ import annotations

import math

import numpy as np
from scipy import special as sc

from numerics.core.binomial import lower_tail


def part_b(n: int, d: int, C1: float) -> float:
    """P(max_i ||x_i - mu_i||^2 <= C_1 sigma^2 d) = F_{chi^2_d}(C_1 d)^n (any sigma > 0)."""
    with np.errstate(divide="ignore"):          # F = 0 at tiny C_1: log 0 = -inf, probability 0
        return float(np.exp(n * np.log1p(-sc.chdtrc(d, C1 * d))))


def part_a(n: int, d: int, C1: float) -> float:
    """P(every i: <x_i, mu> >= 1 - r and |<x_i, mu^perp>| <= r), r = sqrt(C_1 d) sigma."""
    q = sc.ndtr(-math.sqrt(C1 * d))
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(np.exp(n * (np.log1p(-q) + np.log1p(-2 * q)))) if q < 0.5 else 0.0


def part_c(n: int, eta: float, C1: float, delta: float) -> float:
    """P(|N| <= n eta + C_1 sqrt(n log(1/delta))), |N| ~ Binomial(n, eta)."""
    k = math.floor(n * eta + C1 * math.sqrt(n * math.log(1 / delta)) + 1e-9 * n)
    return float(lower_tail(min(k, n), n, eta))


def part_d(n: int, C1: float, delta: float) -> float:
    """P(||I_mu| - n/4| <= C_1 sqrt(n log(1/delta))) for one cluster, |I_mu| ~ Binomial(n, 1/4)."""
    r = C1 * math.sqrt(n * math.log(1 / delta))
    hi, lo = math.floor(n / 4 + r), math.ceil(n / 4 - r) - 1
    return float(lower_tail(min(hi, n), n, 0.25) - (lower_tail(lo, n, 0.25) if lo >= 0 else 0.0))


def smallest_C1(prob, target: float, lo: float = 1e-3, hi: float = 1e3) -> float:
    """The smallest C_1 in [lo, hi] with prob(C_1) >= target (bisection in log C_1 to 1e-6 relative;
    ``prob`` nondecreasing)."""
    if prob(hi) < target:
        raise ValueError(f"no C_1 up to {hi} reaches probability {target}")
    if prob(lo) >= target:
        return lo
    while hi / lo > 1 + 1e-6:
        mid = math.sqrt(lo * hi)
        lo, hi = (lo, mid) if prob(mid) >= target else (mid, hi)
    return hi
