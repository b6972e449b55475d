"""Property witness of ``lemma.4.9.lip`` (Lemma 4.9's proof, Appendix A.2.3): the sub-network
f^J(x; W) = sum_{j in J} a_j relu(<w_j, x>), a_j = +-1/sqrt(m), is ||W||_F-Lipschitz in x, by way of
|f^J(x) - f^J(x')| <= ||a_J|| ||W_J (x - x')||.

Exact rational arithmetic (no rounding, so no tolerance): with s_j = sqrt(m) a_j = +-1 and
D = sum_{j in J} s_j (relu(<w_j, x>) - relu(<w_j, x'>)), f^J(x) - f^J(x') = D/sqrt(m), so the two
inequalities squared and multiplied by m read D^2 <= |J| ||W_J(x - x')||^2 ('via a') and
D^2 <= m ||W||_F^2 ||x - x'||^2 ('lipschitz').  Random draws over 12 orders of magnitude of the
weights and 6 of the inputs, and the tight case (every w_j along x - x', all active, one sign),
where 'via a' holds with equality.
"""
from __future__ import annotations

import random
from fractions import Fraction

import pytest

pytestmark = [pytest.mark.statement("lemma.4.9.lip"), pytest.mark.witness("property")]

DRAWS = 150


def _relu(v):
    return v if v > 0 else Fraction(0)


def _sides(signs, W, x, xp, J):
    """(D^2, |J| ||W_J (x - x')||^2, m ||W||_F^2 ||x - x'||^2)."""
    pre = [sum(wi * xi for wi, xi in zip(w, x)) for w in W]
    prep = [sum(wi * xi for wi, xi in zip(w, xp)) for w in W]
    D = sum(signs[j] * (_relu(pre[j]) - _relu(prep[j])) for j in J)
    diff = [a - b for a, b in zip(x, xp)]
    WJd = sum(sum(wi * di for wi, di in zip(W[j], diff)) ** 2 for j in J)
    fro = sum(wi * wi for w in W for wi in w)
    return D * D, len(J) * WJd, len(W) * fro * sum(di * di for di in diff)


def test_lipschitz_exact(record):
    rng = random.Random(49)
    worst = Fraction(0)
    for _ in range(DRAWS):
        m, d = 2 * rng.randint(1, 15), rng.randint(1, 6)
        scale = Fraction(10) ** rng.randint(-6, 6)
        W = [[scale * Fraction(rng.randint(-1000, 1000), 1000) for _ in range(d)] for _ in range(m)]
        x = [Fraction(10) ** rng.randint(-3, 3) * Fraction(rng.randint(-1000, 1000), 1000) for _ in range(d)]
        xp = [xi + Fraction(10) ** rng.randint(-3, 3) * Fraction(rng.randint(-1000, 1000), 1000) for xi in x]
        signs = [1] * (m // 2) + [-1] * (m // 2)
        J = [j for j in range(m) if rng.random() < rng.choice((0.2, 0.6, 1.0))]
        D2, via_a, lip = _sides(signs, W, x, xp, J)
        assert D2 <= via_a <= lip
        if lip:
            worst = max(worst, D2 / lip)
    record(ratio=float(worst), judged=DRAWS, detail=f"max (f^J(x) - f^J(x'))^2 / (||W||_F ||x - x'||)^2 over {DRAWS} exact draws: "
                                                     f"{float(worst):.4f}")


def test_the_bound_via_a_is_attained():
    """m = 4, J = the two positive neurons, w_j = x - x' = e_1, x = 2 e_1, x' = e_1: D = 2, and
    D^2 = 4 = |J| ||W_J (x - x')||^2 (equality); the Lipschitz side m ||W||_F^2 ||x - x'||^2 = 8 is twice it
    (||a_J|| = 1/sqrt 2 < ||a|| = 1)."""
    e1 = [Fraction(1), Fraction(0)]
    W = [e1, e1, [Fraction(0), Fraction(0)], [Fraction(0), Fraction(0)]]
    D2, via_a, lip = _sides([1, 1, -1, -1], W, [Fraction(2), Fraction(0)], e1, [0, 1])
    assert D2 == via_a == 4 and lip == 4 * 2 * 1
