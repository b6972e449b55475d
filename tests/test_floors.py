"""Reading training curves (numerics.core.floors) on curves whose answer is known by construction."""
from __future__ import annotations

import math

import numpy as np
import pytest

from numerics.core import floors as fl


def _noisy(base: np.ndarray, seeds: int, rel: float, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return base * (1 + rel * rng.standard_normal((seeds, base.size)))


def test_a_falling_curve_is_not_converged_however_noisy():
    k = np.arange(1001)
    loss = _noisy(10 * 0.999 ** k, seeds=4, rel=0.05)           # log L falls 0.2 over the last 200
    c = fl.convergence(loss)
    assert c.window == 200 and not c.converged
    assert abs(c.drift - 200 * math.log(0.999)) <= c.half_width   # the 95 % interval covers the truth


def test_a_flat_noisy_curve_is_converged():
    loss = _noisy(np.full(1001, 3.0), seeds=6, rel=0.02)
    assert fl.convergence(loss).converged


def test_too_few_seeds_for_a_decision_is_not_converged():
    """A flat curve, but so noisy that the drift's interval is wider than the tolerance."""
    loss = _noisy(np.full(101, 3.0), seeds=2, rel=0.3, seed=1)
    c = fl.convergence(loss)
    assert c.half_width > c.tol and not c.converged


def test_one_seed_uses_the_regressions_own_error():
    c = fl.convergence(_noisy(np.full(501, 1.0), seeds=1, rel=0.01))
    assert math.isfinite(c.half_width) and c.converged


def test_a_diverged_curve_is_not_converged():
    loss = np.full((2, 101), 1.0)
    loss[0, -5:] = np.nan
    assert not fl.convergence(loss).converged


def test_paired_excess_removes_what_the_seeds_share():
    """Floors = a seed effect (large) + kappa's excess (small): pairing sees the excess."""
    rng = np.random.default_rng(2)
    seed_effect = 10 * rng.standard_normal((8, 1))
    kappas = [0.0, 0.1, 0.2, 0.4]
    true = np.array([0.0, 0.01, 0.04, 0.16])
    floors = seed_effect + true + 1e-4 * rng.standard_normal((8, 4))
    ex = fl.paired_excess(floors, kappas)
    for e, t in zip(ex, true[1:]):
        assert abs(e.mean - t) < 4 * e.se and e.positive
    with pytest.raises(ValueError, match="first kappa"):
        fl.paired_excess(floors, [0.1, 0.0, 0.2, 0.4])


def test_fit_exponent_recovers_a_planted_power_and_its_range():
    kappas = [0.05, 0.1, 0.2, 0.4, 0.8]
    ex = [fl.Excess(k, 3 * k ** 1.5, 0.01 * 3 * k ** 1.5, 0.03 * 3 * k ** 1.5) for k in kappas]
    ex.append(fl.Excess(1.6, 0.0, 1.0, 3.0))                    # not significantly positive: left out
    e = fl.fit_exponent(ex)
    assert e.p == pytest.approx(1.5, abs=1e-12) and e.kappas == tuple(kappas)
    assert all(p == pytest.approx(1.5) for _, _, p in e.local)
    assert "over kappa in [0.05, 0.8]" in e.describe()


def test_fit_exponent_needs_two_points():
    assert math.isnan(fl.fit_exponent([fl.Excess(0.1, 1.0, 0.1, 0.3)]).p)


def test_monotonicity_verdicts():
    rng = np.random.default_rng(3)
    base = np.array([1.0, 0.9, 0.9, 2.0])                       # down, flat, up
    floors = base + 0.01 * rng.standard_normal((10, 4))
    assert [s.verdict for s in fl.monotonicity(floors, [0, 0.1, 0.2, 0.4])] == ["down", "indistinguishable", "up"]


def test_rate_test_one_sided():
    k = np.arange(301)
    fast = _noisy(5 * 0.99 ** k, seeds=4, rel=0.01)
    slow = _noisy(5 * 0.999 ** k, seeds=4, rel=0.01)
    lam, lr = 0.4, 0.02                                          # predicted factor 0.996 per step
    assert fl.rate_test(fast, lr, lam, 0, 300).at_least_predicted
    assert not fl.rate_test(slow, lr, lam, 0, 300).at_least_predicted
    with pytest.raises(ValueError):
        fl.rate_test(fast, lr, lam, 10, 400)
