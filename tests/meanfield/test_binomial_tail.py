"""numerics.core.binomial against exact rational sums (small m) and its input checks."""
from __future__ import annotations

from fractions import Fraction
from math import comb

import mpmath as mp
import pytest

from numerics.core.binomial import binomial_sf
from numerics.meanfield.lemmas import log_required_width


@pytest.mark.parametrize("m, p, k", [(1, Fraction(1, 3), 0), (10, Fraction(1, 4), 2), (40, Fraction(7, 10), 35),
                                     (40, Fraction(7, 10), 10), (200, Fraction(1, 1000), 3), (60, Fraction(1, 2), 29.5)])
def test_against_exact_fractions(m, p, k):
    j0 = int(k // 1) + 1
    exact = sum(comb(m, j) * p**j * (1 - p) ** (m - j) for j in range(j0, m + 1))
    with mp.workdps(40):
        want = mp.mpf(exact.numerator) / exact.denominator
        got = binomial_sf(k, m, mp.mpf(p.numerator) / p.denominator, dps=30)
        assert abs(got - want) <= mp.mpf(10) ** -27 * max(want, mp.mpf(10) ** -300)


def test_edges_and_errors():
    assert binomial_sf(-1, 5, 0.3) == 1 and binomial_sf(5, 5, 0.3) == 0 and binomial_sf(0, 5, 0.0) == 0
    with pytest.raises(ValueError):
        binomial_sf(1, 0, 0.3)
    with pytest.raises(ValueError):
        binomial_sf(1, 5, 1.5)
    with pytest.raises(ValueError):
        log_required_width(1, 0.5, 0.0)
    assert log_required_width(1, 0.5, 1.0) == 1
