"""Eq. (11), Monte Carlo witness: the raw indicator 1{w^T x_i >= 0, w^T x_j >= 0} over
w ~ N(0, I_d) against the closed form H^inf = ``numerics.masking.ntk.ntk_gram``, and the finite-width
Gram matrix at initialisation (Du et al. 2018's H(0), weights N(0, tau^2 I) as in Theorem 5.2)
against H^inf.

Every distinct entry (i <= j) is a comparison; one z-test per input set with a Bonferroni
correction over the n(n+1)/2 entries at a family-wise false-alarm rate of 1e-6.  Seeds are
fixed.  The sets cover what eq. (11) allows beyond Assumption 3.1: a zero input (1{0 >= 0} = 1,
H_ij = 0), d = 1 (parallel and antiparallel pairs), an exactly antiparallel pair (H_ij = 0:
the two half-spaces meet in a null set) and a nearly parallel pair.
"""
from __future__ import annotations

import numpy as np
import pytest
import torch

from numerics.masking import ntk
from numerics.core.tolerance import ZTest

pytestmark = pytest.mark.witness("montecarlo")

INPUTS = {
    "generic": np.array([[0.6, 0.0, 0.8], [0.1, 0.9, -0.3], [-0.7, 0.2, 0.4], [0.3, -0.6, -0.5],
                         [0.05, 0.02, 0.01]]),
    "zero_input": np.array([[0.0, 0.0, 0.0], [0.5, -0.5, 0.5], [-0.2, 0.9, 0.1]]),
    "d1": np.array([[0.5], [-0.3], [0.8]]),
    "antiparallel": np.array([[0.6, 0.8, 0.0], [-0.3, -0.4, 0.0], [0.0, 0.6, -0.7]]),
    "nearly_parallel": np.array([[0.6, 0.0, 0.8], [0.6 + 1e-3, 1e-3, 0.8 - 1e-3], [-0.2, 0.9, 0.3]]),
}
SAMPLES = 200_000
SAMPLES_SLOW = 50_000_000
WIDTH = 100_000      # m for the finite-width Gram
TAU = 1e-2           # initialisation scale (Theorem 5.2); the indicator does not see it


def _entries(n: int):
    return np.triu_indices(n)


@pytest.mark.parametrize("samples", [SAMPLES, pytest.param(SAMPLES_SLOW, marks=pytest.mark.slow)])
@pytest.mark.parametrize("name", list(INPUTS))
@pytest.mark.statement("eq.11")
def test_gram_matches_raw_indicator(name, samples, record):
    X = INPUTS[name]
    H = ntk.ntk_gram(X)
    est = ntk.monte_carlo_gram(X, samples, seed=21)
    iu = _entries(len(X))
    test = ZTest(alpha=1e-6, comparisons=len(iu[0]))
    z = est.z_scores(torch.as_tensor(H)).abs().numpy()[iu]
    worst = int(np.argmax(z))
    i, j = iu[0][worst], iu[1][worst]
    record(ratio=z.max() / test.z, detail=f"{name}: max |z| {z.max():.2f} at H[{i},{j}] against {test}")
    assert z.max() <= test.z, (f"{name}: H[{i},{j}] = {H[i, j]!r} but the raw indicator gives "
                               f"{float(est.mean[i, j])!r} +- {float(est.stderr[i, j]):.2e} (|z| = {z.max():.2f} > "
                               f"{test}); reproduce: numerics.masking.ntk.monte_carlo_gram(INPUTS[{name!r}], {samples}, seed=21)")


@pytest.mark.parametrize("name", ["generic", "nearly_parallel"])
@pytest.mark.statement("eq.11")
def test_finite_width_gram_at_initialisation_converges(name, record):
    """H(0) = (1/m) sum_r x_i^T x_j 1{w_r^T x_i >= 0, w_r^T x_j >= 0} with w_r ~ N(0, tau^2 I),
    m = 10^5: per entry, x_i^T x_j times a Bernoulli mean, so its standard error is
    |x_i^T x_j| sqrt(p (1 - p)/(m - 1)) with p the observed frequency; judged against H^inf.
    Recorded: ||H(0) - H^inf||_2 and lambda_min(H(0)) against lambda_0 (Weyl: they differ by
    at most the former; Du et al. 2018, Lemma 3.1, needs it below lambda_0/4)."""
    X = INPUTS[name]
    H = ntk.ntk_gram(X)
    W = TAU * torch.randn(WIDTH, X.shape[1], generator=torch.Generator().manual_seed(22), dtype=torch.float64)
    H0 = ntk.ntk_gram_finite(W.numpy(), X)
    G = X @ X.T
    p = np.divide(H0, G, out=np.zeros_like(H0), where=G != 0)
    stderr = np.abs(G) * np.sqrt(p * (1 - p) / (WIDTH - 1))
    iu = _entries(len(X))
    diff = (H0 - H)[iu]
    z = np.divide(np.abs(diff), stderr[iu], out=np.where(diff == 0, 0.0, np.inf), where=stderr[iu] > 0)
    test = ZTest(alpha=1e-6, comparisons=len(iu[0]))
    spectral = np.linalg.norm(H0 - H, 2)
    lam0, lam0_m = float(ntk.lambda0(X)), float(np.linalg.eigvalsh(H0)[0])
    record(ratio=z.max() / test.z,
           detail=(f"{name}, m = {WIDTH}: max |z| {z.max():.2f}; ||H(0) - H^inf||_2 = {spectral:.2e} "
                   f"(= {spectral / lam0:.3g} lambda_0); lambda_min(H(0)) = {lam0_m:.4e} vs lambda_0 = {lam0:.4e}"))
    assert z.max() <= test.z, f"{name}: finite-width Gram off by |z| = {z.max():.2f} > {test}"
    assert abs(lam0_m - lam0) <= spectral * (1 + 1e-12)   # Weyl's inequality (sanity of the pipeline)
