"""Symbolic witness: SymPy checks the catalogue's own right-hand sides -- the Gaussian-moment
lemmas (``theory/masking/derivations_gaussian.py``), the network-level statements of Section 4
(``derivations_network.py``), eq. (11) (``derivations_ntk.py``), eq. (2) and the law of the masked
pre-activation (``setting.py``), the radii of (13) and (16) (``radius.py``) and Fig. 1(a)'s proxy
(``figures.py``).

Each test asserts that the derivation is ``proved`` and that every step it checked (``lhs = rhs``
or an inequality, ``theory.core.derivation.Step``) reduced to exactly ``0`` (or a zero matrix)
or to ``True``; the claim string, recorded as the test's detail, says exactly what was shown
and what was cited.
"""
from __future__ import annotations

import pytest
import sympy as sp

from theory.masking import derivations_gaussian as D
from theory.masking import derivations_network as DN
from theory.masking import derivations_ntk as DK
from theory.masking import figures as DF
from theory.masking import radius as DR
from theory.masking import setting as DS

REGISTRY = {**D.DERIVATIONS, **DN.DERIVATIONS, **DK.DERIVATIONS, **DS.DERIVATIONS, **DR.DERIVATIONS, **DF.DERIVATIONS}
#: parts whose derivation takes over 10 s (the wedge's Stein-identity steps integrate through
#: Meijer G: 15 s on this machine): the slow tier; the statement keeps its other parts here
SLOW_PARTS = {("lemma.mask_moment2", "wedge")}


def _identically_zero(e) -> bool:
    if e is sp.true:
        return True
    if isinstance(e, (sp.MatrixBase, sp.Tuple, tuple, list)):
        return len(e) > 0 and all(_identically_zero(x) for x in e)
    return isinstance(e, sp.Expr) and e == 0


def _check(result: D.Derivation, statement_id: str, part: str, record) -> None:
    record(detail=result.claim)
    assert (result.statement_id, result.part) == (statement_id, part)
    assert result.steps, "a derivation with no steps proves nothing"
    bad = [f"{step.caption}: residual {sp.sstr(step.reduced)[:300]}" for step in result.steps
           if not _identically_zero(step.reduced)]
    assert not bad, "steps not reduced to 0/True:\n" + "\n".join(bad)
    assert result.proved, result.report()


@pytest.mark.witness("symbolic")
@pytest.mark.parametrize("key", [
    pytest.param(key, marks=[pytest.mark.statement(key[0])] + ([pytest.mark.slow] if key in SLOW_PARTS else []),
                 id=f"{key[0]}:{key[1]}")
    for key in REGISTRY
])
def test_derivation_proves_the_catalogue_statement(key, record):
    """Every derived part of every Section 4 statement: the derivation's claim (recorded as the detail)
    says exactly what SymPy showed, e.g. for ``lemma.relu_moment1:first`` that
    int_0^oo z N(z; mu, s^2) dz - (mu Phi(mu/s) + s varphi(mu/s)) reduces to 0."""
    statement_id, part = key
    _check(REGISTRY[key](), statement_id, part, record)

