"""Fast witness of ``lemma.4.1.p``: the float64 kernel against the elementary closed forms of the
low dimensions (independent of the incomplete beta function) and at the exact end points.

- d = 2: t = cos(theta), theta uniform on [0, 2 pi): P(t >= t0) = arccos(t0)/pi;
- d = 3: t uniform on [-1, 1] (Archimedes' hat-box theorem): P(t >= t0) = (1 - t0)/2.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from numerics.amplification import correlation_tail
from numerics.core.tolerance import EPS, Tol

pytestmark = [pytest.mark.statement("lemma.4.1.p"), pytest.mark.witness("fast")]

#: |t0| = |c|/sqrt(d) <= 0.99, where the closed forms themselves are well conditioned in t0
C2 = np.concatenate([-np.logspace(-12, math.log10(0.99 * math.sqrt(2)), 40), np.logspace(-12, math.log10(0.99 * math.sqrt(2)), 40)])
C3 = np.concatenate([-np.logspace(-12, math.log10(0.99 * math.sqrt(3)), 40), np.logspace(-12, math.log10(0.99 * math.sqrt(3)), 40)])


def test_dimension_two_is_the_arccos_law(record):
    t0 = C2 / math.sqrt(2)
    exact = np.arccos(t0) / math.pi
    # arccos'(t0) t0 / arccos(t0) <= 3 on |t0| <= 0.99: the closed form itself is good to ~8 eps
    tol = Tol(200 * EPS, why="Boost's ibeta budget plus the closed form's own rounding (|t0| <= 0.99)")
    err = np.abs(correlation_tail(C2, 2) - exact) / exact
    record(error=float(err.max()))
    assert err.max() <= tol.rtol, (C2[err.argmax()], err.max(), tol)


def test_dimension_three_is_uniform(record):
    exact = (1 - C3 / math.sqrt(3)) / 2
    tol = Tol(200 * EPS, why="Boost's ibeta budget plus the closed form's rounding ((1 - t0) >= 0.018)")
    err = np.abs(correlation_tail(C3, 3) - exact) / exact
    record(error=float(err.max()))
    assert err.max() <= tol.rtol, (C3[err.argmax()], err.max(), tol)


@pytest.mark.parametrize("d", [2, 3, 4, 10, 10**6])
def test_exact_end_points_and_symmetry_centre(d):
    root = math.sqrt(d)
    assert correlation_tail(0.0, d) == 0.5
    assert correlation_tail(-0.0, d) == 0.5
    assert correlation_tail(2 * root, d) == 0.0 and correlation_tail(-2 * root, d) == 1.0
    assert correlation_tail(math.inf, d) == 0.0 and correlation_tail(-math.inf, d) == 1.0
    if root == int(root):                      # c = sqrt(d) exactly: P(t >= 1) = 0
        assert correlation_tail(root, d) == 0.0 and correlation_tail(-root, d) == 1.0
