"""Slow-tier dynamics witnesses of ``fig.2`` (Figure 2, Section 5): full-batch GD (``gd.gradient``)
at the pack's drawing settings of Fig. 2 (``figures.LOW``, ``figures.HIGH``: eta = 0.15, m = 200,
alpha = 0.5, omega = 1e-6), seed 0, accuracies against the noisy labels on 20,000 fresh test draws.

- n >> d (d = 20, n = 1000, sigma = 0.45): the test accuracy at t_end = 2000 is below that at
  t_0 = 20 by more than z paired standard errors (the same test points at both times), while the
  train accuracy rises;
- d >> n (d = 2000, n = 100, sigma sqrt d = 3): from the first step with train accuracy 1 to step 400,
  every test accuracy (every 20 steps) is within z standard errors of 1 - eta = 85 % or above.
"""
from __future__ import annotations

import math

import pytest
import torch

from numerics.amplification import data, gd
from numerics.amplification.figures import HIGH, LOW
from numerics.core.tolerance import ZTest

pytestmark = [pytest.mark.statement("fig.2"), pytest.mark.witness("dynamics"), pytest.mark.slow]

N_TEST = 20_000
Z = ZTest(alpha=1e-3, comparisons=21)


def _train(cfg, steps, record_at):
    a = gd.second_layer(cfg.m)
    tr = data.sample(cfg.n, cfg.d, cfg.sigma, cfg.eta, seed=3 * 0 + gd.DATA)
    te = data.sample(N_TEST, cfg.d, cfg.sigma, cfg.eta, seed=3 * 0 + gd.TEST)
    s = gd.Setting(d=cfg.d, n=cfg.n, m=cfg.m, sigma=cfg.sigma, eta=cfg.eta, alpha=cfg.alpha, omega=cfg.omega, steps=steps)
    W = gd.initial_weights(s, 0)[None]
    out = {}
    for t in range(steps + 1):
        if t in record_at:
            ftr, _ = gd.network(W, tr.x[None], a)
            fte, _ = gd.network(W, te.x[None], a)
            out[t] = (float((tr.y * ftr[0] > 0).double().mean()), (te.y * fte[0] > 0).double())
        if t < steps:
            W = W - cfg.alpha * gd.gradient(W, tr.x[None], tr.y[None], a)
    return out


def test_low_dimensional_test_accuracy_decreases_while_overfitting(record):
    t0, t1 = 20, 2000
    out = _train(LOW, t1, {t0, t1})
    (tr0, c0), (tr1, c1) = out[t0], out[t1]
    diff = c1 - c0
    mean, se = float(diff.mean()), float(diff.std() / math.sqrt(N_TEST))
    record(ratio=(mean + Z.z * se) / max(abs(mean), 1e-300), judged=N_TEST,
           detail=f"test accuracy {float(c0.mean()):.4f} at t = {t0} -> {float(c1.mean()):.4f} at t = {t1} "
                  f"(paired se {se:.4f}); train {tr0:.4f} -> {tr1:.4f}")
    assert mean + Z.z * se < 0 and tr1 > tr0


def test_high_dimensional_test_accuracy_stays_at_85_percent_after_interpolation(record):
    steps = 400
    out = _train(HIGH, steps, set(range(0, steps + 1, 20)))
    interp = min(t for t, (tr, _) in out.items() if tr == 1.0)
    se = math.sqrt(0.85 * 0.15 / N_TEST)
    accs = {t: float(c.mean()) for t, (_, c) in out.items() if t >= interp}
    worst = min(accs.values())
    record(judged=len(accs), detail=f"interpolation at step {interp}; min test accuracy to step {steps}: {worst:.4f} "
                                    f"(85 % - z se = {0.85 - Z.z * se:.4f})")
    assert interp < steps and worst >= 0.85 - Z.z * se
