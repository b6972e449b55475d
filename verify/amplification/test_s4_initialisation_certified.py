"""Certified witness of ``lemma.4.1.p``: Arb encloses P(t >= c/sqrt d) (its rigorous incomplete
beta function), and every float64 value of ``correlation_tail`` on the whole-domain grid is
certified to lie within its error budget of the exact value (``certify_float`` says "true" for
every point of the ball).  Values below the float64 range must come back as 0 (or the nearest
subnormals), and are recorded."""
from __future__ import annotations

import pytest
from flint import arb

from numerics.amplification import certified as A
from numerics.amplification.tail import correlation_tail, error_budget
from numerics.core.certified import TRUE, certify_float, enclose
from numerics.core.tolerance import EPS
from verify.amplification.grids import arguments

pytestmark = [pytest.mark.statement("lemma.4.1.p"), pytest.mark.witness("certified")]

#: the smallest positive subnormal: an exact value below half of it rounds to 0
TINY = 2.0 ** -1074


@pytest.mark.parametrize("d", sorted({d for _, d in arguments()}))
def test_float64_kernel_within_its_budget_everywhere(d, record):
    """Every grid point of dimension d: |fast - exact| <= budget(kappa) eps |exact| certified,
    exact 0 and 1 reproduced exactly, subnormal results within one subnormal step."""
    worst, underflows = 0.0, 0
    for c, dd in arguments((d,)):
        ball = enclose(A.correlation_tail_arb, c, dd, digits=20)
        fast = float(correlation_tail(c, dd))
        if ball.is_exact():
            assert fast == float(ball.mid()), (c, dd, fast, ball)
            continue
        if ball < 2.0 ** -1022:                      # subnormal or below: an absolute judgement
            assert abs(arb(fast) - ball) < 2 * TINY + ball * 1e-12, (c, dd, fast, ball)
            underflows += 1
            continue
        kappa = float(A.condition_arb(c, dd, ball).mid())
        rtol = float(error_budget(c, dd, kappa)) * EPS
        verdict = certify_float(fast, ball, rtol)
        assert verdict == TRUE, f"correlation_tail({c!r}, {dd}) = {fast!r}, exact {ball}, rtol {rtol:.2e}: {verdict}"
        err = float(abs((arb(fast) - ball) / ball).upper())
        worst = max(worst, err / rtol)
    record(ratio=worst, detail=f"d={d}: worst error / budget {worst:.3f}; {underflows} values below 2^-1022")
