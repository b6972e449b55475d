"""mpmath references for Gaussian expectations of any functions: E f(u), u ~ N(mu, sigma^2), and
E f(u) g(v) for (u, v) bivariate normal, by graded Gauss-Legendre panels under the precision
ladder (``numerics.core.reference.ladder``: dps and 2 dps agree).  Every kernel paper needs
these as the raw definition its closed forms are judged against; a pack passes its own ``f``
and ``g`` (functions of one mpf, written with mpmath, evaluated in the working precision).

Method.  u = mu + sigma x and v = mu2 + s2 (rho x + q y), x, y iid N(0, 1), q = sqrt(1 - rho^2)
formed as sqrt((1 - rho)(1 + rho)) at working precision, so that

    E f(u) = int f(mu + sigma x) varphi(x) dx,
    E f(u) g(v) = int f(u(x)) varphi(x) G(x) dx,  G(x) = int g(m(x) + s2 q y) varphi(y) dy,

with m(x) = mu2 + s2 rho x.  Each integral is a sum of Gauss-Legendre panels over [-L, L],
L = sqrt(2 D), D = (wp + 5) ln 10 (wp working digits; beyond L the density is below
exp(-D), dropped, which assumes f and g grow at most polynomially), with edges every 4 standard
units and at every kink a caller declares (``kinks``/``kinks_g``: points of u or v where f or
g is not smooth, such as ReLU's 0; the rule is then exact-order on each smooth piece).  No
quantity is divided by q: the inner integral's kinks sit at y = (k - m(x))/(s2 q) only when
q > 0 (else G(x) = g(m(x)) exactly, rho = +-1), and when q is small the outer integrand bends
over a width ~ q/|rho| around x* = (k - mu2)/(s2 rho) (where the inner kink crosses m(x)), so
the outer edges are graded there (:func:`_graded`: panels of 4 q/|rho| out to the inner
Gaussian's reach, then growing 4-fold to the standard width).  Nodes per panel: :func:`_order`
(the ladder, not this calibration, vouches for each value).

Steep points.  The panels resolve functions that vary on the density's scale; a caller declares
where f or g varies faster (``steep``/``steep_f``/``steep_g``: pairs (p, w), f varying on the
scale w of u around u = p, as erf(a u) does with (0, 1/a), or erf'(u) = 2 exp(-u^2)/sqrt(pi)
with (0, 1) when sigma > 1), and the panels are graded toward p as around a near-kink: in
standard units width w/sigma around (p - mu)/sigma for f; for g, in the inner integral width
w/(s2 q) around y = (p - m(x))/(s2 q), and in the outer one, where G(x) is g smoothed by
N(0, (s2 q)^2), width hypot(w, s2 q)/(s2 |rho|) around (p - mu2)/(s2 rho).  A width of one
standard unit or more needs no grading and adds nothing.

Why not ``mp.quad`` nested: adaptive tanh-sinh inside adaptive tanh-sinh re-evaluates the
inner integral at every outer node of every degree it tries, about a minute per point at 30
digits; fixed graded panels visit each pair of nodes once (issue 36).
"""
from __future__ import annotations

import functools
import numbers

import mpmath as mp

from .reference import ladder

#: standard units between the fixed edges of the panels
PANEL = 4
#: growth factor of the graded panels around a near-kink of the inner integral
GRADE = 4


def _order(dps: int) -> int:
    """Gauss-Legendre nodes per panel at ``dps`` digits: dps + 12 (a Gaussian moment alone needs
    about 0.7 dps + 8 on panels of :data:`PANEL` standard units; the margin is for f and g that
    vary on the scale of the density).  The precision ladder, not this calibration, vouches for
    each value: a function that varies on a much smaller scale (erf(1000 u)) fails it, saying so,
    unless its steep points are declared (module docstring)."""
    return dps + 12


def _real(name, x):
    if isinstance(x, bool) or not isinstance(x, (numbers.Real, str, mp.mpf)):
        raise ValueError(f"{name} must be a real number, got {x!r}")
    try:  # an mpf is kept as it is (mp.mpf would round it to the caller's context: 1 - 1e-20 to 1)
        value = x if isinstance(x, mp.mpf) else mp.mpf(x)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a real number, got {x!r}") from None
    if not mp.isfinite(value):
        raise ValueError(f"{name} must be finite, got {x!r}")
    return value


def _scale(name, s):
    value = _real(name, s)
    if value <= 0:
        raise ValueError(f"{name} must be > 0, got {s!r} (a point mass has no density to integrate)")
    return value


def _corr(rho):
    value = _real("rho", rho)
    if abs(value) > 1:
        raise ValueError(f"rho must be in [-1, 1], got {rho!r}")
    return value


def _kinks(name, kinks):
    if kinks is None:
        return ()
    try:
        return tuple(_real(name, k) for k in kinks)
    except TypeError:
        raise ValueError(f"{name} must be a sequence of real numbers, got {kinks!r}") from None


def _steep(name, steep):
    if steep is None:
        return ()
    try:
        pairs = tuple((_real(name, p), _scale(name, w)) for p, w in steep)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a sequence of (point, width > 0) pairs, got {steep!r}") from None
    return pairs


def _callable(name, f):
    if not callable(f):
        raise ValueError(f"{name} must be a function of one mpf, got {f!r}")
    return f


@functools.lru_cache(maxsize=None)
def _rule(n: int, prec: int):
    """Gauss-Legendre nodes and weights on [-1, 1] (``mp.gauss_quadrature``), to ``prec`` bits."""
    with mp.workprec(prec + 20):
        xs, ws = mp.gauss_quadrature(n, "legendre")
        return tuple(zip(xs, ws))


def _reach(wp):
    """L: beyond |x| = L the standard density is below exp(-D), D = (wp + 5) ln 10."""
    return mp.sqrt(2 * (wp + 5) * mp.log(10))


def _edges(L, points):
    """Sorted panel edges: every PANEL units across [-L, L] and each of ``points`` inside; and for
    a point p beyond L (a kink far in a tail, as ReLU's at u = 0 for mu = -1e5, sigma = 1e-6), the
    window from p outwards to where the density has fallen by exp(-D) more (|x| = sqrt(p^2 + L^2)),
    in 2 ceil(L/PANEL) panels, so that an f vanishing on the centre keeps its relative accuracy."""
    grid = [-L + k * PANEL for k in range(int(mp.floor(2 * L / PANEL)) + 1)] + [L]
    inside = [p for p in points if -L < p < L]
    out = sorted(set(grid + inside))
    edges = [a for a, b in zip(out, out[1:] + [None]) if b is None or b - a > 0]
    tails = []
    m = 2 * int(mp.ceil(L / PANEL))
    for p in sorted(set(p for p in points if abs(p) >= L), key=abs):
        reach = mp.sqrt(p * p + L * L) - abs(p)
        window = sorted(p + mp.sign(p) * reach * k / m for k in range(m + 1))
        if not any(a <= window[0] and window[-1] <= b for a, b in tails):
            tails.append((window[0], window[-1]))
            edges = edges + [None] + window  # None: a gap between separate pieces
    return edges


def _nodes(edges, rule):
    """``(x, weight varphi(x))`` of the Gauss-Legendre rule on every panel between ``edges``:
    the sum of ``weight varphi(x) h(x)`` is the integral of ``h varphi`` over the panels."""
    out = []
    c = 1 / mp.sqrt(2 * mp.pi)
    for a, b in zip(edges, edges[1:]):
        if a is None or b is None:
            continue
        half, mid = (b - a) / 2, (a + b) / 2
        for t, w in rule:
            x = mid + half * t
            out.append((x, half * w * c * mp.exp(-x * x / 2)))
    return out


def _graded(center, width, L):
    """Edges around ``center`` where the integrand bends over ``width`` (standard units): every
    ``PANEL width`` out to ``L width`` (the inner Gaussian's reach, seen from x, for a near-kink;
    beyond the saturation of erf((x - center)/width) at 10^-wp for a steep point), then growing by
    :data:`GRADE` up to the standard panel width."""
    out = [center]
    k = 1
    while k * PANEL * width < min(L * width, PANEL):
        out += [center - k * PANEL * width, center + k * PANEL * width]
        k += 1
    step = k * PANEL * width
    while step < PANEL:
        out += [center - step, center + step]
        step *= GRADE
    return out


def _steep_edges(center, width, L):
    """Edges graded toward ``center`` for a function varying on ``width`` standard units there
    (:func:`_graded`), those inside (-L, L) (the centre also beyond, as a kink's, for its tail
    window); none for ``width`` >= 1, which the standard panels resolve."""
    if width >= 1:
        return []
    return [center] + [e for e in _graded(center, width, L)[1:] if -L < e < L]


def _guard(points) -> int:
    """Extra digits for a tail window at |x| = P: its nodes P + t, t ~ D/P, must keep t's digits."""
    far = max((abs(p) for p in points), default=0)
    return int(mp.ceil(2 * mp.log10(far))) if far > 10 else 0


def _expect1_eval(f, mu, sigma, kinks, steep, *, dps):
    with mp.workdps(dps + 10):
        points = [(mp.mpf(k) - mp.mpf(mu)) / mp.mpf(sigma) for k in kinks + tuple(p for p, _ in steep)]
    wp = dps + 10 + _guard(points)
    with mp.workdps(wp):
        mu, sigma = mp.mpf(mu), mp.mpf(sigma)
        L = _reach(dps + 10)
        points = [(k - mu) / sigma for k in kinks]
        for p, w in steep:
            points += _steep_edges((p - mu) / sigma, w / sigma, L)
        nodes = _nodes(_edges(L, points), _rule(_order(dps), mp.mp.prec))
        return +mp.fsum(w * f(mu + sigma * x) for x, w in nodes)


def gaussian_expectation(f, mu=0, sigma=1, *, kinks=(), steep=(), dps=30, use_ladder=True):
    """E f(u) for u ~ N(mu, sigma^2), by Gauss-Legendre panels split at ``kinks`` (points of u
    where f is not smooth) and graded toward ``steep`` points ((p, w): f varies on the scale w
    of u around p; module docstring), to ``dps`` digits (precision ladder: dps and 2 dps must
    agree to 10^-(dps-3) relative, else ``reference.LadderError``).  ``f`` takes and returns an
    mpf.  Raises ValueError for sigma <= 0, a width <= 0, a non-finite input or an ``f`` that is
    not callable."""
    f = _callable("f", f)
    args = (f, _real("mu", mu), _scale("sigma", sigma), _kinks("kinks", kinks), _steep("steep", steep))
    if not use_ladder:
        with mp.workdps(dps):
            return +_expect1_eval(*args, dps=dps)
    return ladder(_expect1_eval, *args, dps=dps)


def _expect2_eval(f, g, mu1, mu2, s1, s2, rho, kinks_f, kinks_g, steep_f, steep_g, *, dps):
    wp = dps + 10
    with mp.workdps(wp):
        # q from rho as given, 1 - rho and 1 + rho exact (rho = -1 + 1e-20 rounded to wp digits
        # first would leave 1 + rho with wp - 20 of them)
        with mp.workprec(mp.mp.prec + (rho._mpf_[3] if isinstance(rho, mp.mpf) else 64) + 64):
            q = mp.sqrt((1 - rho) * (1 + rho))
        q = +q
        mu1, mu2, s1, s2, rho = (mp.mpf(v) for v in (mu1, mu2, s1, s2, rho))
        L = _reach(wp)
        rule = _rule(_order(dps), mp.mp.prec)
        outer = [(k - mu1) / s1 for k in kinks_f]
        for p, w in steep_f:
            outer += _steep_edges((p - mu1) / s1, w / s1, L)
        if rho != 0:
            for k in kinks_g:
                centre = (k - mu2) / (s2 * rho)
                outer += _graded(centre, q / abs(rho), L) if q > 0 else [centre]
            for p, w in steep_g:
                outer += _steep_edges((p - mu2) / (s2 * rho), mp.hypot(w, s2 * q) / (s2 * abs(rho)), L)

        if q == 0:  # rho = +-1: v = mu2 + s2 rho x exactly
            def inner(x):
                return g(mu2 + s2 * rho * x)
        else:
            edges = _edges(L, [])
            panels = [(a, b, _nodes([a, b], rule)) for a, b in zip(edges, edges[1:])]  # no tails: no points
            sq = s2 * q

            def inner(x):
                m = mu2 + s2 * rho * x
                cuts = [(k - m) / sq for k in kinks_g]
                for p, w in steep_g:
                    cuts += _steep_edges((p - m) / sq, w / sq, L)
                terms = []
                for a, b, nodes in panels:  # a panel a kink or grading cuts is split there (new nodes for it alone)
                    inside = sorted(c for c in cuts if a < c < b)
                    for y, w in (_nodes([a, *inside, b], rule) if inside else nodes):
                        terms.append(w * g(m + sq * y))
                return mp.fsum(terms)

        total = []
        for x, w in _nodes(_edges(L, outer), rule):
            fx = f(mu1 + s1 * x)
            if fx != 0:  # (f = 0 on a half-line, as ReLU: no inner integral there)
                total.append(w * fx * inner(x))
        return +mp.fsum(total)


def bivariate_expectation(f, g, rho, mu1=0, mu2=0, s1=1, s2=1, *, kinks_f=(), kinks_g=(), steep_f=(),
                          steep_g=(), dps=30, use_ladder=True):
    """E f(u) g(v) for (u, v) bivariate normal with means mu1, mu2, standard deviations s1, s2
    and correlation rho in [-1, 1] (rho = +-1 included: v = mu2 +- s2 (u - mu1)/s1), by graded
    Gauss-Legendre panels split at ``kinks_f`` (points of u where f is not smooth) and
    ``kinks_g`` (of v, for g) and graded toward ``steep_f`` and ``steep_g`` points ((p, w): the
    function varies on the scale w around p), to ``dps`` digits under the precision ladder
    (module docstring).  ``f`` and ``g`` take and return an mpf.  Raises ValueError for s1 or
    s2 <= 0, |rho| > 1, a width <= 0, a non-finite input or an ``f``/``g`` that is not callable."""
    args = (_callable("f", f), _callable("g", g), _real("mu1", mu1), _real("mu2", mu2), _scale("s1", s1),
            _scale("s2", s2), _corr(rho), _kinks("kinks_f", kinks_f), _kinks("kinks_g", kinks_g),
            _steep("steep_f", steep_f), _steep("steep_g", steep_g))
    if not use_ladder:
        with mp.workdps(dps):
            return +_expect2_eval(*args, dps=dps)
    return ladder(_expect2_eval, *args, dps=dps)


def relu(x):
    """max(x, 0) on an mpf: the kink the helpers are told about with ``kinks=(0,)``."""
    return x if x > 0 else mp.mpf(0)


__all__ = ["gaussian_expectation", "bivariate_expectation", "relu"]
