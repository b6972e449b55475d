"""The tests that decide the Section 6 claims, on planted data: paired differences,
non-inferiority, the trend (slope interval, Page's test, steps), matched-accuracy gaps, and
the ML-Leaks/loss attacks on posteriors whose membership is known."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binom

from numerics.masking.privacy import attacks, stats
from numerics.masking.privacy import experiment as ex

KAPPAS = (0.0, 0.2, 0.5, 1.0, 1.5)


def _planted(slope: float, noise: float, seeds: int = 5, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return 0.9 + slope * np.asarray(KAPPAS) + noise * rng.standard_normal((seeds, len(KAPPAS)))


def test_a_planted_fall_is_supported_and_a_rise_contradicted():
    t = stats.trend(_planted(-0.1, 0.005), KAPPAS)
    assert t.falls and t.verdict(monotone=True) == stats.SUPPORTED and t.slope_hi < 0 and t.page_p < 0.05
    assert stats.trend(_planted(+0.1, 0.005), KAPPAS).verdict(monotone=False) == stats.CONTRADICTED


def test_noise_alone_is_not_supported():
    verdicts = [stats.trend(_planted(0.0, 0.02, seed=s), KAPPAS).verdict(monotone=False) for s in range(20)]
    assert verdicts.count(stats.SUPPORTED) <= 2            # both tests at 5 %: a false fall is rare


def test_a_significant_step_up_breaks_monotonicity():
    v = _planted(-0.1, 0.002)
    v[:, 2] += 0.08                                          # 0.2 -> 0.5 rises for every seed
    t = stats.trend(v, KAPPAS)
    assert t.ups and t.verdict(monotone=True) == stats.CONTRADICTED


def test_paired_differences_and_non_inferiority():
    v = _planted(0.0, 0.001)
    v[:, 1] += 0.02
    d = stats.difference(v, KAPPAS, 0.2)
    assert stats.improves(d) == stats.SUPPORTED and d.lo > 0
    v[:, 1] -= 0.025                                         # 0.5 points below: still within the margin
    assert stats.keeps_baseline(stats.difference(v, KAPPAS, 0.2)) == stats.SUPPORTED
    v[:, 1] -= 0.03
    assert stats.keeps_baseline(stats.difference(v, KAPPAS, 0.2)) == stats.CONTRADICTED
    with pytest.raises(ValueError, match="not among"):
        stats.difference(v, KAPPAS, 0.3)


def test_identical_replicates_decide_nothing():
    v = np.tile([0.9, 0.91, 0.88, 0.8, 0.7], (3, 1))
    d = stats.difference(v, KAPPAS, 0.2)
    assert d.lo == d.hi and stats.improves(d) == stats.NOT_SUPPORTED
    assert stats.trend(v, KAPPAS).verdict(monotone=True) == stats.NOT_SUPPORTED


def test_matched_gaps_interpolate_along_the_mask_curve():
    acc_mask = np.array([[0.9, 0.8, 0.6], [0.9, 0.7, 0.5]])
    met_mask = np.array([[0.7, 0.6, 0.5], [0.7, 0.6, 0.5]])
    acc_dp = np.array([[0.7, 0.95], [0.4, 0.3]])            # seed 1: no DP point inside the mask's range
    met_dp = np.array([[0.5, 0.5], [0.5, 0.5]])
    g = ex.matched_gaps(acc_mask, met_mask, acc_dp, met_dp)
    assert g[0] == pytest.approx(0.55 - 0.5) and np.isnan(g[1])


def test_ml_leaks_separates_confident_members_from_unsure_non_members():
    rng = np.random.default_rng(0)
    sure = lambda n: np.eye(10)[rng.integers(0, 10, n)] * 0.97 + 0.003  # noqa: E731
    unsure = lambda n: rng.dirichlet(np.ones(10), n)                      # noqa: E731
    y = rng.integers(0, 10, 200)
    res = attacks.ml_leaks(sure(200), unsure(200), sure(200), unsure(200), y, y, seed=0)
    assert res.auc > 0.99 and res.precision > 0.95 and res.recall > 0.95
    same = attacks.ml_leaks(unsure(300), unsure(300), unsure(300), unsure(300), y[:1].repeat(300),
                            y[:1].repeat(300), seed=1)
    assert abs(same.auc - 0.5) < 0.1 and abs(same.loss_auc - 0.5) < 0.1      # sd of an AUC at n=300: ~0.024


def test_top_k_and_loss_scores():
    p = np.array([[0.1, 0.6, 0.3], [0.5, 0.2, 0.3]])
    assert np.allclose(attacks.top_k(p, 2), [[0.6, 0.3], [0.5, 0.3]])
    assert np.allclose(attacks.loss_scores(p, np.array([1, 2])), np.log([0.6, 0.3]))


# --- The decision rules on constructed values, on both sides of each boundary -----------------
# Each case is a Difference or Trend built by hand, so the rule alone is tested: cases where the
# mean and the interval disagree (the mean past the boundary, the interval reaching it), ends
# exactly on the boundary (not past it: strict inequalities), the next float past it, zero-width
# intervals and one seed (nothing decided), NaN (an error).

S, NS, C = stats.SUPPORTED, stats.NOT_SUPPORTED, stats.CONTRADICTED
UP, DOWN = math.nextafter(0.0, 1.0), math.nextafter(0.0, -1.0)       # the floats next to 0
M = stats.MARGIN


def _d(mean: float, lo: float, hi: float, seeds: int = 3) -> stats.Difference:
    return stats.Difference(0.2, mean, lo, hi, seeds)


@pytest.mark.parametrize("mean, lo, hi, expected", [
    (0.02, 0.01, 0.03, S),                    # interval above 0
    (0.02, -0.001, 0.041, NS),                # mean above 0, interval reaching below: not supported
    (0.02, 0.0, 0.04, NS),                    # lower end exactly 0: touches, not above
    (0.02, UP, 0.04, S),                      # lower end the next float above 0
    (-0.02, -0.03, -0.01, C),                 # interval below 0
    (-0.02, -0.041, 0.001, NS),               # mean below 0, interval reaching above: not contradicted
    (-0.02, -0.04, 0.0, NS),                  # upper end exactly 0
    (-0.02, -0.04, DOWN, C),                  # upper end the next float below 0
    (0.0, -0.01, 0.01, NS),                   # straddles 0
    (0.02, 0.02, 0.02, NS),                   # zero width above 0: no spread, nothing decided
    (-0.02, -0.02, -0.02, NS),                # zero width below 0
])
def test_improves_reads_the_interval_not_the_mean(mean, lo, hi, expected):
    assert stats.improves(_d(mean, lo, hi)) == expected
    assert stats.above(lo, hi) == expected


@pytest.mark.parametrize("mean, lo, hi, expected", [
    (-0.002, -0.005, 0.001, S),               # mean below 0, interval above -margin: kept
    (0.005, -0.015, 0.025, NS),               # mean above 0 (and above -margin), interval below -margin
    (0.0, -M, 0.01, NS),                      # lower end exactly -margin
    (0.0, math.nextafter(-M, 0.0), 0.01, S),  # the next float above -margin
    (-0.03, -0.04, -0.02, C),                 # interval below -margin
    (-0.015, -0.03, 0.0, NS),                 # mean below -margin, interval reaching above it
    (-0.02, -0.03, -M, NS),                   # upper end exactly -margin
    (-0.02, -0.03, math.nextafter(-M, -1.0), C),
    (-0.005, -0.005, -0.005, NS),             # zero width inside the margin: nothing decided
    (-0.05, -0.05, -0.05, NS),                # zero width beyond it
])
def test_keeps_baseline_reads_the_interval_against_minus_the_margin(mean, lo, hi, expected):
    assert stats.keeps_baseline(_d(mean, lo, hi)) == expected


def test_keeps_baseline_takes_its_margin():
    d = _d(-0.002, -0.005, 0.001)
    assert stats.keeps_baseline(d, 0.01) == S and stats.keeps_baseline(d, 0.005) == NS
    assert stats.keeps_baseline(d, 0.004) == NS and stats.keeps_baseline(_d(-0.01, -0.012, -0.008), 0.005) == C
    assert stats.keeps_baseline(d, 0.0) == stats.improves(d) == NS       # margin 0 is 'improves'
    for bad in (-0.01, math.nan, math.inf):
        with pytest.raises(ValueError, match="margin"):
            stats.keeps_baseline(d, bad)


def test_one_seed_decides_nothing_and_nan_is_an_error():
    one = stats.difference(np.array([[0.5, 0.9]]), (0.0, 0.2), 0.2)   # one seed: NaN ends, by construction
    assert one.seeds == 1 and math.isnan(one.lo) and stats.improves(one) == NS and stats.keeps_baseline(one) == NS
    for d in (_d(math.nan, math.nan, math.nan), _d(0.02, math.nan, 0.03), _d(0.02, 0.01, math.nan),
              _d(math.nan, 0.01, 0.03), _d(0.02, 0.03, 0.01)):                # NaN, or lo > hi
        for rule in (stats.improves, stats.keeps_baseline):
            with pytest.raises(ValueError):
                rule(d)
    v = _planted(0.0, 0.01)
    v[1, 1] = math.nan                                                   # a failed run
    with pytest.raises(ValueError, match="finite"):
        stats.difference(v, KAPPAS, 0.2)
    with pytest.raises(ValueError, match="finite"):
        stats.trend(v, KAPPAS)


def _t(slope_lo: float, slope_hi: float, page_p: float, steps=(), slope=None) -> stats.Trend:
    slope = (slope_lo + slope_hi) / 2 if slope is None else slope
    return stats.Trend((0.2, 0.5, 1.0), slope, slope_lo, slope_hi, page_p, tuple(steps), 3)


STEP_DOWN = (0.2, 0.5, -0.05, 0.01, "down")
STEP_UP = (0.5, 1.0, 0.05, 0.01, "up")
STEP_FLAT = (0.5, 1.0, 0.001, 0.01, "indistinguishable")
STEP_ALIKE_UP = (0.5, 1.0, 0.01, 0.0, "up")          # every seed rose by 0.01: zero width
STEP_ALIKE_DOWN = (0.5, 1.0, -0.01, 0.0, "down")
A = stats.ALPHA


@pytest.mark.parametrize("trend, falls_, monotone_", [
    (_t(-0.15, -0.05, 0.001, [STEP_DOWN, STEP_FLAT]), S, S),
    (_t(-0.25, 0.05, 0.001, [STEP_DOWN, STEP_FLAT], slope=-0.1), NS, NS),   # slope < 0, interval reaching 0
    (_t(-0.1, 0.0, 0.001), NS, NS),                   # upper end exactly 0
    (_t(-0.1, DOWN, 0.001), S, S),                    # the next float below 0
    (_t(-0.15, -0.05, A), NS, NS),                    # Page's p exactly ALPHA
    (_t(-0.15, -0.05, math.nextafter(A, 0.0)), S, S),
    (_t(-0.15, -0.05, 0.2), NS, NS),                  # slope interval below 0, Page not significant
    (_t(0.05, 0.15, 0.9), C, C),                      # slope interval above 0
    (_t(0.05, 0.15, 0.9, slope=0.1), C, C),
    (_t(-0.05, 0.25, 0.9, slope=0.1), NS, NS),        # slope > 0, interval reaching below 0
    (_t(0.0, 0.1, 0.9), NS, NS),                      # lower end exactly 0
    (_t(UP, 0.1, 0.9), C, C),
    (_t(-0.15, -0.05, 0.001, [STEP_DOWN, STEP_UP]), S, C),         # a significant rise: not monotone
    (_t(-0.15, -0.05, 0.001, [STEP_DOWN, STEP_ALIKE_UP]), S, NS),  # a rise alike in every seed: undecided
    (_t(-0.15, -0.05, 0.001, [STEP_DOWN, STEP_ALIKE_DOWN]), S, S),
    (_t(-0.1, -0.1, 0.001, [STEP_UP]), NS, NS),       # zero-width slope interval: nothing decided
    (_t(0.1, 0.1, 0.9), NS, NS),
])
def test_trend_verdict_reads_the_slope_interval_and_page(trend, falls_, monotone_):
    assert trend.verdict(monotone=False) == falls_ and trend.verdict(monotone=True) == monotone_


def test_trend_verdict_refuses_nan():
    for t in (_t(math.nan, -0.05, 0.001), _t(-0.15, math.nan, 0.001), _t(-0.15, -0.05, math.nan),
              _t(-0.15, -0.05, 0.001, slope=math.nan), _t(-0.15, -0.05, 0.001, [(0.2, 0.5, math.nan, 0.01, "up")]),
              _t(-0.05, -0.15, 0.001)):
        for monotone in (False, True):
            with pytest.raises(ValueError):
                t.verdict(monotone)


def test_a_rise_alike_in_every_seed_is_not_a_significant_one():
    """Three seeds that rose by the same 0.01 from kappa 1 to 1.5 (zero-width step): the fall is
    shown, "monotonically" is not supported and not contradicted."""
    v = np.array([[0.90, 0.80, 0.70, 0.71, 0.60], [0.92, 0.78, 0.66, 0.67, 0.61], [0.89, 0.81, 0.69, 0.70, 0.58]])
    t = stats.trend(v, (0.2, 0.5, 1.0, 1.5, 2.0))
    assert t.steps[2][3] == 0 and not t.ups and t.alike_ups and "alike" in t.text
    assert t.verdict(monotone=False) == S and t.verdict(monotone=True) == NS


# --- The intervals: two-sided Student-t at LEVEL, against the formula written out ----------------

T975 = {2: 4.302652729749464, 4: 2.7764451051977934}    # t quantile 0.975, 2 and 4 dof (mpmath, 30 digits)


def test_difference_interval_is_the_two_sided_t_interval():
    v = np.array([[0.90, 0.93], [0.88, 0.87], [0.91, 0.95], [0.86, 0.90], [0.92, 0.92]])
    e = v[:, 1] - v[:, 0]
    hw = T975[4] * np.std(e, ddof=1) / math.sqrt(5)
    d = stats.difference(v, (0.0, 0.2), 0.2)
    # rounding of a mean and a standard deviation of five numbers ~ 0.03: a few ulps, 1e-15 absolute
    assert d.mean == pytest.approx(e.mean(), rel=0, abs=1e-15)
    assert d.lo == pytest.approx(e.mean() - hw, rel=0, abs=1e-15)
    assert d.hi == pytest.approx(e.mean() + hw, rel=0, abs=1e-15)


def test_trend_slope_interval_is_the_two_sided_t_interval():
    v = _planted(-0.1, 0.02, seeds=3, seed=4)
    ks = np.asarray(KAPPAS)
    slopes = np.array([np.polyfit(ks, row, 1)[0] for row in v])
    hw = T975[2] * np.std(slopes, ddof=1) / math.sqrt(3)
    t = stats.trend(v, KAPPAS)
    # polyfit (a least-squares solve) against the closed form: agreement to ~1e-15 of slopes ~ 0.1
    assert t.slope == pytest.approx(slopes.mean(), rel=0, abs=1e-14)
    assert t.slope_lo == pytest.approx(slopes.mean() - hw, rel=0, abs=1e-14)
    assert t.slope_hi == pytest.approx(slopes.mean() + hw, rel=0, abs=1e-14)
    assert len(t.steps) == len(KAPPAS) - 1


# --- False alarms under the null, by simulation ---------------------------------------------------
# Under a true value on a rule's boundary, its one-sided decisions (an end of a two-sided 95 %
# interval past the boundary) each err at NOMINAL = 2.5 %.  N independent seeded draws give a
# binomial count; the test holds it inside the central 1 - 2e-6 of Binomial(N, NOMINAL), so a
# correct rule fails it with probability 2e-6 (1e-6 each side), while a rule deciding on the mean
# (~50 %), a one-sided quantile (5 %), or a 99 % interval (0.5 %) falls outside.

NOMINAL = (1 - 0.95) / 2
TAIL = 1e-6


def _bounds(n: int, p: float = NOMINAL) -> tuple[int, int]:
    return int(binom.ppf(TAIL, n, p)), int(binom.isf(TAIL, n, p))


def test_difference_rules_err_at_their_level_under_the_null():
    """6000 draws of 3 seeds each (the experiments' seeds) of paired normal accuracies, sd 0.02 per
    run: with no true difference, 'improves' is supported, and contradicted, each at 2.5 %; with a
    true drop of exactly the margin, 'keeps the baseline' likewise."""
    n, seeds = 6000, 3
    rng = np.random.default_rng(20261203)
    lo, hi = _bounds(n)
    counts = {}
    for shift, rule in ((0.0, stats.improves), (-M, stats.keeps_baseline)):
        base = 0.9 + 0.02 * rng.standard_normal((n, seeds))
        other = base + shift + 0.02 * rng.standard_normal((n, seeds))
        out = [rule(stats.difference(np.stack([b, o], 1), (0.0, 0.2), 0.2)) for b, o in zip(base, other)]
        counts[rule.__name__] = (out.count(S), out.count(C))
    for name, (sup, con) in counts.items():
        assert lo <= sup <= hi and lo <= con <= hi, (name, counts, (lo, hi), n)


def test_trend_false_fall_is_at_most_its_level_under_the_null():
    """1000 draws of 3 seeds x 5 kappas with no trend (iid normal): the slope's interval lies below
    0, and above, each at 2.5 % (central bounds), and "falls" is contradicted exactly when above;
    a fall is supported, with or without "monotonically", at most at 2.5 % (upper bound: Page's
    test only removes falls); "monotonically" is contradicted at most at 5 x 2.5 % (the slope or
    one of the 4 steps significantly up: a union bound).  Measured with 20,000 draws (seed 12):
    slope below 2.43 %, above 2.65 %, a fall supported 1.26 % (monotone 1.23 %), "monotonically"
    contradicted 11.9 %."""
    n, ks = 1000, (0.2, 0.5, 1.0, 1.5, 2.0)
    rng = np.random.default_rng(1203)
    lo, hi = _bounds(n)
    ts = [stats.trend(rng.standard_normal((3, len(ks))), ks) for _ in range(n)]
    below, above = sum(t.slope_hi < 0 for t in ts), sum(t.slope_lo > 0 for t in ts)
    falls = [sum(t.verdict(m) == S for t in ts) for m in (False, True)]
    contradicted = [sum(t.verdict(m) == C for t in ts) for m in (False, True)]
    assert lo <= below <= hi and lo <= above <= hi and contradicted[0] == above, (below, above, contradicted, (lo, hi))
    assert max(falls) <= hi, (falls, hi)
    assert contradicted[1] <= _bounds(n, len(ks) * NOMINAL)[1], (contradicted, _bounds(n, len(ks) * NOMINAL))
