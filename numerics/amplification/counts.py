"""Lemma 4.2's neuron counts (``theory.amplification.initialisation.NEURON_COUNTS``, reconstructed):
the exact law of |J_mu| and what the lemma's constants demand of the width m.

Each of the m/2 neurons of one sign lies in J_mu independently with probability
p = P(<w/||w||, mu> >= 1/(3 C_0 sqrt d)) = ``correlation_tail(1/(3 C_0), d)``, so
|J_mu| ~ Binomial(m/2, p) and the lemma's per-set failure is

    P(|J_mu| < (m/4)(1 - 1/C_0)^2) = P(Binomial(m/2, p) <= ceil((m/4)(1 - 1/C_0)^2) - 1),

an exact binomial tail (``numerics.core.binomial``; its Berry-Esseen bracket for m/2 > 10^7, where
the incomplete beta function loses its accuracy); the four sets by the union bound.
``simulate`` draws the raw initialisation (Gaussian weights, any scale) and counts the sets.
"""
from __future__ import annotations

import math

import numpy as np
import torch

from numerics.core.binomial import lower_tail, lower_tail_bracket

from .tail import correlation_tail

#: Lemma 4.2's constant in the proof of Theorem 3.1 (Section 4.1, 'a good run'): 4^5 1024^2 e^4
C0_PAPER = 4**5 * 1024**2 * math.exp(4)


def _check(m, d, C0):
    if isinstance(m, bool) or int(m) != m or m < 2 or m % 2:
        raise ValueError(f"m must be an even integer >= 2, got {m!r}")
    if isinstance(d, bool) or int(d) != d or d < 2:
        raise ValueError(f"d must be an integer >= 2, got {d!r}")
    if not C0 > 1:
        raise ValueError(f"C0 must exceed 1, got {C0!r}")


def membership(d, C0) -> float:
    """p = P(one neuron of the right sign lies in J_mu) = correlation_tail(1/(3 C_0), d)."""
    return float(correlation_tail(1.0 / (3.0 * C0), d))


#: above this many trials per set the exact tail is replaced by its Berry-Esseen bracket
EXACT_LIMIT = 10**7


def per_set_failure(m, d, C0) -> tuple[float, float]:
    """(lo, hi) around P(|J_mu| < (m/4)(1 - 1/C_0)^2) for one of the four sets: the exact binomial
    tail (lo = hi) for m/2 <= ``EXACT_LIMIT``, its Berry-Esseen bracket beyond."""
    _check(m, d, C0)
    k = math.ceil(m / 4 * (1 - 1 / C0) ** 2) - 1
    p = membership(d, C0)
    if m // 2 <= EXACT_LIMIT:
        v = float(lower_tail(k, m // 2, p))
        return v, v
    return lower_tail_bracket(k, m // 2, p)


def minimal_width(delta, d, C0) -> tuple[int, int]:
    """(necessary, sufficient): even widths between which the smallest m with the union bound
    4 P(|J_mu| < (m/4)(1 - 1/C_0)^2) <= delta lies, by doubling and bisection on log m (to 0.1 %
    relative) once with the upper and once with the lower end of ``per_set_failure``."""
    if not 0 < delta < 1:
        raise ValueError(f"delta must lie in (0, 1), got {delta!r}")
    return tuple(_crossing(lambda mm, e=end: 4 * per_set_failure(mm, d, C0)[e] > delta) for end in (0, 1))


def _crossing(fails) -> int:
    hi = 2
    while fails(hi):
        hi *= 2
        if hi > 2**250:
            raise ValueError("no width up to 2^250 suffices")
    lo = max(2, hi // 2)
    while hi > lo * 1.001 and hi - lo > 2:
        mid = min(max(math.isqrt(lo * hi) // 2 * 2, lo + 2), hi - 2)
        lo, hi = (mid, hi) if fails(mid) else (lo, mid)
    return hi


def simulate(m, d, C0, trials, *, seed, omega=1.0):
    """Raw initialisations: ``trials`` draws of W (m x d, i.i.d. N(0, omega^2)), the first m/2 rows
    positive; returns the (trials, 4) counts |J_{+mu_1}|, |J_{-mu_1}|, |J_{+mu_2}|, |J_{-mu_2}|
    with mu_1 = e_1, mu_2 = e_2."""
    _check(m, d, C0)
    gen = torch.Generator().manual_seed(int(seed))
    w = omega * torch.randn(int(trials), m, d, generator=gen, dtype=torch.float64)
    corr = w[:, :, :2] / w.norm(dim=2, keepdim=True)
    thr = 1.0 / (3.0 * C0 * math.sqrt(d))
    pos, neg = corr[:, : m // 2], corr[:, m // 2:]
    counts = [(pos[..., 0] >= thr).sum(1), (-pos[..., 0] >= thr).sum(1),
              (neg[..., 1] >= thr).sum(1), (-neg[..., 1] >= thr).sum(1)]
    return np.stack([c.numpy() for c in counts], axis=1)
