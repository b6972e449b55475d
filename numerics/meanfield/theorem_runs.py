"""Theorems 1 and 3 run where their hypotheses hold: random draws (Assumptions 1, 3) at the smallest
c_hat and m that ``theorem_sizes`` finds with the repaired constants of the proofs, one data set each:

- ``thm.1``: the shallow tanh net on x = 1 (n = d = 1, G = 1), y = 1/2, I = the minimising interval,
  delta = 0.1: c_hat = c_min of (T1.58), m = max of (T1.L3), (T1.L2) (about 4e6);
- ``thm.3``: the P-3L tanh net on the same point: D >= (T3.84), z_j ~ N(0, 1) drawn, G = G^(1) of
  (22), then the flow with c_hat of (T2.80) and m of (T2.L3), (T2.L2) (about 1e8: a long run).

Per draw: the initial events the probability of the theorem covers ((74) for thm.3: |G - Gbar|_2 <=
lambda_min(Gbar)/2; (75) tilde eta^0 > K; (76) L^0 <= |y|^2), and along the flow (11), by RK4 with
step halving (``numerics.meanfield.rates.judge_flow``) or, both data sets having n = 1, by the exact
one-point reduction (``numerics.meanfield.one_point``: the states exact, the times by quadrature, and
the limit state h(oo) visited too); the rate judged only where L_t is resolved:

- the loss bound: max over resolved t of (L_t + tol)/(L_0 e^{-k t}), k the conclusion's exponent,
  over the horizon E_FOLDS/k or up to where the loss reaches its resolution floor, with k t_max
  (``decay``), whether the floor ended it (``floored``), and k t* to which the bound holds since the
  loss of the gradient flow (11) cannot increase (``extended``: ``rates``' module docstring) reported;
- (59)/(81): min_t eta^t / (2^(-2/3) K), eta^t counted on I shrunk by the states' error (10 x the
  halving difference; 1e-12 for the reduction);
- lambda_min along the trajectory: the tangent kernel H_t = (c^2/m) sum_i (s'_i s'_i^T) o G drives
  dL/dt = -r^T H_t r, and the proof's chain gives lambda_min(H_t) >= c^2 lambda_min(G) K_s^2 eta^t >=
  c^2 lambda_min(G) K_s^2 2^(-2/3) K: min_t of lambda_min(H_t) (lowered by its error) over that bound;
- the feature movement (15): min_t [(1/m) sum_i |h_i^t - h_i^0| - err] c L_sigma/(|f^t - f^0| + its error)
  (``feature_move_ratio``: both sides on their conservative side).

``python -m numerics.meanfield.theorem_runs thm.1|thm.3 [--seeds 0 1 2]`` runs them and prints one JSON
line per draw (size, seconds, outcome).
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import asdict, dataclass

import numpy as np
import torch

from numerics.core.arrays import DTYPE

from . import dynamics as dy
from . import rates
from . import one_point
from . import theorem_sizes as ts
from .kernels import gram_bar, gram_empirical

_X1, _Y1 = np.ones((1, 1)), np.array([0.5])


@dataclass(frozen=True)
class Outcome:
    """One draw of one theorem at its sizes (module docstring); ``holds``: every ratio on its side of 1
    with at least one resolved time (None when an initial event failed: the theorem says nothing)."""

    theorem: str
    seed: int
    n: int
    m: int
    D: int | None
    c_hat: float
    delta: float
    events: dict
    ratio: float
    judged: int
    horizon: float
    decay: float
    floored: bool
    extended: float
    fastest_over_k: float
    eta_ratio: float
    lam_ratio: float
    move_ratio: float
    seconds: float
    method: str = "rk4"

    @property
    def events_hold(self) -> bool:
        return all(self.events[k] for k in ("eta0", "L0", "gram"))

    @property
    def holds(self) -> bool | None:
        if not self.events_hold:
            return None
        return self.judged > 0 and self.ratio <= 1 and self.eta_ratio >= 1 and self.lam_ratio >= 1 and self.move_ratio >= 1


class _StateChecks:
    """The conclusions checked at each recorded state h (module docstring), with ``err`` a bound on
    the state's error: eta^t on I shrunk by err, lambda_min(H_t) lowered by its error, and (15) with
    the movement lowered and |f - f0| raised by theirs (``feature_move_ratio``)."""

    def __init__(self, p: dy.Problem, sizes: ts.Sizes, K: float, err: float):
        self.p, self.sizes, self.err = p, sizes, err
        lam_min_G, self.lam_max_G = p.eig()
        self.floor = sizes.c_min**2 * lam_min_G * sizes.K_s**2 * 2 ** (-2 / 3) * K
        self.eta_scale = 2 ** (-2 / 3) * K
        self.h0, self.f0 = p.h0, dy.output(p, p.h0)
        self.eta, self.lam, self.move = math.inf, math.inf, math.inf

    def visit(self, h: torch.Tensor) -> None:
        p, err, c = self.p, self.err, self.sizes.c_min
        lo, hi = self.sizes.I
        self.eta = min(self.eta, dy.active_fraction(h, lo + err, hi - err) / self.eta_scale)
        S = p.act.derivative(h)
        H = (c**2 / p.m) * (S.T @ S) * p.G
        # sigma' and sigma'' of tanh are at most 1: each s'_ia s'_ib moves by at most 2 err
        lam_H = float(torch.linalg.eigvalsh(H)[0]) - c**2 * self.lam_max_G * 2 * err
        self.lam = min(self.lam, lam_H / self.floor)
        df = (dy.output(p, h) - self.f0).abs()
        if float(df.max()) > 0:
            self.move = min(self.move, feature_move_ratio(p, h, self.h0, df, c, err))


def feature_move_ratio(p: dy.Problem, h: torch.Tensor, h0: torch.Tensor, df: torch.Tensor, c: float, err: float) -> float:
    """(15)'s ratio min_a [(1/m) sum_i |h_ia - h0_ia| - err] c L_sigma / [|f_a - f0_a| + df_err] at a state h
    known to ``err`` (max-abs, h0 exact), on the conservative side of both: the true movement is at least
    the computed one less err, and the true |f - f0| at most the computed one plus df_err = alpha
    sum_i |c_i| L_sigma err (f = alpha sum_i c_i sigma(h_i), eq. (2)), so a ratio >= 1 holds for the
    true state too."""
    L_s = p.act.lipschitz
    lhs = (h - h0).abs().mean(0) - err
    df_err = p.alpha * float(p.c.abs().sum()) * L_s * err
    return float((lhs * c * L_s / (df + df_err)).min())


#: the state error the one-point reduction is checked against: Newton's last update and the rounding
#: of h = h0 + delta stay far below it (``_one_point``)
_ONE_POINT_ERR = 1e-12


def _rk4(p, k, checks_for, records, rtol):
    """The flow (11) by RK4 with step halving (``rates.judge_flow``) over E_FOLDS/k, or up to where the
    loss reaches its resolution floor; the states checked with 10 x the halving difference as their error."""
    traj, got = rates.judge_flow(p, rates.E_FOLDS / k, k, records=records, rtol=rtol, max_steps=2**14)
    checks = checks_for(10 * traj.halving_error)
    for h in traj.states:
        checks.visit(h)
    return got, checks


def _one_point(p, k, checks_for, progress: bool):
    """The flow (11) at n = 1 by the one-point reduction (``one_point.flow``): exact states, times to
    their quadrature error; the loss judged at every record above 100 x its tolerance (the flow is
    followed until the loss reaches its resolution floor, so the judged horizon ends there)."""
    from tqdm import tqdm

    checks = checks_for(_ONE_POINT_ERR)
    with tqdm(desc="one-point flow (a record each time L halves)", unit="record", disable=not progress) as bar:
        def advance(L: float) -> None:
            bar.set_postfix_str(f"L = {L:.3g}", refresh=False)
            bar.update(1)

        fl = one_point.flow(p, visit=checks.visit, progress=advance)
    h_max = float(p.h0.abs().max()) + 1.0
    if 10 * fl.newton_update + 4 * np.finfo(float).eps * h_max > _ONE_POINT_ERR:
        raise ArithmeticError(f"the one-point solve's error {fl.newton_update:.3g} exceeds the checks' bound")
    got = rates.judge(fl.times, fl.losses, fl.tolerances(), A=fl.losses[0], k=k, monotone=True)
    return got, checks


def _flow(theorem: str, sizes: ts.Sizes, G: np.ndarray, y, seed: int, k: float, K: float, *, m: int | None = None,
          records: int = 32, rtol: float = 1e-8, gram_event: dict | None = None, t0: float | None = None,
          method: str = "rk4", progress: bool = False) -> Outcome:
    t0 = time.perf_counter() if t0 is None else t0
    m = sizes.m_min if m is None else m
    c = sizes.c_min
    lo, hi = sizes.I
    p = dy.make_problem(G, y, m, c, sizes.activation, seed=seed)
    third = (hi - lo) / 3
    eta0 = dy.active_fraction(p.h0, lo + third, hi - third)
    L0 = dy.loss(p, p.h0)
    events = {"eta0": bool(eta0 > K), "tilde_eta0": float(eta0), "K": float(K), "L0": bool(L0 <= float(np.dot(y, y))),
              "L0_value": float(L0), "gram": True, **(gram_event or {})}
    nan = math.nan
    if not all(events[e] for e in ("eta0", "L0", "gram")):
        return Outcome(theorem, seed, len(y), m, sizes.D, float(c), sizes.delta, events, nan, 0, 0.0, 0.0, False, nan, nan, nan,
                       nan, nan, time.perf_counter() - t0, method)
    checks_for = lambda err: _StateChecks(p, sizes, K, err)  # noqa: E731
    if method == "rk4":
        # the horizon E_FOLDS/k, or up to where the loss reaches its resolution floor (``rates.judge_horizon``)
        got, checks = _rk4(p, k, checks_for, records, rtol)
    elif method == "one-point":
        got, checks = _one_point(p, k, checks_for, progress)
    else:
        raise ValueError(f"method must be rk4 or one-point, got {method!r}")
    return Outcome(theorem, seed, len(y), m, sizes.D, float(c), sizes.delta, events, float(got.ratio), got.judged,
                   float(got.horizon), float(got.decay), got.floored, float(got.extended),
                   float(got.fastest / k) if got.judged else nan, checks.eta, checks.lam,
                   checks.move, time.perf_counter() - t0, method)


def theorem1_sizes(delta: float = 0.1) -> ts.Sizes:
    return ts.smallest(ts.theorem1, ts.Spectrum.of(_X1 @ _X1.T), _Y1, "tanh", delta, dataset="x = 1 (n = d = 1)", d=1)


def theorem3_sizes(delta: float = 0.1) -> ts.Sizes:
    return ts.smallest(ts.theorem2, ts.Spectrum.of(gram_bar(_X1, "tanh")), _Y1, "tanh", delta,
                       dataset="P-3L, x = 1 (n = d = 1)", d=1)


def run_theorem1(seed: int, *, delta: float = 0.1, records: int = 32, method: str = "rk4",
                 progress: bool = False) -> Outcome:
    """Theorem 1 on one draw at its smallest sizes (module docstring); ``method``: the flow by "rk4"
    or by the "one-point" reduction (with ``progress``, a bar on stderr)."""
    s = theorem1_sizes(delta)
    k = 2 ** (1 / 3) * s.K_s**2 * s.K * s.c_min**2 * s.lam_min
    return _flow("thm.1", s, _X1 @ _X1.T, _Y1, seed, k, s.K, records=records, method=method,
                 progress=progress)


def run_theorem3(seed: int, *, delta: float = 0.1, records: int = 8, m: int | None = None,
                 method: str = "one-point", progress: bool = False) -> Outcome:
    """Theorem 3 on one draw: z_j (j <= D) then the flow on G^(1) (module docstring); ``m`` below the
    theorem's only for trying the machinery (the outcome then says nothing about the theorem);
    ``method`` as for ``run_theorem1`` (RK4 at m = 1e8 takes hours, the reduction minutes)."""
    t0 = time.perf_counter()
    s = theorem3_sizes(delta)
    Z = np.random.default_rng([seed, 3]).standard_normal((s.D, 1))
    G = gram_empirical(_X1, Z, "tanh")
    dev = float(np.linalg.norm(G - gram_bar(_X1, "tanh"), 2))
    k = 2 ** (-2 / 3) * s.K_s**2 * s.K * s.c_min**2 * s.lam_min
    return _flow("thm.3", s, G, _Y1, seed, k, s.K, m=m, records=records, t0=t0, method=method, progress=progress,
                 gram_event={"gram": bool(dev <= s.lam_min / 2), "gram_deviation": dev, "half_lam_bar": s.lam_min / 2})


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m numerics.meanfield.theorem_runs",
                                 description="Run Theorem 1 or 3 at the smallest sizes that meet their hypotheses with "
                                             "the proofs' repaired constants; one JSON line per seed (size, seconds, outcome).")
    ap.add_argument("theorem", help="thm.1 (m ~ 4e6, minutes) or thm.3 (m ~ 1e8)")
    ap.add_argument("--seeds", type=int, nargs="+", default=[0], help="draws (default 0)")
    ap.add_argument("--delta", type=float, default=0.1, help="failure probability (default 0.1)")
    ap.add_argument("--method", choices=("rk4", "one-point"),
                    help="the flow by RK4 with step halving, or by the one-point reduction (n = 1, tanh: "
                         "numerics.meanfield.one_point); default rk4 for thm.1, one-point for thm.3 (RK4 there: "
                         "about 4 CPU-hours and 18 GiB)")
    ap.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = ap.parse_args(argv)
    runs = {"thm.1": run_theorem1, "thm.3": run_theorem3}
    if args.theorem not in runs:
        print(f"error: theorem must be one of {', '.join(runs)}, got {args.theorem!r}", file=sys.stderr)
        return 2
    if not 0 < args.delta < 1:
        print(f"error: --delta must lie in (0, 1), got {args.delta}", file=sys.stderr)
        return 2
    torch.set_default_dtype(DTYPE)
    # one intra-op thread: on a shared, loaded machine torch's pool spins and each (m, n) pass is ~20x slower
    torch.set_num_threads(1)
    for seed in args.seeds:
        out = runs[args.theorem](seed, delta=args.delta, progress=not args.no_progress,
                                 **({"method": args.method} if args.method else {}))
        print(json.dumps({**asdict(out), "holds": out.holds}), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
