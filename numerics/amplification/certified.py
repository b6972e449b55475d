"""Arb enclosures for the amplification pack (python-flint ball arithmetic).

``correlation_tail_arb(c, d, prec)``: a ball guaranteed to contain P(t >= c/sqrt d),
t = <w/||w||, mu>, w ~ N(0, I_d), from Arb's rigorous regularised incomplete beta function
(``arb.beta_lower(a, b, regularized=True)``, Johansson's ``arb_hypgeom_beta_lower``):

    P(t >= c/sqrt d) = I_y((d-1)/2, 1/2) / 2 = (1 - I_x(1/2, (d-1)/2)) / 2,   x = c^2/d, y = 1 - x
    (c >= 0; the second form where I_x(1/2, (d-1)/2) < 3/4, so that the subtraction loses at most
    two bits and Arb's series runs at x < 1/2, where it is fast; the first form elsewhere),

x and y formed as exact balls from the exact binary c and the integer d (so the ball accounts for
every rounding), and 1 - P(|c|) for c < 0; c^2 >= d gives the exact 0 (or 1).  This is the
formula the fast kernel evaluates, but in ball arithmetic: it certifies the float64 kernel, while
``numerics.amplification.reference`` (raw quadrature of the density kernel) certifies the
formula.  ``enclose``-style precision doubling is the caller's (``numerics.core.certified.enclose``).
"""
from __future__ import annotations

import math

from flint import arb

from numerics.core.certified import DEFAULT_PREC, to_arb, workprec

__all__ = ["condition_arb", "correlation_tail_arb"]


def correlation_tail_arb(c, d, *, prec=DEFAULT_PREC):
    """The enclosure of the module docstring; ``c`` a float/int/mpf (taken exactly), ``d`` an
    integer >= 2."""
    if isinstance(d, bool) or int(d) != d or d < 2:
        raise ValueError(f"d must be an integer >= 2, got {d!r}")
    d = int(d)
    if isinstance(c, float) and math.isinf(c):
        return arb(0) if c > 0 else arb(1)
    with workprec(prec):
        c = to_arb(c, "c")
        x = c * c / d
        if x >= 1:
            return arb(0) if c > 0 else arb(1)
        if c == 0:
            return arb(1) / 2
        a, half = arb(d - 1) / 2, arb(1) / 2
        lower = x.beta_lower(half, a, regularized=True) if x < half else None
        if lower is not None and lower < arb(3) / 4:
            upper = (1 - lower) / 2       # the value is > 1/8: no significant cancellation
        else:
            upper = (1 - x).beta_lower(a, half, regularized=True) / 2
        return upper if c > 0 else 1 - upper


def condition_arb(c, d, value, *, prec=DEFAULT_PREC):
    """kappa_c = |c f'(c)/f(c)| as a ball, with f'(c) = -(1 - c^2/d)^((d-3)/2) / (sqrt d B(1/2, (d-1)/2))
    (the density of t at c/sqrt d over sqrt d; B by Arb's log-gamma) and ``value`` the ball of f;
    0 where c = 0 or the value is 0 or 1 - c^2/d <= 0."""
    d = int(d)
    with workprec(prec):
        c = to_arb(c, "c")
        y = 1 - c * c / d
        if c == 0 or value == 0 or not y > 0:
            return arb(0)
        half, a = arb(1) / 2, arb(d - 1) / 2
        log_beta = half.lgamma() + a.lgamma() - (half + a).lgamma()
        density = ((arb(d - 3) / 2) * y.log() - log_beta).exp()
        return abs(c) * density / (arb(d).sqrt() * value)
