"""The training machinery: eq. (1)'s batched kernel against autograd of the raw loss, batching,
pairing, resuming, divergence, the expected dynamics at kappa = 0, and the data generator."""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
import torch

from numerics.masking import data
from numerics.masking import network as nw
from numerics.masking import training as tr
from numerics.core.tolerance import Tol

SUM_ORDER = Tol(rtol=1e-12, why="the same float64 arithmetic, summed in another order")
#: float32's unit roundoff 6e-8, accumulated over SMALL's 40 steps (~2.4e-6), with a margin of 4
#: (measured: 2.5e-7)
FLOAT32 = Tol(rtol=1e-5, why="float32 rounding over 40 steps of eq. (1)")
#: two float64 kernels of the same gradient (the exact one at s = 0 and eq. (2) with C = 1),
#: 10 steps (measured: 2.9e-16)
TWO_KERNELS = Tol(rtol=1e-13, why="two float64 kernels of one gradient, 10 steps")
SMALL = tr.Config(n=12, d=4, m=6, lr=0.05, steps=40, seeds=3, kappas=(0.0, 0.3, 1.0))


@pytest.fixture(autouse=True)
def one_thread():
    """Small products run far faster on one thread on a shared two-core machine."""
    with tr.torch_threads(1):
        yield


@pytest.mark.parametrize("d", [1, 3])
def test_masked_grad_is_autograd_of_the_raw_masked_loss(d):
    """Eq. (2) by hand, batched over (S, K), against torch autograd of L_C (numerics.masking.network)."""
    g = torch.Generator().manual_seed(d)
    S, K, n, m = 2, 3, 7, 5
    W = torch.randn(S, K, m, d, generator=g, dtype=torch.float64)
    a = torch.where(torch.rand(m, generator=g) < 0.5, -1.0, 1.0).double()
    X = torch.randn(n, d, generator=g, dtype=torch.float64)
    y = torch.randn(n, generator=g, dtype=torch.float64)
    C = 1 + 0.7 * torch.randn(S, K, n, d, generator=g, dtype=torch.float64)
    loss, G = tr.masked_loss_grad(W, a, X, y, C)
    for s in range(S):
        for k in range(K):
            L_ref, G_ref = nw.surrogate_grad(W[s, k], a, X, y, C[s, k][None])
            assert abs(loss[s, k] - L_ref[0]) <= SUM_ORDER.bound(L_ref[0])
            assert torch.allclose(G[s, k], G_ref[0], rtol=SUM_ORDER.rtol, atol=1e-14 * G_ref.abs().max())


def test_clean_losses_match_the_network_module():
    p = tr.problem(SMALL)
    W = p.W0[0, 0] + 0.1
    assert tr.clean_losses(W, p.a[0, 0], p.X, p.y) == pytest.approx(float(nw.clean_loss(W, p.a[0, 0], p.X, p.y)),
                                                                   rel=SUM_ORDER.rtol)


def test_batched_runs_equal_the_same_runs_one_by_one():
    a, b = tr.train(SMALL), tr.train_one_by_one(SMALL)
    np.testing.assert_allclose(a.loss, b.loss, rtol=SUM_ORDER.rtol)


def test_a_seed_runs_the_same_whoever_shares_its_batch():
    full = tr.MaskedGD(SMALL)
    full.advance(15)
    alone = tr.MaskedGD(SMALL, seeds=[2])
    alone.advance(15)
    np.testing.assert_allclose(alone.losses[0], full.losses[2], rtol=SUM_ORDER.rtol)


def test_runs_are_paired_and_kappa_zero_is_deterministic():
    t = tr.train(SMALL)
    k0 = t.loss[:, 0]
    assert np.all(k0 == k0[0])                          # kappa = 0: no noise, every seed the same
    assert np.all(t.loss[:, 1:, 0] == k0[:, :1])        # every kappa starts from the same W_0
    assert not np.allclose(t.loss[0, 2], t.loss[1, 2])  # different mask streams per seed


def test_vary_init_gives_each_seed_its_own_start():
    t = tr.train(replace(SMALL, vary_init=True, steps=2))
    assert len(set(t.loss[:, 0, 0].tolist())) == SMALL.seeds


def test_resume_continues_bit_for_bit():
    straight = tr.MaskedGD(SMALL)
    straight.advance(30)
    first = tr.MaskedGD(SMALL)
    first.advance(12)
    again = tr.MaskedGD.from_state(first.state(), replace(SMALL, steps=30))
    again.advance(18)
    assert np.array_equal(again.losses, straight.losses)
    assert torch.equal(again.W, straight.W)


def test_resume_refuses_another_experiment():
    run = tr.MaskedGD(SMALL)
    with pytest.raises(ValueError, match="tau"):
        tr.MaskedGD.from_state(run.state(), replace(SMALL, tau=2.0))


def test_divergence_is_reported_not_silent():
    t = tr.train(replace(SMALL, lr=40.0, kappas=(0.0, 2.0), steps=30))
    assert (t.diverged_at > 0).all()
    for s, j in np.ndindex(t.diverged_at.shape):
        k = t.diverged_at[s, j]
        assert np.isfinite(t.loss[s, j, :k]).all() and np.isnan(t.loss[s, j, k:]).all()
    assert torch.isfinite(t.W).all()


def test_float32_follows_float64():
    a, b = tr.train(SMALL), tr.train(replace(SMALL, dtype="float32"))
    np.testing.assert_allclose(b.loss, a.loss, rtol=FLOAT32.rtol)


def test_expected_dynamics_at_kappa_zero_are_clean_gradient_descent():
    """The exact kernel at kappa = 0 (s = 0 throughout) against eq. (1)'s kernel with C = 1."""
    run = tr.ExpectedGD(SMALL, [0.0])
    run.advance(10)
    np.testing.assert_allclose(run.result()[0.0], tr.train(replace(SMALL, steps=10)).loss[0, 0],
                               rtol=TWO_KERNELS.rtol)


def test_expected_dynamics_resume():
    a = tr.ExpectedGD(SMALL, [0.5])
    a.advance(4)
    b = tr.ExpectedGD.from_state(a.state(), SMALL)
    a.advance(3)
    b.advance(3)
    assert np.array_equal(a.result()[0.5], b.result()[0.5])


def test_mask_noise_is_a_function_of_its_key():
    a = tr.mask_noise((3, 2), 0, 1, 5)
    assert torch.equal(a, tr.mask_noise((3, 2), 0, 1, 5))
    for key in [(1, 1, 5), (0, 2, 5), (0, 1, 6)]:
        assert not torch.equal(a, tr.mask_noise((3, 2), *key))


@pytest.mark.parametrize("seeds", [[], [3], [-1]])
def test_a_seed_outside_the_experiment_is_refused(seeds):
    with pytest.raises(ValueError, match="seeds"):
        tr.MaskedGD(replace(SMALL, vary_init=True), seeds=seeds)
    with pytest.raises(ValueError, match="seed"):
        tr.ExpectedGD(SMALL, seed=3)


@pytest.mark.parametrize("bad", [dict(n=0), dict(steps=-1), dict(lr=0.0), dict(tau=math.inf),
                                 dict(kappas=()), dict(kappas=(0.1, -1.0)), dict(kappas=(0.1, 0.1)),
                                 dict(labels="noisy"), dict(dtype="float16"), dict(seeds=1.5)])
def test_config_rejects_bad_settings(bad):
    with pytest.raises(ValueError):
        tr.Config(**bad)


@pytest.mark.parametrize("labels", data.LABELS)
def test_data_satisfy_assumption_3_1(labels):
    X, y = data.synthetic_data(50, 6, seed=3, labels=labels)
    np.testing.assert_allclose(np.linalg.norm(X, axis=1), 1.0, rtol=1e-15)
    cos = np.abs(X @ X.T)[~np.eye(50, dtype=bool)]
    assert cos.max() < 1 - 1e-6                          # no two inputs parallel
    assert np.abs(y).max() <= (1.0 if labels == "random" else 10.0)


def test_teacher_labels_are_realizable():
    X, y = data.synthetic_data(30, 5, seed=1, labels="teacher", teacher_width=7)
    g = torch.Generator().manual_seed(1)
    torch.randn(30, 5, generator=g, dtype=torch.float64)  # the inputs' draws come first
    Wt = torch.randn(7, 5, generator=g, dtype=torch.float64)
    at = torch.where(torch.rand(7, generator=g) < 0.5, -1.0, 1.0).double()
    np.testing.assert_allclose(nw.clean_loss(Wt.numpy(), at.numpy(), X, y), 0.0, atol=1e-28)


def test_model_flops_counts_three_products_per_run():
    assert tr.model_flops(SMALL) == 3 * 2 * 12 * 6 * 4 * 9
