"""``numerics.meanfield.theorem_runs``: the machinery at a width far below the theorems' (the outcome
then says nothing about them), the events gate the outcome, and the command's errors."""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
import torch

from numerics.core.arrays import DTYPE
from numerics.meanfield import dynamics as dy
from numerics.meanfield import theorem_runs as tr


def test_theorem3_machinery_below_its_width():
    out = tr.run_theorem3(0, m=4000)
    assert out.D == tr.theorem3_sizes().D and out.m == 4000
    assert set(out.events) >= {"eta0", "L0", "gram", "gram_deviation"}
    assert out.events["gram"] == (out.events["gram_deviation"] <= out.events["half_lam_bar"])
    if out.events_hold:
        assert out.judged > 0 and math.isfinite(out.ratio) and out.holds is not None
    else:
        assert out.holds is None and out.judged == 0


def test_cli_errors(capsys):
    assert tr.main(["thm.9"]) == 2
    assert tr.main(["thm.1", "--delta", "0"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and all(line.startswith("error:") for line in err)


def test_one_point_and_rk4_agree_on_a_reduced_draw(one_torch_thread):
    """Both ways of running the flow give one verdict on a reduced Theorem 1 draw (c_hat = 10 and
    m = 5,000 instead of 152 and 4e6, so the outcome says nothing about the theorem): the initial
    events are shared, each judges resolved times, and the checks agree.  Each method takes its
    minima over its own recorded states of one trajectory (RK4's evenly spaced in t up to its
    horizon, the reduction's where the loss halves, and h(oo)): eta^t counts neurons, so its ratios
    may differ by a few neurons on an interval shrunk by each method's own error bound; lambda_min
    and (15) move slowly along the flow (measured differences 3e-8 and 6e-5 relative), so 1e-3."""
    sizes = replace(tr.theorem1_sizes(), c_min=10.0)
    k = 2 ** (1 / 3) * sizes.K_s**2 * sizes.K * sizes.c_min**2 * sizes.lam_min
    m = 5000
    runs = {meth: tr._flow("thm.1", sizes, tr._X1 @ tr._X1.T, tr._Y1, 0, k, sizes.K, m=m, method=meth)
            for meth in ("rk4", "one-point")}
    a, b = runs["rk4"], runs["one-point"]
    assert a.events == b.events and a.events_hold
    assert a.judged > 0 and b.judged > 0 and a.holds == b.holds
    assert abs(a.eta_ratio - b.eta_ratio) <= 3 / (m * 2 ** (-2 / 3) * sizes.K)
    for name in ("lam_ratio", "move_ratio"):
        assert getattr(b, name) == pytest.approx(getattr(a, name), rel=1e-3), name


def test_feature_movement_ratio_takes_the_error_on_the_conservative_side():
    """(15)'s ratio at a state known to err: the movement lowered by err, |f - f0| raised by alpha
    sum |c_i| L err.  All c_i > 0 and every neuron moved by delta: |df| ~ c delta mean sech^2(h0),
    so the exact ratio is about 1/mean sech^2 > 1.  With err = delta/2 (half the movement is error)
    the lenient direction, (mean |dh| + err) c L/|df|, still passes; the conservative one does not."""
    q = dy.make_problem(np.ones((1, 1)), np.array([0.5]), 64, 2.0, "tanh", seed=0)
    p = dy.Problem(q.G, q.y, q.c.abs(), q.act, q.h0)
    delta = 1e-3
    h = p.h0 + torch.tensor(delta, dtype=DTYPE)
    df = (dy.output(p, h) - dy.output(p, p.h0)).abs()
    c = p.c_hat
    exact = tr.feature_move_ratio(p, h, p.h0, df, c, 0.0)
    assert exact == float(((h - p.h0).abs().mean(0) * c / df).min()) and exact > 1
    err = delta / 2
    lenient = float((((h - p.h0).abs().mean(0) + err) * c / df).min())
    assert lenient > exact > 1 > tr.feature_move_ratio(p, h, p.h0, df, c, err)
