"""Errata E3 and E4 cover only the counterexamples of the campaign on Lemma 2 as printed that they
record: those where the repaired width (E3's factor n, E4's (sqrt 2 - 1)^2: ``lemma.2.proof``)
makes the same instance hold (``numerics.meanfield.campaigns._repaired_width_holds``).  Their own
counterexamples are covered; under a planted fault of the exact failure probability (its
complement returned) the repaired width fails too, and they are not."""
from __future__ import annotations

import pytest

from numerics.core import errata
from numerics.meanfield import lemmas
from numerics.meanfield.campaigns import CAMPAIGNS
from numerics.meanfield.pack import PACK

#: E3's counterexample at the proof's width (n = 8, delta = 1/2: m = 7) and E4's (n = 1, delta = 0.1: m = 6)
CASES = {"E3": {"n": 8, "delta": 0.5, "c_hat": 1.0, "g": 1.0, "y_norm": 1.0},
         "E4": {"n": 1, "delta": 0.1, "c_hat": 1.0, "g": 1.0, "y_norm": 1.0}}


@pytest.fixture(scope="module")
def entries():
    return {e.id: e for e in errata.load(PACK)}


@pytest.mark.parametrize("eid", sorted(CASES))
def test_each_entry_covers_its_own_counterexample(eid, entries):
    c, ex = CAMPAIGNS["lemma.2"], CASES[eid]
    ratio, detail = c.evaluate(ex)
    assert ratio > 1.0 and detail["m"] == {"E3": 7, "E4": 6}[eid]
    assert entries[eid] in errata.covering(entries.values(), c, ex)


@pytest.mark.parametrize("eid", sorted(CASES))
def test_a_failure_the_repair_does_not_fix_is_theirs_no_more(eid, entries, monkeypatch):
    real = lemmas.lemma2_failure_linear
    monkeypatch.setattr(lemmas, "lemma2_failure_linear", lambda *a, **kw: 1 - real(*a, **kw))
    c, ex = CAMPAIGNS["lemma.2"], CASES[eid]
    assert CAMPAIGNS["lemma.2.proof"].evaluate(ex)[0] > 1.0  # the repaired width fails under the plant
    assert errata.covering(entries.values(), c, ex) == []
