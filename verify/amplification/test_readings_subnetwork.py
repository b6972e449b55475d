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

DRAWS = 200


def _draw(rng: random.Random):
    """A random (m, signs, W, x, J^c) with rational entries over 12 orders of magnitude."""
    m = 2 * rng.randint(1, 20)
    d = rng.randint(1, 6)
    scale = Fraction(10) ** rng.randint(-6, 6)
    W = [[scale * Fraction(rng.randint(-1000, 1000), 1000) for _ in range(d)] for _ in range(m)]
    x = [Fraction(10) ** rng.randint(-3, 3) * Fraction(rng.randint(-1000, 1000), 1000) for _ in range(d)]
    signs = [1] * (m // 2) + [-1] * (m // 2)
    out = [j for j in range(m) if rng.random() < rng.choice((0.1, 0.5, 0.9))]
    return m, signs, W, x, out


def _parts(signs, W, x, out):
    """(S, ||x||^2, ||W_{J^c}||_F^2, ||W||_F^2)."""
    pre = [sum(wi * xi for wi, xi in zip(w, x)) for w in W]
    S = sum(signs[j] * max(pre[j], 0) for j in out)
    sq = [sum(wi * wi for wi in w) for w in W]
    return S, sum(xi * xi for xi in x), sum(sq[j] for j in out), sum(sq)


@pytest.mark.reading("cauchy-schwarz")
def test_cauchy_schwarz_bound_exact(record):
    rng = random.Random(46)
    worst = Fraction(0)
    for _ in range(DRAWS):
        m, signs, W, x, out = _draw(rng)
        S, xx, wjc, _ = _parts(signs, W, x, out)
        rhs = xx * len(out) * wjc
        assert S * S <= rhs
        if rhs:
            worst = max(worst, S * S / rhs)
    record(ratio=float(worst), detail=f"max (f - f^J)^2 / bound^2 over {DRAWS} exact draws: {float(worst):.4f}", judged=DRAWS)


@pytest.mark.reading("final")
def test_final_claim_exact(record):
    rng = random.Random(47)
    worst = Fraction(0)
    for _ in range(DRAWS):
        m, signs, W, x, out = _draw(rng)
        _, _, _, fro = _parts(signs, W, x, out)
        k = 1
        while k * k < fro:                     # W / k has ||W||_F <= 1
            k *= 2
        W = [[wi / k for wi in w] for w in W]
        S, xx, _, fro = _parts(signs, W, x, out)
        assert fro <= 1 and S * S <= xx * len(out)
        if xx and out:
            worst = max(worst, S * S / (xx * len(out)))
    record(ratio=float(worst), detail=f"max (f - f^J)^2 / (||x||^2 |J^c|/m) with ||W||_F <= 1: {float(worst):.4f}",
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
