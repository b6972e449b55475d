"""Units of ``numerics.amplification.gd`` and ``regimes``: the hand-written gradient against torch
autograd of the logistic loss, input validation, the sets J_mu, and the smallest settings inside
(A1)-(A7)."""
from __future__ import annotations

import math
from dataclasses import replace

import pytest
import torch

from numerics.amplification import data, gd, regimes
from numerics.core.tolerance import EPS, Tol

#: the two gradients sum the same n m d products in different orders; each product is O(1) and the
#: sums have n terms, so they agree to a few n eps in absolute terms relative to the largest entry
GRAD = Tol(rtol=64 * EPS, why="reassociated float64 sums of n = 30 O(1) terms")


@pytest.mark.parametrize("subgradient", [0.0, 1.0])
def test_gradient_is_autograd_of_the_logistic_loss(subgradient):
    s = gd.Setting(d=7, n=30, m=6, sigma=0.3, eta=0.2, alpha=0.25, omega=0.5)
    draw = data.sample(s.n, s.d, s.sigma, s.eta, seed=4)
    a = gd.second_layer(s.m)
    W = gd.initial_weights(s, 1)[None].clone().requires_grad_(True)
    f = torch.relu(draw.x[None] @ W.transpose(1, 2)) @ a
    loss = torch.nn.functional.softplus(-draw.y * f).mean()      # log(1 + exp(-y f)), the definition
    (auto,) = torch.autograd.grad(loss, W)
    mine = gd.gradient(W.detach(), draw.x[None], draw.y[None], a, subgradient)
    # no pre-activation is exactly 0 here, so the subgradient does not enter and autograd (relu'(0) = 0) agrees
    err = float((mine - auto).abs().max() / auto.abs().max())
    assert err <= GRAD.rtol * s.n, (err, GRAD)


def test_subgradient_enters_only_at_zero():
    a = gd.second_layer(2)
    W = torch.zeros(1, 2, 3, dtype=torch.float64)
    X = torch.ones(1, 1, 3, dtype=torch.float64)
    y = torch.ones(1, 1, dtype=torch.float64)
    assert gd.gradient(W, X, y, a, 0.0).abs().max() == 0
    g1 = gd.gradient(W, X, y, a, 1.0)                            # phi'(0) = 1: -sigmoid(0) y a_j x / n
    assert torch.allclose(g1[0, 0], torch.full((3,), -0.5 / math.sqrt(2), dtype=torch.float64), rtol=4 * EPS, atol=0)


@pytest.mark.parametrize("field, value", [("d", 1), ("n", 0), ("m", 3), ("m", 2.5), ("sigma", 0.0), ("sigma", math.nan),
                                          ("eta", 0.5), ("eta", -0.1), ("alpha", 0.3), ("alpha", -1.0),
                                          ("omega", 0.0), ("omega", math.inf), ("C0", 1.0), ("subgradient", 2.0),
                                          ("steps", 0), ("n_test", 0)])
def test_bad_settings_raise(field, value):
    base = {"d": 5, "n": 10, "m": 4, "sigma": 0.1, "eta": 0.1, "alpha": 0.25, "omega": 1e-3}
    with pytest.raises(ValueError):
        gd.Setting(**{**base, field: value})


def test_cluster_sets_follow_the_threshold():
    a = gd.second_layer(4)
    d, C0 = 9, 2.0
    thr = 1 / (3 * C0 * math.sqrt(d))
    W = torch.zeros(1, 4, d, dtype=torch.float64)
    W[0, :, 2] = 1.0
    W[0, 0, 0] = 1.01 * thr          # positive neuron just above the threshold for +mu_1 (norm ~ 1)
    W[0, 1, 0] = -0.99 * thr         # positive, just below for -mu_1
    W[0, 2, 0] = 0.5                 # negative neuron: mu_1 does not count for it
    W[0, 3, 1] = -0.5                # negative, in J_{-mu_2}
    J = gd.cluster_sets(W, a, C0)[0]
    assert J.tolist() == [[True, False, False, False], [False, False, False, False],
                          [False, False, False, False], [False, False, False, True]]


@pytest.mark.parametrize("C", [16, 36, 100, 1e4])
def test_inside_satisfies_every_assumption_and_is_smallest(C):
    s = regimes.inside(C, 0.1)
    assert all(regimes.assumptions(s, C, 0.1).values())
    assert 1 / (4 * s.alpha) == round(1 / (4 * s.alpha))
    for field in ("d", "n", "m"):
        smaller = {"d": 1, "n": 1, "m": 2}[field]
        t = replace(s, **{field: getattr(s, field) - smaller})
        assert not all(regimes.assumptions(t, C, 0.1).values()), field


def test_rate_interval_is_clopper_pearson():
    r = regimes.rate(0, 10)
    assert r["lo"] == 0 and abs(r["hi"] - (1 - 0.025 ** (1 / 10))) < 1e-12   # (k = 0): 1 - (alpha/2)^(1/N)


def test_adversaries_choose_round_eta_n_flips():
    n, eta = 200, 0.1
    s = data.sample(n, 10, 0.2, eta, seed=3, adversary="cluster")
    assert int(s.noisy.sum()) == 20 and bool((s.cluster[s.noisy] == 0).all())
    assert int(data.sample(n, 10, 0.2, 0.5, seed=3, adversary="cluster").noisy.sum()) == int((s.cluster == 0).sum())
    m = data.sample(n, 10, 0.2, eta, seed=3, adversary="margin")
    gap = (m.x[:, 0].abs() - m.x[:, 1].abs()).abs()
    assert int(m.noisy.sum()) == 20 and float(gap[m.noisy].max()) <= float(gap[~m.noisy].min())
    with pytest.raises(ValueError):
        data.sample(n, 10, 0.2, eta, seed=3, adversary="bogus")
    with pytest.raises(ValueError):
        gd.Setting(d=5, n=10, m=4, sigma=0.1, eta=0.1, alpha=0.25, omega=1e-3, adversary="bogus")
