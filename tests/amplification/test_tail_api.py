"""The public ``numerics.amplification.correlation_tail``: input validation, broadcasting and the
numpy/torch conventions of DESIGN.md ("Stable public names")."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from numerics.amplification import correlation_tail


@pytest.mark.parametrize("c, d", [(0.5, 1), (0.5, 0), (0.5, -3), (0.5, 2.5), (math.nan, 3), (0.5, math.nan),
                                  (0.5, math.inf), ("a", 3)])
def test_bad_input_raises_value_error(c, d):
    with pytest.raises(ValueError):
        correlation_tail(c, d)


def test_shapes_that_do_not_broadcast_raise():
    with pytest.raises(ValueError, match="broadcast"):
        correlation_tail(np.zeros(3), np.full(2, 4))


def test_broadcasting_and_kinds():
    out = correlation_tail(np.array([[0.0], [1.0]]), np.array([2, 3, 100]))
    assert isinstance(out, np.ndarray) and out.shape == (2, 3) and out.dtype == np.float64
    assert np.all(out[0] == 0.5)
    scalar = correlation_tail(1.0, 3)
    assert isinstance(scalar, np.float64)
    t = correlation_tail(torch.tensor([0.0, 1.0]), 3)
    assert isinstance(t, torch.Tensor) and t.dtype == torch.float64
    assert torch.equal(t, torch.from_numpy(correlation_tail(np.array([0.0, 1.0]), 3)))


def test_integer_valued_float_dimension_accepted():
    assert correlation_tail(1.0, 3.0) == correlation_tail(1.0, 3)
