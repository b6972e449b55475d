"""Meta-tests of the symbolic witness (``theory/core/derivation.py`` and the masking pack's
derivations): a planted wrong closed form must make the derivation fail (``proved`` False, and
the failing step named), while the catalogue's own forms -- and forms that differ only by a
true identity -- still pass.  Nothing is planted in the library: each wrong form is passed as
the ``rhs`` argument.  Each step records its two sides, but only its ``reduced`` decides it.
"""
from __future__ import annotations

import pytest
import sympy as sp

from theory.core.derivation import Derivation, Step, Steps, holds, reduce_zero
from theory.core.functions import Phi, Phi2, varphi
from theory.masking import derivations_gaussian as D
from theory.masking import gaussian as G

mu, s, t = G.mu, G.s, G.t


def _fails(result: Derivation) -> None:
    assert result.proved is False, result.report()
    assert result.failed_steps, "a failed derivation must name the failing step"


def _swap(expr, x, y):
    return expr.xreplace({x: y, y: x})


# ---------------------------------------------------------------- machinery
def test_reduce_zero_and_holds():
    x = sp.Symbol("x", real=True)
    assert holds(reduce_zero(Phi(x) + Phi(-x) - 1))          # erfc(-y) = 2 - erfc(y)
    assert not holds(reduce_zero(Phi(x) - Phi(-x)))
    assert holds(reduce_zero(varphi(x) * varphi(x) - sp.exp(-x ** 2) / (2 * sp.pi)))
    assert not holds(sp.Symbol("y"))
    assert not holds(sp.false) and holds(sp.true)
    assert holds(sp.zeros(2, 2)) and not holds(sp.Matrix([0, 1]))


def test_empty_derivation_is_not_proved():
    r = Steps().done("x", "y", "nothing")
    assert r.proved is False


def test_steps_keep_their_sides_and_are_decided_by_reduced():
    """``equal`` keeps lhs and rhs and decides by reduce_zero(lhs - rhs); ``compare`` by SymPy's
    relational (undecidable fails); ``true`` has no sides; an unevaluated Limit/Derivative side
    is kept as printed and compared by its value; one failing step fails the derivation."""
    x, y = sp.Symbol("x", real=True), sp.Symbol("y")
    S = Steps()
    ok = S.equal("Phi is odd about 1/2", Phi(x) + Phi(-x), 1)
    assert (ok.lhs, ok.rhs, ok.relation, ok.reduced) == (Phi(x) + Phi(-x), 1, "=", 0) and ok.holds
    assert S.equal("a limit", sp.Limit(sp.sin(x) / x, x, 0), 1).holds
    derivative = S.equal("a derivative", sp.Derivative(x**3, x), 3 * x**2)
    assert isinstance(derivative.lhs, sp.Derivative) and derivative.holds
    assert S.equal("tuples", sp.Tuple(x - x, 2 * x), sp.Tuple(0, x + x)).holds
    assert S.compare("a square", -x**2, "<=", 0).holds
    assert not S.compare("undecidable", y, ">=", 0).holds       # y has no sign
    assert S.true("a cited fact", sp.true).lhs is None
    r = S.done("s", "p", "claim")
    assert not r.proved and r.failed_steps == ["undecidable"]
    assert all(isinstance(step, Step) for step in r.steps)
    assert "checked: y >= 0" in r.report()
    wrong = Steps()
    wrong.equal("a wrong identity", Phi(x) + Phi(-x), 2)
    assert not wrong.done("s", "p", "claim").proved and "residual" in wrong.done("s", "p", "c").report()
    with pytest.raises(ValueError):
        Steps().compare("no such relation", x, "==", x)
    with pytest.raises(ValueError):
        Steps().equal("lengths differ", sp.Tuple(1, 2), sp.Tuple(1))


def test_registry_covers_every_equation():
    for st in G.STATEMENTS:
        for eq in st.equations:
            assert (st.id, eq.label) in D.DERIVATIONS, (st.id, eq.label)
    with pytest.raises(KeyError):
        D.derive("lemma.relu_moment1", "no_such_part")


# ---------------------------------------------------------------- lemma.relu_moment1
def test_relu1_first_without_s_varphi_term_fails():
    _fails(D.relu_moment1_first(mu * Phi(t)))


def test_relu1_first_wrong_sign_fails():
    _fails(D.relu_moment1_first(mu * Phi(t) - s * varphi(t)))


def test_relu1_second_without_s2_term_fails():
    _fails(D.relu_moment1_second(mu ** 2 * Phi(t) + mu * s * varphi(t)))


def test_relu1_proxy_gap_wrong_factor_fails():
    _fails(D.relu_moment1_proxy_gap(2 * s * varphi(t)))


def test_relu1_gap_bound_too_small_fails():
    _fails(D.relu_moment1_gap_bound(s / (2 * sp.sqrt(2 * sp.pi))))


def test_relu1_gap_bound_loose_fails_only_on_sharpness():
    """A valid but loose bound passes the inequality and fails only the attainment step the
    claim includes."""
    r = D.relu_moment1_gap_bound(s)
    assert not r.proved
    assert r.failed_steps == ["the bound is attained: the lhs at mu = 0 is the rhs"]
    attained, = [step for step in r.steps if not step.holds]
    assert attained.rhs == s and attained.relation == "="


def test_relu1_limit_wrong_fails():
    _fails(D.relu_moment1_relu_limit(mu))           # wrong for mu < 0
    _fails(D.relu_moment1_relu_limit(sp.Abs(mu)))   # wrong for mu < 0


# ---------------------------------------------------------------- lemma.relu_moment2
def test_relu2_orthant_flipped_rho_fails():
    _fails(D.relu_moment2_orthant(Phi2(G.a1, G.a2, -G.rho)))


def test_relu2_orthant_wrong_sign_of_a_fails():
    _fails(D.relu_moment2_orthant(Phi2(-G.a1, G.a2, G.rho)))


def test_relu2_first_flipped_rho_fails():
    _fails(D.relu_moment2_first(G.relu2_first.xreplace({G.rho: -G.rho})))


def test_relu2_first_swapped_b_fails():
    _fails(D.relu_moment2_first(_swap(G.relu2_first, G.b1, G.b2)))


def test_relu2_second_flipped_rho_fails():
    _fails(D.relu_moment2_second(G.relu2_second.xreplace({G.rho: -G.rho})))


def test_relu2_second_swapped_b_fails():
    _fails(D.relu_moment2_second(_swap(G.relu2_second, G.b1, G.b2)))


def test_relu2_second_without_q_fails():
    _fails(D.relu_moment2_second(G.relu2_second.xreplace({G.q: 1})))


def test_relu2_swapping_a_inside_phi2_is_harmless():
    """Phi2(h, k; rho) = Phi2(k, h; rho): swapping a1 and a2 *inside Phi2* is not an error,
    and the witness must not call it one (it would then reject true forms)."""
    swap = lambda e: e.replace(Phi2, lambda h, k, r: Phi2(k, h, r))  # noqa: E731
    assert D.relu_moment2_second(swap(G.relu2_second)).proved
    assert D.relu_moment2_first(swap(G.relu2_first)).proved


# ---------------------------------------------------------------- lemma.mask_moment1
def test_mask1_without_kappa_varphi_term_fails():
    _fails(D.mask_moment1_first(Phi(G.a) * G.one))


def test_mask1_wrong_argument_fails():
    _fails(D.mask_moment1_first(Phi(-G.a) * G.one + G.kappa * varphi(G.a) * G.uhat))


# ---------------------------------------------------------------- lemma.mask_moment2
def test_mask2_half_space_wrong_sign_fails():
    wrong = (  # + a varphi(a) instead of - a varphi(a)
        Phi(G.a) * G.one * G.one.T
        + G.kappa * varphi(G.a) * (G.one * G.uhat.T + G.uhat * G.one.T)
        + G.kappa ** 2 * (Phi(G.a) * G.Id + G.a * varphi(G.a) * G.uhat * G.uhat.T))
    _fails(D.mask_moment2_half_space(wrong))


def _where_with(sym, value):
    return tuple((k, value if k == sym else v) for k, v in G.MASK_MOMENT2.where)


def _D_flipped_rho_term():
    q, a1, a2, b1, b2, rho = G.q, G.a1, G.a2, G.b1, G.b2, G.rho
    u, v = G.uhat, G.vhat
    return (u * u.T * (-a1 * varphi(a1) * Phi(b2) + rho * varphi(a1) * varphi(b2) / q)
            + (u * v.T + v * u.T) * varphi(a1) * varphi(b2) / q
            + v * v.T * (-a2 * varphi(a2) * Phi(b1) - rho * varphi(a2) * varphi(b1) / q))


def test_mask2_wedge_D_with_flipped_rho_term_fails():
    _fails(D.mask_moment2_wedge(where=_where_with(G.Dmat, _D_flipped_rho_term())))


def test_mask2_wedge_tau_swapped_b_fails():
    tau = varphi(G.a1) * Phi(G.b1) * G.uhat + varphi(G.a2) * Phi(G.b2) * G.vhat
    _fails(D.mask_moment2_wedge(where=_where_with(G.tvec, tau)))


def test_mask2_wedge_without_PI_fails():
    wrong = (G.P_orthant * G.one * G.one.T + G.kappa * (G.one * G.tvec.T + G.tvec * G.one.T)
             + G.kappa ** 2 * G.Dmat)
    _fails(D.mask_moment2_wedge(wrong))


def test_mask2_wedge_limit_catches_bad_D():
    _fails(D.mask_moment2_wedge_limit(where=_where_with(G.Dmat, _D_flipped_rho_term())))


def test_every_catalogue_equation_has_a_derivation():
    """Each displayed equation of each lemma has a symbolic witness (a proof, or for the
    lemmas of Section 5 that are false as stated, a symbolic refutation)."""
    from theory.masking import smoothness
    from theory.masking.catalogue import CATALOGUE

    witnessed = {**D.DERIVATIONS, **smoothness.DERIVATIONS, **smoothness.REFUTATIONS}
    missing = [(st.id, eq.label) for st in CATALOGUE.values() if st.id.startswith("lemma.")
               for eq in st.equations if (st.id, eq.label) not in witnessed]
    assert not missing, f"equations without a symbolic witness: {missing}"


def test_planted_wrong_decomposition_is_not_proved():
    """Theorem 4.2 with T2 counted twice must fail the symbolic decomposition check."""
    from theory.masking import derivations_network as DN
    from theory.masking import network as N

    assert DN.theorem_4_2_decomposition().proved
    assert not DN.theorem_4_2_decomposition(rhs=N.T1s + 2 * N.T2s + N.Es).proved
    assert not DN.remark_4_4_constant(rhs=N.REMARK_4_4.equation("O_constant").rhs / 2).proved
