"""mpmath references for the amplification pack, from raw definitions.

``correlation_tail(c, d, dps=30)``: P(t >= c/sqrt d) for t = <w/||w||, mu>, w ~ N(0, I_d), as
the ratio of two quadratures of the raw density kernel g(t) = (1 - t^2)^((d-3)/2) (the law of
one coordinate of a uniform point on the sphere S^{d-1}),

    P(t >= t0) = int_{t0}^1 g / int_{-1}^1 g,      t0 = c/sqrt d,

no beta function, no incomplete beta, no normal approximation.  The numerator is integrated in
s = 1 - t (so that 1 - t0 = (sqrt d - c)/sqrt d is formed at the working precision, not as a
difference of nearly equal numbers), g = (s (2 - s))^k with k = (d - 3)/2, and divided by its
value at the end s0 = 1 - t0 nearest its peak (for k > 0 the kernel increases in s on [0, 1]),
so the quadrature sees O(1) numbers even when the answer is 1e-3000000.  Break points are laid
out geometrically from s0 at the kernel's own scale, h = min(s0, 1/(k |d log g/ds| at s0),
1/sqrt(k)), out to where log g has dropped by D = (working digits + 10) ln 10 (the rest is
below exp(-D) of the peak); k <= 0 (d = 2, 3) is integrated over the whole [0, s0] after the
substitution s = u^2, which removes the endpoint singularity of d = 2.  The denominator is twice
the numerator at t0 = 0.  c < 0 returns 1 - P(|c|) (>= 1/2, no cancellation).

Every value passes the precision ladder of ``numerics.core.reference`` (dps and 2 dps agree to
10^-(dps-3)).  ``condition(c, d)`` is kappa_c = |c f'(c)/f(c)| = c g(t0) / (sqrt d Z f), the
condition number the fast kernel's error budget uses, from the same quadratures.
"""
from __future__ import annotations

import functools
import numbers

import mpmath as mp

from numerics.core.reference import ladder

__all__ = ["condition", "correlation_tail"]

GUARD = 20


def _args(c, d):
    if isinstance(c, bool) or not isinstance(c, (numbers.Real, mp.mpf)):
        raise ValueError(f"c must be a real number, got {c!r}")
    if isinstance(d, bool) or not isinstance(d, numbers.Integral) or d < 2:
        raise ValueError(f"d must be an integer >= 2, got {d!r}")
    if not mp.isfinite(mp.mpf(c)):
        raise ValueError(f"c must be finite, got {c!r}")
    return mp.mpf(c), int(d)


def _kernel_integral(s0, k, wp):
    """(int_0^{s0} (s(2-s))^k ds / (s0 (2 - s0))^k, log of the divisor) at ``wp`` digits."""
    if s0 <= 0:
        return mp.mpf(0), mp.mpf(0)
    log_peak = k * mp.log(s0 * (2 - s0))
    if k <= 0:                          # d = 2, 3: s = u^2 makes the integrand 2 u^(2k+1) (2 - u^2)^k smooth
        value = mp.quad(lambda u: 2 * u ** (2 * k + 1) * (2 - u * u) ** k, [0, mp.sqrt(s0)]) / mp.exp(log_peak)
        return value, log_peak
    D = (wp + 10) * mp.log(10)
    slope = k * (1 / s0 - 1 / (2 - s0))               # d/ds log g at s0 (> 0)
    h = min(s0, 1 / mp.sqrt(k)) if slope == 0 else min(s0, 1 / slope, 1 / mp.sqrt(k))
    points = [s0]
    step = h
    while True:
        s = s0 - step
        if s <= 0:
            points.append(mp.mpf(0))
            break
        points.append(s)
        if k * mp.log(s * (2 - s)) - log_peak < -D:
            break
        step *= 2
    points.reverse()
    value = mp.quad(lambda s: mp.exp(k * mp.log(s * (2 - s)) - log_peak), points)
    return value, log_peak


@functools.lru_cache(maxsize=256)
def _half(d: int, wp: int):
    """int_0^1 (s(2-s))^k ds (= half the normaliser), as (scaled value, log of the scale), at
    ``wp`` digits; cached per (d, wp)."""
    with mp.workdps(wp):
        return _kernel_integral(mp.mpf(1), mp.mpf(d - 3) / 2, wp)


def _tail_eval(c, d, *, dps):
    with mp.workdps(dps + GUARD):
        c = mp.mpf(c)
        if c == 0:
            return mp.mpf(1) / 2
        k = mp.mpf(d - 3) / 2
        root = mp.sqrt(d)
        mag = abs(c)
        if mag >= root:
            value = mp.mpf(0)
        else:
            s0 = (root - mag) / root
            num, lnum = _kernel_integral(s0, k, dps + GUARD)
            half, lhalf = _half(d, dps + GUARD)
            value = num / (2 * half) * mp.exp(lnum - lhalf)
        out = value if c > 0 else 1 - value
    with mp.workdps(dps):
        return +out


def correlation_tail(c, d, *, dps=30):
    """P(<w/||w||, mu> >= c/sqrt d), w ~ N(0, I_d): the raw-quadrature reference (module
    docstring), through the precision ladder; ``c`` a real number (an exact float or an mpf),
    ``d`` an integer >= 2."""
    c, d = _args(c, d)
    return ladder(_tail_eval, c, d, dps=dps)


def _density_eval(c, d, *, dps):
    """The density of t at t0 = c/sqrt d: g(t0) / int_{-1}^1 g, by the same quadrature."""
    with mp.workdps(dps + GUARD):
        c = mp.mpf(c)
        k = mp.mpf(d - 3) / 2
        root = mp.sqrt(d)
        mag = abs(c)
        if mag >= root:
            return mp.mpf(0)
        s0 = (root - mag) / root
        half, lhalf = _half(d, dps + GUARD)
        out = mp.exp(k * mp.log(s0 * (2 - s0)) - lhalf) / (2 * half)
    with mp.workdps(dps):
        return +out


def condition(c, d, *, dps=20, value=None):
    """kappa_c = |c f'(c) / f(c)| = |c| g(t0) / (sqrt d Z f(c)), f the tail (0 at c = 0 and where
    the tail vanishes); ``value``: f(c) already computed by ``correlation_tail``."""
    c, d = _args(c, d)
    f = correlation_tail(c, d, dps=dps) if value is None else mp.mpf(value)
    if c == 0 or f == 0:
        return 0.0
    dens = ladder(_density_eval, c, d, dps=dps)
    with mp.workdps(dps):
        return float(abs(c) * dens / (mp.sqrt(d) * f))

