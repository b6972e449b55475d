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
  slack of the claimed rate on this run;
- decay = k t_max, t_max the last judged time: how much of the exponential was tested (the bound
  there is e^{-decay} A), and floored: whether a recorded time after t_max is unresolved, i.e. the
  judged horizon ends where the loss reached its resolution floor (a flow faster than the bound
  gets there while the bound has barely decayed, and nothing later can be judged directly);
- extended (``monotone``, for a loss that cannot increase along the flow): past a judged time s the
  loss stays below L_s + tol_s, so the bound holds wherever A e^{-k t} >= L_s + tol_s, up to
  k t* = max over judged s of log(A/(L_s + tol_s)) >= decay.  The flow (11) is a gradient flow of
  L in the features (dL/dt = -r^T H r with H = (c^2/m) sum_i D_i G D_i positive semi-definite: the
  left side of (14), witnessed by the ``eq.14`` campaign), so a fast flow's bound is tested over
  many e-folds where the loss itself is below its resolution.  The recorded losses must bear it
  out (each L_{j+1} <= L_j + tol_j + tol_{j+1}); where they do not, nothing is extended.

``judge_horizon`` (``judge_flow`` for (11) by RK4) chooses the horizon: the requested T (callers ask
for ``E_FOLDS``/k: the bound decayed by e^-10 = 4.5e-5, over four orders of magnitude) unless the
loss reaches its resolution floor before T, and then up to that floor, with at least half the records
judged (so that the judged times are spread over the part of the flow where the loss is measurable).
A cheap first guess (25 e-folds of the flow's initial decay, when shorter) is only a guess: while the
loss is still resolved at its end the horizon grows, since a fast start need not persist (L_t = 1/2 +
e^{-200 t}/2 decays at 100 L_0 at t = 0, and violates L_0 e^{-t} for t > ln 2).  Where the loss
reaches its floor depends on the run as well as on the flow (step halving holds the states' error
to rtol over the whole horizon, so a shorter run resolves a smaller loss), hence the search.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

from numerics.core.tolerance import EPS

from . import dynamics as dy

#: the horizon callers request, in units of 1/k: the bound decays to e^-10 = 4.5e-5 of A over it
E_FOLDS = 10.0


@dataclass(frozen=True)
class RateJudgement:
    """ratio: max over judged t of (L_t + tol_t)/(A e^{-k t}) (NaN when nothing was judged);
    judged: the number of resolved times t > 0; fastest: min over them of -log((L_t - tol_t)/A)/t;
    horizon: the last judged time t_max (0 when none); decay: k t_max; floored: a recorded time
    after t_max is unresolved (the loss reached its resolution floor there); extended: k t* to which
    the bound holds by the loss's monotonicity (module docstring; = decay when not claimed)."""

    ratio: float
    judged: int
    fastest: float
    horizon: float
    decay: float
    floored: bool
    extended: float = math.nan

    def describe(self) -> str:
        return describe_horizon(self.decay, self.floored, self.extended)

    @property
    def holds(self) -> bool:
        return self.judged > 0 and self.ratio <= 1.0


def describe_horizon(decay: float, floored: bool, extended: float = math.nan) -> str:
    """How much of the exponential was judged (``RateJudgement``'s decay = k t_max, floored and
    extended), for a verdict's detail."""
    end = "the loss then at its resolution floor" if floored else "the loss still resolved"
    text = f"k t_max = {decay:.3g} (the bound at e^-k t_max = {math.exp(-decay):.2g} of A; {end})"
    if math.isfinite(extended) and extended > decay:
        text += (f"; the loss being non-increasing along the flow, the bound holds to k t = {extended:.3g} "
                 f"(e^-k t = {math.exp(-extended):.2g} of A, still above L_s + tol_s)")
    return text


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


def judge(times, losses, tols, *, A: float, k: float, resolve: float = 100.0, monotone: bool = False) -> RateJudgement:
    """L_t <= A e^{-k t} judged at the times t > 0 with L_t >= resolve tol_t; with ``monotone`` (a loss
    that cannot increase along its flow) also how far the judged times carry it (module docstring)."""
    if not (len(times) == len(losses) == len(tols)):
        raise ValueError(f"lengths differ: {len(times)} times, {len(losses)} losses, {len(tols)} tolerances")
    if not (A > 0 and math.isfinite(A) and k >= 0 and math.isfinite(k) and resolve >= 1):
        raise ValueError(f"need A > 0, k >= 0 finite and resolve >= 1 (got {A!r}, {k!r}, {resolve!r})")
    ratio, judged, fastest, horizon, unresolved = -math.inf, 0, math.inf, 0.0, []
    for t, L, tol in zip(times, losses, tols):
        if not (math.isfinite(L) and L >= 0 and tol >= 0):
            raise ValueError(f"t = {t}: loss {L!r} and tolerance {tol!r} must be finite and >= 0")
        if t <= 0:
            continue
        if L < resolve * tol or L == 0:
            unresolved.append(t)
            continue
        judged += 1
        horizon = max(horizon, t)
        # A e^{-k t} computed in logs, so that a large k t does not underflow to a division by 0
        ratio = max(ratio, math.exp(math.log(L + tol) - math.log(A) + k * t))
        fastest = min(fastest, -math.log((L - tol) / A) / t)
    floored = any(t > horizon for t in unresolved)
    if not judged:
        return RateJudgement(math.nan, 0, math.nan, 0.0, 0.0, floored)
    decay = k * horizon
    extended = decay
    if monotone and ratio <= 1 and k > 0 and _non_increasing(times, losses, tols):
        extended = max(decay, max(math.log(A / (L + tol)) for t, L, tol in zip(times, losses, tols)
                                  if t > 0 and L >= resolve * tol and L > 0))
    return RateJudgement(ratio, judged, fastest, horizon, decay, floored, extended)


def _non_increasing(times, losses, tols) -> bool:
    """The recorded losses, in time order, never rise by more than their two tolerances."""
    rec = sorted(zip(times, losses, tols))
    return all(L2 <= L1 + e1 + e2 for (_, L1, e1), (_, L2, e2) in zip(rec, rec[1:]))


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


def judge_horizon(run, T: float, k: float, *, guess: float | None = None, records: int = 32,
                  resolve: float = 100.0, retries: int = 8, monotone: bool = False):
    """L_t <= L_0 e^{-k t} judged on ``run(T') -> (times, losses, tols, payload)`` (a flow recorded
    over [0, T'] with ``records`` records) over the longest horizon T' <= T found with at least half
    the records judged (module docstring).  From T' = min(T, guess): a run whose loss is still
    resolved at T' < T is followed by one over 2 T' (or, once a longer one was found floored with
    too few records judged, over the geometric mean of the two); a floored run with fewer than half
    judged, by one up to its first unresolved recorded time (its records then denser, and the
    integration often finer); it stops at the first floored run with half judged, at T, when a
    shrunk or bisected T' is within 1.25 x of a horizon already judged resolved, or after
    ``retries`` re-runs.
    Every run is an integration of the same flow with its own error bounds, so the judgement is over
    the records of all of them (``merge``: a shorter run samples the start more densely, a longer one
    reaches further), its ``floored`` also true when a run found the loss unresolved only before
    the merged t_max; the payload is that of the run with the largest k t_max among those with half
    the records judged (else the last run's).  Returns (payload, RateJudgement)."""
    if not (T > 0 and math.isfinite(T)):
        raise ValueError(f"the horizon must be finite and > 0, got {T!r}")
    Tj = T if guess is None or not guess > 0 else min(T, guess)
    resolved_end, floored_short, best, seen = 0.0, math.inf, None, []
    for _ in range(retries + 1):
        times, losses, tols, payload = run(Tj)
        seen.append((times, losses, tols))
        got = judge(times, losses, tols, A=losses[0], k=k, resolve=resolve)
        enough = 2 * got.judged >= records
        if enough and (best is None or got.decay > best[1].decay):
            best = (payload, got)
        if got.floored:
            if enough:
                break
            floored_short = min(floored_short, Tj)
            Tj = min(t for t, L, tol in zip(times, losses, tols) if t > got.horizon and (L < resolve * tol or L == 0))
        else:
            if Tj >= T:
                break
            resolved_end = max(resolved_end, Tj)
            if floored_short == math.inf:
                Tj = min(2 * Tj, T)
                continue
            Tj = math.sqrt(Tj * floored_short)
        if Tj <= 1.25 * resolved_end:
            break
    payload = best[0] if best is not None else payload
    got = judge(*merge(seen, resolve), A=seen[0][1][0], k=k, resolve=resolve, monotone=monotone)
    return payload, replace(got, floored=got.floored or floored_short < math.inf)


def merge(runs, resolve: float = 100.0):
    """The records of several runs of one flow, ``[(times, losses, tols), ...]``, as one (times,
    losses, tols) sorted by time with one record per time: of the records at a time, the resolved
    one (L > 0 and L >= resolve tol, as in ``judge``) with the largest L + tol (the worst for the
    bound), else the first."""
    def resolved(L, tol):
        return L > 0 and L >= resolve * tol

    at: dict[float, tuple[float, float]] = {}
    for times, losses, tols in runs:
        for t, L, tol in zip(times, losses, tols):
            old = at.get(t)
            if old is None or (resolved(L, tol) and (not resolved(*old) or L + tol > sum(old))):
                at[t] = (L, tol)
    ts = sorted(at)
    return ts, [at[t][0] for t in ts], [at[t][1] for t in ts]


def judge_flow(p: dy.Problem, T: float, k: float, *, records: int = 32, rtol: float = 1e-8,
               max_steps: int = 2**14, retries: int = 8, resolve: float = 100.0):
    """Integrate (11) by RK4 with step halving (``dynamics.integrate``) and judge L_t <= L_0 e^{-k t}
    at the resolved recorded times over the horizon of ``judge_horizon``: T (the bound decayed by
    e^{-k T}) unless the loss reaches its resolution floor first; the first guess 25 L_0/|dL/dt(0)|
    (25 e-folds of the initial decay) grows while the loss is resolved at its end.  The tolerances:
    ``loss_tolerances`` with the rounding floor of each state.  (11) is a gradient flow of L, so the
    judgement is ``monotone`` (module docstring).  Returns (trajectory, RateJudgement)."""
    L0, rate0 = dy.loss(p, p.h0), -dy.loss_rate(p, p.h0)

    def run(Tj):
        traj = dy.integrate(p, Tj, records=records, rtol=rtol, max_steps=max_steps)
        floor = [rounding_floor(p, h) for h in traj.states]
        return traj.times, traj.losses, loss_tolerances(traj.losses, traj.loss_halving, floor=floor), traj

    return judge_horizon(run, T, k, guess=25 * L0 / rate0 if L0 > 0 and rate0 > 0 else None, records=records,
                         resolve=resolve, retries=retries, monotone=True)
