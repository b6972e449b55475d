"""SymPy witnesses of the meanfield pack: every derivation proved, every refutation proved
(a proved refutation is a confirmed finding, errata E1 and E2)."""
from __future__ import annotations

import pytest

from theory.meanfield import derivations as dv


def _marked(registry):
    return [pytest.param(fn, id=f"{sid}[{part}]", marks=pytest.mark.statement(sid)) for (sid, part), fn in registry.items()]


@pytest.mark.witness("symbolic")
@pytest.mark.parametrize("fn", _marked(dv.DERIVATIONS))
def test_derivation(fn, record):
    d = fn()
    record(detail=d.claim)
    assert d.proved, d.report()


@pytest.mark.witness("symbolic")
@pytest.mark.parametrize("fn", _marked(dv.REFUTATIONS))
def test_refutation_holds(fn, record):
    """The counterexample to the printed statement checks exactly (the finding's pin)."""
    d = fn()
    record(detail=d.claim)
    assert d.proved, d.report()
