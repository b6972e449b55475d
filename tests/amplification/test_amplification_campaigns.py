"""The amplification fuzz campaigns: registered in the pack, their reproducers recompute the ratio
their evaluation reports, and examples outside Lemma A.1's proof facts are not judged."""
from __future__ import annotations

from numerics.amplification.campaigns import CAMPAIGNS
from numerics.amplification.pack import PACK

SMALL = {"d": 30, "n": 12, "m": 6, "sigma_sqrt_d": 0.01, "eta": 0.1, "K": 2, "omega_rel": 1e-3, "seed": 5}


def test_registered():
    assert {c.id for c in PACK.campaigns} == set(CAMPAIGNS) == {"lemma.A.1", "cond.4.8@map", "thm.3.1@map"}


def test_reproducers_recompute_the_ratio():
    for c in CAMPAIGNS.values():
        ratio, _ = c.evaluate(SMALL)
        assert ratio is not None and eval(c.reproducer(SMALL)) == ratio, c.id


def test_growth_not_judged_with_a_large_initialisation():
    ratio, detail = CAMPAIGNS["lemma.A.1"].evaluate({**SMALL, "omega_rel": 10.0})
    assert ratio is None and "skipped" in detail
