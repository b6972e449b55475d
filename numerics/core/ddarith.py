"""Double-double ("float-float") arithmetic on float64 torch tensors, elementwise.

A double-double value is a pair (hi, lo) of tensors with |lo| <= ulp(hi)/2 and value
hi + lo (~106 bits).  Error-free transformations (Knuth's two-sum; Dekker's product
with Veltkamp splitting, no FMA needed) and the usual dd operations built on them:

* ``split(x)``            x = hi + lo exactly, hi with at most 26 significant bits;
* ``two_sum(a, b)``       a + b = s + e exactly (any a, b);
* ``two_prod(a, b)``      a * b = p + e exactly (barring over/underflow; |a|, |b| < ~1e300);
* ``dd_add``, ``dd_mul``, ``dd_div``: (ah, al) op (bh, bl) to ~2^-104 relative,
  each result renormalised by a final two_sum.

Moved here from ``numerics.core.bvn`` (unchanged arithmetic, so results are bit-for-bit the
same); works on CPU and CUDA tensors alike.
"""
from __future__ import annotations

import torch

__all__ = ["split", "two_sum", "two_prod", "dd_add", "dd_mul", "dd_div"]

_SPLITTER = 134217729.0  # 2**27 + 1


def split(x: torch.Tensor):
    """Veltkamp split: x = hi + lo exactly, hi with at most 26 significant bits."""
    c = _SPLITTER * x
    hi = c - (c - x)
    return hi, x - hi


def two_sum(a, b):
    """s = fl(a + b) and the exact error e = (a + b) - s."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def two_prod(a, b):
    """p = fl(a * b) and the exact error e = a * b - p (Dekker)."""
    p = a * b
    ah, al = split(a)
    bh, bl = split(b)
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def dd_add(ah, al, bh, bl):
    """(ah + al) + (bh + bl) in double-double."""
    s, e = two_sum(ah, bh)
    e = e + (al + bl)
    return two_sum(s, e)


def dd_mul(ah, al, bh, bl):
    """(ah + al) * (bh + bl) in double-double."""
    p, e = two_prod(ah, bh)
    e = e + (ah * bl + al * bh)
    return two_sum(p, e)


def dd_div(ah, al, bh, bl):
    """(ah + al) / (bh + bl) in double-double (one Newton-style correction)."""
    q1 = ah / bh
    ph, pl = dd_mul(q1, torch.zeros_like(q1), bh, bl)
    rh, _ = dd_add(ah, al, -ph, -pl)
    q2 = rh / bh
    return two_sum(q1, q2)
