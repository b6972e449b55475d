"""Witnesses of ``sec4.2.example`` (Section 4.2: a network whose positive neurons lie along
+-(mu_1 + 100 mu_2) and negative ones along +-mu_2 satisfies neuron alignment, not
almost-orthogonality, and does not generalise).

The network is built from its neurons (m = 8, c = 1, a_j = +-1/sqrt m) and evaluated on raw draws of
the distribution (``data.sample``, clean labels), d = 64, sigma sqrt d = 1/64 (inside (A2) for C >= 64;
alignment needs 100 sigma |g| < 1 on every sample: at sigma sqrt d = 1/16, d = 256 it already fails); the predictor identity
is checked pointwise, Condition 4.7 on a training-size sample, Condition 4.8's bound fails by the
construction, and the error is estimated by Monte Carlo (mean - z stderr >= 0.49).
"""
from __future__ import annotations

import math

import pytest
import torch

from numerics.amplification import data, gd
from numerics.core.tolerance import Tol, ZTest

pytestmark = pytest.mark.statement("sec4.2.example")

D, SIGMA, M = 64, 1 / (64 * math.sqrt(64)), 8
Z = ZTest(alpha=1e-6, comparisons=1)
IDENTITY = Tol(1e-12, why="float64 sums of 8 ReLUs of O(100) pre-activations: a few ulps of 100 relative to the O(1) result")


def _network():
    v = torch.zeros(D, dtype=torch.float64)
    v[0], v[1] = 1.0, 100.0
    e2 = torch.zeros(D, dtype=torch.float64)
    e2[1] = 1.0
    W = torch.stack([v, v, -v, -v, e2, e2, -e2, -e2])          # positive neurons first (gd.second_layer's order)
    return W, gd.second_layer(M)


@pytest.mark.witness("montecarlo")
def test_alignment_holds_orthogonality_fails_and_the_error_is_one_half(record):
    W, a = _network()
    smp = data.sample(100_000, D, SIGMA, 0.0, seed=4201)
    f = torch.relu(smp.x @ W.T) @ a
    pred = (math.sqrt(M) / 4) * ((smp.x[:, 0] + 100 * smp.x[:, 1]).abs() - smp.x[:, 1].abs())   # c sqrt(m)/4 (...), c = 1
    assert float((f - pred).abs().max()) <= IDENTITY.rtol * 100, IDENTITY            # 'predictor' (m/4 neurons per direction)
    train = data.sample(400, D, SIGMA, 0.0, seed=4202)
    pre = train.x @ W.T
    for k, (coord, sign, on, off) in enumerate(gd.J_MEANS):     # Condition 4.7 with J_{+-mu_1} = positive, J_{+-mu_2} = negative
        cols = [j for j in range(M) if (a[j] > 0) == (coord == 0) and float(sign * W[j, coord]) > 0]
        assert (pre[train.cluster == on][:, cols] > 0).all() and (pre[train.cluster == off][:, cols] < 0).all()
    assert float(W[:4, 1].abs().min()) == 100.0                   # |<w_j, mu_2>| = 100 c: Condition 4.8 fails once 100 c > 3 alpha |a_j|
    err = (smp.y * f <= 0).double()
    mean, se = float(err.mean()), float(err.std() / math.sqrt(err.numel()))
    assert mean - Z.z * se >= 0.49, (mean, se, Z)
    record(ratio=0.49 / max(mean - Z.z * se, 1e-300), judged=err.numel(),
           detail=f"error {mean:.4f} +- {se:.4f} over {err.numel()} raw draws (sigma sqrt d = 1/64); "
                  f"Bayes error {data.bayes_error(SIGMA):.2e}")
