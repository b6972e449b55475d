"""Exact binomial tails, for lemmas that count successes (neurons, samples) and claim a
high-probability bound.

For X ~ Binomial(n, p):

- ``lower_tail(k, n, p)`` = P(X <= k) = I_{1-p}(n - k, k + 1) (the regularised incomplete beta
  function; Abramowitz & Stegun 26.5.24), float64 by scipy.special.betainc (Boost), vectorised,
  for n up to ~1e300 as a real number (n and k integers, or integer-valued floats);
- ``lower_tail_sum(k, n, p, dps)`` = the raw definition sum_{j <= k} C(n, j) p^j (1-p)^(n-j) in
  mpmath (exact binomial coefficients, every term at ``dps`` digits), the reference of the above
  for n up to 10^5;
- ``lower_tail_bracket(k, n, p)`` = a rigorous (lo, hi) around P(X <= k) by the Berry-Esseen
  theorem, for n beyond ~1e12, where the incomplete beta function's answer depends on
  differences of its huge parameters below float64 resolution (scipy's value at n ~ 3e16 is off
  by orders of magnitude);
- ``chernoff_lower(k, n, p)`` = exp(-n KL(k/n || p)) for k <= n p, the Chernoff-Hoeffding bound
  (Hoeffding 1963, eq. (2.1)) that high-probability lemmas usually invoke;
- ``binomial_sf(k, n, p, dps)`` = P(X > k) in mpmath for any n up to ~1e15, summed in the tail
  away from the mode (below), with the precision ladder.

``binomial_sf``: with j0 = floor(k) + 1 and the mode M = floor((n + 1) p), P(X > k) is the upward
sum of the pmf from j0 when j0 > M, and 1 minus the downward sum below j0 otherwise, so every
sum is of terms decaying at least geometrically away from its start and only a small sum is ever
subtracted from 1; pmf(j0) = exp(log C(n, j0) + j0 log p + (n - j0) log(1 - p)) by
``mpmath.loggamma``, the others by the ratio pmf(j + 1)/pmf(j) = (n - j) p / ((j + 1)(1 - p)); a
sum stops when a term is below 10^-(dps + 5) of it.

k < 0 gives 0 and k >= n gives 1.  Bad input raises ValueError.
"""
from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import scipy.special as sc

from .reference import GUARD_DPS, ladder

__all__ = ["binomial_sf", "chernoff_lower", "lower_tail", "lower_tail_bracket", "lower_tail_sum"]


def _check(k, n, p):
    k, n, p = (np.asarray(v, dtype=np.float64) for v in (k, n, p))
    if np.isnan(k).any() or np.isnan(n).any() or np.isnan(p).any():
        raise ValueError("k, n and p must not be NaN")
    if (n < 0).any() or (n != np.floor(n)).any() or not np.isfinite(n).all():
        raise ValueError("n must be a finite integer >= 0")
    if (k != np.floor(k)).any():
        raise ValueError("k must be an integer")
    if ((p < 0) | (p > 1)).any():
        raise ValueError("p must lie in [0, 1]")
    return np.broadcast_arrays(k, n, p)


def lower_tail(k, n, p):
    """P(X <= k), X ~ Binomial(n, p) (module docstring); numpy in, numpy out."""
    k, n, p = _check(k, n, p)
    inside = (k >= 0) & (k < n)
    with np.errstate(all="ignore"):
        body = sc.betainc(np.where(inside, n - k, 1.0), np.where(inside, k + 1, 1.0), 1.0 - p)
    out = np.where(k < 0, 0.0, np.where(k >= n, 1.0, body))
    out = np.where(inside & (p == 0), 1.0, np.where(inside & (p == 1), 0.0, out))
    return out[()] if out.ndim == 0 else out


def lower_tail_sum(k: int, n: int, p, *, dps: int = 30):
    """sum_{j=0}^{k} C(n, j) p^j (1 - p)^(n - j) at ``dps`` digits (the raw definition)."""
    if int(n) != n or n < 0 or n > 10**5:
        raise ValueError(f"n must be an integer in [0, 1e5], got {n!r}")
    if int(k) != k:
        raise ValueError(f"k must be an integer, got {k!r}")
    n, k = int(n), int(k)
    with mp.workdps(dps + 10):
        p = mp.mpf(p)
        if not 0 <= p <= 1:
            raise ValueError(f"p must lie in [0, 1], got {p}")
        total = mp.fsum(mp.binomial(n, j) * p**j * (1 - p) ** (n - j) for j in range(min(k, n) + 1))
    with mp.workdps(dps):
        return +total


def chernoff_lower(k, n, p):
    """exp(-n KL(k/n || p)) >= P(X <= k) for 0 <= k <= n p (Hoeffding 1963, eq. (2.1))."""
    k, n, p = (float(v) for v in (k, n, p))
    if not (0 <= k <= n * p) or not (0 < p < 1):
        raise ValueError(f"the bound needs 0 <= k <= n p and 0 < p < 1, got k={k}, n={n}, p={p}")
    q = k / n
    kl = (q * math.log(q / p) if q > 0 else 0.0) + (1 - q) * math.log((1 - q) / (1 - p))
    return math.exp(-n * kl)


#: the Berry-Esseen constant for i.i.d. sums, C <= 0.4748 (Shevtsova 2011, Theorem 1)
BERRY_ESSEEN = 0.4748


def lower_tail_bracket(k, n, p) -> tuple[float, float]:
    """(lo, hi) with lo <= P(X <= k) <= hi by the Berry-Esseen theorem,
    |P(X <= k) - Phi((k - n p)/sqrt(n p q))| <= 0.4748 (p^2 + q^2)/sqrt(n p q), q = 1 - p
    (the third absolute central moment of a Bernoulli is p q (p^2 + q^2)); for n far beyond
    where the incomplete beta function keeps its accuracy (its parameters ~ n, its answer set by
    differences ~ sqrt(n) of them).  0 < p < 1, n >= 1."""
    k, n, p = float(k), float(n), float(p)
    if not (0 < p < 1) or not n >= 1:
        raise ValueError(f"the bracket needs 0 < p < 1 and n >= 1, got n={n}, p={p}")
    q = 1.0 - p
    s = math.sqrt(n * p * q)
    centre = float(sc.ndtr((k - n * p) / s))
    width = BERRY_ESSEEN * (p * p + q * q) / s
    return max(0.0, centre - width), min(1.0, centre + width)


def _logpmf(j, m, p):
    return (mp.loggamma(m + 1) - mp.loggamma(j + 1) - mp.loggamma(m - j + 1)
            + j * mp.log(p) + (m - j) * mp.log1p(-p))


def _sf(j0, m, p, *, dps):
    # the first term's log-pmf is a difference of loggammas of size ~ m log m: it loses
    # log10(m log m) digits, which the working precision adds on top of the guard digits
    lost = math.ceil(math.log10(m * math.log(m + 1) + 1))
    with mp.workdps(dps + GUARD_DPS + lost):
        p = mp.mpf(p)
        stop = mp.mpf(10) ** -(dps + 5)
        ratio = p / (1 - p)
        if j0 > math.floor((m + 1) * p):
            term, total, j = mp.exp(_logpmf(j0, m, p)), mp.mpf(0), j0
            while j <= m:
                total += term
                if term <= stop * total:
                    break
                term *= (m - j) * ratio / (j + 1)
                j += 1
            return total
        j = j0 - 1
        term, total = mp.exp(_logpmf(j, m, p)), mp.mpf(0)
        while j >= 0:
            total += term
            if term <= stop * total:
                break
            term *= j / ((m - j + 1) * ratio)
            j -= 1
        return 1 - total


def binomial_sf(k, m: int, p, *, dps: int = 30):
    """P(X > k) for X ~ Binomial(m, p); ``k`` any real (the event is X >= floor(k) + 1)."""
    if int(m) != m or m < 1:
        raise ValueError(f"m must be an integer >= 1, got {m!r}")
    with mp.workdps(dps + GUARD_DPS):
        p = mp.mpf(p)
        if not 0 <= p <= 1:
            raise ValueError(f"p must lie in [0, 1], got {p}")
        j0 = int(mp.floor(mp.mpf(k))) + 1
    if j0 <= 0:
        return mp.mpf(1)
    if j0 > m or p == 0:
        return mp.mpf(0)
    if p == 1:
        return mp.mpf(1)
    return ladder(_sf, j0, int(m), p, dps=dps)
