"""A linear rate L_t <= A e^{-k t} judged along an integrated flow only where L_t is resolved.

(16), Theorem 1 (17) and its instances bound the loss of the flow (11) by an exponential.  The
loss of an RK4 run (``numerics.meanfield.dynamics.integrate``) carries the integrator's error, and
a bound compared with a loss below that error tests nothing (a ratio L_t/bound of 0 there says
only that both are small).  So:

- the error of L at a recorded time t is estimated by step halving: the finer run's error is about
  1/15 of |L_N(t) - L_2N(t)| (Richardson, RK4's order 4), and ``safety`` (10) times the difference
  is charged.  The difference can pass through 0 by accident, so it is taken as a running maximum
  relative to sqrt(L) (to first order the error of L is r . df, |r| = sqrt(2 L)):
  tol_t = safety sqrt(L_t) max_{s <= t} |L_N(s) - L_2N(s)|/sqrt(L_s), plus a rounding floor (the
  rounding of one evaluation of L, ``rounding_floor``);
- a time t > 0 is *resolved* when L_t >= resolve tol_t (resolve = 100: L_t known to 1 %), and the
  rate is judged at resolved times only: ratio = max (L_t + tol_t)/(A e^{-k t}) (<= 1: the bound
  holds there at the worst of the error), judged = their number;
- fastest = min over judged t of -log((L_t - tol_t)/A)/t: the largest exponent a bound A e^{-k t}
  could have and still hold at every judged time (k above it is rejected), so fastest/k is the
  slack of the claimed rate on this run.

``judge_flow`` integrates over a horizon (at most 25 e-folds of the flow's initial decay) and shrinks
it (by 4) until at least half of the recorded times are resolved, so that the judged times are spread
over the part of the flow where the loss is still measurable.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from numerics.core.tolerance import EPS

from . import dynamics as dy


@dataclass(frozen=True)
class RateJudgement:
    """ratio: max over judged t of (L_t + tol_t)/(A e^{-k t}) (NaN when nothing was judged);
    judged: the number of resolved times t > 0; fastest: min over them of -log((L_t - tol_t)/A)/t;
    horizon: the last judged time (0 when none)."""

    ratio: float
    judged: int
    fastest: float
    horizon: float

    @property
    def holds(self) -> bool:
        return self.judged > 0 and self.ratio <= 1.0


def loss_tolerances(losses, halving, *, safety: float = 10.0, floor=None) -> list[float]:
    """tol_t = safety sqrt(L_t) max_{s <= t} |L_N(s) - L_2N(s)|/sqrt(L_s) + floor_t (module docstring);
    ``halving`` the per-time step-halving differences of L, ``floor`` per-time rounding bounds (or None)."""
    if len(losses) != len(halving) or (floor is not None and len(floor) != len(losses)):
        raise ValueError(f"lengths differ: {len(losses)} losses, {len(halving)} differences")
    out, worst = [], 0.0
    for k, (L, d) in enumerate(zip(losses, halving)):
        if not (math.isfinite(L) and L >= 0 and math.isfinite(d) and d >= 0):
            raise ValueError(f"record {k}: loss {L!r} and halving difference {d!r} must be finite and >= 0")
        if L > 0:
            worst = max(worst, d / math.sqrt(L))
        elif d > 0:
            worst = math.inf
        out.append(safety * math.sqrt(L) * worst + (0.0 if floor is None else floor[k]))
    return out


def judge(times, losses, tols, *, A: float, k: float, resolve: float = 100.0) -> RateJudgement:
    """L_t <= A e^{-k t} judged at the times t > 0 with L_t >= resolve tol_t (module docstring)."""
    if not (len(times) == len(losses) == len(tols)):
        raise ValueError(f"lengths differ: {len(times)} times, {len(losses)} losses, {len(tols)} tolerances")
    if not (A > 0 and math.isfinite(A) and k >= 0 and math.isfinite(k) and resolve >= 1):
        raise ValueError(f"need A > 0, k >= 0 finite and resolve >= 1 (got {A!r}, {k!r}, {resolve!r})")
    ratio, judged, fastest, horizon = -math.inf, 0, math.inf, 0.0
    for t, L, tol in zip(times, losses, tols):
        if not (math.isfinite(L) and L >= 0 and tol >= 0):
            raise ValueError(f"t = {t}: loss {L!r} and tolerance {tol!r} must be finite and >= 0")
        if t <= 0 or L < resolve * tol or L == 0:
            continue
        judged += 1
        horizon = max(horizon, t)
        # A e^{-k t} computed in logs, so that a large k t does not underflow to a division by 0
        ratio = max(ratio, math.exp(math.log(L + tol) - math.log(A) + k * t))
        fastest = min(fastest, -math.log((L - tol) / A) / t)
    if not judged:
        return RateJudgement(math.nan, 0, math.nan, 0.0)
    return RateJudgement(ratio, judged, fastest, horizon)


def rounding_floor(p: dy.Problem, h) -> float:
    """A bound on the rounding of one evaluation of L = (1/2) |f - y|^2 at h: each f_a is a sum of m
    products, off by at most gamma_m alpha sum_i |c_i sigma(h_ia)| (Higham), so with e that vector
    |dL| <= |r| |e| + |e|^2/2, and the final sum of squares adds (n + 2) eps L."""
    m, n = p.h0.shape
    gamma = m * EPS / (1 - m * EPS)
    e = gamma * p.alpha * (p.c.abs() @ p.act(h).abs())
    r = dy.output(p, h) - p.y
    e2, L = float(e @ e), float(0.5 * r @ r)
    return math.sqrt(2 * L) * math.sqrt(e2) + e2 / 2 + (n + 2) * EPS * L


def judge_flow(p: dy.Problem, T: float, k: float, *, records: int = 32, rtol: float = 1e-8,
               max_steps: int = 2**14, shrink: int = 6, resolve: float = 100.0):
    """Integrate (11) over [0, T] and judge L_t <= L_0 e^{-k t} at the resolved recorded times;
    T is first cut to 25 e-folds of the flow's initial decay, 25 L_0/|dL/dt(0)| (beyond it L_t/L_0 <
    1e-11 if that decay persisted: the flow is often far faster than the bound), then, while fewer
    than half of the records are resolved, T /= 4 (at most ``shrink`` times).  Returns
    (trajectory, RateJudgement)."""
    L0, rate0 = dy.loss(p, p.h0), -dy.loss_rate(p, p.h0)
    if L0 > 0 and rate0 > 0:
        T = min(T, 25 * L0 / rate0)
    for _ in range(shrink + 1):
        traj = dy.integrate(p, T, records=records, rtol=rtol, max_steps=max_steps)
        floor = [rounding_floor(p, h) for h in traj.states]
        tols = loss_tolerances(traj.losses, traj.loss_halving, floor=floor)
        got = judge(traj.times, traj.losses, tols, A=traj.losses[0], k=k, resolve=resolve)
        if 2 * got.judged >= records:
            break
        T /= 4
    return traj, got
