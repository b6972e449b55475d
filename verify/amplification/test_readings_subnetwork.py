"""Witnesses of the readings of ``lemma.4.6`` (``theory.amplification.readings``): the gap between
the network f(x; W) = sum_j a_j relu(<w_j, x>), a_j = +-1/sqrt(m), and its sub-network f^J, in exact
rational arithmetic (no rounding, so no tolerance).

With s_j = sqrt(m) a_j = +-1 and S = sum_{j in J^c} s_j relu(<w_j, x>), f - f^J = S/sqrt(m); each
reading squared and multiplied by m is a comparison of rationals:

- 'cauchy-schwarz': S^2 <= ||x||^2 |J^c| ||W_{J^c}||_F^2;
- 'final': S^2 <= ||x||^2 |J^c| whenever ||W||_F <= 1;
- 'linear-fraction': m S^2 <= ||x||^2 |J^c|^2 ||W_{J^c}||_F^2 (refuted by one neuron left out).
"""
from __future__ import annotations

import random
from fractions import Fraction

import pytest

pytestmark = [pytest.mark.statement("lemma.4.6"), pytest.mark.witness("property")]

DRAWS = 120


def _draw(rng: random.Random, unit: bool):
    """A random (m, signs, W, x, J^c) with rational entries over 12 orders of magnitude; ``unit``:
    W divided by a power of 2 so that ||W||_F <= 1."""
    m = 2 * rng.randint(1, 20)
    d = rng.randint(1, 6)
    scale = Fraction(10) ** rng.randint(-6, 6)
    W = [[scale * Fraction(rng.randint(-1000, 1000), 1000) for _ in range(d)] for _ in range(m)]
    x = [Fraction(10) ** rng.randint(-3, 3) * Fraction(rng.randint(-1000, 1000), 1000) for _ in range(d)]
    signs = [1] * (m // 2) + [-1] * (m // 2)
    out = [j for j in range(m) if rng.random() < rng.choice((0.1, 0.5, 0.9))]
    fro, k = sum(wi * wi for w in W for wi in w), 1
    while unit and k * k < fro:
        k *= 2
    return m, signs, [[wi / k for wi in w] for w in W], x, out


def _parts(signs, W, x, out):
    """(S, ||x||^2, ||W_{J^c}||_F^2, ||W||_F^2)."""
    pre = [sum(wi * xi for wi, xi in zip(w, x)) for w in W]
    S = sum(signs[j] * max(pre[j], 0) for j in out)
    sq = [sum(wi * wi for wi in w) for w in W]
    return S, sum(xi * xi for xi in x), sum(sq[j] for j in out), sum(sq)


@pytest.mark.parametrize("unit", [pytest.param(False, marks=pytest.mark.reading("cauchy-schwarz"), id="cauchy-schwarz"),
                                  pytest.param(True, marks=pytest.mark.reading("final"), id="final")])
def test_subnetwork_gap_exact(unit, record):
    """'cauchy-schwarz': S^2 <= ||x||^2 |J^c| ||W_{J^c}||_F^2 for any W; 'final': S^2 <= ||x||^2 |J^c|
    for ||W||_F <= 1."""
    rng = random.Random(46 + unit)
    worst = Fraction(0)
    for _ in range(DRAWS):
        _, signs, W, x, out = _draw(rng, unit)
        S, xx, wjc, fro = _parts(signs, W, x, out)
        rhs = xx * len(out) * (1 if unit else wjc)
        assert S * S <= rhs and (fro <= 1 or not unit)
        if rhs:
            worst = max(worst, S * S / rhs)
    record(ratio=float(worst), detail=f"max (f - f^J)^2 / bound^2 over {DRAWS} exact draws: {float(worst):.4f}",
           judged=DRAWS)


@pytest.mark.reading("linear-fraction", refutes=True)
def test_one_neuron_left_out_breaks_the_linear_bound(record):
    """m = 4, J^c = {one positive neuron} with w_j = x = e_1: f - f^J = 1/2 = ||x|| sqrt(|J^c|/m)
    ||W_{J^c}||_F (Cauchy-Schwarz is tight), while ||x|| (|J^c|/m) ||W_{J^c}||_F = 1/4."""
    m, signs = 4, [1, 1, -1, -1]
    x = [Fraction(1), Fraction(0)]
    W = [x, [Fraction(0), Fraction(1)], [Fraction(0), Fraction(0)], [Fraction(0), Fraction(0)]]
    S, xx, wjc, _ = _parts(signs, W, x, [0])
    record(detail="m = 4, J^c = {0}, w_0 = x = e_1: (f - f^J)^2 = 1/4, linear bound^2 = 1/16, Cauchy-Schwarz^2 = 1/4")
    assert S * S == xx * 1 * wjc                      # tight Cauchy-Schwarz
    assert m * S * S > xx * 1**2 * wjc                # the linear reading fails: 4 > 1
