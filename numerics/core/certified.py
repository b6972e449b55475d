"""Certified witness: rigorous enclosures (python-flint / Arb ball arithmetic).

Every function returns ``arb`` balls that are guaranteed to contain the exact real number
they name; a check on them is a proof, and its outcome is one of the strings

    "true"     certified: the claim holds for every point of the balls,
    "false"    certified refutation: the claim fails for every point of the balls,
    "unknown"  the balls are too wide to decide (raise the precision).

Enclosures:

- ``bvn_cdf_arb(h, k, rho)``: Phi_2(h, k; rho) by the finite-interval form of Plackett (1954)
  / Drezner & Wesolowsky (1990, eq. (3)),
      Phi_2 = Phi(h) Phi(k) + (1/2pi) int_0^{asin rho} exp(-(h^2 - 2 h k sin t + k^2)/(2 cos^2 t)) dt,
  a different formula from the raw double integral of ``numerics.core.reference``.
- ``relu_moment1_arb(mu, s)``: the DEFINITION int_0^inf z^j varphi((z - mu)/s)/s dz (j = 1, or 2
  with ``moment=2``) and the closed form of ``theory.core.gaussian`` (mu Phi(mu/s) + s varphi(mu/s);
  Theorem 4.2 proof sketch, E_2).
- ``relu_moment2_arb(mu1, mu2, s1, s2, rho)``: the definition E[z1 z2 1{z1 >= 0, z2 >= 0}]
  (``moment=0, 1`` for P and E[z1 1{..}]) reduced to one integral over z1, and Rosenbaum's
  (1961) closed form (Theorem 4.2 proof sketch, E_1; Appendix D.1.3-D.1.4).

Closed forms are generated from ``theory.core.gaussian`` (lambdified into Arb), not re-typed.

Definitions by ``acb.integral`` (Petersen-Gauss-Legendre with rigorous error bounds,
Johansson 2018) on [0, T] plus a rigorous bound of the tail beyond T, added as the ball's
radius.  Integrands are divided by the Gaussian's peak on the half-line, so the absolute
and relative tolerances of the integrator mean what they say in the deep tails.

Judging: ``certify_identity(lhs, rhs, digits)`` and ``certify_float(value, ball, rtol)``.
Precision: each function takes ``prec`` (bits); ``enclose`` raises it until the ball is
narrow enough.
"""
from __future__ import annotations

import contextlib
import math
from typing import NamedTuple

import mpmath as mp
from flint import acb, arb, ctx

from theory.core import gaussian as g

from .compile import compile_expr

__all__ = [
    "TRUE", "FALSE", "UNKNOWN", "Enclosures",
    "to_arb", "workprec", "enclose",
    "Phi_arb", "varphi_arb", "bvn_cdf_arb", "relu_moment1_arb", "relu_moment2_arb",
    "certify_identity", "certify_float",
]

TRUE, FALSE, UNKNOWN = "true", "false", "unknown"
DEFAULT_PREC = 192


class Enclosures(NamedTuple):
    """Enclosures of one quantity computed two ways: from its definition and its closed form."""

    definition: arb
    closed_form: arb

    def best(self):
        """The intersection of the two enclosures (both contain the exact value when the
        identity holds), formed at a precision that does not widen it."""
        bits = max(self.definition.mid().bits(), self.closed_form.mid().bits(), 0) + 64
        with workprec(max(ctx.prec, bits)):
            return self.definition.intersection(self.closed_form)


# =============================================================================== plumbing
@contextlib.contextmanager
def workprec(prec):
    """Run with Arb's working precision set to ``prec`` bits (restored afterwards)."""
    old = ctx.prec
    ctx.prec = int(prec)
    try:
        yield
    finally:
        ctx.prec = old


def to_arb(x, name="x"):
    """An exact ball for a float / int / mpf (a string is parsed to a rigorous ball);
    an ``arb`` is passed through.  NaN and infinities raise ValueError."""
    if isinstance(x, arb):
        if not x.is_finite():
            raise ValueError(f"{name} must be finite, got {x}")
        return x
    if isinstance(x, bool):
        x = int(x)
    if hasattr(x, "item") and not isinstance(x, (int, float, str, mp.mpf)):
        x = x.item()
    if isinstance(x, mp.mpf):
        if not mp.isfinite(x):
            raise ValueError(f"{name} must be finite, got {x}")
        sign, m, e, bc = x._mpf_   # x = (-1)^sign m 2^e; mpmath's man_exp drops the sign
        if not m:
            return arb(0)
        with workprec(max(ctx.prec, int(bc) + 16)):
            return (-1 if sign else 1) * arb(int(m)) * arb(2) ** int(e)  # exact (dyadic)
    if isinstance(x, float):
        if not math.isfinite(x):
            raise ValueError(f"{name} must be finite, got {x!r}")
        return arb(x)                                # exact: every double is a dyadic
    if isinstance(x, int):
        return arb(x)
    if isinstance(x, str):
        return arb(x)
    raise ValueError(f"{name} must be a real number, got {x!r}")


def Phi_arb(x):
    """Phi(x) = erfc(-x/sqrt 2)/2, the standard normal CDF, as a ball."""
    return (-x / arb(2).sqrt()).erfc() / 2


def varphi_arb(x):
    """varphi(x) = exp(-x^2/2)/sqrt(2 pi), the standard normal density, as a ball."""
    return (-(x * x) / 2).exp() / (2 * arb.pi()).sqrt()


def _integral(f, a, b):
    """Rigorous enclosure of int_a^b f, f real-analytic on a neighbourhood of [a, b]
    (entire here); relative tolerance 2^-prec and no absolute tolerance."""
    v = acb.integral(lambda x, _analytic: f(x), a, b, abs_tol=arb(0))
    return v.real


def enclose(fn, *args, digits=30, prec=DEFAULT_PREC, max_prec=8192, **kw):
    """``fn(*args, prec=p, **kw)`` for p = prec, 2 prec, ... until every ball it returns has
    relative accuracy >= digits log2(10) + 8 bits (or p > max_prec: the last result is
    returned, and judging it may give "unknown")."""
    need = digits * math.log2(10) + 8
    p = int(prec)
    while True:
        out = fn(*args, prec=p, **kw)
        balls = out if isinstance(out, tuple) else (out,)
        if all(b.is_zero() or b.rel_accuracy_bits() >= need for b in balls) or 2 * p > max_prec:
            return out
        p *= 2


# =============================================================================== closed forms from theory
def _eval(expr, env):
    """``expr`` of ``theory`` evaluated in ball arithmetic at ``env`` (symbol -> arb), through the
    one compiler ``numerics.core.compile``."""
    args = tuple(sorted(expr.free_symbols, key=str))
    functions = (("Phi", Phi_arb), ("varphi", varphi_arb), ("Phi2", _phi2_closed))
    return compile_expr(expr, args, "arb", functions)(*[env[a] for a in args])


def _phi2_closed(h, k, rho):
    return _bvn_ball(h, k, rho)


# =============================================================================== bivariate CDF
def _bvn_ball(h, k, rho):
    """Phi_2(h, k; rho) at the current precision (h, k, rho balls, |rho| <= 1)."""
    Ph, Pk = Phi_arb(h), Phi_arb(k)
    if rho == 1:                                   # P(X <= min(h, k))
        return Phi_arb(h.min(k))
    if rho == -1:                                  # P(-k <= X <= h)
        return (Ph - Phi_arb(-k)).max(arb(0))
    if rho == 0:
        return Ph * Pk
    B = rho.asin()
    Bm = arb(B.mid())
    hh, kk, hk2 = h * h, k * k, 2 * h * k

    def f(t):
        c = t.cos()
        return (-(hh - hk2 * t.sin() + kk) / (2 * c * c)).exp()

    I = acb.integral(lambda t, _a: f(t), 0, Bm, abs_tol=arb(0)).real
    # the exact end point asin(rho) lies in B; 0 < f <= 1 (h^2 + k^2 - 2hk sin t >= 0),
    # so moving the end point from mid(B) to anywhere in B changes I by at most rad(B)
    I = I + arb(0, B.rad())
    return Ph * Pk + I / (2 * arb.pi())


def bvn_cdf_arb(h, k, rho, *, prec=DEFAULT_PREC):
    """Enclosure of Phi_2(h, k; rho) = P(X <= h, Y <= k), corr(X, Y) = rho.

    Phi_2 = Phi(h) Phi(k) + (1/2pi) int_0^{asin rho} exp(-(h^2 - 2hk sin t + k^2)/(2 cos^2 t)) dt
    (Plackett 1954; Drezner & Wesolowsky 1990, eq. (3)), the integral by ``acb.integral``;
    Phi by Arb's erfc.  rho = +-1 use the exact limits Phi(min(h, k)) and
    max(0, Phi(h) - Phi(-k)).  In the far lower tail with rho < 0 the two terms cancel;
    Arb accounts for it (the ball widens: raise ``prec`` or use ``enclose``).
    """
    with workprec(prec):
        h, k, rho = to_arb(h, "h"), to_arb(k, "k"), to_arb(rho, "rho")
        if rho > 1 or rho < -1:
            raise ValueError(f"rho must lie in [-1, 1], got {rho}")
        return _bvn_ball(h, k, rho)


# =============================================================================== lemma 1
def _gauss_tail(w0):
    """(Phi(-w0), int_{w0}^inf w varphi, int_{w0}^inf w^2 varphi) upper bounds for w0 > 0:
    varphi(w0)/w0, varphi(w0), (w0 + 1/w0) varphi(w0)  (Mills' ratio bound)."""
    p = varphi_arb(w0)
    return p / w0, p, (w0 + 1 / w0) * p


def _cut(a, prec):
    """w0 beyond which the Gaussian mass is 2^-(prec + 30) of its peak on [max(a, 0), inf)."""
    c = arb(2 * (prec + 30) * math.log(2)).sqrt() + 1
    return (a if a > 0 else arb(0)) + c


def relu_moment1_arb(mu, s, *, moment=1, prec=DEFAULT_PREC):
    """Enclosures of E[z^j 1{z >= 0}], z ~ N(mu, s^2), j = ``moment`` (1 or 2).

    definition:  s^j int_0^{W} x^j varphi(x - a) dx + [0, tail],  a = mu/s, z = s x,
                 integrand divided by varphi(a) when a < 0 (the peak on x >= 0), and the
                 tail beyond W = a + w0 bounded by s^j int_{w0}^inf (|a| + w)^j varphi(w) dw
                 with the Mills-ratio bounds (``_gauss_tail``); the integrand is >= 0.
    closed form: ``theory.core.gaussian`` (``sigma_tilde``: mu Phi(mu/s) + s varphi(mu/s);
                 "second": (mu^2 + s^2) Phi + mu s varphi).
    s = 0 gives the exact point-mass value max(mu, 0)^j for both.
    """
    if moment not in (1, 2):
        raise ValueError(f"moment must be 1 or 2, got {moment!r}")
    with workprec(prec):
        mu, s = to_arb(mu, "mu"), to_arb(s, "s")
        if s < 0:
            raise ValueError(f"s must be >= 0, got {s}")
        if s == 0:
            v = mu ** moment if mu >= 0 else arb(0)
            return Enclosures(v, v)
        a = mu / s
        j = moment
        w0 = _cut(-a, prec)
        W = a + w0                                   # x-range [0, W]: z in [0, s W]
        if a < 0:                                    # divide by varphi(a) = peak on x >= 0
            body = _integral(lambda x: x ** j * (a * x - x * x / 2).exp(), 0, W)
            body = body * varphi_arb(a)
        else:
            body = _integral(lambda x: x ** j * varphi_arb(x - a), 0, W)
        P, M1, M2 = _gauss_tail(w0)                  # x = a + w, w >= w0 > 0: x <= |a| + w
        A = abs(a)
        tail = (A * P + M1) if j == 1 else (A * A * P + 2 * A * M1 + M2)
        definition = s ** j * (body + arb(0, 0).union(tail))
        env = {g.mu: mu, g.s: s}
        cf = _eval(g.sigma_tilde if j == 1 else g.relu1_second, env)
        return Enclosures(definition, cf)


# =============================================================================== lemma 2
def relu_moment2_arb(mu1, mu2, s1, s2, rho, *, moment=2, prec=DEFAULT_PREC):
    """Enclosures of E[z1^i z2^j 1{z1 >= 0, z2 >= 0}] for the bivariate normal with means mu,
    standard deviations s > 0 and correlation |rho| < 1:  ``moment`` = 0 (P, i = j = 0),
    1 (E[z1 1{..}]) or 2 (E[z1 z2 1{..}], the E_1 of Theorem 4.2's proof sketch).

    definition: condition on z1 = s1 x:  z2 | z1 ~ N(m, sig^2), m = mu2 + rho s2 (x - a1),
      sig = s2 sqrt(1 - rho^2), a1 = mu1/s1, and
          E[1{z2 >= 0} | z1] = Phi(m/sig),   E[z2 1{z2 >= 0} | z1] = m Phi(m/sig) + sig varphi(m/sig),
      the second being lemma 1's closed form (itself certified by ``relu_moment1_arb``).
      The remaining integral over x in [0, a1 + w0] is done by ``acb.integral`` (integrand
      divided by varphi(a1) when a1 < 0); its tail beyond is bounded using
      0 <= inner <= |m| + sig and the Gaussian tail bounds of ``_gauss_tail``.
    closed form: ``theory.core.gaussian`` (``P_orthant``, ``relu2_first``, ``relu2_second``) with ``BIVARIATE_WHERE`` (Rosenbaum 1961:
      (mu1 mu2 + rho s1 s2) P + mu1 s2 varphi(a2) Phi(b1) + mu2 s1 varphi(a1) Phi(b2)
      + s1 s2 q varphi(a1) varphi(b2), P = Phi_2(a1, a2; rho) from ``bvn_cdf_arb``).
    """
    if moment not in (0, 1, 2):
        raise ValueError(f"moment must be 0, 1 or 2, got {moment!r}")
    with workprec(prec):
        mu1, mu2, s1, s2, rho = (to_arb(v, n) for v, n in
                                 zip((mu1, mu2, s1, s2, rho), ("mu1", "mu2", "s1", "s2", "rho")))
        for name, v in (("s1", s1), ("s2", s2)):
            if not v > 0:
                raise ValueError(f"{name} must be > 0 for the certified form, got {v}")
        if not (-1 < rho < 1):
            raise ValueError(f"rho must lie in (-1, 1) for the certified form, got {rho}")
        a1 = mu1 / s1
        sig = s2 * (1 - rho * rho).sqrt()

        def inner(x):
            m = mu2 + rho * s2 * (x - a1)
            if moment == 2:
                t = m / sig
                return m * Phi_arb(t) + sig * varphi_arb(t)
            return Phi_arb(m / sig)

        def outer(x):
            z1 = s1 * x
            return inner(x) if moment == 0 else z1 * inner(x)

        w0 = _cut(-a1, prec)
        W = a1 + w0
        if a1 < 0:
            body = _integral(lambda x: outer(x) * (a1 * x - x * x / 2).exp(), 0, W)
            body = body * varphi_arb(a1)
        else:
            body = _integral(lambda x: outer(x) * varphi_arb(x - a1), 0, W)
        # tail: x = a1 + w, w >= w0;  z1 <= s1 (|a1| + w), inner <= C + D w (moment 2) or 1
        P, M1, M2 = _gauss_tail(w0)
        A = abs(a1)
        C = abs(mu2) + sig                               # inner <= |m| + sig <= C + Dw w
        Dw = abs(rho) * s2
        if moment == 0:
            tail = P
        elif moment == 1:
            tail = s1 * (A * P + M1)
        else:
            tail = s1 * (A * C * P + (A * Dw + C) * M1 + Dw * M2)
        definition = body + arb(0, 0).union(tail)
        env = {g.mu1: mu1, g.mu2: mu2, g.s1: s1, g.s2: s2, g.rho: rho}
        for sym, defn in g.BIVARIATE_WHERE:
            env[sym] = _eval(defn, env)
        cf = _eval({0: g.P_orthant, 1: g.relu2_first, 2: g.relu2_second}[moment], env)
        return Enclosures(definition, cf)


# =============================================================================== judging
def _judge_prec(a, b, digits):
    """Bits for judging: enough that rounding in the judgement itself is negligible."""
    return int(max(a.mid().bits(), b.mid().bits(), 0) + 4 * digits + 64)


def certify_identity(lhs, rhs, digits):
    """Judge the identity lhs = rhs from enclosures of both sides.

    "false":   the enclosure of lhs - rhs excludes 0 -- the two exact numbers differ
               (certified refutation; checked first);
    "true":    |lhs - rhs| <= 10^-digits |rhs| holds for every point of the balls --
               certified agreement to ``digits`` significant digits;
    "unknown": neither.
    """
    lhs, rhs = to_arb(lhs, "lhs"), to_arb(rhs, "rhs")
    with workprec(_judge_prec(lhs, rhs, digits)):
        diff = lhs - rhs
        if not diff.contains(0):
            return FALSE
        bound = arb(10) ** (-int(digits)) * rhs.abs_lower()
        if diff.abs_upper() <= bound:
            return TRUE
        return UNKNOWN


def certify_float(value, ball, rtol):
    """Judge the accuracy claim |value - x| <= rtol |x| for the exact x enclosed by ``ball``.

    "true":    max over the ball of |value - x| <= rtol min over the ball of |x|
               (so the claim holds whatever the exact x in the ball is);
    "false":   min over the ball of |value - x| > rtol max over the ball of |x|
               (the claim fails for every x in the ball);
    "unknown": otherwise.  ``value`` (a double, or an mpf such as a reference value) and
    ``rtol`` are taken as the exact binary numbers they are.
    """
    v = to_arb(value, "value")
    r = to_arb(rtol, "rtol")
    ball = to_arb(ball, "ball")
    with workprec(_judge_prec(v, ball, -math.log10(max(float(rtol), 1e-300)))):
        dist = v - ball
        if dist.abs_upper() <= r * ball.abs_lower():
            return TRUE
        if dist.abs_lower() > r * ball.abs_upper():
            return FALSE
        return UNKNOWN
