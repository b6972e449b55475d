"""The tests that decide the Section 6 claims, on planted data: paired differences,
non-inferiority, the trend (slope interval, Page's test, steps), matched-accuracy gaps, and
the ML-Leaks/loss attacks on posteriors whose membership is known."""
from __future__ import annotations

import numpy as np
import pytest

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
