"""mpmath references for the bivariate-normal kernels, from the RAW definitions.

Nothing here uses Plackett's identity (that is what the kernels use and what these
references check).  For |rho| < 1 every quantity is a one-dimensional integral over the
first coordinate of an inner closed form (conditional law of Y2 given Y1 = x):

* Phi2(h, k; rho)        = int_{-inf}^{h} phi(x) Phi(z(x)) dx,          z = (k - rho x)/q
* N1  = E[(a1-Y1) 1 1]   = int_{-inf}^{a1} (a1 - x) phi(x) Phi(z(x)) dx
* M   = E[(a1-Y1)+ (a2-Y2)+] = int_{-inf}^{a1} (a1 - x) phi(x) q g1(z(x)) dx
* M11 = E[(a1-Y1)^2 1 1] = int_{-inf}^{a1} (a1 - x)^2 phi(x) Phi(z(x)) dx

with q = sqrt(1 - rho^2) and g1(z) = z Phi(z) + phi(z).  The integrands are log-concave
in x with log-curvature <= -1, so they are negligible 60 units below their mode.  The
integral is split at geometric distances around the mode (scale = the local Gaussian
width there) and around the kink x = k/rho of the inner factor (scale q/|rho|), so that
mpmath's tanh-sinh rule sees smooth pieces; it works at ``dps`` digits plus 20 guard
digits.  rho = +-1 and infinite arguments use the exact limits (one-dimensional
integrals or closed forms evaluated at high precision).
"""
from __future__ import annotations

import mpmath as mp

_SPAN = 16


def _g1(z):
    return z * mp.ncdf(z) + mp.npdf(z)


def _g2(z):
    return (z * z + 1) * mp.ncdf(z) + z * mp.npdf(z)


def _points(lo, hi, centers):
    pts = {lo, hi}
    for c, s in centers:
        if s <= 0:
            continue
        if lo < c < hi:
            pts.add(c)
        j = -1
        while True:
            d = s * mp.mpf(4) ** j
            if d > hi - lo:
                break
            for p in (c - d, c + d):
                if lo < p < hi:
                    pts.add(p)
            j += 1
    return sorted(pts)


def _mode(h, k, rho):
    """Mode (on the whole line) of log[phi(x) Phi((k - rho x)/q)] and its Gaussian width."""
    q = mp.sqrt((1 - rho) * (1 + rho))

    def dlog(x):
        z = (k - rho * x) / q
        m = mp.npdf(z) / mp.ncdf(z)
        return -x - (rho / q) * m

    lo, hi = mp.mpf(-200), mp.mpf(200)
    for _ in range(200):
        mid = (lo + hi) / 2
        if dlog(mid) > 0:
            lo = mid
        else:
            hi = mid
        if hi - lo < mp.mpf(10) ** (-12):
            break
    x = (lo + hi) / 2
    return x, q


def _width(x, k, rho, q):
    z = (k - rho * x) / q
    m = mp.npdf(z) / mp.ncdf(z)
    curv = 1 + (rho / q) ** 2 * m * (z + m)
    return 1 / mp.sqrt(curv)


def _conditional_integral(a1, a2, rho, weight):
    """int_{-inf}^{a1} weight(x) phi(x) dx with the inner factor built into ``weight``."""
    x0, q = _mode(a1, a2, rho)
    xs = min(x0, a1)
    sig = _width(xs, a2, rho, q)
    lo = xs - _SPAN
    centers = [(xs, sig)]
    if rho != 0:
        centers.append((a2 / rho, q / abs(rho)))
    pts = _points(lo, a1, centers)
    # mpmath's quadrature stops on an absolute error estimate: normalise by the peak.
    scale = _peak(lambda x: weight(x) * mp.npdf(x), pts)
    if scale == 0:
        return mp.mpf(0)
    return scale * mp.quad(lambda x: weight(x) * mp.npdf(x) / scale, pts, method="gauss-legendre")


def _interval_integral(lo, hi, w):
    """int_lo^hi w(y) phi(y) dy (finite lo < hi), split geometrically about the densest point."""
    if lo >= hi:
        return mp.mpf(0)
    c = min(max(mp.mpf(0), lo), hi)
    s = 1 / max(mp.mpf(1), abs(c))
    pts = _points(lo, hi, [(c, s), (lo, s), (hi, s)])
    scale = _peak(lambda y: w(y) * mp.npdf(y), pts)
    if scale == 0:
        return mp.mpf(0)
    return scale * mp.quad(lambda y: w(y) * mp.npdf(y) / scale, pts, method="gauss-legendre")


def _peak(f, pts):
    """Largest |f| on the split points and their midpoints (a normalising scale)."""
    probe = list(pts) + [(a + b) / 2 for a, b in zip(pts[:-1], pts[1:])]
    return max(abs(f(p)) for p in probe)


def _with_dps(fn):
    def wrapped(*args, dps=40):
        with mp.workdps(dps + 20):
            args = [mp.mpf(a) for a in args]
            val = fn(*args)
        with mp.workdps(dps):
            return +val

    wrapped.__name__ = fn.__name__
    wrapped.__doc__ = fn.__doc__
    return wrapped


@_with_dps
def bvn_cdf(h, k, rho):
    """Phi2(h, k; rho) = P(X <= h, Y <= k)."""
    if mp.isinf(h) or mp.isinf(k):
        if h == -mp.inf or k == -mp.inf:
            return mp.mpf(0)
        if h == mp.inf:
            return mp.ncdf(k)
        return mp.ncdf(h)
    if rho == 1:
        return mp.ncdf(min(h, k))
    if rho == -1:
        return _interval_integral(-k, h, lambda y: 1)
    q = mp.sqrt((1 - rho) * (1 + rho))
    return _conditional_integral(h, k, rho, lambda x: mp.ncdf((k - rho * x) / q))


@_with_dps
def orthant_m1(a1, a2, rho):
    """N1 = E[(a1 - Y1) 1{Y1 <= a1, Y2 <= a2}]."""
    if rho == 1:
        m = min(a1, a2)
        return (a1 - m) * mp.ncdf(m) + _g1(m)
    if rho == -1:
        return _interval_integral(-a2, a1, lambda y: a1 - y)
    q = mp.sqrt((1 - rho) * (1 + rho))
    return _conditional_integral(a1, a2, rho, lambda x: (a1 - x) * mp.ncdf((a2 - rho * x) / q))


@_with_dps
def orthant_m2(a1, a2, rho):
    """M = E[(a1 - Y1)_+ (a2 - Y2)_+]."""
    if rho == 1:
        m = min(a1, a2)
        return (a1 - m) * (a2 - m) * mp.ncdf(m) + (a1 + a2 - 2 * m) * _g1(m) + _g2(m)
    if rho == -1:
        return _interval_integral(-a2, a1, lambda y: (a1 - y) * (a2 + y))
    q = mp.sqrt((1 - rho) * (1 + rho))
    return _conditional_integral(
        a1, a2, rho, lambda x: (a1 - x) * q * _g1((a2 - rho * x) / q)
    )


@_with_dps
def orthant_m11(a1, a2, rho):
    """E[(a1 - Y1)^2 1{Y1 <= a1, Y2 <= a2}]."""
    if rho == 1:
        m = min(a1, a2)
        return (a1 - m) ** 2 * mp.ncdf(m) + 2 * (a1 - m) * _g1(m) + _g2(m)
    if rho == -1:
        return _interval_integral(-a2, a1, lambda y: (a1 - y) ** 2)
    q = mp.sqrt((1 - rho) * (1 + rho))
    return _conditional_integral(
        a1, a2, rho, lambda x: (a1 - x) ** 2 * mp.ncdf((a2 - rho * x) / q)
    )


REFERENCES = {
    "bvn_cdf": bvn_cdf,
    "orthant_m1": orthant_m1,
    "orthant_m2": orthant_m2,
    "orthant_m11": orthant_m11,
}
