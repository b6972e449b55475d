"""Fast witnesses of ``numerics.core.closed_form`` written to kill its mutants
(bench/mutation.py, notes/mutation.md).

- The mask moments depend on u and v through their directions only (1{c^T u >= 0} is
  invariant under u -> t u, t > 0), so scaling u, v by powers of two -- exact in float64 --
  must leave them exactly unchanged, far beyond the float32 exponent range too (2^+-200);
- a missing kappa is reported by name.
"""
from __future__ import annotations

import numpy as np
import pytest

from numerics.core import closed_form as cf

U = np.array([0.3, -1.2, 0.5, 2.0])
V = np.array([-0.7, 0.4, 1.1, 0.2])


@pytest.mark.parametrize("k", [-200, -60, 60, 200])
def test_mask_moments_depend_on_directions_only(k):
    t = 2.0**k  # exact: only the exponents of u and v change
    kappa = 0.8
    assert np.array_equal(cf.mask_moment1(t * U, kappa), cf.mask_moment1(U, kappa))
    assert np.array_equal(cf.mask_moment2(t * U, None, kappa), cf.mask_moment2(U, None, kappa))
    assert np.array_equal(cf.mask_moment2(t * U, t * V, kappa), cf.mask_moment2(U, V, kappa))


def test_mask_moment2_needs_kappa():
    with pytest.raises(ValueError, match="kappa is required"):
        cf.mask_moment2(U, V)
