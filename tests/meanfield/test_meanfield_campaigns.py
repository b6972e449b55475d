"""The meanfield campaigns: registered in the pack, and each reproducer recomputes its ratio."""
from __future__ import annotations

import pytest

from numerics.meanfield.campaigns import CAMPAIGNS
from numerics.meanfield.pack import PACK

EXAMPLES = {
    "lemma.2.proof": {"n": 2, "delta": 0.5, "c_hat": 1.0, "g": 1.0, "y_norm": 1.0},
    "lemma.2": {"n": 1, "delta": 0.1, "c_hat": 1.0, "g": 1.0, "y_norm": 1.0},
    "lemma.3.proof": {"lo": -1.0, "width": 2.0, "diag": [1.0, 0.5], "delta": 0.2},
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
