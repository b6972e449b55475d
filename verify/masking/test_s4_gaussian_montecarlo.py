"""Monte Carlo witness: raw Gaussian masks c ~ N(1, kappa^2 I) against the closed forms.

Each estimator samples the mask and evaluates the raw integrand (the ReLU of the masked
pre-activation w^T (x . c), the indicator of c^T u >= 0, ...); the closed form is then
judged by a two-sided z-test at a declared family-wise false-alarm rate with a Bonferroni
correction over every coordinate compared in the test.  Seeds are fixed.
"""
from __future__ import annotations

import numpy as np
import pytest
import torch

from numerics.core import closed_form as cf
from numerics.core import montecarlo as mc
from numerics.core.tolerance import ZTest

pytestmark = pytest.mark.witness("montecarlo")
N = 400_000
N_SLOW = 20_000_000

NEURONS = [
    # (w1, w2, x, kappa): generic, d = 1 (parallel and antiparallel neurons), deep-ish tail,
    # large kappa, and a coordinate of x equal to zero
    ([0.8, -0.4, 0.3], [0.2, 0.9, -0.5], [0.5, 0.4, -0.7], 0.3),
    ([1.3], [0.6], [0.8], 0.5),
    ([1.3], [-0.6], [0.8], 0.5),
    ([-0.9, -0.3], [0.4, 0.2], [0.6, 0.7], 0.4),
    ([0.5, 0.5, 0.5, 0.5], [1.0, -1.0, 1.0, -1.0], [0.5, 0.5, 0.5, 0.0], 2.0),
]


def _params(w, x, kappa):
    w, x = np.asarray(w), np.asarray(x)
    return float(w @ x), kappa * float(np.linalg.norm(w * x))


def _check(est, exact, comparisons, record, alpha=1e-6):
    test = ZTest(alpha=alpha, comparisons=comparisons)
    z = est.z_scores(torch.as_tensor(np.asarray(exact, dtype=float))).abs().max().item()
    record(ratio=z / test.z, detail=f"max |z| = {z:.2f} against {test}")
    assert z <= test.z, f"Monte Carlo disagrees: max |z| = {z:.2f} > {test}"


@pytest.mark.statement("lemma.relu_moment1")
@pytest.mark.parametrize("samples", [N, pytest.param(N_SLOW, marks=pytest.mark.slow)])
def test_smoothed_relu_matches_raw_masks(samples, record):
    """E_c[ReLU(w^T (x . c))] = sigma_tilde(w^T x, kappa ||w . x||), and E_c[ReLU(.)^2]."""
    exact, ests = [], []
    for i, (w, _, x, kappa) in enumerate(NEURONS):
        mu, s = _params(w, x, kappa)
        wt, xt = torch.tensor(w, dtype=torch.float64), torch.tensor(x, dtype=torch.float64)
        est = mc.mask_mean(lambda c: torch.stack([torch.relu((c * xt) @ wt), torch.relu((c * xt) @ wt) ** 2], -1),
                           len(x), kappa, samples, seed=100 + i)
        ests.append(est)
        exact.append([cf.relu_moment1(mu, s), cf.relu_square_moment(mu, s)])
    est = mc.Estimate(torch.stack([e.mean for e in ests]), torch.stack([e.stderr for e in ests]), samples)
    _check(est, exact, est.mean.numel(), record)


@pytest.mark.statement("lemma.relu_moment2")
@pytest.mark.parametrize("samples", [N, pytest.param(N_SLOW, marks=pytest.mark.slow)])
def test_two_neuron_moment_matches_raw_masks(samples, record):
    """E_c[ReLU(w1^T (x . c)) ReLU(w2^T (x . c))] = relu_moment2 at the projected parameters,
    with correlation (w1 . x)^T (w2 . x) / (||w1 . x|| ||w2 . x||) (Theorem 4.2's proof sketch)."""
    means, ses, exact = [], [], []
    for i, (w1, w2, x, kappa) in enumerate(NEURONS):
        mu1, s1 = _params(w1, x, kappa)
        mu2, s2 = _params(w2, x, kappa)
        u1, u2 = np.asarray(w1) * x, np.asarray(w2) * x
        rho = float(np.clip(u1 @ u2 / (np.linalg.norm(u1) * np.linalg.norm(u2)), -1, 1))
        est = mc.relu_moment2(w1, w2, x, kappa, samples, seed=200 + i)
        means.append(est.mean), ses.append(est.stderr)
        exact.append(cf.relu_moment2(mu1, mu2, s1, s2, rho))
    est = mc.Estimate(torch.stack(means), torch.stack(ses), samples)
    _check(est, exact, len(exact), record)


MASKS = [
    ([0.7, -0.2, 0.4], [0.1, 0.5, -0.3], 0.3),
    ([1.0], [2.0], 0.4),                         # d = 1, parallel
    ([0.3, -0.8, 0.1], [-0.3, 0.8, -0.1], 0.5),  # antiparallel: probability 0
    ([0.3, -0.8, 0.1], [0.6, -1.6, 0.2], 0.5),   # parallel
    ([-1.0, -0.5, 0.2], [-0.4, -0.3, -0.2], 0.8),
    ([0.5, 0.5], [0.2, -0.1], 0.0),              # kappa = 0: c = 1
]


@pytest.mark.statement("lemma.mask_moment1")
@pytest.mark.parametrize("samples", [N, pytest.param(N_SLOW, marks=pytest.mark.slow)])
def test_mask_moment1_matches_raw_masks(samples, record):
    means, ses, exact = [], [], []
    for i, (u, _, kappa) in enumerate(MASKS):
        est = mc.mask_moment1(u, kappa, samples, seed=300 + i)
        means.append(est.mean), ses.append(est.stderr)
        exact.append(cf.mask_moment1(np.array(u), kappa))
    est = mc.Estimate(torch.cat(means), torch.cat(ses), samples)
    _check(est, np.concatenate(exact), est.mean.numel(), record)


@pytest.mark.statement("lemma.mask_moment2")
@pytest.mark.parametrize("samples", [N, pytest.param(N_SLOW, marks=pytest.mark.slow)])
def test_mask_moment2_matches_raw_masks(samples, record):
    means, ses, exact = [], [], []
    for i, (u, v, kappa) in enumerate(MASKS):
        for j, vv in enumerate((v, None)):
            est = mc.mask_moment2(u, vv, kappa, samples, seed=400 + 10 * i + j)
            means.append(est.mean.flatten()), ses.append(est.stderr.flatten())
            exact.append(cf.mask_moment2(np.array(u), None if vv is None else np.array(vv), kappa).flatten())
    est = mc.Estimate(torch.cat(means), torch.cat(ses), samples)
    _check(est, np.concatenate(exact), est.mean.numel(), record)
