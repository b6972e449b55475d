"""Errata E4 covers only the counterexamples of Theorem 4.2's campaigns that it records: those whose
network satisfies (4) once its labels are 0 (the violation is the label term's,
``numerics.masking.campaigns._holds_without_labels``).  E4's own counterexamples are covered, in
float64 and in mpmath; the same counterexamples under a planted kernel fault (E inflated 100-fold, so
that (4) fails at y = 0 too) are not, and the verdict on ``thm.4.2`` is then ``fails``, not
``finding``."""
from __future__ import annotations

import dataclasses

import pytest

from numerics.app import verdicts
from numerics.app.report import CampaignRun
from numerics.core import errata
from numerics.masking import network, reference_network
from numerics.masking.campaigns import CAMPAIGNS
from numerics.masking.pack import PACK

#: E4's smallest counterexample (float64 resolves E) and its small-kappa one (only mpmath does)
SMALLEST = {"W": [[2.0]], "a": [1.0], "X": [[1.0]], "y": [-6.0], "kappa": 0.5}
SMALL_KAPPA = {"W": [[10.0]], "a": [-1.0], "X": [[0.25]], "y": [30.0], "kappa": 0.1}
CASES = [("thm.4.2", SMALLEST), ("thm.4.2@small-kappa", SMALL_KAPPA)]


@pytest.fixture(scope="module")
def e4():
    return next(e for e in errata.load(PACK) if e.id == "E4")


def _inflate(module, monkeypatch):
    """A planted kernel fault: theorem_4_2's E 100 times too large (at every label, y = 0 included)."""
    real = module.theorem_4_2

    def inflated(*args, **kw):
        th = real(*args, **kw)
        return dataclasses.replace(th, E=100 * th.E)
    monkeypatch.setattr(module, "theorem_4_2", inflated)


def _run(cid, example):
    @dataclasses.dataclass
    class Result:  # what a verdict reads of fuzzing.Result
        campaign: str
        shrunk_counterexample: dict
        error: None = None
        failed: bool = True
        threshold: float = 1.0
    return CampaignRun(PACK.id, Result(cid, example), campaign=CAMPAIGNS[cid])


@pytest.mark.parametrize("cid, example", CASES, ids=[c for c, _ in CASES])
def test_e4_covers_its_own_counterexamples(cid, example, e4):
    c = CAMPAIGNS[cid]
    ratio, _ = c.evaluate(example)
    assert ratio > 1.0  # a counterexample of the campaign
    assert errata.covering([e4], c, example) == [e4]
    v = verdicts.judge(PACK.paper.catalogue["thm.4.2"], [], errata=[e4], campaigns=[_run(cid, example)])
    assert v.status == "finding" and "recorded by masking:E4" in v.evidence[0]


@pytest.mark.parametrize("cid, example", CASES, ids=[c for c, _ in CASES])
def test_a_failure_of_another_kind_is_not_e4s(cid, example, e4, monkeypatch):
    _inflate(network, monkeypatch)
    _inflate(reference_network, monkeypatch)
    c = CAMPAIGNS[cid]
    assert c.evaluate({**example, "y": [0.0]})[0] > 1.0  # (4) now fails without labels too
    assert errata.covering([e4], c, example) == []
    v = verdicts.judge(PACK.paper.catalogue["thm.4.2"], [], errata=[e4], campaigns=[_run(cid, example)])
    assert v.status == "fails" and "no erratum covers" in v.evidence[0]
