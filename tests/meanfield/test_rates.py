"""The rate judge of ``numerics.meanfield.rates``: it judges only resolved times, and it rejects a
planted wrong bound (a smaller constant or a faster exponent) on a loss it could resolve."""
from __future__ import annotations

import math

import pytest

from numerics.meanfield import rates



#: the judge's ratios are a handful of float64 operations (exp, log, a division) on exact inputs
ROUNDING = 16 * 2.0**-52

def _exact(k_true=2.0, T=5.0, n=33, rel=1e-12):
    times = [T * j / (n - 1) for j in range(n)]
    losses = [math.exp(-k_true * t) for t in times]
    return times, losses, [rel * L for L in losses]


def test_true_bound_holds_at_every_resolved_time():
    times, losses, tols = _exact()
    got = rates.judge(times, losses, tols, A=1.0, k=1.0)
    assert got.judged == len(times) - 1 and got.holds
    assert got.ratio == pytest.approx(math.exp(-1.0 * times[1]), rel=ROUNDING)   # the tightest time: the first
    assert got.fastest == pytest.approx(2.0, rel=ROUNDING)


@pytest.mark.parametrize("A, k", [(1.0, 2.2), (1.0, 4.0), (0.5, 1.0), (0.9, 2.0)],
                         ids=["faster-exponent", "much-faster", "smaller-constant", "smaller-constant-true-rate"])
def test_planted_wrong_bound_is_rejected(A, k):
    times, losses, tols = _exact()
    got = rates.judge(times, losses, tols, A=A, k=k)
    assert got.judged > 0 and not got.holds and got.ratio > 1.0


def test_unresolved_times_are_not_judged():
    """The loss below 100 x its error: nothing is judged (a bound 0 times too weak would pass otherwise)."""
    times, losses, _ = _exact()
    got = rates.judge(times, losses, [L for L in losses], A=1.0, k=100.0)
    assert got.judged == 0 and not got.holds and math.isnan(got.ratio)
    # only the times where L_t >= 100 tol_t count: here e^{-2t} >= 1e-4, t <= log(1e4)/2
    tols = [1e-6 for _ in losses]
    got = rates.judge(times, losses, tols, A=1.0, k=1.0)
    assert got.judged == sum(1 for t, L in zip(times, losses) if t > 0 and L >= 1e-4)
    assert got.horizon <= math.log(1e4) / 2


def test_tolerance_keeps_the_running_maximum_of_the_halving_difference():
    """A halving difference that crosses 0 at one record does not make that record exact."""
    losses = [1.0, 0.25, 0.0625]
    tol = rates.loss_tolerances(losses, [1e-6, 0.0, 1e-9], safety=10.0)
    assert tol[1] == pytest.approx(10 * math.sqrt(0.25) * 1e-6)
    assert tol[2] == pytest.approx(10 * math.sqrt(0.0625) * 1e-6)


@pytest.mark.parametrize("bad", [math.nan, -1.0, math.inf])
def test_bad_losses_raise(bad):
    with pytest.raises(ValueError):
        rates.judge([0.0, 1.0], [1.0, bad], [0.0, 0.0], A=1.0, k=1.0)
    with pytest.raises(ValueError):
        rates.loss_tolerances([1.0, bad], [0.0, 0.0])


def test_large_exponent_does_not_underflow():
    got = rates.judge([0.0, 1.0], [1.0, 1e-300], [0.0, 0.0], A=1.0, k=800.0)
    assert got.judged == 1 and got.ratio == pytest.approx(math.exp(math.log(1e-300) + 800.0), rel=ROUNDING) and not got.holds
