"""tanh (no closed form): the kernel (at these scales, <= 3, the trapezoidal rule of
``gaussian_kernels.tanh_dual``) against a certified Arb enclosure of the raw double
integral (``numerics.meanfield.reference.tanh_entry_arb``); slow (tens of seconds per entry)."""
from __future__ import annotations

import numpy as np
import pytest

from numerics.core.tolerance import EPS, Tol
from numerics.meanfield import gram_bar, gram_bar_prime
from numerics.meanfield import reference as ref

#: the fast value must lie within 64 eps of the certified ball (radius below 1e-25)
ARB_TOL = Tol(rtol=64 * EPS, why="each rule of tanh_dual errs by below 1e-15 (RULE_TARGET, docstring); rounding")


@pytest.mark.slow
@pytest.mark.witness("certified")
# each kernel credited to its statement: gram_bar (eq.23), gram_bar_prime (eq.23.prime)
@pytest.mark.parametrize("derivative", [pytest.param(d, marks=pytest.mark.statement("eq.23.prime" if d else "eq.23"))
                                        for d in (False, True)])
@pytest.mark.parametrize("xa, xb", [([1.0, 0.5, -0.2], [0.3, -1.0, 2.0]), ([2.0], [-3.0]), ([0.8, 0.1], [0.8, 0.1 + 1e-8])])
def test_tanh_certified(xa, xb, derivative, record):
    ball = ref.tanh_entry_arb(np.array(xa), np.array(xb), derivative=derivative)
    got = (gram_bar_prime if derivative else gram_bar)(np.stack([xa, xb]), "tanh")[0, 1]
    mid, rad = float(ball.mid()), float(ball.rad())
    record(error=abs(got - mid) / abs(mid))
    assert rad < 1e-20
    assert abs(got - mid) <= ARB_TOL.bound(mid) + rad, f"{got!r} outside {ball}"
