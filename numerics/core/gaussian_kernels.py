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

tanh has no closed form.  ``polar_expectation`` integrates E[f(u) g(v)] in polar coordinates of
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
        f = sech2 if derivative else torch.tanh
        return polar_expectation(f, f, a, b, theta)
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
