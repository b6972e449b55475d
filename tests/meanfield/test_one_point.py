"""``numerics.meanfield.one_point`` against its witness, RK4 on (11) with step halving
(``dynamics.integrate``): the reduced flow's states and losses at its recorded times, on both sides
of the target (r_0 > 0 and r_0 < 0), its limit state, and its refusals."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from numerics.meanfield import dynamics as dy
from numerics.meanfield import one_point as op


def _problem(y: float, seed: int, m: int = 300, c_hat: float = 3.0, g: float = 0.8) -> dy.Problem:
    return dy.make_problem(np.array([[g]]), np.array([y]), m, c_hat, "tanh", seed=seed)


@pytest.mark.parametrize("y, seed, sign", [(0.5, 1, -1), (-0.7, 2, 1)])
def test_records_match_rk4(y, seed, sign, one_torch_thread):
    p = _problem(y, seed)
    assert math.copysign(1.0, float(dy.output(p, p.h0)[0] - p.y[0])) == sign  # both sides of the target
    states = []
    fl = op.flow(p, visit=lambda h: states.append(h.clone()))
    assert len(fl.s) >= 10 and fl.losses == sorted(fl.losses, reverse=True)
    assert all(L2 == pytest.approx(L1 / 2, rel=0.2) for L1, L2 in zip(fl.losses, fl.losses[1:5])), "the loss halves per record"
    kappa = float(p.G[0, 0])
    for j in (1, 4, 9):
        t = fl.times[j]
        ref = dy.integrate(p, t, records=1, rtol=1e-11, max_steps=2**18)
        r = math.sqrt(2 * fl.losses[j])
        # RK4's error: 10 x its halving difference; the record's: its time is off by time_errors[j], which
        # moves h by at most c_hat G |r| per unit time, plus the solve's error
        tol_h = 10 * ref.halving_error + p.c_hat * kappa * r * fl.time_errors[j] + fl.newton_update + 1e-15
        assert float((ref.states[-1] - states[j]).abs().max()) <= tol_h
        tol_L = 10 * ref.loss_halving[-1] + fl.tolerances()[j] + 1e-16
        assert abs(ref.losses[-1] - fl.losses[j]) <= tol_L


def test_limit_state_is_rk4s_long_time_state(one_torch_thread):
    """h(oo), the solution of r(s*) = 0, against RK4 run until the loss is at rounding level."""
    p = _problem(0.5, 1)
    states = []
    fl = op.flow(p, visit=lambda h: states.append(h.clone()))
    assert abs(fl.r_star) <= 1e-13
    ref = dy.integrate(p, 10.0, records=4, rtol=1e-10, max_steps=2**18)
    assert ref.losses[-1] <= 1e-28
    # what the flow still moves after t = 10 is at most c_hat G int_10^oo |r| ~ c_hat G |r(10)|/(decay
    # rate of r ~ 3) < 1e-13: below RK4's own error bound
    assert float((ref.states[-1] - states[-1]).abs().max()) <= 10 * ref.halving_error


def test_features_solve_the_closed_form():
    """delta solves delta/2 + cosh(2 h0 + delta) sinh(delta)/2 = -c s (checked in 50 digits, the raw
    antiderivative h/2 + sinh(2h)/4 differenced), and r, dr/ds are the sums they name."""
    import mpmath as mp

    p = _problem(0.5, 1, m=40, c_hat=5.0)
    s = 0.37
    sol = op.features(p, s)
    h0, c = p.h0[:, 0].tolist(), p.c.tolist()
    with mp.workdps(50):
        F = lambda h: h / 2 + mp.sinh(2 * h) / 4  # noqa: E731
        for a, ci, d in zip(h0, c, sol.delta.tolist()):
            h = mp.mpf(a) + mp.mpf(d)
            assert abs(F(h) - F(mp.mpf(a)) + ci * s) <= 1e-14 * (1 + abs(ci * s))
        r = sum(mp.mpf(ci) * mp.tanh(mp.mpf(a) + mp.mpf(d)) for a, ci, d in zip(h0, c, sol.delta.tolist())) / 40 - mp.mpf(0.5)
    assert sol.r == pytest.approx(float(r), rel=1e-12, abs=1e-15)
    h = p.h0[:, 0] + sol.delta
    assert sol.dr_ds == pytest.approx(-float((p.c**2 / torch.cosh(h) ** 4).sum()) / 40, rel=1e-12)


def test_refusals():
    relu = dy.make_problem(np.array([[1.0]]), np.array([0.5]), 10, 2.0, "relu", seed=0)
    two = dy.make_problem(np.eye(2), np.array([0.5, 0.1]), 10, 2.0, "tanh", seed=0)
    for p in (relu, two):
        with pytest.raises(ValueError, match="n = 1 and tanh"):
            op.flow(p)
    with pytest.raises(ValueError, match="ratio"):
        op.flow(_problem(0.5, 1), ratio=1.0)
