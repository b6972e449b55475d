"""The meanfield paper's fuzz campaigns (``maskverify fuzz meanfield:ID``).

- ``lemma.2.proof``: Lemma 2 repaired, ratio P(L^0 > |y|^2)/delta at m = ceil(m*_min), exact for
  sigma(t) = t on orthogonal inputs of one norm (``lemmas.lemma2_failure_linear``);
- ``lemma.2``: Lemma 2 as printed with its Omega read as the proof's (65) at the sharpest Gaussian
  constant, m = ceil(2 c^2 g log(2n/delta)/|y|^2); known false (errata E3, E4).  A counterexample
  is theirs only where the repaired width (E3's factor n, E4's (sqrt 2 - 1)^2) makes the same
  instance hold (``_repaired_width_holds``); any other is a new failure;
- ``lemma.3.proof``: Lemma 3 repaired, ratio (1 - P(tilde eta^0 > K*))/delta at
  m = ceil(log(n/delta)/(2 K*^2)), exact binomial tails for orthogonal inputs (G diagonal);
- ``eq.14``, ``eq.15``, ``eq.16``, ``lemma.1.proof``, ``thm.1.proof``: the inequality's two sides along
  an RK4 integration of the flow (11) (``dynamics.integrate``, step halving) from a random draw:
  data X = x_scale N(0, 1) (n, d), labels y = y_scale U[-1/2, 1/2], G = G^(0) (20) for n <= d and
  Gbar^(1) (23) for n > d.  (14), (15), (16) hold state by state, so their ratios carry only
  float64 rounding, bounded rigorously (``_GAMMA``); Lemma 1 and Theorem 1 compare states across
  times, and carry the integrator's measured step-halving difference too.

Scales are ``numerics.core.strategies.magnitudes`` (log-uniform with the ends and 1 exactly).
"""
from __future__ import annotations

import math

import numpy as np
import torch
from hypothesis import strategies as st

from numerics.core.compile import compile_expr
from numerics.core.fuzzing import Campaign, Example
from numerics.core.gaussian_kernels import parse_activation
from numerics.core.strategies import magnitudes
from numerics.core.tolerance import EPS
from theory.meanfield import dynamics as thd
from theory.meanfield import theorems as tht

from . import dynamics as dy
from . import lemmas as L
from . import rates
from .kernels import gram_bar, gram_shallow
from .theorem_sizes import K_ON_I

#: c, g, |y| over 1e-60..1e60 keep c^2 g/|y|^2 (the width's scale) inside float64.  delta stays above
#: 1e-6: the exact law is a Poisson mixture of ~lambda = 2 n log(2n/delta)/(sqrt 2 - 1)^2 incomplete
#: gammas (at m = ceil(m*), whatever c, g, |y|), already seconds per example at delta = 1e-6, n = 12
_LEMMA2_DOMAIN = ("sigma(t) = t, G = g I_n: n in [1, 12]; c_hat, g, |y| log-uniform over [1e-60, 1e60] (c^2 g/|y|^2 "
                  "must stay in float64), delta over [1e-6, 0.9] (the exact law's cost grows like log(1/delta))")
_lemma2 = st.fixed_dictionaries({"n": st.integers(1, 12), "delta": magnitudes(1e-6, 0.9),
                                 "c_hat": magnitudes(1e-60, 1e60), "g": magnitudes(1e-60, 1e60),
                                 "y_norm": magnitudes(1e-60, 1e60)})
#: the noncentral chi-square's Poisson mixture has ~lambda terms: longer ones are not judged
_LAMBDA_MAX = 2e4


def _lemma2_star(ex: Example):
    m = math.ceil(L.width_repaired(ex["n"], ex["delta"], ex["c_hat"], ex["g"], ex["y_norm"], 1.0))
    lam = m * ex["y_norm"] ** 2 / (ex["c_hat"] ** 2 * ex["g"])
    if lam > _LAMBDA_MAX:
        return None, {"skipped": f"lambda = {lam:.3g}: the Poisson mixture is too long for a fuzz example", "m": m}
    p = float(L.lemma2_failure_linear(ex["n"], m, ex["c_hat"], ex["g"], ex["y_norm"], dps=20))
    return p / ex["delta"], {"m": m, "failure": p}


def _lemma2_printed(ex: Example):
    m = max(1, math.ceil(2 * ex["c_hat"] ** 2 * ex["g"] * math.log(2 * ex["n"] / ex["delta"]) / ex["y_norm"] ** 2))
    lam = m * ex["y_norm"] ** 2 / (ex["c_hat"] ** 2 * ex["g"])
    if lam > _LAMBDA_MAX:
        return None, {"skipped": f"lambda = {lam:.3g} (m = 1 forced): the Poisson mixture is too long", "m": m}
    p = float(L.lemma2_failure_linear(ex["n"], m, ex["c_hat"], ex["g"], ex["y_norm"], dps=20))
    return p / ex["delta"], {"m": m, "failure": p}


def _repaired_width_holds(ex: Example) -> bool:
    """Errata E3 and E4's pattern for a counterexample of Lemma 2 as printed: at the repaired width
    (``lemma.2.proof``'s m*, which restores the union bound's n (E3) and the cross term's
    (sqrt 2 - 1)^2 (E4)) the same instance has P(L^0 > |y|^2) <= delta."""
    ratio, _ = _lemma2_star(ex)
    return ratio is not None and ratio <= 1.0


def _lemma2_repro(width: str):
    def rep(ex: Example) -> str:
        L_ = '__import__("numerics.meanfield.lemmas", fromlist=["lemmas"])'
        if width == "star":
            m = f'__import__("math").ceil({L_}.width_repaired({ex["n"]!r}, {ex["delta"]!r}, {ex["c_hat"]!r}, {ex["g"]!r}, {ex["y_norm"]!r}, 1.0))'
        else:
            m = (f'max(1, __import__("math").ceil(2 * {ex["c_hat"]!r}**2 * {ex["g"]!r} * __import__("math").log(2 * {ex["n"]!r} / '
                 f'{ex["delta"]!r}) / {ex["y_norm"]!r}**2))')
        return (f'float({L_}.lemma2_failure_linear({ex["n"]!r}, {m}, {ex["c_hat"]!r}, {ex["g"]!r}, {ex["y_norm"]!r}, dps=20))'
                f' / {ex["delta"]!r}')
    return rep


#: K* and the event are invariant under (I, sqrt G) -> s (I, sqrt G): one scale s over 1e-100..1e100
#: moves the whole problem; within it, G_aa/s^2 over [1e-2, 10^1.5] and the interval as before (outside
#: them K* < 1e-4, i.e. m > 1e8, which the exact binomial tails do not judge)
_LEMMA3_DOMAIN = ("orthogonal inputs, n <= 4, G_aa = s^2 g_a, g_a log-uniform over [1e-2, 10^1.5]; I = s (lo, lo + w), "
                  "lo in [-5, 5], w log-uniform over [0.05, 10]; s log-uniform over [1e-100, 1e100]; delta log-uniform "
                  "over [1e-6, 0.9]")
_lemma3 = st.fixed_dictionaries({"lo": st.floats(-5, 5), "width": magnitudes(0.05, 10),
                                 "diag": st.lists(magnitudes(1e-2, 10**1.5), min_size=1, max_size=4),
                                 "scale": magnitudes(1e-100, 1e100), "delta": magnitudes(1e-6, 0.9)})


def _lemma3_args(ex: Example):
    s = ex["scale"]
    return s * ex["lo"], s * (ex["lo"] + ex["width"]), [s * s * g for g in ex["diag"]]


def _lemma3_star(ex: Example):
    lo, hi, diag = _lemma3_args(ex)
    Ks = L.K_star(lo, hi, min(diag), max(diag))
    if not Ks > 1e-4:
        return None, {"skipped": f"K* = {Ks:.3g}: m beyond 1e8"}
    m = L.log_required_width(len(diag), ex["delta"], Ks)
    p = L.event_probability(lo, hi, diag, m, Ks, tilde=True, dps=20)
    return float((1 - p) / ex["delta"]), {"K*": Ks, "m": m}


def _lemma3_repro(ex: Example) -> str:
    L_ = '__import__("numerics.meanfield.lemmas", fromlist=["lemmas"])'
    lo, hi, diag = _lemma3_args(ex)
    K = f"{L_}.K_star({lo!r}, {hi!r}, {min(diag)!r}, {max(diag)!r})"
    m = f"{L_}.log_required_width({len(diag)}, {ex['delta']!r}, {K})"
    return f"float((1 - {L_}.event_probability({lo!r}, {hi!r}, {diag!r}, {m}, {K}, tilde=True, dps=20)) / {ex['delta']!r})"


# ------------------------------------------------------------------------------ along the flow (11)
#: integration horizon in units of 1/(c_hat^2 lambda_max(G)), recorded states; (14), (15), (16) hold
#: at every state h, so their campaigns take the states of one fixed-step RK4 run (``_STATES`` steps,
#: no accuracy needed: any state is a fair test point), Lemma 1 and Theorem 1 the step-halved flow
_TAU, _RECORDS, _STATES = 10.0, 8, 64


def _gamma(p: dy.Problem) -> float:
    """gamma_N = N eps/(1 - N eps), N = m n + n + 8: Higham's forward-error factor for the sums of one
    evaluation of r, sigma' r and the quadratic forms (each a sum of at most m n + n products)."""
    N = p.m * len(p.y) + len(p.y) + 8
    return N * EPS / (1 - N * EPS)


def _flow_problem(ex: Example):
    """(Problem, lambda_min, lambda_max) for an example's draw, or (None, why)."""
    rng = np.random.default_rng(ex["seed"])
    n, d = ex["n"], ex["d"]
    X = ex["x_scale"] * rng.standard_normal((n, d))
    y = ex["y_scale"] * rng.uniform(-0.5, 0.5, n)
    G = gram_shallow(X) if n <= d else gram_bar(X, ex["act"])
    p = dy.make_problem(G, y, ex["m"], ex["c_hat"], ex["act"], seed=ex["seed"])
    lam_min, lam_max = p.eig()
    if not lam_max > 0:
        return None, "G = 0"
    # eigvalsh is backward stable: |computed - exact| <= 4 n eps lambda_max (a generous constant)
    return p, max(lam_min - 4 * n * EPS * lam_max, 0.0), lam_max * (1 + 4 * n * EPS)


def _trajectory(p: dy.Problem, T: float, rtol: float, max_steps: int = 2**10):
    try:
        return dy.integrate(p, T, steps=32, records=_RECORDS, rtol=rtol, max_steps=max_steps)
    except ArithmeticError:
        return None


def _forms(p: dy.Problem, h: torch.Tensor):
    """(Q, Q_abs, D): (c^2/m) sum_i v_i^T G v_i, the same with |v|, |G|, and (c^2/m) sum_i |v_i|^2,
    v_ia = r_a sigma'(h_ia): the two sides of (14) (Q = -dL/dt) and Q's rounding scale."""
    r = dy.output(p, h) - p.y
    v = r[None, :] * p.act.derivative(h)
    w = p.c**2 / p.m
    return (float(w @ ((v @ p.G) * v).sum(1)), float(w @ ((v.abs() @ p.G.abs()) * v.abs()).sum(1)),
            float(w @ (v * v).sum(1)))


def _pointwise(ex: Example, bound):
    """max over the RK4 run's states of bound(p, h, lambda_lo) * (1 - gamma)/(Q + gamma Q_abs): a
    ratio that float64 rounding can only lower, so > 1 is a true violation of Q >= bound."""
    got = _flow_problem(ex)
    if got[0] is None:
        return None, {"skipped": got[1]}
    p, lam_lo, lam_hi = got
    traj = dy.rk4(p, _TAU / (p.c_hat**2 * lam_hi), _STATES, _RECORDS)
    g = _gamma(p)
    worst, where = -math.inf, None
    for t, h in zip(traj.times, traj.states):
        Q, Qabs, D = _forms(p, h)
        if Q + g * Qabs <= 0:
            continue                      # r sigma' = 0: both sides vanish
        ratio = bound(p, h, lam_lo, D) * (1 - g) / (Q + g * Qabs)
        if ratio > worst:
            worst, where = ratio, t
    if where is None:
        return None, {"skipped": "r sigma'(h) = 0 at every recorded state"}
    return worst, {"t": where, "lambda_min": lam_lo, "lambda_max": lam_hi}


def _eq14(ex: Example):
    return _pointwise(ex, lambda p, h, lam, D: lam * D)


def _eq16(ex: Example):
    K = min(1.0, parse_activation(ex["act"]).alpha)
    return _pointwise(ex, lambda p, h, lam, D: 2 * p.c_hat**2 * lam * K**2 * dy.loss(p, h))


def _eq15(ex: Example):
    """max over recorded t > 0 and training points a of |f^t - f^0| / (c L_sigma (1/m) sum_i |h^t - h^0|),
    the numerator lowered by the rounding of the two sums f = (1/m) sum c sigma(h)."""
    got = _flow_problem(ex)
    if got[0] is None:
        return None, {"skipped": got[1]}
    p, _, lam_hi = got
    traj = dy.rk4(p, _TAU / (p.c_hat**2 * lam_hi), _STATES, _RECORDS)
    g = _gamma(p)
    h0 = traj.states[0]
    f0, s0 = dy.output(p, h0), (p.c.abs() @ p.act(h0).abs()) / p.m
    worst = -math.inf
    for h in traj.states[1:]:
        num = ((dy.output(p, h) - f0).abs() - g * (s0 + (p.c.abs() @ p.act(h).abs()) / p.m)).clamp(min=0.0)
        den = p.c_hat * p.act.lipschitz * (h - h0).abs().mean(0) * (1 + g)
        ok = den > 0
        if ok.any():
            worst = max(worst, float((num[ok] / den[ok]).max()))
    if worst == -math.inf:
        return None, {"skipped": "the features did not move"}
    return worst, {}




def _lemma1(ex: Example):
    """max over recorded t > 0 of [(tilde eta^0)^{3/2} - kappa* (sqrt L0 - sqrt Lt)/c] / (eta^t)^{3/2}:
    with e = 10 x the step-halving difference (a bound on |h - h_exact|), eta^t is counted on I shrunk
    by e (a lower bound of the exact flow's) and sqrt L_t raised by sqrt(n/2) c L_sigma e (|f - f_exact|
    <= c L_sigma e at each point); kappa* from lambda_min lowered and lambda_max raised by their rounding."""
    got = _flow_problem(ex)
    if got[0] is None:
        return None, {"skipped": got[1]}
    p, lam_lo, lam_hi = got
    lo = ex["x_scale"] * ex["lo"]
    hi = lo + ex["x_scale"] * ex["width"]
    K = K_ON_I[ex["act"]](lo, hi)
    if not (K > 0 and lam_lo > 0):
        return None, {"skipped": f"K_sigma' = {K:.3g} or lambda_min = {lam_lo:.3g} is 0 in float64"}
    kappa = dy.kappa_proof(lo, hi, lam_lo, lam_hi, K)
    traj = _trajectory(p, _TAU / (p.c_hat**2 * lam_hi), rtol=1e-6 if ex["act"] == "tanh" else 1e-4)
    if traj is None:
        return None, {"skipped": "RK4 step halving did not converge within 1024 steps (kinks crossed)"}
    third = (hi - lo) / 3
    eta0 = dy.active_fraction(traj.states[0], lo + third, hi - third)
    e = 10 * traj.halving_error
    root_err = math.sqrt(len(p.y) / 2) * p.c_hat * p.act.lipschitz * e
    L0 = traj.losses[0]
    worst = -math.inf
    for h, Lt in zip(traj.states[1:], traj.losses[1:]):       # t = 0 holds trivially (eta^0 >= tilde eta^0)
        rhs = eta0**1.5 - kappa * max(0.0, math.sqrt(L0) - math.sqrt(Lt) - root_err) / p.c_hat
        lhs = dy.active_fraction(h, lo + e, hi - e) ** 1.5
        worst = max(worst, rhs / lhs if lhs > 0 else (math.inf if rhs > 0 else -math.inf))
    if worst == -math.inf:
        return None, {"skipped": "no neuron in I at any recorded time and a right side <= 0"}
    return worst, {"kappa*": kappa, "K": K, "tilde eta^0": eta0}


#: c_hat_0* lambda_2/lambda_1 (the repaired (58)) and r of (61), compiled from the theory
_c_needed = compile_expr(tht.C0_STAR * thd.lam2 / thd.lam1, (thd.I_l, thd.I_r, thd.lam1, thd.lam2, thd.K_s, tht.y_norm, tht.K_act))
_r_proof = compile_expr(tht.R_PROOF, (thd.K_s, tht.K_act))
#: Theorem 1's flow is judged when E_FOLDS lambda_max/(r lambda_min) (the requested horizon E_FOLDS/rate
#: in units of the fastest time scale) is at most this: an RK4 budget of 2^14 steps
_STIFF_MAX = 2000.0
_THM1_I = (-1.0, 1.0)


def _thm1(ex: Example):
    """tanh, I = (-1, 1): symmetrised draw (neurons in pairs with equal h^0 and opposite c_i, so f^0 = 0),
    c_hat = factor x c_hat_0* lambda_2/lambda_1, rate r c^2 lambda_min; max over the recorded t > 0 where
    L_t is resolved (``numerics.meanfield.rates``: L_t >= 100 tol, tol from the step-halving difference of L)
    of (L_t + tol)/(L_0 e^{-rate t}), over the horizon E_FOLDS/rate = 10/rate or up to where the loss
    reaches its resolution floor (``rates.judge_horizon``), with k t_max reported."""
    rng = np.random.default_rng(ex["seed"])
    n, d = ex["n"], ex["d"]
    X = ex["x_scale"] * rng.standard_normal((n, d))
    y = ex["y_scale"] * rng.uniform(-0.5, 0.5, n)
    G = gram_shallow(X) if n <= d else gram_bar(X, "tanh")
    ev = np.linalg.eigvalsh(G)
    lam_lo, lam_hi = ev[0] - 4 * n * EPS * ev[-1], ev[-1] * (1 + 4 * n * EPS)
    if not lam_lo > 0:
        return None, {"skipped": "lambda_min(G) = 0 in float64"}
    diag = np.diag(G)
    Kstar = L.K_star(*_THM1_I, diag.min(), diag.max())
    Ks = float(torch.cosh(torch.tensor(1.0, dtype=torch.float64)) ** -2)
    r = _r_proof(Ks, Kstar)
    stiff = rates.E_FOLDS * lam_hi / (r * lam_lo)
    if not stiff <= _STIFF_MAX:
        return None, {"skipped": f"{rates.E_FOLDS:g} lambda_max/(r lambda_min) = {stiff:.3g} > {_STIFF_MAX:g}", "K*": Kstar}
    c_hat = ex["factor"] * _c_needed(*_THM1_I, lam_lo, lam_hi, Ks, float(np.linalg.norm(y)), Kstar)
    half = dy.make_problem(G, y, ex["m"], c_hat, "tanh", seed=ex["seed"])
    p = dy.Problem(half.G, half.y, torch.cat([half.c, -half.c]), half.act, torch.cat([half.h0, half.h0]))
    third = (_THM1_I[1] - _THM1_I[0]) / 3
    eta0 = dy.active_fraction(p.h0, _THM1_I[0] + third, _THM1_I[1] - third)
    L0 = dy.loss(p, p.h0)
    if not (eta0 > Kstar and L0 <= float(y @ y)):
        return None, {"skipped": f"initial events fail: tilde eta^0 = {eta0}, K* = {Kstar:.3g}, L0 = {L0:.3g}"}
    rate = r * c_hat**2 * lam_lo
    try:
        _, got = rates.judge_flow(p, rates.E_FOLDS / rate, rate, records=16, rtol=1e-7, max_steps=2**14)
    except ArithmeticError:
        return None, {"skipped": "RK4 step halving did not converge within 2^14 steps"}
    if not got.judged:
        return None, {"skipped": "no recorded L_t is 100 x above its step-halving error"}
    return float(got.ratio), {"c_hat": float(c_hat), "r": r, "K*": Kstar, "stiffness": float(stiff),
                              "judged times": got.judged, "horizon": got.horizon, "k t_max": got.decay, "k t* (monotone)": got.extended,
                              "floored": got.floored, "flow rate/rate": got.fastest / rate}


def _flow_repro(cid: str):
    def rep(ex: Example) -> str:
        return f'__import__("numerics.meanfield.campaigns", fromlist=["c"]).CAMPAIGNS[{cid!r}].evaluate({ex!r})[0]'
    return rep


_scales = {"x_scale": magnitudes(1e-3, 1e3), "y_scale": magnitudes(1e-3, 1e3), "c_hat": magnitudes(1e-3, 1e3)}
_sizes = {"n": st.integers(1, 4), "d": st.integers(1, 4), "m": st.integers(2, 24), "seed": st.integers(0, 2**16)}
_FLOW_DOMAIN = ("n, d in [1, 4] (G^(0) for n <= d, Gbar^(1) for n > d), m in [2, 24]; x_scale, y_scale, c_hat log-uniform "
                "over [1e-3, 1e3]; horizon 10/(c^2 lambda_max(G)), 8 recorded states")
_flow = st.fixed_dictionaries({"act": st.sampled_from(["relu", "tanh", "erf", "abs", "leaky_relu:0.2"]), **_sizes, **_scales})
_pl = st.fixed_dictionaries({"act": magnitudes(1e-3, 0.9).map(lambda a: f"leaky_relu:{a!r}"), **_sizes, **_scales})
_lemma1_st = st.one_of(
    st.fixed_dictionaries({"act": st.just("tanh"), "lo": st.floats(-2, 2), "width": magnitudes(1e-2, 4), **_sizes, **_scales}),
    st.fixed_dictionaries({"act": st.just("relu"), "lo": st.floats(0, 2), "width": magnitudes(1e-2, 4), **_sizes, **_scales}))
_thm1_st = st.fixed_dictionaries({"n": st.integers(1, 3), "d": st.integers(1, 4), "m": st.integers(4, 32),
                                  "seed": st.integers(0, 2**16), "x_scale": magnitudes(1e-3, 1e3),
                                  "y_scale": magnitudes(1e-3, 1e3), "factor": magnitudes(1.0, 1e3)})


CAMPAIGNS = {c.id: c for c in (
    Campaign(id="lemma.2.proof", statement="Lemma 2 repaired: P(L^0 > |y|^2) <= delta at m >= 2 n c^2 L^2 G_max log(2n/delta)/((sqrt 2 - 1)^2 |y|^2)",
             ratio_name="P(L^0 > |y|^2)/delta", domain=_LEMMA2_DOMAIN + "; exact noncentral chi-square (mpmath, 20 digits)",
             judged="lambda = m |y|^2/(c^2 g) <= 2e4", strategy=_lemma2, evaluate=_lemma2_star,
             reproducer=_lemma2_repro("star"), threshold=1.0, examples=60),
    Campaign(id="lemma.2", statement="Lemma 2 as printed, Omega read as (65) with the sharpest Gaussian constant (errata E3, E4)",
             ratio_name="P(L^0 > |y|^2)/delta", domain=_LEMMA2_DOMAIN + "; exact noncentral chi-square (mpmath, 20 digits)",
             judged="lambda = m |y|^2/(c^2 g) <= 2e4", strategy=_lemma2, evaluate=_lemma2_printed,
             reproducer=_lemma2_repro("printed"), threshold=1.0, examples=60,
             recorded={"E3": _repaired_width_holds, "E4": _repaired_width_holds}),
    Campaign(id="lemma.3.proof", statement="Lemma 3 repaired: P(tilde eta^0 <= K*) <= delta at m = ceil(log(n/delta)/(2 K*^2))",
             ratio_name="(1 - P(tilde eta^0 > K*))/delta", domain=_LEMMA3_DOMAIN + "; exact binomial tails (mpmath, 20 digits)",
             judged="K* > 1e-4", strategy=_lemma3, evaluate=_lemma3_star, reproducer=_lemma3_repro,
             threshold=1.0, examples=40),
    Campaign(id="eq.14", statement="(14): (c^2/m) sum_i sum_ab G_ab r_a r_b s'_ia s'_ib >= lambda_min(G) (c^2/m) sum_i sum_a r_a^2 s'_ia^2 along the flow",
             ratio_name="lambda_min D/Q (D, Q the sums of (14); rounding charged against the ratio)", domain=_FLOW_DOMAIN + "; sigma relu, tanh, erf, abs, leaky relu 0.2",
             judged="r sigma' != 0 at some state (64 RK4 steps)", strategy=_flow, evaluate=_eq14,
             reproducer=_flow_repro("eq.14"), threshold=1.0, examples=30),
    Campaign(id="eq.15", statement="(15): (1/m) sum_i |h_i^t(x_a) - h_i^0(x_a)| >= |f^t(x_a) - f^0(x_a)|/(c L_sigma) along the flow",
             ratio_name="|f^t - f^0|/(c L_sigma mean_i |h^t - h^0|)", domain=_FLOW_DOMAIN + "; sigma relu, tanh, erf, abs, leaky relu 0.2",
             judged="the features move (64 RK4 steps)", strategy=_flow, evaluate=_eq15,
             reproducer=_flow_repro("eq.15"), threshold=1.0, examples=30),
    Campaign(id="eq.16", statement="(16): -dL/dt >= 2 c^2 lambda_min(G) K^2 L when |sigma'| >= K everywhere (leaky relu, K = slope)",
             ratio_name="2 c^2 lambda_min K^2 L/(-dL/dt)", domain=_FLOW_DOMAIN + "; sigma leaky relu with slope log-uniform over [1e-3, 0.9]",
             judged="r != 0 at some state (64 RK4 steps)", strategy=_pl, evaluate=_eq16,
             reproducer=_flow_repro("eq.16"), threshold=1.0, examples=30),
    Campaign(id="lemma.1.proof", statement="Lemma 1 with kappa* = 3 C_2: (eta^t)^{3/2} >= (tilde eta^0)^{3/2} - kappa* (sqrt L0 - sqrt Lt)/c along the flow",
             ratio_name="[(tilde eta^0)^{3/2} - kappa*(sqrt L0 - sqrt Lt)/c]/(eta^t)^{3/2}",
             domain=_FLOW_DOMAIN + "; sigma tanh (I = x_scale (lo, lo + w), lo in [-2, 2]) or relu (lo in [0, 2]), w log-uniform over [1e-2, 4]",
             judged="K_sigma' > 0 and lambda_min > 0 in float64, the step halving converges in 1024 steps, and some recorded t > 0 has a neuron in I or a right side > 0",
             strategy=_lemma1_st, evaluate=_lemma1, reproducer=_flow_repro("lemma.1.proof"), threshold=1.0, examples=30),
    Campaign(id="thm.1.proof", statement="Theorem 1 repaired: L_t <= L_0 exp(-r c^2 lambda_min t), r = 2^(1/3) K_sigma'^2 K*, c = factor x c_hat_0* lambda_max/lambda_min",
             ratio_name="max over resolved t of (L_t + tol)/(L_0 e^{-r c^2 lambda t})",
             domain=("tanh, I = (-1, 1); n in [1, 3], d in [1, 4] (G^(0) for n <= d, Gbar^(1) for n > d), 2m in [8, 64] neurons "
                     "in symmetrised pairs; x_scale, y_scale log-uniform over [1e-3, 1e3], factor over [1, 1e3]; horizon 10/(r c^2 lambda_min) or up to where the loss reaches its resolution floor"),
             judged=f"{rates.E_FOLDS:g} lambda_max/(r lambda_min) <= {_STIFF_MAX:g} (K* of x_scale ~ 0.3-3 only), the initial events hold, RK4 converges in 2^14 steps, some recorded L_t is 100 x above its step-halving error",
             strategy=_thm1_st, evaluate=_thm1, reproducer=_flow_repro("thm.1.proof"), threshold=1.0, examples=30),
)}
