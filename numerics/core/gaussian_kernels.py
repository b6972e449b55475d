"""Dual activations: E[s(u) s(v)] and E[s'(u) s'(v)] for a centred bivariate normal pair, float64.

For (u, v) ~ N(0, [[a^2, a b cos(theta)], [a b cos(theta), b^2]]) -- the law of (w^T x, w^T x')
for w ~ N(0, I) with a = |x|, b = |x'| and theta the angle between x and x' -- this module
evaluates the *dual activation* E[s(u) s(v)] and the dual of the derivative E[s'(u) s'(v)]
for the activations

    "relu", "abs", "erf", "tanh", and "leaky_relu:ALPHA" (max(u, 0) + ALPHA min(u, 0), 0 <= ALPHA < 1).

Derivatives follow the convention s' = 0 where s is not differentiable (relu'(0) = abs'(0) =
leaky'(0) = 0); a zero vector x (a = 0) makes u = 0 surely, so its kernels are s(0) E[s(v)] and
s'(0) E[s'(v)] exactly.

Closed forms (``theory.core.dual_kernels``): the arc-cosine kernels of orders 1 and 0 (Cho &
Saul 2009) for relu, their combinations for abs and leaky relu, the arcsine kernel (Williams
1997) for erf, written without cancellation:

- the angle is Kahan's, theta = 2 atan2(|x^ - x'^|, |x^ + x'^|) with x^ = x/|x|, and its
  supplement pi - theta = 2 atan2(|x^ + x'^|, |x^ - x'^|) is computed the same way (never as a
  difference), so nearly parallel and nearly antiparallel pairs keep full relative accuracy;
- J(theta) = sin(theta) + (pi - theta) cos(theta) is evaluated as sin(e) - e cos(e), e = pi - theta,
  by its series sum_k (-1)^(k+1) 2k e^(2k+1)/(2k+1)! when e < 1 (no cancellation: J ~ e^3/3);
- the arcsine is atan2(2 a b cos(theta), sqrt(R)), R = 1 + 2a^2 + 2b^2 + 4a^2b^2 sin(theta)^2,
  which equals (1 + 2a^2)(1 + 2b^2) - 4a^2b^2cos(theta)^2 without the subtraction.

tanh has no closed form.  ``tanh_dual`` switches by the pair's scale s = max(a, b) between two
rules held to one contract (an a priori or measured error below 1e-15 of the entry's scale
sqrt(E s(u)^2 E s(v)^2), the rest of the witnesses' 64 eps left to rounding): where s is at most
the largest ``TRAPEZOID_RULES`` row, the tensor trapezoidal rule of ``trapezoid_expectation``
(its docstring derives the bound, ``trapezoid_bound`` evaluates it, and each row is checked
against it), elsewhere the polar rule.  ``polar_expectation`` integrates E[f(u) g(v)] in polar coordinates of
the whitened pair: (u, v) = (a r cos(phi), b r cos(phi - theta)), so that

    E[f(u) g(v)] = (1/2pi) int_0^2pi int_0^inf f(a r cos phi) g(b r cos(phi - theta)) r e^(-r^2/2) dr dphi.

For fixed phi the radial integrand is analytic (tanh's poles are at a r cos(phi) = i pi/2 (2k+1));
its only fast scales are r ~ 1/|a cos phi| and 1/|b cos(phi - theta)|, so the radial panels are
[0, 1, ..., 10] refined geometrically (2^-3 ... 2^5 times each scale), 16-point Gauss-Legendre on
each (the dropped tail past r = 10 is below e^-50).  In phi the radial integral is analytic
except within about pi/(20 a) of the four angles where cos(phi) or cos(phi - theta) vanishes;
the angular panels are graded geometrically toward those angles (widths pi/4 2^-j down to below
1/(40 max(a, b))), again 16-point Gauss-Legendre.  Panels are therefore at least about their own
width away from the nearest singularity, where 16 points give a Bernstein-ellipse error below
1e-15 relative to the integrand's scale; ``verify`` measures the agreement with an mpmath
quadrature of the raw definition.  The angular nodes are formed in double-double and cos(phi),
cos(phi - theta) taken from them (``_angular_cosines``): a node rounded to float64 moves by up to
1.1e-16 from where its weight puts it, which beside a kink, where |cos phi| ~ 1/(40 a), is a
relative error of ~4e-15 a in a cos phi (measured: 139 eps of the entry at a = 1e4 for sech^2).

Inputs are tensors (any broadcastable shapes, float64); ``dual`` returns a tensor.  Bad
input (NaN, negative scale, theta outside [0, pi], an unknown activation) raises ValueError.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Callable

import numpy as np
import torch

from . import ddarith as dd
from .arrays import DTYPE, ldexp_exact

#: activations with a closed-form dual, and the one evaluated by quadrature
NAMES = ("relu", "abs", "erf", "tanh", "leaky_relu")
_LEAKY = re.compile(r"^leaky_relu:(?P<alpha>[0-9.eE+-]+)$")
#: Gauss-Legendre order of every panel of ``polar_expectation``
GL_ORDER = 16
_R_MAX = 10.0
_R_GRADES = tuple(2.0**k for k in range(-3, 6))
#: the error budget of each rule of ``tanh_dual``, relative to the entry's scale sqrt(G_aa G_bb)
#: (the polar rule's panel promise; the witnesses' 64 eps contract leaves the rest to rounding)
RULE_TARGET = 1e-15
#: the trapezoidal rules of ``tanh_dual``, cheapest first: (s_max, h, K) = the largest pair scale
#: max(a, b) a row serves, its step (a multiple of 1/512, exact) and its half-width in nodes (nodes
#: k h, |k| <= K; K h >= 9).  Each h is the largest multiple of 1/512 whose ``trapezoid_bound`` at
#: s_max is below RULE_TARGET for both tanh and sech^2 (verify checks every row).  Rows stop at
#: s_max = 6, where a rule's (2K + 1)^2 = 3.3e5 nodes per pair near the polar rule's 5.5e5 (the
#: trapezoid's cost grows like s^2, the polar rule's like log s); larger scales go to the polar rule.
TRAPEZOID_RULES = (
    (0.25, 310 / 512, 15),
    (0.5, 193 / 512, 24),
    (0.75, 134 / 512, 35),
    (1.0, 102 / 512, 46),
    (1.25, 82 / 512, 57),
    (1.5, 68 / 512, 68),
    (2.0, 51 / 512, 91),
    (3.0, 34 / 512, 136),
    (4.0, 25 / 512, 185),
    (6.0, 16 / 512, 288),
)


@dataclass(frozen=True)
class Activation:
    """A parsed activation: ``name`` in ``NAMES`` and, for leaky relu, its slope ``alpha``."""

    name: str
    alpha: float = 0.0

    @property
    def spec(self) -> str:
        return f"leaky_relu:{self.alpha!r}" if self.name == "leaky_relu" else self.name

    def __call__(self, u: torch.Tensor) -> torch.Tensor:
        """s(u)."""
        if self.name == "relu":
            return torch.clamp(u, min=0.0)
        if self.name == "abs":
            return u.abs()
        if self.name == "erf":
            return torch.erf(u)
        if self.name == "tanh":
            return torch.tanh(u)
        return torch.where(u >= 0, u, self.alpha * u)

    def derivative(self, u: torch.Tensor) -> torch.Tensor:
        """s'(u), with s' = 0 where s is not differentiable (u = 0 for relu, abs, leaky relu)."""
        one, zero = torch.ones_like(u), torch.zeros_like(u)
        if self.name == "relu":
            return torch.where(u > 0, one, zero)
        if self.name == "abs":
            return torch.sign(u)
        if self.name == "erf":
            return 2.0 / math.sqrt(math.pi) * torch.exp(-u * u)
        if self.name == "tanh":
            return sech2(u)
        return torch.where(u > 0, one, torch.where(u < 0, self.alpha * one, zero))

    @property
    def lipschitz(self) -> float:
        """The Lipschitz constant sup |s'|."""
        return {"relu": 1.0, "abs": 1.0, "erf": 2.0 / math.sqrt(math.pi), "tanh": 1.0}.get(self.name, 1.0)


def parse_activation(spec) -> Activation:
    """``"relu"``, ``"abs"``, ``"erf"``, ``"tanh"`` or ``"leaky_relu:ALPHA"`` (0 <= ALPHA < 1)."""
    if isinstance(spec, Activation):
        return spec
    if not isinstance(spec, str):
        raise ValueError(f"activation must be a string, got {type(spec).__name__}")
    if spec in ("relu", "abs", "erf", "tanh"):
        return Activation(spec)
    m = _LEAKY.match(spec)
    if m:
        try:
            alpha = float(m.group("alpha"))
        except ValueError:
            alpha = math.nan
        if not 0.0 <= alpha < 1.0:
            raise ValueError(f"leaky_relu slope must lie in [0, 1), got {m.group('alpha')!r}")
        return Activation("leaky_relu", alpha)
    raise ValueError(f"unknown activation {spec!r}; known: relu, abs, erf, tanh, leaky_relu:ALPHA")


def sech2(u: torch.Tensor) -> torch.Tensor:
    """sech(u)^2 = 4 e^(-2|u|) / (1 + e^(-2|u|))^2, with no overflow and no cancellation."""
    e = torch.exp(-2.0 * u.abs())
    return 4.0 * e / (1.0 + e) ** 2


# ----------------------------------------------------------------------------- angles
def pair_angles(X: torch.Tensor, *, chunk: int = 2**22) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """For the rows x_a of ``X`` (n, d): their norms (n,), the angles theta_ab (n, n) and the
    supplements pi - theta_ab (n, n), by Kahan's formula (see the module docstring).  A zero row
    has angle pi/2 to everything (its kernels do not depend on the angle).  Each row is scaled by
    a power of two (exact) before its norm is taken: a row of norm below ~1e-154 has a subnormal
    squared norm, which lost the angle (the deep profile: rows (6.9e-160, 6.9e-160) and
    (1.35e-7, 1.35e-7) gave pi - theta = pi - 3.5e-5 for parallel rows)."""
    _, e = torch.frexp(X.abs().amax(dim=1, keepdim=True))
    e = e.to(X.dtype)
    Xs = ldexp_exact(X, -e)
    scaled = torch.linalg.vector_norm(Xs, dim=1)
    norms = ldexp_exact(scaled, e[:, 0])
    safe = torch.where(scaled > 0, scaled, torch.ones_like(scaled))
    U = Xs / safe[:, None]
    n, d = X.shape
    theta = torch.empty(n, n, dtype=X.dtype, device=X.device)
    supp = torch.empty_like(theta)
    rows = max(1, chunk // max(1, n * d))
    for lo in range(0, n, rows):
        Ui = U[lo:lo + rows, None, :]
        minus = torch.linalg.vector_norm(Ui - U[None], dim=2)
        plus = torch.linalg.vector_norm(Ui + U[None], dim=2)
        theta[lo:lo + rows] = 2.0 * torch.atan2(minus, plus)
        supp[lo:lo + rows] = 2.0 * torch.atan2(plus, minus)
    zero = norms == 0
    half = torch.full_like(theta, math.pi / 2)
    mask = zero[:, None] | zero[None, :]
    return norms, torch.where(mask, half, theta), torch.where(mask, half, supp)


# ----------------------------------------------------------------------------- closed forms
def _j_series(e: torch.Tensor) -> torch.Tensor:
    """sin(e) - e cos(e) = sum_{k>=1} (-1)^(k+1) 2k e^(2k+1)/(2k+1)!, for 0 <= e < 1 (12 terms:
    the first dropped term is below 1e-20 of the sum)."""
    e2 = e * e
    out = torch.zeros_like(e)
    power = e * e2
    for k in range(1, 13):
        out = out + ((-1) ** (k + 1) * 2 * k / float(math.factorial(2 * k + 1))) * power
        power = power * e2
    return out


def arccos1(theta: torch.Tensor, supp: torch.Tensor) -> torch.Tensor:
    """J(theta) = sin(theta) + (pi - theta) cos(theta), given theta and pi - theta (both in [0, pi])."""
    direct = torch.sin(theta) + supp * torch.cos(theta)
    near_pi = torch.sin(supp) - supp * torch.cos(supp)
    series = _j_series(torch.clamp(supp, max=1.0))
    return torch.where(theta <= math.pi / 2, direct, torch.where(supp < 1.0, series, near_pi))


def _erf_parts(a, b, theta):
    """(2ab cos(theta), sqrt(R)) divided by max(1, ab) (so neither overflows)."""
    ab = a * b
    big = ab > 1.0
    s = torch.where(big, ab, torch.ones_like(ab))
    a2 = torch.where(big, 1.0 / b**2, a * a)   # a^2 / s^2 when big: a^2/(a b)^2 = 1/b^2
    b2 = torch.where(big, 1.0 / a**2, b * b)
    one = torch.where(big, 1.0 / s**2, torch.ones_like(s))
    sin2 = torch.sin(theta) ** 2
    r = one + 2 * a2 + 2 * b2 + 4 * torch.where(big, torch.ones_like(s), ab * ab) * sin2
    num = 2 * torch.where(big, torch.ones_like(s), ab) * torch.cos(theta)
    return num, torch.sqrt(r), s


def dual(activation, a, b, theta, supp=None, *, derivative: bool = False) -> torch.Tensor:
    """E[s(u) s(v)] (``derivative=False``) or E[s'(u) s'(v)] for the pair of the module docstring.

    ``a``, ``b`` >= 0 (standard deviations), ``theta`` in [0, pi] and ``supp`` = pi - theta (give
    it when it is known more accurately than by subtraction, as ``pair_angles`` returns it)."""
    act = parse_activation(activation)
    a, b, theta = (torch.as_tensor(t, dtype=DTYPE) for t in (a, b, theta))
    supp = math.pi - theta if supp is None else torch.as_tensor(supp, dtype=DTYPE)
    for name, t in (("a", a), ("b", b), ("theta", theta), ("supp", supp)):
        if torch.isnan(t).any() or torch.isinf(t).any():
            raise ValueError(f"{name} must be finite")
    if (a < 0).any() or (b < 0).any():
        raise ValueError("the standard deviations a, b must be >= 0")
    if (theta < 0).any() or (theta > math.pi).any():
        raise ValueError("theta must lie in [0, pi]")
    a, b, theta, supp = torch.broadcast_tensors(a, b, theta, supp)
    both = (a > 0) & (b > 0)
    zero = torch.zeros_like(a)
    name = act.name
    if name == "tanh":
        return tanh_dual(a, b, theta, supp, derivative=derivative)
    if name == "erf":
        num, root, s = _erf_parts(a, b, theta)
        if derivative:
            return 4.0 / math.pi / (root * s)
        return 2.0 / math.pi * torch.atan2(num, root)
    if not derivative:
        k = a * b / (2 * math.pi)
        if name == "relu":
            return k * arccos1(theta, supp)
        if name == "abs":
            return 4 * k * (torch.sin(theta) + 0.5 * (supp - theta) * torch.cos(theta))
        al = act.alpha
        return k * ((1 + al * al) * arccos1(theta, supp) - 2 * al * arccos1(supp, theta))
    if name == "relu":
        return torch.where(both, supp / (2 * math.pi), zero)
    if name == "abs":
        return torch.where(both, (supp - theta) / math.pi, zero)
    al = act.alpha
    return torch.where(both, ((1 + al * al) * supp + 2 * al * theta) / (2 * math.pi), zero)


# ----------------------------------------------------------------------------- quadrature
def _gl(device) -> tuple[torch.Tensor, torch.Tensor]:
    x, w = np.polynomial.legendre.leggauss(GL_ORDER)
    return torch.as_tensor(x, dtype=DTYPE, device=device), torch.as_tensor(w, dtype=DTYPE, device=device)


def _panels(edges: torch.Tensor, x: torch.Tensor, w: torch.Tensor):
    """Nodes and weights of Gauss-Legendre on the panels between sorted ``edges`` (..., E):
    returns (..., (E-1) * GL_ORDER) each."""
    lo, hi = edges[..., :-1, None], edges[..., 1:, None]
    half = (hi - lo) / 2
    nodes = lo + half * (x + 1)
    weights = half * w
    shape = edges.shape[:-1] + (-1,)
    return nodes.reshape(shape), weights.reshape(shape)


def _angular_cosines(edges: torch.Tensor, theta: torch.Tensor, x: torch.Tensor, w: torch.Tensor):
    """cos(phi), cos(phi - theta) at the Gauss-Legendre nodes phi of the panels between sorted
    ``edges`` (P, E), and the weights: :func:`_panels` with each node lo + half (x + 1) kept in
    double-double (nh + nl) and cos(nh + nl) = cos(nh) - sin(nh) nl (the dropped nl^2 cos(nh)/2 is
    below 1e-32), so that a cosine near its zero keeps its relative accuracy."""
    lo, hi = edges[..., :-1, None], edges[..., 1:, None]
    half = (hi - lo) / 2
    ph, pl = dd.two_prod(half, x + 1)
    nh, e = dd.two_sum(lo, ph)
    nl = e + pl
    dh, e = dd.two_sum(nh, -theta[:, None, None])
    dl = e + nl
    shape = edges.shape[:-1] + (-1,)
    cos_phi = torch.cos(nh) - torch.sin(nh) * nl
    cos_rel = torch.cos(dh) - torch.sin(dh) * dl
    return cos_phi.reshape(shape), cos_rel.reshape(shape), (half * w).reshape(shape)


def polar_expectation(f: Callable, g: Callable, a, b, theta, *, budget: int = 2**22) -> torch.Tensor:
    """E[f(u) g(v)] by the polar quadrature of the module docstring; f, g map tensors to tensors."""
    a, b, theta = torch.broadcast_tensors(*(torch.as_tensor(t, dtype=DTYPE) for t in (a, b, theta)))
    shape = a.shape
    a, b, theta = a.reshape(-1), b.reshape(-1), theta.reshape(-1)
    x, w = _gl(a.device)
    out = torch.empty_like(a)
    if a.numel() == 0:
        return out.reshape(shape)
    scale = max(float(a.max()), float(b.max()), 1.0)
    levels = max(0, math.ceil(math.log2(math.pi / 4 * 40 * scale)))
    offsets = math.pi / 4 * 2.0 ** -torch.arange(levels + 1, dtype=DTYPE, device=a.device)
    n_phi = (4 * (2 * (levels + 1) + 1) + 1) * GL_ORDER
    n_r = (11 + 2 * len(_R_GRADES) - 1) * GL_ORDER
    step = max(1, budget // (n_phi * n_r))
    grades = torch.as_tensor(_R_GRADES, dtype=DTYPE, device=a.device)
    fixed = torch.arange(0, 11, dtype=DTYPE, device=a.device) * (_R_MAX / 10)
    for lo in range(0, a.numel(), step):
        aa, bb, th = a[lo:lo + step], b[lo:lo + step], theta[lo:lo + step]
        kinks = torch.stack([torch.full_like(th, math.pi / 2), torch.full_like(th, 1.5 * math.pi),
                             th + math.pi / 2, th + 1.5 * math.pi], dim=1)
        pts = torch.cat([kinks, (kinks[:, :, None] + offsets).reshape(len(th), -1),
                         (kinks[:, :, None] - offsets).reshape(len(th), -1)], dim=1)
        pts = torch.remainder(pts, 2 * math.pi)
        edges = torch.cat([torch.zeros_like(th)[:, None], pts, torch.full_like(th, 2 * math.pi)[:, None]], dim=1)
        cos_phi, cos_rel, wphi = _angular_cosines(torch.sort(edges, dim=1).values, th, x, w)  # (P, Nphi)
        al = aa[:, None] * cos_phi
        be = bb[:, None] * cos_rel
        with torch.no_grad():
            inv = torch.stack([1.0 / al.abs(), 1.0 / be.abs()], dim=-1)      # inf where 0
            scaled = (inv[..., None] * grades).reshape(*cos_phi.shape, -1).clamp(max=_R_MAX)
        redges = torch.cat([fixed.expand(*cos_phi.shape, -1), scaled], dim=-1)
        r, wr = _panels(torch.sort(redges, dim=-1).values, x, w)             # (P, Nphi, Nr)
        body = f(al[..., None] * r) * g(be[..., None] * r) * r * torch.exp(-r * r / 2)
        radial = (body * wr).sum(-1)
        out[lo:lo + step] = (radial * wphi).sum(-1) / (2 * math.pi)
    return out.reshape(shape)


# ----------------------------------------------------------------------------- trapezoid
def trapezoid_expectation(f: Callable, a, b, cos_t, sin_t, h: float, K: int, *, budget: int = 2**22) -> torch.Tensor:
    """E[f(u) f(v)] for u = a g1, v = b cos(t) g1 + b sin(t) g2 (g1, g2 iid N(0, 1): the pair of the
    module docstring, rotated exactly), by the tensor trapezoidal rule

        sum_{|j|, |k| <= K} w_j w_k f(a g_j) f(P g_j + Q g_k),   g_k = k h,  w_k = h phi(k h),

    P = b cos(t), Q = b sin(t), phi the standard normal density.  The weights are not normalised.

    Error (f = tanh or sech^2, s = max(a, b) <= s_max).  Trefethen & Weideman (SIAM Review 56,
    2014, Theorem 5.1): if w is analytic in the strip |Im z| < alpha, w(z) -> 0 uniformly as
    |Re z| -> oo there and int |w(x + iy)| dx <= M for |y| < alpha, then |h sum_(k in Z) w(kh) - int w|
    <= 2M/(e^(2 pi alpha/h) - 1).  Apply it to the inner integral over g2 at each node g_j and to the
    outer one over g1 (whose integrand holds the exact inner integral H(g1)), with alpha < pi/(2 s_max):
    the arguments a z1, P z1 + Q z2 then have |Im| <= tau = s_max alpha < pi/2, and tanh's and
    sech^2's poles lie at Im = +-pi/2 (2m + 1).  |phi(x + iy)| = phi(x) e^(y^2/2); in |Im w| <= tau,
    |sech^2 w| <= S = 1/cos(tau)^2 (|cosh(x + iy)|^2 = sinh^2 x + cos^2 y) and |tanh w| <= K_tau |w|,
    K_tau = max(1, tan tau)/tau (tanh(w)/w is analytic there and vanishes at infinity, so its modulus
    is largest on Im w = +-tau, where |tanh| <= max(1, tan tau) and |w| >= tau).  With |P|, Q <= b,
    the lattice moments mu_p = h sum_(k in Z) phi(kh) |kh|^p, their tails tau_p over |k| > K, m = E|g| =
    sqrt(2/pi) and D = e^(2 pi alpha/h) - 1:

        tanh:    |error| <= a b [2 K_tau e^(alpha^2/2) (mu_2 + (m + alpha) mu_1)/D
                              + 2 K_tau^2 e^(alpha^2/2) (1 + m (2 alpha + m) + alpha (alpha + m))/D
                              + tau_2 mu_0 + 2 tau_1 mu_1 + mu_2 tau_0],
        sech^2:  |error| <= 2 e^(alpha^2/2) S (mu_0 + S)/D + 2 tau_0 mu_0

    (inner errors summed against the outer weights, |tanh x| <= |x| on the real line; the outer
    error; the nodes beyond the square), for every such alpha.  The entry's scale is at least
    a b E[tanh(s_max g)^2]/s_max^2 (tanh(x)/x decreases in |x|) and E[sech(s_max g)^4], so the
    relative error is at most ``trapezoid_bound``.  Rounding: the terms' absolute values sum to
    about sqrt(G_aa G_bb) (Cauchy-Schwarz on the positive lattice measure), so the float64 sum
    adds a few eps of it."""
    a, b, cos_t, sin_t = (torch.as_tensor(t, dtype=DTYPE) for t in (a, b, cos_t, sin_t))
    g = torch.arange(-K, K + 1, dtype=DTYPE, device=a.device) * h
    w = h * torch.exp(-g * g / 2) / math.sqrt(2 * math.pi)
    P, Q = b * cos_t, b * sin_t
    out = torch.empty_like(a)
    step = max(1, budget // len(g) ** 2)
    for lo in range(0, a.numel(), step):
        sl = slice(lo, lo + step)
        outer = f(a[sl, None] * g) * w                                          # (p, N)
        inner = f(P[sl, None, None] * g[:, None] + Q[sl, None, None] * g) @ w   # (p, N)
        out[sl] = (outer * inner).sum(-1)
    return out


def _lattice_moments(h: float, K: int) -> tuple[list[float], list[float]]:
    """mu_p = h sum_(k in Z) phi(kh) |kh|^p and its tail over |k| > K, p = 0, 1, 2 (the sum stops
    at |kh| = 40, where phi is below 1e-347: zero in float64)."""
    g = np.arange(0, math.ceil(40 / h) + 1) * h
    w = h * np.exp(-g * g / 2) / math.sqrt(2 * math.pi)
    w[1:] *= 2
    return ([float(np.sum(w * g**p)) for p in range(3)], [float(np.sum((w * g**p)[K + 1:])) for p in range(3)])


def trapezoid_bound(s_max: float, h: float, K: int, *, derivative: bool, alphas: int = 400) -> float:
    """The a priori bound of ``trapezoid_expectation``'s error relative to the entry's scale, for
    f = tanh (``derivative=False``) or sech^2 at pair scales max(a, b) <= s_max: its docstring's
    bound minimised over ``alphas`` strip half-widths alpha = pi/(2 s_max) (i/alphas), i = 1 ..
    alphas - 1 (each is a valid bound).  The scale's lower bounds E[tanh(s_max g)^2] and
    E[sech(s_max g)^4] are the trapezoidal rule h = 1/64 (converged to float64)."""
    mu, tau = _lattice_moments(h, K)
    m = math.sqrt(2 / math.pi)
    best = math.inf
    for i in range(1, alphas):
        alpha = math.pi / (2 * s_max) * i / alphas
        t = s_max * alpha
        D, ea = math.expm1(2 * math.pi * alpha / h), math.exp(alpha * alpha / 2)
        if derivative:
            S = 1 / math.cos(t) ** 2
            err = 2 * ea * S * (mu[0] + S) / D + 2 * tau[0] * mu[0]
        else:
            Kt = max(1.0, math.tan(t)) / t
            err = (2 * Kt * ea * (mu[2] + (m + alpha) * mu[1]) / D
                   + 2 * Kt * Kt * ea * (1 + m * (2 * alpha + m) + alpha * (alpha + m)) / D
                   + tau[2] * mu[0] + 2 * tau[1] * mu[1] + mu[2] * tau[0])
        best = min(best, err)
    g = np.arange(-40 * 64, 40 * 64 + 1) / 64
    w = np.exp(-g * g / 2) / (64 * math.sqrt(2 * math.pi))
    e = np.exp(-2 * np.abs(s_max * g))
    if derivative:
        scale = float(np.sum(w * (4 * e / (1 + e) ** 2) ** 2))
    else:
        scale = float(np.sum(w * np.tanh(s_max * g) ** 2)) / s_max**2
    return best / scale


def tanh_dual(a, b, theta, supp, *, derivative: bool = False, rules=None) -> torch.Tensor:
    """E[tanh(u) tanh(v)] (or E[sech^2(u) sech^2(v)]) for the pair of the module docstring: each
    pair with s = max(a, b) <= s_max of a row (s_max, h, K) of ``rules`` (default
    ``TRAPEZOID_RULES``; ``()`` forces the polar rule everywhere) by ``trapezoid_expectation`` with
    the first such row, the rest by ``polar_expectation``.  cos(theta) and sin(theta) are taken
    from whichever of theta, pi - theta is at most pi/2 (no loss of relative accuracy near 0 or pi)."""
    rules = TRAPEZOID_RULES if rules is None else rules
    f = sech2 if derivative else torch.tanh
    a, b, theta, supp = torch.broadcast_tensors(*(torch.as_tensor(t, dtype=DTYPE) for t in (a, b, theta, supp)))
    shape = a.shape
    a, b, theta, supp = (t.reshape(-1) for t in (a, b, theta, supp))
    low = theta <= math.pi / 2
    cos_t = torch.where(low, torch.cos(theta), -torch.cos(supp))
    sin_t = torch.sin(torch.minimum(theta, supp))
    s = torch.maximum(a, b)
    out = torch.empty_like(a)
    todo = torch.ones_like(a, dtype=torch.bool)
    for s_max, h, K in rules:
        sel = todo & (s <= s_max)
        if sel.any():
            out[sel] = trapezoid_expectation(f, a[sel], b[sel], cos_t[sel], sin_t[sel], h, K)
        todo &= ~sel
    if todo.any():
        out[todo] = polar_expectation(f, f, a[todo], b[todo], theta[todo])
    return out.reshape(shape)
