"""Section 4, symbolic witness: SymPy checks each Gaussian-moment lemma of
``theory/gaussian.py`` (the catalogue's own right-hand sides) by the derivations in
``theory/derivations.py``.

Each test asserts that the derivation is ``proved`` and that every step it checked reduced
to exactly ``0`` (or a zero matrix) or to ``True``; the claim string, recorded as the
test's detail, says exactly what was shown and what was cited.
"""
from __future__ import annotations

import pytest
import sympy as sp

from theory import derivations as D


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
    bad = [f"{desc}: residual {sp.sstr(e)[:300]}" for desc, e in result.steps if not _identically_zero(e)]
    assert not bad, "steps not reduced to 0/True:\n" + "\n".join(bad)
    assert result.proved, result.report()


# ---------------------------------------------------------------- lemma.relu_moment1
@pytest.mark.statement("lemma.relu_moment1")
@pytest.mark.witness("symbolic")
def test_relu_moment1_first(record):
    """int_0^oo z N(z; mu, s^2) dz = mu Phi(mu/s) + s varphi(mu/s), integrated from the definition."""
    _check(D.relu_moment1_first(), "lemma.relu_moment1", "first", record)


@pytest.mark.statement("lemma.relu_moment1")
@pytest.mark.witness("symbolic")
def test_relu_moment1_second(record):
    """int_0^oo z^2 N(z; mu, s^2) dz = (mu^2 + s^2) Phi(mu/s) + mu s varphi(mu/s)."""
    _check(D.relu_moment1_second(), "lemma.relu_moment1", "second", record)


@pytest.mark.statement("lemma.relu_moment1")
@pytest.mark.witness("symbolic")
def test_relu_moment1_proxy_gap(record):
    """sigma_tilde - sigma_hat = s varphi(mu/s), sigma_tilde being the proved first moment."""
    _check(D.relu_moment1_proxy_gap(), "lemma.relu_moment1", "proxy_gap", record)


@pytest.mark.statement("lemma.relu_moment1")
@pytest.mark.witness("symbolic")
def test_relu_moment1_gap_bound(record):
    """s varphi(mu/s) <= s/sqrt(2 pi), attained at mu = 0 (varphi is maximal at 0)."""
    _check(D.relu_moment1_gap_bound(), "lemma.relu_moment1", "gap_bound", record)


@pytest.mark.statement("lemma.relu_moment1")
@pytest.mark.witness("symbolic")
def test_relu_moment1_relu_limit(record):
    """lim_{s->0+} sigma_tilde = max(mu, 0), for mu > 0, mu < 0 and mu = 0."""
    _check(D.relu_moment1_relu_limit(), "lemma.relu_moment1", "relu_limit", record)


# ---------------------------------------------------------------- lemma.relu_moment2
@pytest.mark.statement("lemma.relu_moment2")
@pytest.mark.witness("symbolic")
def test_relu_moment2_orthant(record):
    """P(z1, z2 >= 0) = Phi2(a1, a2; rho): value at rho = 0, d/drho (Price), d/da_i
    (conditional-density integral)."""
    _check(D.relu_moment2_orthant(), "lemma.relu_moment2", "orthant", record)


@pytest.mark.statement("lemma.relu_moment2")
@pytest.mark.witness("symbolic")
def test_relu_moment2_first(record):
    """E[z1 1{z1, z2 >= 0}]: standardised F has dF/drho = varphi(a2) Phi(b1) and the right
    value at rho = 0."""
    _check(D.relu_moment2_first(), "lemma.relu_moment2", "first", record)


@pytest.mark.statement("lemma.relu_moment2")
@pytest.mark.witness("symbolic")
def test_relu_moment2_second(record):
    """E[z1 z2 1{z1, z2 >= 0}]: standardised F has dF/drho = Phi2(a1, a2; rho) and
    F(rho = 0) = (a1 Phi(a1) + varphi(a1)) (a2 Phi(a2) + varphi(a2))."""
    _check(D.relu_moment2_second(), "lemma.relu_moment2", "second", record)


# ---------------------------------------------------------------- lemma.mask_moment1
@pytest.mark.statement("lemma.mask_moment1")
@pytest.mark.witness("symbolic")
def test_mask_moment1_first(record):
    """E[c 1{c^T u >= 0}] = Phi(a) 1 + kappa varphi(a) u_hat (generic and d = 1, 2, 3)."""
    _check(D.mask_moment1_first(), "lemma.mask_moment1", "first", record)


# ---------------------------------------------------------------- lemma.mask_moment2
@pytest.mark.statement("lemma.mask_moment2")
@pytest.mark.witness("symbolic")
def test_mask_moment2_half_space(record):
    """E[c c^T 1{c^T u >= 0}] (generic and d = 1, 2, 3)."""
    _check(D.mask_moment2_half_space(), "lemma.mask_moment2", "half_space", record)


@pytest.mark.statement("lemma.mask_moment2")
@pytest.mark.witness("symbolic")
def test_mask_moment2_wedge(record):
    """E[c c^T 1{c^T u >= 0, c^T v >= 0}] = P 1 1^T + kappa (1 tau^T + tau 1^T) + kappa^2 (P I + D)."""
    _check(D.mask_moment2_wedge(), "lemma.mask_moment2", "wedge", record)


@pytest.mark.statement("lemma.mask_moment2")
@pytest.mark.witness("symbolic")
def test_mask_moment2_wedge_limit(record):
    """u || v: the wedge closed form tends to the half-space closed form as rho -> 1-."""
    _check(D.mask_moment2_wedge_limit(), "lemma.mask_moment2", "wedge_limit", record)
