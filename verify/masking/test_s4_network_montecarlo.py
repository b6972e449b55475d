"""Section 4 at network level, Monte Carlo witness: raw masks against the exact expectations.

Each draw is a fresh mask c_i ~ N(1, kappa^2 I_d) per sample; the surrogate loss L_C is the
raw masked network, and its gradient comes from torch autograd (``numerics.masking.network.
surrogate_grad``), never from a closed form.  E_C[L_C] and every coordinate of E_C[grad L_C]
are judged by one z-test per network with a Bonferroni correction over 1 + m d comparisons
at a family-wise false-alarm rate of 1e-6.  Seeds are fixed.
"""
from __future__ import annotations

import numpy as np
import pytest
import torch

from numerics.masking import network as nw
from numerics.core.tolerance import ZTest

pytestmark = pytest.mark.witness("montecarlo")

NETWORKS = {
    # generic: n = 3, m = 4, d = 3, mixed signs
    "generic": (np.array([[0.8, -0.4, 0.3], [0.2, 0.9, -0.5], [-0.6, 0.1, 0.7], [0.5, 0.5, 0.5]]),
                np.array([1.0, -1.0, 1.0, -1.0]),
                np.array([[0.5, 0.4, -0.7], [0.9, -0.1, 0.2], [-0.3, 0.6, 0.6]]),
                np.array([0.7, -0.2, 0.4]), 0.3),
    # d = 1: every pair of neurons is parallel or antiparallel (rho = +-1)
    "d1": (np.array([[1.3], [0.6], [-0.9]]), np.array([1.0, 1.0, -1.0]), np.array([[0.8], [-0.5]]),
           np.array([0.5, -0.3]), 0.5),
    # large kappa, a zero input coordinate, and w_r . x_i = 0 for one pair (s = 0)
    "degenerate": (np.array([[1.0, 0.0, 0.0], [0.4, -1.2, 0.3]]), np.array([1.0, -1.0]),
                   np.array([[0.0, 0.6, 0.8], [0.7, 0.0, -0.7]]), np.array([-0.4, 1.1]), 2.0),
    # small kappa: the masked network is nearly the clean one
    "small_kappa": (np.array([[0.8, -0.4], [0.2, 0.9], [-0.6, 0.1]]), np.array([1.0, -1.0, 1.0]),
                    np.array([[0.6, 0.8], [-0.8, 0.6]]), np.array([0.3, 0.2]), 0.05),
}
SAMPLES = 200_000
SAMPLES_SLOW = 5_000_000


@pytest.mark.parametrize("samples", [SAMPLES, pytest.param(SAMPLES_SLOW, marks=pytest.mark.slow)])
@pytest.mark.parametrize("name", list(NETWORKS))
@pytest.mark.statement("net.expected_loss")
@pytest.mark.statement("net.expected_grad")
def test_expected_loss_and_grad_match_raw_masks(name, samples, record):
    W, a, X, y, kappa = NETWORKS[name]
    loss, grad = nw.expected_loss_and_grad(W, a, X, y, kappa)
    est_loss, est_grad = nw.monte_carlo(W, a, X, y, kappa, samples, seed=11, batch=20_000)
    test = ZTest(alpha=1e-6, comparisons=1 + W.size)
    z_loss = float(est_loss.z_scores(float(loss)).abs())
    z_grad = float(est_grad.z_scores(torch.as_tensor(grad)).abs().max())
    z = max(z_loss, z_grad)
    record(ratio=z / test.z, detail=f"{name}: |z| loss {z_loss:.2f}, grad max {z_grad:.2f} against {test}")
    assert z <= test.z, (f"{name}: Monte Carlo disagrees, |z| loss {z_loss:.2f}, grad {z_grad:.2f} > {test}; "
                         f"reproduce: numerics.masking.network.monte_carlo(*NETWORKS[{name!r}], {samples}, seed=11)")


@pytest.mark.statement("thm.4.2")
def test_decomposition_error_term_matches_raw_masks(record):
    """E = E_C[L_C] - T1 - T2: the Monte Carlo mean of L_C minus T1 and T2 against the closed form of E."""
    W, a, X, y, kappa = NETWORKS["generic"]
    th = nw.theorem_4_2(W, a, X, y, kappa)
    est_loss, _ = nw.monte_carlo(W, a, X, y, kappa, SAMPLES, seed=12, batch=20_000)
    z = abs(float(est_loss.mean) - th.T1 - th.T2 - th.E) / float(est_loss.stderr)
    test = ZTest(alpha=1e-6)
    record(ratio=z / test.z, detail=f"|z| = {z:.2f} for E = {th.E:.4g}")
    assert z <= test.z
