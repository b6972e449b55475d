"""The masked expectations' stated domain (``numerics.masking.network.SCALE_MAX``): every mean
|w_r . x_i| and scale kappa ||w_r (.) x_i|| at most 1e150.  At the edge the values are finite and
right: one neuron, w = x = a = 1, y = 0, has E_C[L_C] = E[ReLU(z)^2]/2 with z ~ N(1, kappa^2), i.e.
((1 + kappa^2) Phi(1/kappa) + kappa phi(1/kappa))/2 = kappa^2/4 (1 + O(1/kappa)); past the edge a
ValueError names the domain instead of the inf - inf NaN the pass gave there (kappa = 1e160).
"""
from __future__ import annotations

import numpy as np
import pytest

from numerics.masking import network as nw

ONE = dict(W=[[1.0]], a=[1.0], X=[[1.0]], y=[0.0])


@pytest.mark.parametrize("kappa", [1e100, 1e150])
def test_values_are_finite_up_to_the_edge(kappa):
    loss = nw.expected_loss(**ONE, kappa=kappa)
    # z = c w x ~ N(1, kappa^2): E[ReLU(z)^2]/2 -> kappa^2/4 as kappa -> oo (half the mass, half the square)
    # kappa^2/4 is exact to O(1/kappa) <= 1e-100; the kernels promise 1e-13 relative (closed_form's contract)
    assert np.isfinite(loss) and loss == pytest.approx(kappa**2 / 4, rel=1e-13, abs=0)
    assert np.isfinite(nw.expected_grad(**ONE, kappa=kappa)).all()


@pytest.mark.parametrize("kappa", [1.01e150, 1e160, 1e308])
def test_past_the_edge_is_refused(kappa):
    with pytest.raises(ValueError, match="domain of the masked expectations"):
        nw.expected_loss(**ONE, kappa=kappa)


def test_means_past_the_edge_are_refused():
    with pytest.raises(ValueError, match="max \\|w.x\\| = 2e\\+150"):
        nw.expected_loss(W=[[2e150]], a=[1.0], X=[[1.0]], y=[0.0], kappa=0.1)
