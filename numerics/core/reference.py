"""References for Section 4's Gaussian-moment lemmas, computed from their RAW definitions.

Every quantity here is the integral of its raw integrand -- indicator x polynomial x
Gaussian density -- by mpmath quadrature.  None of the closed forms of ``theory.core.gaussian``
(no Phi_2 closed form, no Plackett 1954, no Rosenbaum 1961, no Stein identity) is called or
re-derived; these references are what those closed forms are judged against.

Quantities (DESIGN.md, "Stable public names"; ``dps`` = decimal digits returned):

- ``bvn_cdf(h, k, rho)`` = P(X <= h, Y <= k), (X, Y) standard bivariate normal, corr rho;
- ``relu_moment1(mu, s)`` = E[z 1{z >= 0}], ``relu_moment1_second(mu, s)`` = E[z^2 1{z >= 0}],
  z ~ N(mu, s^2)  (Theorem 4.2 proof sketch, E_2; Remark 4.4);
- ``orthant_prob``, ``orthant_first``, ``relu_moment2`` (mu1, mu2, s1, s2, rho) =
  P(z1 >= 0, z2 >= 0), E[z1 1{..}], E[z1 z2 1{z1 >= 0, z2 >= 0}] for the bivariate normal
  with means mu_i, standard deviations s_i, correlation rho  (Theorem 4.2 proof sketch, E_1;
  Appendix D.1.3-D.1.4);
- ``mask_moment1(u, kappa)`` = E[c 1{c^T u >= 0}],
  ``mask_moment2(u, v, kappa)`` = E[c c^T 1{c^T u >= 0, c^T v >= 0}] and
  ``mask_moment2(u, None, kappa)`` = ``mask_moment2_half(u, kappa)`` = E[c c^T 1{c^T u >= 0}],
  c ~ N(1, kappa^2 I_d)  (Theorem 4.9 proof sketch).

Method.  Write (z1, z2) = (mu1 + s1 x, mu2 + s2 (rho x + q y)), x, y iid N(0, 1),
q = sqrt(1 - rho^2).  Then z1 >= 0 <=> x >= a = -mu1/s1 and z2 >= 0 <=> y >= b(x) =
-(mu2 + s2 rho x)/(s2 q), and

    E[p(z1, z2) 1{z1 >= 0, z2 >= 0}] = int_a^inf varphi(x) int_{b(x)}^inf p varphi(y) dy dx,

a nested quadrature over the region cut out by the two indicators (so the kinks are the
integration limits, never inside a panel).  The polynomial is written in the distances to
the kinks, z1 = s1 (x - a) and z2 = s2 q (y - b(x)), so it is never a difference of large
numbers in the tails.  Both levels use Gauss-Legendre panels laid out from the integrand's
known Gaussian exponent: one panel on each side of the density's largest value on the
region, out to where the exponent has grown by D = (wp + 5) ln 10 (wp = working digits),
and, when the inner limit b(x) moves fast with x (|rho| near 1), extra edges where b(x)
crosses 0 and -sqrt(2D).  Every integrand is divided by the density's peak on the region
before it is summed (panels are offsets from that peak), so each rule sees O(1) numbers
even when the answer is 1e-300; the dropped tail is below exp(-D) of the peak, far under
the working precision.  The inner rule's sums run in fixed-point integers (mpmath's
exp_fixed) -- the same rule, exactly transcribed, for speed.  The number of nodes per panel
(1.5 wp + 10) was calibrated once on Gaussian flanks; the precision ladder, not the
calibration, is what vouches for each value.

Two elementary facts about one N(0, 1) variable are used to keep the inner integral one-sided: its total mass is 1 and E[y] = 0, E[y^2] = 1,
so int_b^inf (y - b)^j varphi = M_j(b) - (-1)^j int_{-b}^inf (y + b)^j varphi with
M = (1, -b, 1 + b^2); for b < 0 this subtracts a small positive tail (no cancellation).

Degenerate boundaries are exact: s = 0 is the point mass z = mu with 1{mu >= 0} (equality
included); rho = +-1 makes z2 a deterministic function of z1 and the integral one-
dimensional; kappa = 0 is c = 1; u = 0 makes its constraint 1{0 >= 0} = 1 vacuous;
v = lambda u exactly (tested in exact arithmetic) is the half-space of u when lambda > 0 and
the null event {c^T u = 0} (value 0) when lambda < 0.

Mask moments: c = 1 + kappa g, g ~ N(0, I_d).  Let Q (d x r, r <= 2) be an orthonormal basis
of span(u, v) and h = Q^T g ~ N(0, I_r); the event depends on h only, and the one exact fact
used is that g_perp = (I - Q Q^T) g is independent of h with E[g_perp] = 0 and
E[g_perp g_perp^T] = I - Q Q^T.  Hence, with A the event,

    E[c 1_A]     = P(A) 1 + kappa Q E[h 1_A],
    E[c c^T 1_A] = P(A) 1 1^T + kappa (1 tau^T + tau 1^T)
                   + kappa^2 (Q E[h h^T 1_A] Q^T + P(A) (I - Q Q^T)),   tau = Q E[h 1_A],

and P(A), E[h 1_A], E[h h^T 1_A] are the raw nested (or, for r = 1, single) quadratures.

Precision ladder (DESIGN.md): every public function evaluates at ``dps`` and at ``2 dps``
(each with ``GUARD_DPS`` guard digits and its own, larger, rule) and raises ``LadderError``
unless the two agree to 10^-(dps-3) relative -- for a vector or matrix, relative to its
largest entry in absolute value; an exact zero must be matched exactly.  It returns the
2 dps value rounded to dps digits.  Inputs are converted to mpf before any arithmetic.

Outside sources for the quantities (not for the method): Rosenbaum (1961), "Moments of a
truncated bivariate normal distribution", JRSS B 23, eqs. (2)-(4); Plackett (1954),
Biometrika 41; Drezner & Wesolowsky (1990), J. Statist. Comput. Simul. 35.
"""
from __future__ import annotations

import functools
import math
import numbers

import mpmath as mp
from mpmath.libmp.libelefun import exp_fixed as _exp_fixed
from mpmath.libmp.libelefun import ln2_fixed as _ln2_fixed

__all__ = [
    "GUARD_DPS", "LadderError", "ladder",
    "bvn_cdf", "relu_moment1", "relu_moment1_second",
    "orthant_prob", "orthant_first", "relu_moment2",
    "mask_moment1", "mask_moment2", "mask_moment2_half",
]

#: extra working digits of every evaluation, on top of the requested ``dps``
GUARD_DPS = 10


class LadderError(ArithmeticError):
    """The dps and 2 dps evaluations of a reference disagree: the reference is not trusted."""


# =============================================================================== input
def _scalar(name, x, *, allow_inf=False):
    """``x`` as an mpf: exact for mpf, Python/numpy floats and ints; strings are rounded to
    the current precision."""
    if isinstance(x, bool):
        x = int(x)
    if not isinstance(x, (mp.mpf, numbers.Real, str)) and hasattr(x, "item"):
        try:
            x = x.item()          # numpy / torch 0-d
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{name} must be a real scalar: {exc}") from None
    try:
        v = x if isinstance(x, mp.mpf) else mp.mpf(x)   # an mpf is kept exact, never rounded
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a real scalar, got {x!r}: {exc}") from None
    if mp.isnan(v):
        raise ValueError(f"{name} is NaN")
    if mp.isinf(v) and not allow_inf:
        raise ValueError(f"{name} must be finite, got {x!r}")
    return v


def _vector(name, u):
    if isinstance(u, mp.matrix):
        if min(u.rows, u.cols) != 1:
            raise ValueError(f"{name} must be a vector, got a {u.rows} x {u.cols} matrix")
        items = [u[i] for i in range(u.rows * u.cols)]
    else:
        shape = getattr(u, "shape", None)
        if shape is not None and len(shape) != 1:
            raise ValueError(f"{name} must be one-dimensional, got shape {tuple(shape)}")
        try:
            items = list(u)
        except TypeError:
            raise ValueError(f"{name} must be a sequence of reals, got {u!r}") from None
    if not items:
        raise ValueError(f"{name} must have at least one entry (d >= 1)")
    return [_scalar(f"{name}[{i}]", x) for i, x in enumerate(items)]


def _check_scale(name, s):
    if s < 0:
        raise ValueError(f"{name} must be >= 0, got {mp.nstr(s, 17)}")


def _check_corr(name, r):
    if abs(r) > 1:
        raise ValueError(f"{name} must lie in [-1, 1], got {mp.nstr(r, 17)}")


def _key(x):
    """A hashable stand-in for an input (exact: floats and mpfs are exact binary numbers)."""
    if isinstance(x, (int, float, str, mp.mpf)):
        return x
    if hasattr(x, "item") and getattr(x, "ndim", 0) == 0:
        return x.item()
    return tuple(_key(y) for y in x)


def _vkey(u):
    if isinstance(u, mp.matrix):
        return tuple(u[i] for i in range(u.rows * u.cols))
    return tuple(_key(x) for x in u)


# =============================================================================== ladder
def _leaves(v):
    if isinstance(v, (tuple, list)):
        for w in v:
            yield from _leaves(w)
    else:
        yield v


def _entries(v):
    if isinstance(v, mp.matrix):
        return [v[i, j] for i in range(v.rows) for j in range(v.cols)]
    return [v]


def _round(v):
    if isinstance(v, (tuple, list)):
        return type(v)(_round(w) for w in v)
    if isinstance(v, mp.matrix):
        out = mp.matrix(v.rows, v.cols)
        for i in range(v.rows):
            for j in range(v.cols):
                out[i, j] = +v[i, j]
        return out
    return +v


def ladder(fn, *args, dps=30, **kw):
    """Evaluate ``fn(*args, dps=dps, **kw)`` and ``fn(*args, dps=2*dps, **kw)``; check; return.

    Rule: for each returned quantity (an mpf, or an mp.matrix judged as a whole) the two
    values must satisfy max|lo - hi| <= 10^-(dps - 3) max|hi| (entrywise maxima); a
    quantity whose 2 dps value is exactly 0 must be exactly 0 at dps too.  Otherwise
    ``LadderError`` is raised, naming the function, its arguments and both values.  The
    2 dps value, rounded to ``dps`` digits, is returned.
    """
    dps = int(dps)
    if dps < 5:
        raise ValueError(f"dps must be >= 5, got {dps}")
    lo = fn(*args, dps=dps, **kw)
    hi = fn(*args, dps=2 * dps, **kw)
    with mp.workdps(2 * dps + GUARD_DPS):
        tol = mp.mpf(10) ** -(dps - 3)
        for a, b in zip(_leaves(lo), _leaves(hi), strict=True):
            ea, eb = _entries(a), _entries(b)
            scale = max(abs(x) for x in eb)
            diff = max(abs(x - y) for x, y in zip(ea, eb, strict=True))
            if diff > tol * scale or (scale == 0 and diff != 0):
                name = getattr(fn, "__name__", repr(fn))
                raise LadderError(
                    f"precision ladder failed for {name}{args!r}: dps={dps} gives "
                    f"{mp.nstr(a, 20)}, dps={2 * dps} gives {mp.nstr(b, 20)} "
                    f"(relative difference {mp.nstr(diff / scale if scale else diff, 3)} "
                    f"> 1e-{dps - 3})")
    with mp.workdps(dps):
        return _round(hi)


# =============================================================================== quadrature
def _legendre(n, x):
    p0, p1 = mp.mpf(1), x
    for k in range(2, n + 1):
        p0, p1 = p1, ((2 * k - 1) * x * p1 - (k - 1) * p0) / k
    dp = n * (p0 - x * p1) / (1 - x * x)
    return p1, dp


def _legendre_float(n, x):
    p0, p1 = 1.0, x
    for k in range(2, n + 1):
        p0, p1 = p1, ((2 * k - 1) * x * p1 - (k - 1) * p0) / k
    return p1, n * (p0 - x * p1) / (1 - x * x)


@functools.lru_cache(maxsize=None)
def _gl_nodes(n, prec):
    """Nonnegative Gauss-Legendre nodes and weights (x, w) of P_n, accurate to ``prec`` bits.

    Newton's method: a few steps in plain floats from cos(pi (i - 1/4)/(n + 1/2)) (only a
    starting guess), then steps at doubling precision up to prec + 20 bits, the last one
    repeated; quadratic convergence makes each step double the correct bits.
    """
    out = []
    for i in range(1, n // 2 + 1):
        x = math.cos(math.pi * (i - 0.25) / (n + 0.5))
        for _ in range(8):
            p, dp = _legendre_float(n, x)
            x -= p / dp
        steps, b = [], prec + 20
        while b > 40:
            steps.append(b)
            b //= 2
        steps = steps[::-1] + [prec + 20]
        x = mp.mpf(x)
        for b in steps:
            with mp.workprec(b):
                p, dp = _legendre(n, x)
                x = x - p / dp
        with mp.workprec(prec + 20):
            p, dp = _legendre(n, x)
            out.append((x, 2 / ((1 - x * x) * dp * dp)))
    if n % 2:
        with mp.workprec(prec + 20):
            p, dp = _legendre(n, mp.mpf(0))
            out.append((mp.mpf(0), 2 / (dp * dp)))
    return tuple(out)


@functools.lru_cache(maxsize=None)
def _gl_rule(n, prec):
    """Gauss-Legendre rule on [-1, 1]: triples (1 + xi, 1 - xi, weight), to ``prec`` bits.

    1 + xi and 1 - xi are formed from the nodes at prec + 60 bits and stored separately,
    so that nodes next to a panel edge keep their relative accuracy.
    """
    rows = []
    with mp.workprec(prec + 60):
        for x, w in _gl_nodes(n, prec + 60):
            rows.append((1 + x, 1 - x, w))
            if x != 0:
                rows.append((1 - x, 1 + x, w))
    with mp.workprec(prec):
        return tuple((+a, +b, +w) for a, b, w in rows)


def _npanel(wp):
    """Gauss-Legendre nodes per panel for ``wp`` working digits.

    Calibrated on one panel spanning a whole Gaussian flank, exponent 0 .. D (about
    1.5 wp + 3 nodes are needed there); the precision ladder checks every use.
    """
    return int(math.ceil(1.5 * wp)) + 10


def _cutoff(wp):
    """Exponent D beyond which the normalised integrand (< exp(-D)) is dropped."""
    return (wp + 5) * math.log(10)


@functools.lru_cache(maxsize=None)
def _fixed_rule(n, bits):
    """The Gauss-Legendre rule as fixed-point integers (scale 2^bits) on [0, 2]:
    (1 + xi, (1 + xi)^2, w) for each node."""
    out = []
    with mp.workprec(bits + 20):
        for x, w in _gl_nodes(n, bits + 20):
            for onep in ((1 + x, 1 - x) if x != 0 else (1 + x,)):
                out.append((int(mp.ldexp(onep, bits)), int(mp.ldexp(onep * onep, bits)),
                            int(mp.ldexp(w, bits))))
    return tuple(out)


class _Ctx:
    """Working precision, rules and cutoff of one evaluation."""

    def __init__(self, dps):
        self.wp = int(dps) + GUARD_DPS
        self.n = _npanel(self.wp)
        self.D = mp.mpf(_cutoff(self.wp))
        self.rule = _gl_rule(self.n, mp.mp.prec)
        self.bits = mp.mp.prec + 40
        self.frule = _fixed_rule(self.n, self.bits)
        self.ln2 = _ln2_fixed(self.bits)


def _flank(xs, D):
    """Offset R > 0 with ((xs + R)^2 - xs^2)/2 = D for xs >= 0 (cancellation-free form)."""
    return 2 * D / (mp.sqrt(xs * xs + 2 * D) + xs)


def _interval(lo, hi, f, nq, ctx):
    """E[f(x, x - lo, hi - x) 1{lo <= x <= hi}], x ~ N(0, 1); ``f`` returns ``nq`` values.

    ``lo`` is finite, ``hi`` finite or +inf.  The density is divided by its peak on the
    interval, exp(-xs^2/2) with xs = clamp(0, lo, hi).  Panels are offsets from xs, one on
    each side of it, out to where the exponent has grown by D (or to the interval's end),
    so the nodes keep their accuracy however far the interval lies in the tail; the
    distances x - lo and hi - x handed to ``f`` are formed from the nearer panel edge.
    """
    zero = [mp.mpf(0)] * nq
    if not hi > lo:
        return zero
    xs = min(max(mp.mpf(0), lo), hi)
    finite_hi = not mp.isinf(hi)
    R = _flank(abs(xs), ctx.D)
    panels = []                                  # offsets from xs
    if xs >= 0 and xs < hi:
        panels.append((mp.mpf(0), min(R, hi - xs) if finite_hi else R))
    if xs <= 0 and xs > lo:
        panels.append((max(-R, lo - xs), mp.mpf(0)))
    acc = list(zero)
    exp = mp.exp
    s_lo = xs - lo
    s_hi = hi - xs if finite_hi else mp.inf
    for da, db in panels:
        half = (db - da) / 2
        for onep, onem, w in ctx.rule:
            dx = da + half * onep                # x - xs
            x = xs + dx
            dl = (s_lo + da) + half * onep
            dh = (s_hi - db) + half * onem if finite_hi else mp.inf
            W = half * w * exp(-dx * (dx + 2 * xs) / 2)
            for i, val in enumerate(f(x, dl, dh)):
                acc[i] += W * val
    scale = exp(-xs * xs / 2) / mp.sqrt(2 * mp.pi)
    return [scale * a for a in acc]


def _tail_moments(c, ctx):
    """K_j = int_0^inf t^j exp(-(c t + t^2/2)) dt / sqrt(2 pi), j = 0, 1, 2, for c >= 0.

    (= exp(c^2/2) int_c^inf (y - c)^j varphi(y) dy, the one-sided Gaussian tail divided by
    its peak.)  One Gauss-Legendre panel t in [0, 2L], L = (sqrt(c^2 + 2D) - c)/2, i.e. out
    to where the exponent reaches D; t = L tau, tau = 1 + xi in [0, 2], so the exponent is
    (L c) tau + (L^2/2) tau^2 with both coefficients O(D) whatever c is.  The inner sum runs
    in fixed-point integer arithmetic with ``ctx.bits`` = working precision + 40 bits
    (mpmath's own exp_fixed), an exact-integer transcription of the same rule: every
    summand is in [0, 4], so the absolute rounding error, at most a few hundred units of
    2^-bits, is far below 10^-wp of the (>= exp(-D)-relative) result.
    """
    bits = ctx.bits
    L = ctx.D / (mp.sqrt(c * c + 2 * ctx.D) + c)
    A = int(mp.ldexp(L * c, bits))
    B = int(mp.ldexp(L * L / 2, bits))
    ln2 = ctx.ln2
    s0 = s1 = s2 = 0
    for op, op2, w in ctx.frule:
        e = _exp_fixed(-((A * op + B * op2) >> bits), bits, ln2)
        we = (w * e) >> bits
        s0 += we
        s1 += we * op
        s2 += we * op2
    norm = L / mp.sqrt(2 * mp.pi)
    K0 = mp.ldexp(s0, -bits) * norm
    K1 = mp.ldexp(s1, -2 * bits) * (norm * L)
    K2 = mp.ldexp(s2, -2 * bits) * (norm * L * L)
    return K0, K1, K2


def _inner(b, ctx):
    """exp(max(b,0)^2/2) * int_b^inf (y - b)^j varphi(y) dy, j = 0, 1, 2 (see module doc)."""
    if b >= 0:
        return _tail_moments(b, ctx)
    c = -b
    M = (mp.mpf(1), c, 1 + b * b)
    if c * c / 2 > ctx.D + 10:
        return M
    s = mp.exp(-c * c / 2)
    K0, K1, K2 = _tail_moments(c, ctx)
    return M[0] - s * K0, M[1] + s * K1, M[2] - s * K2


def _bisect(g, lo, hi, target, iters=90):
    """Point in [lo, hi] where the monotone g crosses target (g(lo) <= target <= g(hi) or reverse)."""
    glo = g(lo)
    for _ in range(iters):
        mid = (lo + hi) / 2
        if (g(mid) <= target) == (glo <= target):
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def _wedge(a1, beta0, beta1, quantities, ctx):
    """E[sum_j c_j(x, t, b) (y - b)^j 1{x >= a1, y >= b(x)}] for x, y iid N(0, 1).

    The inner kink is b(x) = beta0 + beta1 x and t = x - a1 >= 0 is the distance to the
    outer kink.  ``quantities`` is a list of callables (x, t, b) -> (c0, c1, c2).  The outer
    integrand is divided by exp(-m), m = min over the region of (x^2 + y^2)/2 (half the
    squared distance of the region to the origin), attained at x* = argmin_{x >= a1} F(x),
    F(x) = (x^2 + max(b(x), 0)^2)/2 (convex, so x* = max(a1, unconstrained minimiser)).
    Panels: [x_min, x*] and [x*, x_max] with F - m = D at the far ends (or x_min = a1),
    split where b(x) = 0 and b(x) = -sqrt(2D) when |beta1| > 1/2, i.e. where the inner
    integral switches between "whole line" and "Gaussian tail" faster than x varies.
    """
    nq = len(quantities)
    D = ctx.D
    xu = mp.mpf(0) if beta0 <= 0 else -beta0 * beta1 / (1 + beta1 * beta1)
    xstar = max(a1, xu)
    bstar = beta0 + beta1 * xstar
    ystar = max(bstar, 0)
    m = (xstar * xstar + ystar * ystar) / 2

    def excess(dx):
        """F(x* + dx) - m, written through dx = x - x*."""
        fx = dx * (2 * xstar + dx) / 2
        b = bstar + beta1 * dx
        if bstar > 0 and b > 0:
            fy = beta1 * dx * (b + bstar) / 2
        else:
            fy = (max(b, 0) ** 2 - ystar * ystar) / 2
        return fx + fy

    # ---- panel edges, as offsets dx = x - x* (96 bits suffice: edges are exact binaries)
    with mp.workprec(96):
        edges = {mp.mpf(0)}
        step = mp.mpf(1)                       # right of the peak: out to F - m = D
        while excess(step) < D:
            step *= 2
        dmax = _bisect(excess, step / 2 if step > 1 else mp.mpf(0), step, D)
        edges.add(dmax)
        dmin = a1 - xstar                      # left: down to the kink, or to F - m = D
        if dmin < 0:
            step = mp.mpf(1)
            while -step > dmin and excess(-step) < D:
                step *= 2
            if excess(max(dmin, -step)) > D:
                dmin = _bisect(excess, max(dmin, -step), mp.mpf(0), D)
        if abs(beta1) > mp.mpf(1) / 2:
            for bl in (0, -mp.sqrt(2 * D)):
                edges.add((bl - bstar) / beta1)
        edges = sorted(e for e in edges if dmin < e <= dmax)
    edges = [dmin] + [mp.mpf(e) for e in edges]

    acc = [mp.mpf(0)] * nq
    exp = mp.exp
    s_a = xstar - a1
    for da, db in zip(edges, edges[1:]):
        half = (db - da) / 2
        if half <= 0:
            continue
        base_t = s_a + da
        for onep, _onem, w in ctx.rule:
            h = half * onep
            dx = da + h
            x, t = xstar + dx, base_t + h
            b = bstar + beta1 * dx
            W = half * w * exp(-excess(dx))
            K0, K1, K2 = _inner(b, ctx)
            for i, q in enumerate(quantities):
                c0, c1, c2 = q(x, t, b)
                acc[i] += W * (c0 * K0 + c1 * K1 + c2 * K2)
    scale = exp(-m) / mp.sqrt(2 * mp.pi)
    return [scale * a for a in acc]


# =============================================================================== univariate
def _relu1_eval(mu, s, *, dps):
    """(P(z >= 0), E[z 1{z >= 0}], E[z^2 1{z >= 0}]) for z ~ N(mu, s^2), raw quadrature:
    int_a^inf (s t)^j varphi(x) dx with x = a + t, a = -mu/s."""
    with mp.workdps(int(dps) + GUARD_DPS):
        mu, s = _scalar("mu", mu), _scalar("s", s)
        if s == 0:
            ind = mp.mpf(1 if mu >= 0 else 0)
            return ind, ind * mu, ind * mu * mu
        ctx = _Ctx(dps)
        a = -mu / s
        return tuple(_interval(a, mp.inf, lambda x, t, _: (1, s * t, (s * t) ** 2), 3, ctx))


@functools.lru_cache(maxsize=4096)
def _relu1_cached(mu, s, dps, use_ladder):
    if use_ladder:
        return ladder(_relu1_eval, mu, s, dps=dps)
    return _relu1_eval(mu, s, dps=dps)


def _relu1(mu, s, dps, use_ladder):
    with mp.workdps(max(int(dps), 15) + GUARD_DPS):
        _check_scale("s", _scalar("s", s))
        _scalar("mu", mu)
    return _relu1_cached(_key(mu), _key(s), int(dps), bool(use_ladder))


def relu_moment1(mu, s, *, dps=30, ladder=True):
    """E[z 1{z >= 0}], z ~ N(mu, s^2), as int_0^inf z varphi((z - mu)/s)/s dz by quadrature.

    The exact smoothed ReLU sigma_tilde of the Theorem 4.2 proof sketch (E_2).  s = 0 gives
    max(mu, 0) exactly.  ``ladder=False`` skips the precision ladder (one evaluation).
    """
    return _relu1(mu, s, dps, ladder)[1]


def relu_moment1_second(mu, s, *, dps=30, ladder=True):
    """E[z^2 1{z >= 0}], z ~ N(mu, s^2), as int_0^inf z^2 varphi((z - mu)/s)/s dz (quadrature)."""
    return _relu1(mu, s, dps, ladder)[2]


# =============================================================================== bivariate
def _relu2_eval(mu1, mu2, s1, s2, rho, *, dps):
    """(P, E[z1 1_A], E[z1 z2 1_A]), A = {z1 >= 0, z2 >= 0}, from the raw definition."""
    with mp.workdps(int(dps) + GUARD_DPS):
        mu1, mu2, s1, s2, rho = (_scalar(n, v) for n, v in
                                 zip(("mu1", "mu2", "s1", "s2", "rho"), (mu1, mu2, s1, s2, rho)))
        ctx = _Ctx(dps)
        zero = mp.mpf(0)
        if s1 == 0 and s2 == 0:               # point mass at (mu1, mu2)
            ind = mp.mpf(1 if (mu1 >= 0 and mu2 >= 0) else 0)
            return ind, ind * mu1, ind * mu1 * mu2
        if s1 == 0:                            # z1 = mu1 a.s.; z2 = mu2 + s2 x
            if mu1 < 0:
                return zero, zero, zero
            a2 = -mu2 / s2
            return tuple(_interval(a2, mp.inf, lambda x, t, _: (1, mu1, mu1 * s2 * t), 3, ctx))
        if s2 == 0:                            # z2 = mu2 a.s.; z1 = mu1 + s1 x
            if mu2 < 0:
                return zero, zero, zero
            a1 = -mu1 / s1
            return tuple(_interval(a1, mp.inf, lambda x, t, _: (1, s1 * t, s1 * t * mu2), 3, ctx))
        a1 = -mu1 / s1
        if abs(rho) == 1:                      # z2 = mu2 + rho s2 x: one-dimensional
            if rho > 0:                        # x >= max(a1, a2)
                a2 = -mu2 / s2
                lo = max(a1, a2)
                o1, o2 = lo - a1, lo - a2
                return tuple(_interval(lo, mp.inf, lambda x, t, _: (
                    1, s1 * (o1 + t), s1 * (o1 + t) * s2 * (o2 + t)), 3, ctx))
            hi = mu2 / s2                      # z2 = s2 (hi - x) >= 0
            return tuple(_interval(a1, hi, lambda x, t, u: (1, s1 * t, s1 * t * s2 * u), 3, ctx))
        q = mp.sqrt((1 - rho) * (1 + rho))
        beta0, beta1 = -mu2 / (s2 * q), -rho / q
        qs = [lambda x, t, b: (1, 0, 0),
              lambda x, t, b: (s1 * t, 0, 0),
              lambda x, t, b: (0, s1 * t * s2 * q, 0)]
        return tuple(_wedge(a1, beta0, beta1, qs, ctx))


@functools.lru_cache(maxsize=4096)
def _relu2_cached(mu1, mu2, s1, s2, rho, dps, use_ladder):
    if use_ladder:
        return ladder(_relu2_eval, mu1, mu2, s1, s2, rho, dps=dps)
    return _relu2_eval(mu1, mu2, s1, s2, rho, dps=dps)


def _relu2(mu1, mu2, s1, s2, rho, dps, use_ladder):
    with mp.workdps(max(int(dps), 15) + GUARD_DPS):
        _scalar("mu1", mu1), _scalar("mu2", mu2)
        _check_scale("s1", _scalar("s1", s1))
        _check_scale("s2", _scalar("s2", s2))
        _check_corr("rho", _scalar("rho", rho))
    return _relu2_cached(*(_key(v) for v in (mu1, mu2, s1, s2, rho)), int(dps), bool(use_ladder))


def orthant_prob(mu1, mu2, s1, s2, rho, *, dps=30, ladder=True):
    """P(z1 >= 0, z2 >= 0) for (z1, z2) ~ N((mu1, mu2), [[s1^2, rho s1 s2], [rho s1 s2, s2^2]]),
    by nested quadrature of the bivariate density over the quadrant (module docstring)."""
    return _relu2(mu1, mu2, s1, s2, rho, dps, ladder)[0]


def orthant_first(mu1, mu2, s1, s2, rho, *, dps=30, ladder=True):
    """E[z1 1{z1 >= 0, z2 >= 0}] (same law as ``orthant_prob``), by nested quadrature."""
    return _relu2(mu1, mu2, s1, s2, rho, dps, ladder)[1]


def relu_moment2(mu1, mu2, s1, s2, rho, *, dps=30, ladder=True):
    """E[z1 z2 1{z1 >= 0, z2 >= 0}] (same law as ``orthant_prob``), by nested quadrature.

    E_1 of the Theorem 4.2 proof sketch (Appendix D.1.3-D.1.4); the closed form it is
    judged against is Rosenbaum's (1961) truncated bivariate normal moment.
    """
    return _relu2(mu1, mu2, s1, s2, rho, dps, ladder)[2]


def bvn_cdf(h, k, rho, *, dps=30, ladder=True):
    """Phi_2(h, k; rho) = P(X <= h, Y <= k), (X, Y) standard bivariate normal, corr rho.

    Computed as the orthant probability P(h - X >= 0, k - Y >= 0), i.e. the raw double
    integral int_{x <= h} int_{y <= k} varphi_2 (module docstring).  h, k may be +-inf:
    Phi_2(h, +inf) = P(X <= h) (one-dimensional quadrature), Phi_2(-inf, k) = 0.
    """
    with mp.workdps(max(int(dps), 15) + GUARD_DPS):
        hv = _scalar("h", h, allow_inf=True)
        kv = _scalar("k", k, allow_inf=True)
        _check_corr("rho", _scalar("rho", rho))
        if hv == -mp.inf or kv == -mp.inf:
            return mp.mpf(0)
        if hv == mp.inf and kv == mp.inf:
            return mp.mpf(1)
    if hv == mp.inf:
        return _relu1(k, 1, dps, ladder)[0]
    if kv == mp.inf:
        return _relu1(h, 1, dps, ladder)[0]
    return _relu2(h, k, 1, 1, rho, dps, ladder)[0]


# =============================================================================== mask moments
def _exact_parallel(u, v):
    """(True, sign) if v = lambda u exactly for some lambda != 0 (exact arithmetic)."""
    d = len(u)
    for i in range(d):
        for j in range(i + 1, d):
            if mp.fsub(mp.fmul(u[i], v[j], exact=True), mp.fmul(u[j], v[i], exact=True),
                       exact=True) != 0:
                return False, 0
    dot = mp.mpf(0)
    for x, y in zip(u, v):
        dot = mp.fadd(dot, mp.fmul(x, y, exact=True), exact=True)
    return True, (1 if dot > 0 else -1)


def _mask_eval(u, v, kappa, *, dps):
    """(P(A), E[c 1_A] (d x 1), E[c c^T 1_A] (d x d)), A = {c^T u >= 0} [and c^T v >= 0]."""
    with mp.workdps(int(dps) + GUARD_DPS):
        u = _vector("u", u)
        v = None if v is None else _vector("v", v)
        kappa = _scalar("kappa", kappa)
        d = len(u)
        ones = mp.matrix([1] * d)
        normals = [w for w in (u, v) if w is not None and any(x != 0 for x in w)]
        if kappa == 0:
            ind = mp.mpf(1 if all(mp.fsum(w) >= 0 for w in normals) else 0)
            return ind, ind * ones, ind * (ones * ones.T)
        if not normals:
            return mp.mpf(1), ones.copy(), ones * ones.T + kappa ** 2 * mp.eye(d)
        ctx = _Ctx(dps)

        def unit(w):
            nrm = mp.sqrt(mp.fsum(x * x for x in w))
            return mp.matrix([x / nrm for x in w])

        e1 = unit(normals[0])
        A1 = mp.fsum(e1)                       # 1^T u / ||u||: c^T u >= 0 <=> A1 + kappa x >= 0
        a1 = -A1 / kappa
        parallel, sign = (True, 1) if len(normals) == 1 else _exact_parallel(*normals)
        if parallel and sign < 0:              # v = -lambda u: the event is {c^T u = 0}, null
            return mp.mpf(0), mp.zeros(d, 1), mp.zeros(d, d)
        if parallel:                           # v = lambda u, lambda > 0: the same half-space
            P, mx, mxx = _interval(a1, mp.inf, lambda x, t, _: (1, x, x * x), 3, ctx)
            Q = [e1]
            h1 = [mx]
            h2 = [[mxx]]
        else:
            v1 = unit(normals[1])
            rho = mp.fsum(a * b for a, b in zip(e1, v1))
            w = v1 - rho * e1
            q = mp.sqrt(mp.fsum(x * x for x in w))
            e2 = w / q
            A2 = mp.fsum(v1)                   # c^T v >= 0 <=> A2 + kappa (rho x + q y) >= 0
            beta0, beta1 = -A2 / (kappa * q), -rho / q
            qs = [lambda x, t, b: (1, 0, 0),
                  lambda x, t, b: (x, 0, 0),
                  lambda x, t, b: (b, 1, 0),
                  lambda x, t, b: (x * x, 0, 0),
                  lambda x, t, b: (x * b, x, 0),
                  lambda x, t, b: (b * b, 2 * b, 1)]
            P, mx, my, mxx, mxy, myy = _wedge(a1, beta0, beta1, qs, ctx)
            Q = [e1, e2]
            h1 = [mx, my]
            h2 = [[mxx, mxy], [mxy, myy]]
        tau = mp.matrix(d, 1)
        for e, m in zip(Q, h1):
            tau += m * e
        G = mp.matrix(d, d)
        QQ = mp.matrix(d, d)
        for i, ei in enumerate(Q):
            QQ += ei * ei.T
            for j, ej in enumerate(Q):
                G += h2[i][j] * (ei * ej.T)
        m1 = P * ones + kappa * tau
        m2 = (P * (ones * ones.T) + kappa * (ones * tau.T + tau * ones.T)
              + kappa ** 2 * (G + P * (mp.eye(d) - QQ)))
        return P, m1, m2


@functools.lru_cache(maxsize=1024)
def _mask_cached(u, v, kappa, dps, use_ladder):
    if use_ladder:
        return ladder(_mask_eval, u, v, kappa, dps=dps)
    return _mask_eval(u, v, kappa, dps=dps)


def _mask(u, v, kappa, dps, use_ladder):
    with mp.workdps(max(int(dps), 15) + GUARD_DPS):
        uu = _vector("u", u)
        if v is not None:
            vv = _vector("v", v)
            if len(vv) != len(uu):
                raise ValueError(f"u and v must have the same length, got {len(uu)} and {len(vv)}")
        _check_scale("kappa", _scalar("kappa", kappa))
    return _mask_cached(_vkey(u), None if v is None else _vkey(v), _key(kappa), int(dps),
                        bool(use_ladder))


def mask_moment1(u, kappa, *, dps=30, ladder=True):
    """E[c 1{c^T u >= 0}], c ~ N(1, kappa^2 I_d), as a d x 1 mp.matrix (Theorem 4.9 sketch).

    One-dimensional quadrature along u/||u|| plus the exact fact about the orthogonal
    complement (module docstring).  u = 0 or kappa = 0 give the degenerate values
    (1{0 >= 0} = 1; c = 1).
    """
    return _mask(u, None, kappa, dps, ladder)[1].copy()


def mask_moment2(u, v, kappa, *, dps=30, ladder=True):
    """E[c c^T 1{c^T u >= 0, c^T v >= 0}], c ~ N(1, kappa^2 I_d), as a d x d mp.matrix.

    ``v=None`` gives the half-space E[c c^T 1{c^T u >= 0}].  Nested quadrature over
    span(u, v) in an orthonormal basis (u || v and u = -v: one dimension; u = -v is a
    null event), the complement by the exact fact of the module docstring
    (Theorem 4.9 proof sketch).
    """
    return _mask(u, v, kappa, dps, ladder)[2].copy()


def mask_moment2_half(u, kappa, *, dps=30, ladder=True):
    """E[c c^T 1{c^T u >= 0}] = ``mask_moment2(u, None, kappa)``."""
    return _mask(u, None, kappa, dps, ladder)[2].copy()
