"""Table 1 and Appendices B, C: the three scalings' first GD step, the Xavier equivalence and muP.

Symbolic: ``theory.meanfield.scalings.DERIVATIONS`` (the exact first-step increment and its orders
in m; (25)-(30) for the general positively homogeneous sigma; (35)-(36)).  Numerical: GD on the
raw parameters by torch autograd (``numerics.meanfield.scalings``), which never uses (11): the
log-slopes in m of the first-step sizes (slow), and the Xavier and muP trajectories against ours.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from scipy import stats

from numerics.core.arrays import DTYPE
from numerics.core.gaussian_kernels import parse_activation
from numerics.core.tolerance import EPS, Tol
from numerics.meanfield import scalings as sc
from theory.meanfield import scalings as th


pytestmark = pytest.mark.usefixtures("one_torch_thread")  # small products: threads only add contention


def _data(n=8, d=5, seed=0):
    rng = np.random.default_rng(seed)
    return torch.as_tensor(rng.standard_normal((n, d)), dtype=DTYPE), torch.as_tensor(rng.choice([-1.0, 1.0], n), dtype=DTYPE)


@pytest.mark.witness("symbolic")
@pytest.mark.parametrize("key", [pytest.param(k, id=f"{k[0]}[{k[1]}]", marks=pytest.mark.statement(k[0])) for k in th.DERIVATIONS])
def test_derivation(key, record):
    d = th.DERIVATIONS[key]()
    record(detail=d.claim)
    assert d.proved, d.report()


# ------------------------------------------------------------------------------ Appendix B
def _trajectories(a, b, X, y, steps):
    return sc.gd(a, X, y, steps), sc.gd(b, X, y, steps)


@pytest.mark.statement("app.B")
@pytest.mark.witness("dynamics")
@pytest.mark.parametrize("act", ["relu", "leaky_relu:0.2"])
def test_xavier_is_ours_exactly_at_power_of_four_width(act, record):
    """m = 256: sqrt(m) = 16 is a power of two, so the reparameterisation and every multiplier are
    exact in binary floating point and both nets round identically: f agrees bit for bit over 5 steps."""
    X, y = _data()
    xav = sc.xavier_net(256, X.shape[1], seed=1, delta=0.05, activation=act)
    a, b = _trajectories(xav, sc.xavier_to_ours(xav), X, y, 5)
    for k, ((_, fa), (_, fb)) in enumerate(zip(a, b)):
        assert torch.equal(fa, fb), f"step {k}: max |f_Xavier - f_ours| = {float((fa - fb).abs().max())!r}"
    assert float((a[-1][1] - a[0][1]).abs().max()) > 0     # the steps moved f: the comparison is not vacuous
    record(error=0.0, detail=f"{act}, m = 256: bitwise equal over 5 GD steps")


def _rounding_tol(net, X, steps):
    """(k + 1) gamma_N sum_i |mu3 c_i sigma(h_i)|, gamma_N = N eps with N = m + d + n: Higham's
    bound for the sums of length d, m, n in one forward/backward pass, once per step, the GD map
    being a near-identity at delta = 0.05 (errors add, they are not amplified)."""
    h, _ = sc.forward(net, X)
    terms = (net.mult[2] * parse_activation(net.activation)(h) * net.w3).abs().sum(1)
    return Tol(rtol=0.0, atol=(steps + 1) * (net.m + X.shape[1] + X.shape[0]) * EPS * float(terms.max()),
               why="forward-error bound gamma_N per step, N = m + d + n")


@pytest.mark.statement("app.B")
@pytest.mark.witness("dynamics")
def test_xavier_is_ours_to_rounding_and_not_for_tanh(record):
    """m = 300 (sqrt(m) irrational): the two trajectories agree to the rounding bound; with tanh (not
    homogeneous) they differ by far more, so the homogeneity hypothesis is needed."""
    X, y = _data()
    steps = 5
    worst = 0.0
    for act in ("relu", "tanh"):
        xav = sc.xavier_net(300, X.shape[1], seed=2, delta=0.05, activation=act)
        ours = sc.xavier_to_ours(xav)
        tol = _rounding_tol(ours, X, steps)
        a, b = _trajectories(xav, ours, X, y, steps)
        gap = max(float((fa - fb).abs().max()) for (_, fa), (_, fb) in zip(a, b))
        if act == "relu":
            worst = gap
            assert gap <= tol.bound(0.0), f"relu: {gap!r} > {tol}"
        else:
            assert gap > 1e6 * tol.bound(0.0), f"tanh: Xavier and ours agree ({gap!r}): the control cannot fail"
    record(error=worst, detail=f"relu, m = 300, 5 steps: max |f_X - f_ours| = {worst:.2e}")


# ------------------------------------------------------------------------------ Appendix C
@pytest.mark.statement("app.C")
@pytest.mark.witness("dynamics")
def test_mup_is_ours_in_function_space(record):
    """muP (32)-(34) and ours (31) from the same standard draws: raw weights differ (by m^(-1/2)
    per layer), the trajectories of f do not (m = 256: exact, as above)."""
    X, y = _data()
    draws = sc.standard_draws(256, X.shape[1], seed=3)
    ours, mup = sc.abc_net("ours", draws, 0.05), sc.abc_net("mup", draws, 0.05)
    assert not torch.equal(ours.w2, mup.w2)
    for k, ((_, fa), (_, fb)) in enumerate(zip(*_trajectories(ours, mup, X, y, 5))):
        assert torch.equal(fa, fb), f"step {k}"
    record(error=0.0, detail="m = 256: f bitwise equal over 5 GD steps")


# ------------------------------------------------------------------------------ Table 1
#: widths (two decades) and seeds of the slope fits; at width m the RMS sizes are pooled over
#: M/(4m) independent draws (M the largest width), so that every width's log-size has about the same
#: variance (an average over m neurons fluctuates like m^(-1/2))
WIDTHS = (16, 64, 256, 1024, 2048)
SEEDS = 8
DELTA = 0.5
#: family-wise false-alarm rate of the slope comparisons (3 scalings x 4 sizes), Student t on SEEDS - 1
ALPHA = 1e-3


def _slope(logs):
    """The exponent e of log Q = e log m + b + g m^(-1/2) (least squares): the nuisance term takes the
    leading finite-width correction (G of D = m features and f^0 fluctuate at relative size m^(-1/2);
    under MF h^0/Delta h = O(m^(-1/2)/delta)), which would otherwise bias a two-decade slope."""
    w = np.array(WIDTHS, dtype=float)
    A = np.column_stack([np.log(w), np.ones_like(w), w ** -0.5])
    return np.linalg.lstsq(A, logs, rcond=None)[0][0]


def _slopes(steps):
    X, y = _data()
    out = {name: [] for name in th.TABLE1}
    for seed in range(SEEDS):
        logs = {name: [] for name in th.TABLE1}
        for m in WIDTHS:
            reps = [sc.step_sizes(th.TABLE1, m, X, y, DELTA, 10_000 * seed + r, steps) for r in range(max(1, WIDTHS[-1] // (4 * m)))]
            for name in th.TABLE1:
                logs[name].append(0.5 * np.log(np.mean([np.square(rp[name]) for rp in reps], axis=0)))
        for name in th.TABLE1:
            out[name].append(_slope(np.array(logs[name])))
    return {name: np.array(v) for name, v in out.items()}


@pytest.mark.slow
@pytest.mark.statement("table.1")
@pytest.mark.witness("dynamics")
@pytest.mark.parametrize("steps", [1, 3])
def test_first_steps_scale_as_claimed(steps, record):
    """Per seed, the log-slope in m of each RMS size (h^0, f^0, Delta h, Delta f after ``steps`` GD
    steps), ReLU, n = 8, d = 5, delta = 1/2; the mean over seeds must lie within t * stderr of the
    claimed exponent, and, for h^0 and Delta h (where the scalings' claims differ), farther than that
    from every other scaling's exponent (the test tells them apart)."""
    slopes = _slopes(steps)
    t = stats.t.ppf(1 - ALPHA / (2 * 12), SEEDS - 1)
    lines = []
    for name in th.TABLE1:
        mean = slopes[name].mean(0)
        se = slopes[name].std(0, ddof=1) / math.sqrt(SEEDS)
        claimed = np.array([float(e) for e in th.CLAIMED_ORDERS[name]])
        lines.append(f"{name}: " + ", ".join(f"{q} {mu:+.3f}+-{s:.3f}" for q, mu, s in zip(th.QUANTITIES, mean, se)))
        assert np.all(np.abs(mean - claimed) <= t * se), f"{name}: slopes {mean} +- {se} vs claimed {claimed} (t = {t:.2f})"
        for other in th.TABLE1:
            alt = np.array([float(e) for e in th.CLAIMED_ORDERS[other]])
            for q in (0, 2):
                if alt[q] != claimed[q]:
                    assert abs(mean[q] - alt[q]) > t * se[q], f"{name}'s {th.QUANTITIES[q]} cannot be told from {other}'s"
    record(detail="; ".join(lines))
