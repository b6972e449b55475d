"""Dynamics witness of ``prose.odd-m`` (Section 2: 'Our results hold for odd m by setting a_m = 0'):
raw GD (autograd of the empirical logistic loss) at the smallest setting inside (A1)-(A7) for C = 16,
delta = 0.1 (d = 755, n = 96, alpha = 1/8, T = 3) with the odd width m = 39 (19 neurons at +1/sqrt m,
19 at -1/sqrt m, a_m = 0), 8 seeds: the last neuron's weights never change, and the rate of seeds
fitting every clean and misfitting every noisy training sample at T is compatible with 1 - 4 delta
(the upper end of its 95 % Clopper-Pearson interval, as for Theorem 3.1's even widths).
"""
from __future__ import annotations

import math
from dataclasses import replace

import pytest
import torch

from numerics.amplification import data, gd, regimes

pytestmark = [pytest.mark.statement("prose.odd-m"), pytest.mark.witness("dynamics")]

DELTA, M, SEEDS = 0.1, 39, 8


def test_odd_width_with_a_silent_neuron(record):
    s = regimes.inside(16, DELTA)
    # (A1), (A3), (A5), (A6) are monotone in m: checking them at the even m = 40 > 39 is conservative
    assert all(regimes.assumptions(replace(s, m=M + 1), 16, DELTA).values()) and M >= 16 * math.log(1 / DELTA)
    a = torch.cat([torch.full((19,), 1 / math.sqrt(M)), torch.full((19,), -1 / math.sqrt(M)), torch.zeros(1)]).double()
    ok = 0
    for seed in range(SEEDS):
        smp = data.sample(s.n, s.d, s.sigma, s.eta, seed=3 * seed + gd.DATA)
        gen = torch.Generator().manual_seed(1000 + seed)
        W = s.omega * torch.randn(M, s.d, generator=gen, dtype=torch.float64)
        W0 = W.clone()
        for _ in range(s.T):
            Wv = W.clone().requires_grad_(True)
            loss = torch.nn.functional.softplus(-smp.y * (torch.relu(smp.x @ Wv.T) @ a)).mean()
            (g,) = torch.autograd.grad(loss, Wv)
            W = (W - s.alpha * g).detach()
        assert torch.equal(W[-1], W0[-1])
        margin = smp.y * (torch.relu(smp.x @ W.T) @ a)
        ok += bool((margin[~smp.noisy] > 0).all() and (margin[smp.noisy] < 0).all())
    r = regimes.rate(ok, SEEDS)
    record(ratio=(1 - 4 * DELTA) / max(r["hi"], 1e-300), judged=SEEDS,
           detail=f"m = {M}, a_m = 0: {ok}/{SEEDS} seeds fit (95% CI [{r['lo']:.3f}, {r['hi']:.3f}]); last neuron frozen")
    assert r["hi"] >= 1 - 4 * DELTA
