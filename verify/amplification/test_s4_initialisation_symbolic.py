"""Symbolic witness of ``lemma.4.1.p`` (``theory.amplification.derivations``): the incomplete-beta
form from the density kernel for every d, the density's normaliser, and the anti-concentration
constant."""
from __future__ import annotations

import pytest

from theory.amplification import derivations as Dv

pytestmark = [pytest.mark.statement("lemma.4.1.p"), pytest.mark.witness("symbolic")]


@pytest.mark.parametrize("part", ["tail", "density", "anti-concentration"])
def test_derivation(part):
    derivation = Dv.DERIVATIONS[("lemma.4.1.p", part)]()
    assert derivation.proved, derivation.report()
