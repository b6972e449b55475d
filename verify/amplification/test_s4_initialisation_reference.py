"""Reference witness of ``lemma.4.1.p``: mpmath integrates the raw density kernel
(1 - t^2)^((d-3)/2) (numerator and normaliser both by quadrature, precision ladder), and

- the incomplete-beta form, enclosed by Arb, agrees with it to 1e-30 relative (a certified
  judgement of the reference value against the ball) -- the formula of the reconstruction;
- the float64 kernel agrees with it within its error budget (the condition number from the same
  quadratures).

The default tier takes points across the domain (tails to 1e-300 and beyond the float64 range,
c near 0 and near sqrt d); the slow tier the whole grid of ``verify.amplification.grids``."""
from __future__ import annotations

import pytest

from numerics.amplification import certified as A
from numerics.amplification import reference as R
from numerics.amplification.tail import correlation_tail, error_budget
from numerics.core.certified import TRUE, certify_float, enclose
from numerics.core.tolerance import EPS, Tol, rel_err
from verify.amplification.grids import arguments

pytestmark = [pytest.mark.statement("lemma.4.1.p"), pytest.mark.witness("reference")]

FORMULA = Tol(1e-30, why="34-digit ladder-checked quadrature against a 40-digit Arb ball: the reconstruction's "
                         "formula must hold to the reference's own accuracy")
DPS = 34

#: c near 0, near sqrt(d) (kappa 6e14), a subnormal-free deep tail (3.6e-300), c < 0, beyond float64 (300, 1e5)
POINTS = [(1e-8, 2), (1.4142135623730938, 2), (-0.7, 31), (37.0, 10**6), (1.9999999999, 4), (300.0, 10**5)]


def _check(c, d, record):
    ref = R.correlation_tail(c, d, dps=DPS)
    ball = enclose(A.correlation_tail_arb, c, d, digits=40)
    verdict = certify_float(ref, ball, FORMULA.rtol)
    assert verdict == TRUE, f"reference {ref} vs Arb {ball} at c={c!r}, d={d}: {verdict} ({FORMULA})"
    fast = float(correlation_tail(c, d))
    if float(ref) >= 2.0 ** -1022:
        kappa = R.condition(c, d, value=ref)
        budget = Tol(float(error_budget(c, d, kappa)) * EPS,
                     why=f"Boost's ibeta plus 2 roundings of its argument times the condition number {kappa:.3g}")
        err = rel_err(fast, float(ref))
        record(error=err, ratio=err / budget.rtol, detail=f"c={c!r}, d={d}: P={float(ref):.6g}")
        assert err <= budget.rtol, f"correlation_tail({c!r}, {d}) = {fast!r}, reference {ref}: {err:.2e} > {budget}"
    else:
        assert fast <= 2.0 ** -1022 * 2, (c, d, fast, ref)


@pytest.mark.parametrize("c, d", POINTS)
def test_reference_arb_and_kernel_agree(c, d, record):
    _check(c, d, record)


@pytest.mark.slow
@pytest.mark.parametrize("c, d", [p for p in arguments() if abs(p[0]) < 1e300])
def test_reference_arb_and_kernel_agree_on_the_whole_grid(c, d, record):
    _check(c, d, record)


def test_reference_rejects_bad_input():
    for c, d in ((0.5, 1), (0.5, 2.5), (float("nan"), 3), (float("inf"), 3), ("x", 3)):
        with pytest.raises(ValueError):
            R.correlation_tail(c, d)
