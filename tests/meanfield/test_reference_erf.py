"""``numerics.meanfield.reference.gram_entry`` for erf and erf' against the raw definition.

gram_entry integrates the inner Gaussian integral in closed form (E erf(m + s g) =
erf(m/sqrt(1 + 2 s^2)), and the erf' analogue) and only the outer one numerically; here the
whole double integral E[s(u) s(v)], (u, v) ~ N(0, [[A^2, rho A B], [rho A B, B^2]]), is taken
by ``numerics.core.gaussian_reference.bivariate_expectation`` with s = erf or erf'(x) =
2 exp(-x^2)/sqrt(pi), steep at 0 on the scale 1 of its argument: no closed form on this side.
The pair has norms about 20 and 40 (A = 10.6, B = 20.9, rho = -0.34): erf(u) steps over 0.09
standard units of u, and the inner integral's g over 0.05 of its variable, so both gradings are
used.  Both values pass their precision ladders (dps and 2 dps agree to 10^-(dps-3) relative).
"""
from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest

from numerics.core.gaussian_reference import bivariate_expectation
from numerics.core.tolerance import Tol
from numerics.meanfield import reference as ref

DPS = 15
TOL = Tol(10.0 ** -(DPS - 4), "two ladder-checked values, each within 1e-(dps-3) relative; one digit for the sum")
XA, XB = np.array([16.0, 8.0, -4.0]), np.array([6.0, -32.0, 16.0])


def _erf_prime(x):
    return 2 / mp.sqrt(mp.pi) * mp.exp(-x * x)


@pytest.mark.slow
@pytest.mark.parametrize("derivative", [False, True])
def test_gram_entry_is_the_raw_double_integral(derivative):
    A, _, _, B, rho = ref.pair_law(XA, XB, DPS)
    s = _erf_prime if derivative else mp.erf
    raw = bivariate_expectation(s, s, rho, 0, 0, A, B, steep_f=((0, 1),), steep_g=((0, 1),), dps=DPS)
    entry = ref.gram_entry(XA, XB, "erf", derivative=derivative, dps=DPS)
    with mp.workdps(2 * DPS):
        assert abs(entry - raw) <= TOL.rtol * abs(raw), (entry, raw, TOL)
