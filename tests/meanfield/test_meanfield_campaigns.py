"""The meanfield campaigns: registered in the pack, and each reproducer recomputes its ratio."""
from __future__ import annotations

import pytest

from numerics.meanfield.campaigns import CAMPAIGNS
from numerics.meanfield.pack import PACK

EXAMPLES = {
    "lemma.2.proof": {"n": 2, "delta": 0.5, "c_hat": 1.0, "g": 1.0, "y_norm": 1.0},
    "lemma.2": {"n": 1, "delta": 0.1, "c_hat": 1.0, "g": 1.0, "y_norm": 1.0},
    "lemma.3.proof": {"lo": -1.0, "width": 2.0, "diag": [1.0, 0.5], "scale": 1.0, "delta": 0.2},
    "eq.14": {"act": "tanh", "n": 3, "d": 4, "m": 8, "seed": 1, "x_scale": 1.0, "y_scale": 1.0, "c_hat": 1.0},
    "eq.15": {"act": "relu", "n": 3, "d": 2, "m": 8, "seed": 2, "x_scale": 10.0, "y_scale": 0.1, "c_hat": 3.0},
    "eq.16": {"act": "leaky_relu:0.5", "n": 2, "d": 3, "m": 6, "seed": 3, "x_scale": 1.0, "y_scale": 1.0, "c_hat": 1.0},
    "lemma.1.proof": {"act": "tanh", "lo": -1.0, "width": 2.0, "n": 3, "d": 4, "m": 8, "seed": 1,
                      "x_scale": 1.0, "y_scale": 1.0, "c_hat": 1.0},
    "thm.1.proof": {"n": 2, "d": 4, "m": 8, "seed": 1, "x_scale": 1.0, "y_scale": 1.0, "factor": 1.0},
}


def test_registered():
    assert {c.id for c in PACK.campaigns} == set(CAMPAIGNS) == set(EXAMPLES)


@pytest.mark.parametrize("cid", sorted(EXAMPLES))
def test_reproducer_recomputes_ratio(cid):
    c = CAMPAIGNS[cid]
    ratio, _ = c.evaluate(EXAMPLES[cid])
    assert ratio is not None
    assert eval(c.reproducer(EXAMPLES[cid])) == pytest.approx(ratio, rel=1e-12)
    if cid == "lemma.2":
        assert ratio == pytest.approx(1.5514544, rel=1e-6)          # E4's counterexample, the campaign's shrink


def test_lemma3_scale_moves_the_whole_problem():
    """K* and the event are invariant under (I, sqrt G) -> s (I, sqrt G): the campaign's scale axis
    changes nothing but the magnitudes the code sees."""
    c = CAMPAIGNS["lemma.3.proof"]
    base = c.evaluate(EXAMPLES["lemma.3.proof"])[0]
    for s in (1e-100, 1e100):
        assert c.evaluate({**EXAMPLES["lemma.3.proof"], "scale": s})[0] == pytest.approx(base, rel=1e-12)


def test_eq14_is_tight_at_one_point_and_the_rounding_allowance_keeps_it_below_one():
    """n = 1: the quadratic form of (14) is exactly lambda_min times the sum of squares, so the true
    ratio is 1; the computed one lies within the allowance 2 gamma below it, never above."""
    ex = {**EXAMPLES["eq.14"], "n": 1}
    ratio, _ = CAMPAIGNS["eq.14"].evaluate(ex)
    assert 1 - 1e-12 < ratio <= 1.0


def test_eq16_campaign_sees_a_planted_violation():
    """A planted slope: claiming K = 1 for leaky relu 0.5 (four times the true K^2) must push the
    ratio above 1 at some state with a negative pre-activation, so the campaign can see a violation."""
    from numerics.meanfield import campaigns as cm

    ex = EXAMPLES["eq.16"]
    true, _ = cm._eq16(ex)
    planted, _ = cm._pointwise(ex, lambda p, h, lam, D: 2 * p.c_hat**2 * lam * cm.dy.loss(p, h))
    assert true <= 1.0 < planted
