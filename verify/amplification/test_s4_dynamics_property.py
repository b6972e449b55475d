"""Property witness of ``lemma.A.1`` along GD (slow tier): Hypothesis over (d, n, m, sigma, eta,
alpha, omega, seed) across orders of magnitude (the domain of ``numerics.amplification.campaigns``,
inside and far outside (A1)-(A7)), one GD run per example, judged where the two facts the proof
uses hold (every ||x_i|| <= 1 + 1/sqrt(3), every ||w_j^(0)|| <= (1 - 1/sqrt(3)) alpha |a_j|),
``target()`` toward the largest ratio ||w_j^(t)||/(2 |a_j| alpha t)."""
from __future__ import annotations

import pytest
from hypothesis import assume, given, settings, target

from numerics.amplification.campaigns import CAMPAIGNS
from verify.profiles import examples

GROWTH = CAMPAIGNS["lemma.A.1"]


@pytest.mark.slow
@pytest.mark.statement("lemma.A.1")
@pytest.mark.witness("property")
@settings(max_examples=examples(30), deadline=None)
@given(GROWTH.strategy)
def test_weight_growth_over_the_domain(ex):
    ratio, detail = GROWTH.evaluate(ex)
    assume(ratio is not None)
    target(ratio, label="max ||w_j^(t)||/(2|a_j| alpha t)")
    assert ratio <= 1, (ex, detail)
