"""Gradient flow (11) at one training point (n = 1) with sigma = tanh, reduced to one scalar clock.

At n = 1, (11) reads hdot_i = -rate c_i G r(t) sigma'(h_i) with the one residual
r = alpha sum_i c_i sigma(h_i) - y: every neuron moves along its own curve, and all of them are
driven by the same scalar.  With the clock s(t) = int_0^t rate G r(t') dt', each neuron solves
dh_i/ds = -c_i sigma'(h_i), which for tanh (sigma' = 1/cosh^2) integrates in closed form,
cosh^2(h) dh = -c_i ds, i.e. h/2 + sinh(2h)/4 falls by c_i s.  Written for delta_i = h_i(s) - h_i(0)
without cancellation (sinh A - sinh B = 2 cosh((A + B)/2) sinh((A - B)/2)):

    phi_i(delta) = delta/2 + cosh(2 h_i(0) + delta) sinh(delta)/2 = -c_i s,      phi_i' = cosh^2(h_i),

a strictly increasing equation (phi' >= 1) whose two terms share the sign of delta, solved per
neuron by Newton's method (``features``).  So r is a function of s alone, and strictly monotone:
dr/ds = -alpha sum_i c_i^2 sigma'(h_i)^2 < 0, while ds/dt = rate G r(s).  The flow therefore moves
s towards the root s* of r (from either side), r never changes sign, |r| falls to 0 as t -> oo,
and the time at which the flow reaches s is the quadrature

    t(s) = int_0^s du / (rate G r(u))      (u between 0 and s, so the integrand never meets its pole at s*).

``flow`` records the state each time |r| has fallen by about ``ratio`` (1/sqrt 2: the loss halves;
the next s from a Newton step of r), integrates t over each panel between records with
Gauss-Legendre rules of 6 and 4 nodes (their difference bounds the error of the 6-node value: 1/r
has its pole at s*, 1/(sqrt 2 - 1) = 2.4 panel lengths beyond the panel's end, where r is close to
linear, which puts the 6-node error near 11.6^-12 ~ 2e-13 of the panel's value and the 4-node
one near 3e-9), and stops at the first record whose loss L = r^2/2 is below ``resolve`` times its
rounding floor (``rates.rounding_floor``): what lies below is not resolved.  It also
solves r(s*) = 0 for the limit state h(oo) (Newton's method in s): each h_i(s) is monotone in s, so
the features' movement |h_i(t) - h_i(0)| is largest there, for every t.

Cost: one ``features`` solve per node, O(m) each (a few Newton iterations of three hyperbolic
functions per neuron), 11 per halving of L: at m = 1e8 minutes of one core, where RK4 on (11)
needs hours (its step is set by the fast decay of r).  Only tanh at n = 1; ``dynamics.integrate``
is the general integrator and the witness of this reduction (tests/meanfield/test_one_point.py).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import torch

from numerics.core.arrays import DTYPE

from . import dynamics as dy
from . import rates

#: neurons per block of the Newton solve: a few arrays of this many float64 stay in cache
_BLOCK = 1 << 16
#: Newton stops when the error its last step leaves (about step^2) is below this many units of (1 + |h|)
_CONVERGED = 4.0
_EPS = float(torch.finfo(DTYPE).eps)
_MAX_NEWTON = 60
_GL = {n: np.polynomial.legendre.leggauss(n) for n in (6, 4)}


def _check(p: dy.Problem) -> None:
    if p.h0.shape[1] != 1 or p.act.name != "tanh":
        raise ValueError(f"the one-point reduction needs n = 1 and tanh, got n = {p.h0.shape[1]}, {p.act.spec}")


@dataclass
class Solve:
    """The features at clock s: delta = h(s) - h(0) (m,), r(s), dr/ds and ``update``, a bound on the
    error of delta (what Newton's last step leaves, about step^2, plus the rounding of phi)."""

    s: float
    delta: torch.Tensor
    r: float
    dr_ds: float
    update: float


def features(p: dy.Problem, s: float, guess: torch.Tensor | None = None) -> Solve:
    """Solve phi_i(delta_i) = -c_i s for every neuron (module docstring) by Newton's method from
    ``guess`` (default: the first-order delta = -c_i s sech^2(h_i(0))), blockwise; with r(s) =
    alpha sum c_i tanh(h_i) - y and dr/ds = -alpha sum c_i^2 sech^4(h_i) summed in float64 blocks."""
    _check(p)
    h0, c = p.h0[:, 0], p.c
    delta = torch.empty_like(h0)
    f_parts, d_parts, worst = [], [], 0.0
    for lo in range(0, h0.shape[0], _BLOCK):
        a, cb = h0[lo:lo + _BLOCK], c[lo:lo + _BLOCK]
        target = -cb * s
        d = (target / torch.cosh(a) ** 2) if guess is None else guess[lo:lo + _BLOCK].clone()
        for _ in range(_MAX_NEWTON):
            phi = 0.5 * d + 0.5 * torch.cosh(2.0 * a + d) * torch.sinh(d)
            step = (phi - target) / torch.cosh(a + d) ** 2
            d -= step
            # phi''/phi' = 2 tanh(h): the error left after a step is at most about step^2
            left = float((step * step / (1.0 + (a + d).abs())).max())
            if left <= _CONVERGED * _EPS:
                break
        else:
            raise ArithmeticError(f"Newton's method for the one-point features did not converge at s = {s!r}")
        # what Newton leaves, plus a few units of rounding in phi's two same-signed terms
        worst = max(worst, float((step * step).max()) + 4 * _EPS * float(d.abs().max()))
        delta[lo:lo + _BLOCK] = d
        h = a + d
        f_parts.append(float(cb @ torch.tanh(h)))
        sech2 = 1.0 / torch.cosh(h) ** 2
        d_parts.append(float((cb * cb) @ (sech2 * sech2)))
    r = p.alpha * math.fsum(f_parts) - float(p.y[0])
    return Solve(float(s), delta, r, -p.alpha * math.fsum(d_parts), worst)


@dataclass
class OnePointFlow:
    """Records of the reduced flow: clock values, times, losses L = r^2/2, dL/dt = rate G r^2 dr/ds,
    the quadrature error bound of each time, the rounding floor of each loss, the largest error
    bound of delta over every solve (``Solve.update``), and s* (r(s*) = 0) with |r| there."""

    s: list[float] = field(default_factory=list)
    times: list[float] = field(default_factory=list)
    losses: list[float] = field(default_factory=list)
    rates: list[float] = field(default_factory=list)
    time_errors: list[float] = field(default_factory=list)
    floors: list[float] = field(default_factory=list)
    newton_update: float = 0.0
    s_star: float = math.nan
    r_star: float = math.nan
    solves: int = 0

    def tolerances(self) -> list[float]:
        """Per record: the loss's rounding floor plus |dL/dt| times the time's error bound (a time off
        by dt moves the loss the bound is compared with by about |dL/dt| dt)."""
        return [f + abs(v) * e for f, v, e in zip(self.floors, self.rates, self.time_errors)]


def flow(p: dy.Problem, *, ratio: float = 2**-0.5, resolve: float = 100.0, max_records: int = 200,
         visit: Callable[[torch.Tensor], None] | None = None,
         progress: Callable[[float], None] | None = None) -> OnePointFlow:
    """The reduced flow (module docstring) from s = 0 until L < ``resolve`` x its rounding floor
    (or ``max_records`` records); ``visit(h)`` is called with each recorded state h (m, 1), and last
    with the limit state h(oo); ``progress(L)`` with each record's loss."""
    _check(p)
    if not 0 < ratio < 1:
        raise ValueError(f"ratio must lie in (0, 1), got {ratio}")
    kappa = p.rate * float(p.G[0, 0])
    if not kappa > 0:
        raise ValueError(f"the one-point flow needs rate G > 0, got {kappa}")
    out = OnePointFlow()
    cur = features(p, 0.0, torch.zeros_like(p.h0[:, 0]))
    positive = cur.r > 0
    t, t_err = 0.0, 0.0

    def solve(s: float, guess: torch.Tensor) -> Solve:
        sol = features(p, s, guess)
        out.solves += 1
        out.newton_update = max(out.newton_update, sol.update)
        return sol

    def record(sol: Solve) -> bool:
        h = (p.h0[:, 0] + sol.delta)[:, None]
        out.s.append(sol.s)
        out.times.append(t)
        out.time_errors.append(t_err)
        out.losses.append(0.5 * sol.r * sol.r)
        out.rates.append(kappa * sol.r * sol.r * sol.dr_ds)
        out.floors.append(rates.rounding_floor(p, h))
        if visit is not None:
            visit(h)
        if progress is not None:
            progress(out.losses[-1])
        return out.losses[-1] >= resolve * out.floors[-1]

    out.solves = 1
    resolved = record(cur)
    while resolved and cur.r != 0 and len(out.s) < max_records:
        nxt = cur.s + (ratio - 1.0) * cur.r / cur.dr_ds  # Newton's step of r towards ratio * r
        half, mid = 0.5 * (nxt - cur.s), 0.5 * (nxt + cur.s)
        panel = {}
        for n, (x, w) in _GL.items():
            vals, guess = [], cur.delta
            for xi in x:
                sol = solve(mid + half * xi, guess)
                guess = sol.delta
                if sol.r == 0 or (sol.r > 0) != positive:
                    raise ArithmeticError(f"r changed sign inside a panel (s = {sol.s!r}): the step passed s*")
                vals.append(1.0 / (kappa * sol.r))
            panel[n] = half * float(np.dot(w, vals))
        t += panel[6]
        t_err += abs(panel[6] - panel[4]) + 4 * np.finfo(float).eps * t
        cur = solve(nxt, cur.delta)
        if cur.r != 0 and (cur.r > 0) != positive:
            raise ArithmeticError(f"r changed sign at a record (s = {cur.s!r}): the step passed s*")
        resolved = record(cur)
    star = cur
    for _ in range(_MAX_NEWTON):
        if star.r == 0:
            break
        step = star.r / star.dr_ds
        star = solve(star.s - step, star.delta)
        if abs(step) <= 4 * np.finfo(float).eps * abs(star.s):
            break
    out.s_star, out.r_star = star.s, star.r
    if visit is not None:
        visit((p.h0[:, 0] + star.delta)[:, None])
    return out
