"""The Section 6 networks and their training: shapes (and the 8x8 adaptation), seeded
reproducibility, the mask at training time only, paired draws across kappa, DP-SGD's epsilon."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from numerics.masking.privacy import data, models, training

TINY = training.Recipe(epochs=2, batch=32)


@pytest.fixture(scope="module")
def small():
    src = data.digits()
    return data.standardise(src.train.take(np.arange(96)))[0]


pytestmark = pytest.mark.usefixtures("one_torch_thread")  # small products: threads only add contention


@pytest.mark.parametrize("name", models.MODELS)
@pytest.mark.parametrize("shape", [(1, 8, 8), (3, 32, 32)])
def test_every_model_takes_digits_and_cifar_shapes(name, shape):
    net = models.build(name, shape)
    assert net(torch.zeros(4, *shape)).shape == (4, 10)


def test_the_standard_cnn_is_adapted_only_below_16x16():
    pads = lambda shape: [m.padding for m in models.build("cnn", shape) if isinstance(m, torch.nn.Conv2d)]  # noqa: E731
    assert pads((3, 32, 32)) == [(2, 2), (0, 0)] and pads((1, 8, 8)) == [(2, 2), (2, 2)]
    with pytest.raises(ValueError, match="unknown model"):
        models.build("resnet", (1, 8, 8))


def _weights(net) -> torch.Tensor:
    return torch.cat([p.detach().ravel() for p in net.parameters()])


def test_a_run_is_a_function_of_seed_and_role(small):
    state = torch.random.get_rng_state()
    a = training.train("cnn", small, 0.5, 1, "target", TINY).model
    b = training.train("cnn", small, 0.5, 1, "target", TINY).model
    c = training.train("cnn", small, 0.5, 1, "shadow", TINY).model
    assert torch.equal(_weights(a), _weights(b)) and not torch.equal(_weights(a), _weights(c))
    assert torch.equal(torch.random.get_rng_state(), state)       # the caller's generator is untouched


def test_runs_at_different_kappa_share_init_and_order(small):
    """Zero epochs of training do not exist; one step at lr -> 0 shows the shared init, and
    kappa = 0 vs a tiny kappa differ by O(kappa) (same order and draws)."""
    r = training.Recipe(epochs=1, batch=32, lr=1e-3)
    w0 = _weights(training.train("mlp", small, 0.0, 2, "fig4", r).model)
    w1 = _weights(training.train("mlp", small, 1e-6, 2, "fig4", r).model)
    w2 = _weights(training.train("mlp", small, 1e-6, 3, "fig4", r).model)
    assert (w0 - w1).abs().max() < 1e-4 < (w0 - w2).abs().max()


def test_the_mask_is_not_applied_at_evaluation(small):
    net = training.train("mlp", small, 2.0, 0, "fig4", TINY).model
    assert not net.training
    p1, p2 = training.posteriors(net, small), training.posteriors(net, small)
    assert np.array_equal(p1, p2) and np.allclose(p1.sum(1), 1.0)


def test_dp_sgd_reports_the_accountants_epsilon(small):
    """epsilon at delta = 1e-5 is that of Opacus's default (PRV) accountant for the noise
    multiplier, sample rate 32/96 (Poisson sampling) and 2 epochs x 3 expected batches."""
    from opacus.accountants import create_accountant

    eps = [training.train("cnn", small, 0.0, 0, "target", TINY, noise_multiplier=s).epsilon for s in (0.8, 1.6)]
    assert eps[0] > eps[1] > 0
    acc = create_accountant("prv")
    for _ in range(TINY.epochs * 3):
        acc.step(noise_multiplier=1.6, sample_rate=32 / 96)
    assert eps[1] == pytest.approx(acc.get_epsilon(training.DELTA), rel=1e-9)


def test_dp_sgd_takes_the_improved_cnn_with_groupnorm(small):
    net = training.train("improved", small, 0.0, 0, "target", training.Recipe(1, 48), noise_multiplier=1.0).model
    kinds = {type(m).__name__ for m in net.modules()}
    assert "GroupNorm" in kinds and "BatchNorm2d" not in kinds


def test_bad_settings_raise():
    with pytest.raises(ValueError):
        training.Recipe(epochs=0, batch=10)
    with pytest.raises(ValueError):
        training.seeds_of(0, "victim")
