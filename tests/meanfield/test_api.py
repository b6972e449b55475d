"""The public kernels' input checks, the pack's record, its registration and its errata data."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from numerics.core import errata, registry
from numerics.meanfield import gram_bar, gram_bar_prime
from numerics.meanfield.pack import PACK


@pytest.mark.parametrize("bad", [np.zeros(3), np.zeros((0, 2)), np.zeros((2, 0)), np.array([[1.0, np.nan]]),
                                 np.array([[np.inf, 1.0]]), [["a", "b"]]])
def test_bad_data(bad):
    with pytest.raises(ValueError):
        gram_bar(bad, "relu")


@pytest.mark.parametrize("act", ["sigmoid", "leaky_relu:1.5", "leaky_relu:-0.1", "leaky_relu:x", 3, "RELU"])
def test_bad_activation(act):
    with pytest.raises(ValueError):
        gram_bar_prime(np.eye(2), act)


def test_kinds_in_kinds_out():
    X = np.eye(3)
    assert isinstance(gram_bar(X, "erf"), np.ndarray)
    t = gram_bar(torch.eye(3, dtype=torch.float64), "erf")
    assert isinstance(t, torch.Tensor) and t.dtype == torch.float64


@pytest.mark.slow
def test_pack_registers():
    registry.register(PACK)
    assert registry.get("meanfield") is PACK


def test_errata_load():
    found = errata.load(PACK)
    assert [e.id for e in found] == ["E1", "E2", "E3", "E4", "E5", "E6", "E7", "E8", "E9", "E10"]
    assert all(set(e.statements) <= {s.id for s in PACK.paper.statements} for e in found)
