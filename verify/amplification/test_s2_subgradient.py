"""Dynamics witness of ``prose.subgradient`` (Section 2: 'Our results do not depend on the value
chosen for the subgradient'): full-batch GD (``numerics.amplification.gd.gradient``, whose
phi'(0) is its ``subgradient`` argument) at the smallest setting inside (A1)-(A7) for C = 16
(d = 755, n = 96, m = 38, alpha = 1/8), seeds 0-1, to 4T = 12 steps, with phi'(0) = 0 and 1 (the update is affine in phi'(0), so
these two decide every value in [0, 1]):
the weights are bit-identical at every step, and no pre-activation <w_j^(t), x_i> along the path is
exactly 0 (the reason: the noise has a density).  A single exact zero would change an update and
break the equality, so the test can fail; the zeros are counted, not assumed.
"""
from __future__ import annotations

import pytest
import torch

from numerics.amplification import data, gd, regimes

pytestmark = [pytest.mark.statement("prose.subgradient"), pytest.mark.witness("dynamics")]


def test_weights_identical_for_every_subgradient(record):
    s = regimes.inside(16, 0.1)
    a = gd.second_layer(s.m)
    zeros, compared = 0, 0
    for seed in range(2):
        smp = data.sample(s.n, s.d, s.sigma, s.eta, seed=3 * seed + gd.DATA)
        X, y = smp.x[None], smp.y[None]
        Ws = {v: gd.initial_weights(s, seed)[None] for v in (0.0, 1.0)}
        for _ in range(4 * s.T):
            zeros += int((X @ Ws[0.0].transpose(1, 2) == 0).sum())
            Ws = {v: W - s.alpha * gd.gradient(W, X, y, a, subgradient=v) for v, W in Ws.items()}
            assert torch.equal(Ws[0.0], Ws[1.0])
            compared += Ws[0.0].numel()
    assert zeros == 0
    record(judged=compared, detail=f"{compared} weights equal across phi'(0) = 0, 1 over 2 seeds x 12 steps; "
                                   f"exact zero pre-activations on the path: {zeros}")
