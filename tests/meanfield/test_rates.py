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
    """L_t = e^{-2t}, tol = 1e-12 L_t against e^{-t}: ratio = max (1 + 1e-12) e^{-t}, at the first time;
    fastest = min (2t - log(1 - 1e-12))/t, at the last (T = 5)."""
    times, losses, tols = _exact()
    got = rates.judge(times, losses, tols, A=1.0, k=1.0)
    assert got.judged == len(times) - 1 and got.holds
    assert got.ratio == pytest.approx((1 + 1e-12) * math.exp(-times[1]), rel=ROUNDING, abs=0)
    assert got.fastest == pytest.approx(2.0 - math.log1p(-1e-12) / times[-1], rel=ROUNDING, abs=0)
    assert got.horizon == times[-1] and got.decay == 1.0 * times[-1] and not got.floored


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
    assert tol[1] == pytest.approx(10 * math.sqrt(0.25) * 1e-6, rel=ROUNDING, abs=0)
    assert tol[2] == pytest.approx(10 * math.sqrt(0.0625) * 1e-6, rel=ROUNDING, abs=0)


@pytest.mark.parametrize("bad", [math.nan, -1.0, math.inf])
def test_bad_losses_raise(bad):
    with pytest.raises(ValueError):
        rates.judge([0.0, 1.0], [1.0, bad], [0.0, 0.0], A=1.0, k=1.0)
    with pytest.raises(ValueError):
        rates.loss_tolerances([1.0, bad], [0.0, 0.0])


def test_large_exponent_does_not_underflow():
    got = rates.judge([0.0, 1.0], [1.0, 1e-300], [0.0, 0.0], A=1.0, k=800.0)
    assert got.judged == 1 and got.ratio == pytest.approx(math.exp(math.log(1e-300) + 800.0), rel=ROUNDING, abs=0) and not got.holds


def _synthetic(loss, floor=0.0, rel=1e-12):
    """``judge_horizon``'s run on a flow given in closed form: ``records`` + 1 evenly spaced times over
    [0, T], tol_t = rel L_t + floor (the payload: the horizon run)."""
    def run(T, records=32):
        times = [T * j / records for j in range(records + 1)]
        losses = [loss(t) for t in times]
        return times, losses, [rel * L + floor for L in losses], T
    return run


def test_fast_start_that_stalls_is_judged_over_the_requested_horizon():
    """L_t = 1/2 + e^{-200 t}/2 against k = 1: its initial decay (100 L_0) puts 25 e-folds at t = 0.25,
    where the loss is still resolved and the bound (e^{-0.25} = 0.78 > 0.5) holds; the bound is false
    for t > ln 2, so the judged horizon must go on to the requested 10/k and reject it (ratio about
    e^10/2 at the last time)."""
    loss = lambda t: 0.5 + 0.5 * math.exp(-200 * t)   # noqa: E731
    run = _synthetic(loss)
    guess = 25 * loss(0) / 100.0
    assert rates.judge(*run(guess)[:3], A=1.0, k=1.0).holds     # the guess alone: holds (ratio 0.64)
    T, got = rates.judge_horizon(run, rates.E_FOLDS, 1.0, guess=guess)
    assert not got.holds
    assert T == rates.E_FOLDS and got.judged >= 32 and not got.floored and got.decay == rates.E_FOLDS
    assert got.ratio == pytest.approx((1 + 1e-12) * loss(T) * math.exp(T), rel=ROUNDING, abs=0)


def test_fast_flow_is_judged_up_to_its_resolution_floor():
    """L_t = e^{-200 t} with an absolute floor 1e-12 (resolved while L_t >= 1e-10, t <= 0.115) against
    k = 1: the horizon ends at the floor, and the judgement says so (floored, k t_max about 0.11)."""
    run = _synthetic(lambda t: math.exp(-200 * t), floor=1e-12)
    T, got = rates.judge_horizon(run, rates.E_FOLDS, 1.0, guess=25 / 200)
    assert got.floored and got.holds and 2 * got.judged >= 32
    t_floor = math.log(1e10 * (1 - 100e-12)) / 200              # e^{-200 t} = 100 (1e-12 e^{-200 t} + 1e-12)
    assert T / 32 >= t_floor - got.horizon > 0 and got.decay == got.horizon
    assert "resolution floor" in got.describe()


def test_slow_flow_is_judged_over_the_requested_horizon():
    """L_t = e^{-2t}, resolved throughout: from a guess 100 x too short the horizon grows to 10/k."""
    T, got = rates.judge_horizon(_synthetic(lambda t: math.exp(-2 * t)), rates.E_FOLDS, 1.0, guess=0.1)
    assert T == rates.E_FOLDS and got.decay == rates.E_FOLDS and not got.floored and got.holds and got.judged >= 32


def test_runs_are_merged_one_record_per_time():
    """Of two runs' records at one time the resolved one with the larger L + tol is kept (the worse
    for the bound); an unresolved record is kept only where no run resolved that time."""
    a = ([0.0, 1.0, 2.0], [1.0, 0.5, 1e-9], [0.0, 1e-3, 1e-9])
    b = ([0.0, 1.0, 2.0, 4.0], [1.0, 0.4, 0.26, 1e-12], [0.0, 1e-4, 1e-4, 1e-12])
    times, losses, tols = rates.merge([a, b])
    assert times == [0.0, 1.0, 2.0, 4.0] and losses == [1.0, 0.5, 0.26, 1e-12] and tols == [0.0, 1e-3, 1e-4, 1e-12]
    got = rates.judge(times, losses, tols, A=1.0, k=0.5)
    assert got.judged == 2 and got.horizon == 2.0 and got.floored
    assert got.ratio == pytest.approx((0.5 + 1e-3) * math.exp(0.5), rel=ROUNDING, abs=0)


def test_a_monotone_loss_carries_the_bound_past_the_last_judged_time():
    """L_t = e^{-2t} (judged to t = 5) against L_0 e^{-t}: the loss never rises, so past t = 5 it stays
    below L_5 + tol_5 = e^{-10}(1 + 1e-12), which the bound reaches at k t* = 10 - log1p(1e-12)."""
    times, losses, tols = _exact()
    got = rates.judge(times, losses, tols, A=1.0, k=1.0, monotone=True)
    assert got.decay == pytest.approx(5.0, rel=ROUNDING, abs=0)
    assert got.extended == pytest.approx(10.0 - math.log1p(1e-12), rel=ROUNDING, abs=0)
    assert "holds to k t = 10" in got.describe()
    assert rates.judge(times, losses, tols, A=1.0, k=1.0).extended == got.decay  # not claimed: no extension


def test_no_extension_where_the_records_rise_or_the_bound_fails():
    times, losses, tols = _exact()
    rising = list(losses)
    rising[10] = rising[9] * 1.5  # a recorded rise beyond both tolerances: the flow is not what was claimed
    got = rates.judge(times, rising, tols, A=1.0, k=1.0, monotone=True)
    assert got.holds and got.extended == got.decay
    failing = rates.judge(times, losses, tols, A=0.5, k=1.0, monotone=True)  # a smaller constant: fails
    assert not failing.holds and failing.extended == failing.decay
