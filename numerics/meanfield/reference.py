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
  the outer one over g_1 ``numerics.core.gaussian_reference.gaussian_expectation`` (Gauss-Legendre
  panels graded toward g_1 = 0, where erf(A g_1) steps over 1/A: A = 447 at the norm-1e3 pair of
  the witnesses), on its precision ladder (``_erf_entry``);
- tanh and sech^2: ``tanh_entry_arb`` is a certified Arb enclosure (python-flint ``acb.integral``,
  rigorous Gauss-Legendre with error bounds, meromorphic integrand) of the raw double integral
  over [-L, L]^2, plus the rigorous tail bound 4 e^{-L^2/2}/(sqrt(2 pi) L) |f| |g| sup (|tanh|,
  sech^2 <= 1); ``tanh_entry_panels`` the same double integral to 30 digits at every scale
  (1e-8 .. 1e4 and beyond) in about a second, by graded fixed Gauss-Legendre panels in Arb after
  conditioning on u (its docstring); ``gauss_hermite_entry`` a float64 tensor-product
  Gauss-Hermite rule (a cheap check at moderate scales, where tanh's poles at distance
  pi/(2 max(A, |P|, Q)) from the real axis leave a truncation error far below float64 rounding).

A zero row makes u = 0 surely: the entry is s(0) E[s(v)], which is 0 for every activation here
except erf' and sech^2 (s'(0) = 2/sqrt(pi) and 1).
"""
from __future__ import annotations

import math

import mpmath as mp
import numpy as np

from numerics.core import reference as cr
from numerics.core.gaussian_kernels import parse_activation
from numerics.core.gaussian_reference import gaussian_expectation

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


def _erf_entry(A, P, Q, derivative, dps):
    """E[erf(u) erf(v)] = E_g[erf(A g) erf(S g)], S = P/sqrt(k), k = 1 + 2 Q^2, and
    E[erf'(u) erf'(v)] = 4/(pi sqrt k) E_g[exp(-(A^2 + S^2) g^2)] (the inner identities of the
    module docstring), g ~ N(0, 1): the outer expectation by ``gaussian_expectation`` (precision
    ladder), its panels graded toward g = 0 where erf(A g) steps over 1/A (and erf(S g) over
    1/|S|, exp(-(A^2 + S^2) g^2) over 1/sqrt(A^2 + S^2); a width >= 1 adds nothing)."""
    with mp.workdps(3 * dps + LAW_GUARD):
        k = 1 + 2 * Q * Q
        S = P / mp.sqrt(k)
        if derivative:
            c, a2 = 4 / mp.pi / mp.sqrt(k), A * A + S * S
            f, steep = (lambda g: mp.exp(-a2 * g * g)), [(0, 1 / mp.sqrt(a2))]
        else:
            c = mp.mpf(1)
            f, steep = (lambda g: mp.erf(A * g) * mp.erf(S * g)), [(0, 1 / A)] + ([(0, 1 / abs(S))] if S else [])
    value = gaussian_expectation(f, steep=steep, dps=dps)
    with mp.workdps(dps):
        return c * value



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
        return _erf_entry(A, P, Q, derivative, dps)
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
                return w1 * s(P * g1) * (2 * arb.pi()).sqrt()
            inner = acb.integral(lambda g2, an: s(P * g1 + Q * g2) * (-g2 * g2 / 2).exp(), -L, L)
            return w1 * inner

        val = acb.integral(outer, -L, L).real / (2 * arb.pi())
        tail = 4 * (arb(-L * L) / 2).exp() / ((2 * arb.pi()).sqrt() * L)
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


# ------------------------------------------------------------------ tanh by graded fixed panels
def _panel_plan(dps):
    """(L, W, order, bits) for ``dps`` digits: the Gaussian truncation |g| <= L (the mass beyond
    is 2 Phibar(L) < 10^-(dps+5)), the saturation |x| >= W where tanh = sign and sech^2 = 0 up to
    4 e^(-2W) = 10^-(dps+5), the Gauss-Legendre order (a panel whose nearest singularity is at
    least its own width away has Bernstein parameter >= 3 + sqrt 8, error <= 5.8^(-2 order)), and
    Arb's working precision."""
    ln10 = math.log(10)
    L = math.sqrt(2 * ln10 * (dps + 5))
    W = ((dps + 5) * ln10 + math.log(4)) / 2
    return L, W, math.ceil((dps + 5) / 1.5), math.ceil(dps * math.log2(10)) + 32


_GL_CACHE: dict = {}


def _gl_rule(order, bits):
    """Gauss-Legendre nodes and weights on [-1, 1] as Arb balls (Arb's own Legendre roots)."""
    from flint import arb

    key = (order, bits)
    if key not in _GL_CACHE:
        _GL_CACHE[key] = [arb.legendre_p_root(order, k, weight=True) for k in range(order)]
    return _GL_CACHE[key]


def _edges(lo, hi, L, poles=(), bells=()):
    """Interior panel edges (floats, sorted) of [lo, hi].  A pole (c, w) -- a singularity about w
    off the real axis at abscissa c -- adds c and c +- w 2^k (k >= 0): a panel is then no wider
    than its distance to c, or than w.  A bell (c, sigma) -- a factor exp(-(x - c)^2/(2 sigma^2))
    or erfc((x - c)/sigma) -- caps the width of the panels meeting c +- L sigma at 2 sigma (they
    are split evenly).  The ends lo, hi are kept exact by the caller."""
    pts = {lo, hi}
    for c, w in poles:
        pts.add(c)
        far = max(abs(lo - c), abs(hi - c))
        step = w
        while step < far:
            pts.update((c - step, c + step))
            step *= 2
    for c, sigma in bells:
        pts.update((c - L * sigma, c, c + L * sigma))
    ends = sorted(p for p in pts if lo <= p <= hi)
    out = []
    for a, b in zip(ends, ends[1:]):
        cap = min((2 * sigma for c, sigma in bells if a < c + L * sigma and b > c - L * sigma), default=math.inf)
        n = max(1, math.ceil((b - a) / cap))
        out.extend(a + (b - a) * j / n for j in range(1, n))
        out.append(b)
    return out[:-1]


def _gl_sum(f, lo, hi, interior, rule):
    """Sum over the panels [lo, e_1], ..., [e_k, hi] of Gauss-Legendre for int f (Arb balls)."""
    from flint import arb

    ends = [lo, *(arb(e) for e in interior), hi]
    total = arb(0)
    for a, b in zip(ends, ends[1:]):
        half, mid = (b - a) / 2, (a + b) / 2
        part = arb(0)
        for x, w in rule:
            part += w * f(mid + half * x)
        total += half * part
    return total


def _tanh_panels_eval(A, P, Q, derivative, *, dps):
    """E[s(u) s(v)], u = A g_1, v = P g_1 + Q g_2, A > 0, by the graded panels of
    ``tanh_entry_panels`` at ``dps`` digits (an mpf)."""
    from flint import arb

    from numerics.core.certified import to_arb, workprec

    L, W, order, bits = _panel_plan(dps)
    with workprec(bits):
        rule = _gl_rule(order, bits)
        A, P, Q = to_arb(A), to_arb(P), to_arb(Q)
        if derivative:
            s = lambda x: x.sech() ** 2           # noqa: E731
        else:
            s = lambda x: x.tanh()                # noqa: E731
        root2 = arb(2).sqrt()
        gauss = 1 / (2 * arb.pi()).sqrt()
        Lb, Wb = arb(L), arb(W)
        a_f, q_f = float(A), float(Q)
        kappa = P / A
        k_f = abs(float(kappa))

        def H(t):
            """E[s(kappa t + Q g)], g ~ N(0, 1): the law of v given u = t."""
            if q_f == 0:
                return s(kappa * t)
            shift = kappa * t
            g_lo, g_hi = (-Wb - shift) / Q, (Wb - shift) / Q
            val = arb(0)
            if not derivative:                    # s = sign(x) where |x| >= W: Gaussian tails
                val = (g_hi / root2).erfc() / 2 - (-g_lo / root2).erfc() / 2
            lo = g_lo if float(g_lo) > -L else -Lb
            hi = g_hi if float(g_hi) < L else Lb
            if float(lo) < float(hi):
                cuts = _edges(float(lo), float(hi), L, poles=[(float(-shift / Q), 1 / q_f)], bells=[(0.0, 1.0)])
                val += gauss * _gl_sum(lambda g: s(shift + Q * g) * (-g * g / 2).exp(), lo, hi, cuts, rule)
            return val

        # |u| < W: u = t, density varphi(t/A)/A; the integrand is even in t
        T = min(W, L * a_f)
        poles, bells = [(0.0, 1.0)], [(0.0, a_f)]
        if k_f > 0:
            poles.append((0.0, 1 / k_f))
            if q_f >= 1:
                bells.append((0.0, q_f / k_f))
        cuts = _edges(0.0, T, L, poles, bells)
        total = 2 * gauss / A * _gl_sum(lambda t: s(t) * H(t) * (-(t / A) ** 2 / 2).exp(), arb(0), arb(T), cuts, rule)
        if not derivative and L * a_f > W:
            # |u| >= W, tanh(u) = sign(u): E[tanh(v) (1{u >= W} - 1{u <= -W})], v = B w and
            # u | w ~ N(alpha w, beta^2); even in w
            B = (P * P + Q * Q).sqrt()
            alpha, beta = A * P / B, A * Q / B
            al_f, be_f, b_f = float(alpha), float(beta), float(B)
            if be_f > 0:
                def f(w):
                    side = ((Wb - alpha * w) / (beta * root2)).erfc() - ((Wb + alpha * w) / (beta * root2)).erfc()
                    return (B * w).tanh() * side / 2 * (-w * w / 2).exp()
                bells = [(0.0, 1.0), (W / al_f, be_f / abs(al_f)), (-W / al_f, be_f / abs(al_f))] if al_f else [(0.0, 1.0)]
                cuts = _edges(0.0, L, L, [(0.0, 1 / b_f)], bells)
                total += 2 * gauss * _gl_sum(f, arb(0), Lb, cuts, rule)
            elif W / abs(al_f) < L:           # beta = 0: u = alpha w exactly
                lo = Wb / abs(alpha)
                cuts = _edges(float(lo), L, L, [(0.0, 1 / b_f)], [(0.0, 1.0)])
                total += 2 * gauss * (1 if al_f > 0 else -1) * _gl_sum(
                    lambda w: (B * w).tanh() * (-w * w / 2).exp(), lo, Lb, cuts, rule)
        mid = total.mid()
    return _arb_to_mpf(mid)


def _arb_to_mpf(x):
    """The exact midpoint of an Arb ball as an mpf."""
    man, exp = (int(v) for v in x.man_exp())
    with mp.workprec(max(man.bit_length(), 1)):
        return mp.mpf((man, exp))


def tanh_entry_panels(xa, xb, *, derivative=False, dps=30, ladder=True):
    """E[tanh(u) tanh(v)] (or E[sech^2(u) sech^2(v)], ``derivative=True``) for u = z^T x_a/sqrt d,
    v = z^T x_b/sqrt d, z ~ N(0, I_d) (eq. (23)), to ``dps`` digits at any scale and angle.

    Formula.  With the reduction of the module docstring, condition on u = A g_1 = t:
    v | u = t ~ N(kappa t, Q^2), kappa = P/A, so

        E[s(u) s(v)] = int s(t) H(t) varphi(t/A)/A dt,   H(t) = int s(kappa t + Q g) varphi(g) dg,

    both one-dimensional integrals in the activations' own variables (H(t) = s(kappa t) when
    Q = 0: d = 1 or exactly parallel rows).  The outer integrand is even in t (s is odd or even,
    and so is H), so t runs over [0, T].

    Cuts.  Where |x| >= W = ((dps + 5) ln 10 + ln 4)/2, tanh(x) = sign(x) and sech^2(x) = 0 to
    4 e^(-2W) = 10^-(dps+5): the inner integral is taken numerically only where
    |kappa t + Q g| < W and the rest is the exact Gaussian tail Phibar(g_hi) - Phi(g_lo) (tanh;
    0 for sech^2); the outer one only over 0 <= t < T = min(W, L A), and for tanh the part |u| >= W
    is E[tanh(v) (1{u >= W} - 1{u <= -W})] = 2 int_0^L tanh(B w) [Phibar((W - alpha w)/beta) -
    Phibar((W + alpha w)/beta)] varphi(w) dw, conditioning on v = B w instead (alpha = A P/B,
    beta = A Q/B; an indicator when beta = 0).  Gaussians are cut at L standard deviations,
    2 Phibar(L) = 10^-(dps+5).

    Split.  Each integral is a sum of fixed Gauss-Legendre rules (order ceil((dps + 5)/1.5)) on
    panels graded by ``_edges``: geometrically (ratio 2) toward the abscissa of each nearby pole
    of the integrand -- tanh's and sech^2's at +-i pi/2 over x = 0, so at t = 0 (width 1), at
    t = 0 on the scale 1/|kappa| for H, at g = -kappa t/Q on the scale 1/Q for the inner
    integrand, at w = 0 on the scale 1/B -- and no wider than 2 sigma over +-L sigma of each
    Gaussian factor (varphi(t/A), varphi(g), H's smoothing on the scale Q/|kappa|, the erfc
    steps at w = +-W/alpha of width beta/|alpha|).  Every panel is then at least its own width
    from the nearest singularity (Bernstein parameter >= 3 + sqrt 8, error < 10^-(dps+5)),
    whatever the scales: the transition regions of width 1/scale are resolved by the grading,
    not by a finer uniform rule, so the cost does not grow with the scale (about 10^5 Arb
    evaluations at dps = 30).

    Independence from ``numerics.core.gaussian_kernels.polar_expectation``: Cartesian
    conditioning instead of polar coordinates, Lagrange's identity (``pair_law``) instead of
    Kahan's angle, no angular variable, Arb's own Legendre roots at the working precision, Arb
    ball arithmetic (float64 appears only in where the panel edges fall, which any partition
    allows).  The result passes the precision ladder (``numerics.core.reference.ladder``: dps
    and 2 dps, where L, W, the order and the precision all grow, agree to 10^-(dps-3)); the
    Arb radius bounds its rounding.  ``ladder=False`` skips the 2 dps evaluation (a quarter of
    the cost).  A zero row gives s(0) E[s(v)]; orthogonal rows make u and v independent, so the
    tanh entry is exactly 0.
    """
    A, P, Q, B, rho = pair_law(xa, xb, dps)
    if A == 0 or B == 0:           # u = 0 surely: s(0) E[s(v)]; tanh(0) = 0, sech^2(0) = 1
        if not derivative:
            return mp.mpf(0)
        if A == 0 and B == 0:      # u = v = 0 surely: sech^2(0)^2
            return mp.mpf(1)
        A, P, Q = B if A == 0 else A, 0, 0
    elif P == 0 and not derivative:  # u, v independent and tanh odd
        return mp.mpf(0)
    if ladder:
        return cr.ladder(_tanh_panels_eval, A, P, Q, derivative, dps=dps)
    return _tanh_panels_eval(A, P, Q, derivative, dps=dps)
