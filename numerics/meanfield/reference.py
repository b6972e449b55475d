"""References for eq. (23) and the derivative kernel, from the raw definitions.

Reduction (exact, rotation invariance of z ~ N(0, I_d)): for rows x_a, x_b,
(z^T x_a/sqrt d, z^T x_b/sqrt d) = (A g_1, P g_1 + Q g_2) with g_1, g_2 iid N(0, 1),
A = |x_a|/sqrt d, P = x_a^T x_b/(|x_a| sqrt d), Q = sqrt(sum_{i<j} (x_ai x_bj - x_aj x_bi)^2)/(|x_a| sqrt d)
(Lagrange's identity: no cancellation for nearly parallel rows), computed in mpmath (or Arb)
from the exact binary inputs.  Nothing here uses the angle formula, the arc-cosine or the
arcsine kernels of ``numerics.core.gaussian_kernels``.

- relu, abs, leaky relu and their step derivatives: the integrand is a sum of products of
  relu(+-u) relu(+-v) (or of indicators 1{+-u > 0} 1{+-v > 0}) -- |t| = relu(t) + relu(-t),
  leaky(t) = relu(t) - alpha relu(-t) -- each the raw nested quadrature of
  ``numerics.core.reference.relu_moment2`` / ``orthant_prob`` (mpmath, precision ladder) at
  correlation +-rho, rho = x_a^T x_b/(|x_a||x_b|);
- erf and erf': the inner Gaussian integral over g_2 is the classical E[erf(mu + s g)] =
  erf(mu/sqrt(1 + 2 s^2)) (resp. E[exp(-(mu + s g)^2)] = exp(-mu^2/(1 + 2 s^2))/sqrt(1 + 2 s^2)),
  the outer one mpmath quadrature, on the precision ladder;
- tanh and sech^2: ``tanh_entry_arb`` is a certified Arb enclosure (python-flint ``acb.integral``,
  rigorous Gauss-Legendre with error bounds, meromorphic integrand) of the raw double integral
  over [-L, L]^2, plus the rigorous tail bound 4 e^{-L^2/2}/(sqrt(2 pi) L) |f| |g| sup (|tanh|,
  sech^2 <= 1); ``gauss_hermite_entry`` a float64 tensor-product Gauss-Hermite rule (a cheap
  check at moderate scales, where tanh's poles at distance pi/(2 max(A, |P|, Q)) from the real
  axis leave a truncation error far below float64 rounding).

A zero row makes u = 0 surely: the entry is s(0) E[s(v)], which is 0 for every activation here
except erf' and sech^2 (s'(0) = 2/sqrt(pi) and 1).
"""
from __future__ import annotations

import math

import mpmath as mp
import numpy as np

from numerics.core import reference as cr
from numerics.core.gaussian_kernels import parse_activation

#: extra digits of the reduction (A, P, Q, rho) over the requested dps
LAW_GUARD = 20


def _vectors(xa, xb):
    xa = [mp.mpf(float(v)) for v in np.asarray(xa, dtype=np.float64).ravel()]
    xb = [mp.mpf(float(v)) for v in np.asarray(xb, dtype=np.float64).ravel()]
    if len(xa) != len(xb) or not xa:
        raise ValueError("x_a and x_b must be non-empty vectors of one length")
    return xa, xb


def pair_law(xa, xb, dps):
    """(A, P, Q, |x_b|/sqrt d, rho) of the module docstring, at 3 dps + LAW_GUARD digits (the
    step kernels' sensitivity to rho grows like 1/sin(theta) near parallel rows)."""
    with mp.workdps(3 * dps + LAW_GUARD):
        xa, xb = _vectors(xa, xb)
        d = len(xa)
        na2, nb2 = mp.fsum(v * v for v in xa), mp.fsum(v * v for v in xb)
        dot = mp.fsum(p * q for p, q in zip(xa, xb))
        cross2 = mp.fsum((xa[i] * xb[j] - xa[j] * xb[i]) ** 2 for i in range(d) for j in range(i + 1, d))
        sd = mp.sqrt(d)
        A, B = mp.sqrt(na2) / sd, mp.sqrt(nb2) / sd
        if na2 == 0 or nb2 == 0:
            return A, mp.mpf(0), B, B, mp.mpf(0)
        na = mp.sqrt(na2)
        return A, dot / (na * sd), mp.sqrt(cross2) / (na * sd), B, dot / (na * mp.sqrt(nb2))


def _relu_family(act, derivative, A, B, rho, dps):
    """Every negation and combination runs at the law's precision: an mpf operation rounds to the
    context's precision, and -rho at 53 bits would turn rho = -1 + 1e-20 into 1."""
    mom = cr.orthant_prob if derivative else cr.relu_moment2
    with mp.workdps(3 * dps + LAW_GUARD):
        same, cross = mom(0, 0, A, B, rho, dps=dps), mom(0, 0, A, B, -rho, dps=dps)
        if act.name == "relu":
            return same
        if act.name == "abs":
            return 2 * same - 2 * cross if derivative else 2 * same + 2 * cross
        al = mp.mpf(act.alpha)
        if derivative:
            return (1 + al * al) * same + 2 * al * cross
        return (1 + al * al) * same - 2 * al * cross


def _erf_eval(A, P, Q, B, derivative, *, dps):
    with mp.workdps(dps + cr.GUARD_DPS):
        k = 1 + 2 * Q * Q
        if derivative:
            c = 4 / mp.pi / mp.sqrt(k)
            f = lambda g: mp.exp(-(A * g) ** 2 - (P * g) ** 2 / k) * mp.npdf(g)
        else:
            c = 1
            f = lambda g: mp.erf(A * g) * mp.erf(P * g / mp.sqrt(k)) * mp.npdf(g)
        return c * mp.quad(f, [-mp.inf, 0, mp.inf])



def gram_entry(xa, xb, activation, *, derivative=False, dps=30):
    """E[s(u) s(v)] (or E[s'(u) s'(v)]) for u = z^T x_a/sqrt d, v = z^T x_b/sqrt d, z ~ N(0, I_d),
    to ``dps`` digits, for relu, abs, leaky relu and erf (tanh: ``tanh_entry_arb``)."""
    act = parse_activation(activation)
    if act.name == "tanh":
        raise ValueError("tanh has no mpmath reference here: use tanh_entry_arb (certified) or gauss_hermite_entry")
    A, P, Q, B, rho = pair_law(xa, xb, dps)
    if A == 0 or B == 0:
        if act.name == "erf" and derivative:
            with mp.workdps(dps + cr.GUARD_DPS):
                other = A if B == 0 else B
                return 4 / mp.pi / mp.sqrt(1 + 2 * other * other)   # s'(0) E[s'(v)], both Gaussian integrals exact
        return mp.mpf(0)
    if act.name == "erf":
        return cr.ladder(_erf_eval, A, P, Q, B, derivative, dps=dps)
    return _relu_family(act, derivative, A, B, rho, dps)


def tanh_entry_arb(xa, xb, *, derivative=False, prec=100):
    """A certified Arb ball containing E[tanh(u) tanh(v)] (or E[sech^2(u) sech^2(v)]), the raw
    double integral (module docstring); ``prec`` bits."""
    from flint import acb, arb, ctx

    old = ctx.prec
    ctx.prec = prec
    try:
        xa_, xb_ = (np.asarray(v, dtype=np.float64).ravel() for v in (xa, xb))
        d = len(xa_)
        xa_a, xb_a = [arb(float(v)) for v in xa_], [arb(float(v)) for v in xb_]
        na2 = sum((v * v for v in xa_a), arb(0))
        dot = sum((p * q for p, q in zip(xa_a, xb_a)), arb(0))
        cross2 = sum(((xa_a[i] * xb_a[j] - xa_a[j] * xb_a[i]) ** 2 for i in range(d) for j in range(i + 1, d)), arb(0))
        if float(na2) == 0.0:
            raise ValueError("tanh_entry_arb needs x_a != 0")
        sd = arb(d).sqrt()
        A, P, Q = na2.sqrt() / sd, dot / (na2.sqrt() * sd), cross2.sqrt() / (na2.sqrt() * sd)

        def s(z):
            return 1 / z.cosh() ** 2 if derivative else z.tanh()

        L = 13
        one_sided_q = float(Q) == 0.0

        def outer(g1, analytic):
            w1 = s(A * g1) * (-g1 * g1 / 2).exp()
            if one_sided_q:
                return w1 * s(P * g1) * arb(2 * math.pi).sqrt()
            inner = acb.integral(lambda g2, an: s(P * g1 + Q * g2) * (-g2 * g2 / 2).exp(), -L, L)
            return w1 * inner

        val = acb.integral(outer, -L, L).real / (2 * arb.pi())
        tail = 4 * (arb(-L * L) / 2).exp() / (arb(2 * math.pi).sqrt() * L)
        return val + arb(0, tail.upper())
    finally:
        ctx.prec = old


def gauss_hermite_entry(xa, xb, activation, *, derivative=False, nodes=300):
    """float64 tensor-product Gauss-Hermite rule for E[s(u) s(v)] (or E[s'(u) s'(v)]) in the
    reduction (A g_1, P g_1 + Q g_2); only for smooth activations (erf, tanh)."""
    import torch

    act = parse_activation(activation)
    if act.name not in ("erf", "tanh"):
        raise ValueError("Gauss-Hermite is only accurate for the smooth activations erf and tanh")
    A, P, Q, B, rho = (float(v) for v in pair_law(xa, xb, 5))
    g, w = np.polynomial.hermite_e.hermegauss(nodes)
    w = w / math.sqrt(2 * math.pi)
    g1, g2 = np.meshgrid(g, g, indexing="ij")
    fn = act.derivative if derivative else act
    u = fn(torch.as_tensor(A * g1)).numpy()
    v = fn(torch.as_tensor(P * g1 + Q * g2)).numpy()
    return float(np.sum(np.outer(w, w) * u * v))
