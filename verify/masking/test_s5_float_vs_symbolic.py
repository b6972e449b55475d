"""Every hand-typed float64 formula of Section 5 against the catalogue's SymPy expression.

A float64 function that re-types a statement of ``theory`` (a bound, a requirement, a constant)
can carry a wrong constant in either direction; a fuzz that checks only the side where a bound
holds sees one of them (a (2 kappa)^2 written for 2 kappa^2 made eps1 larger, which no
"bound holds" test can see).  Here each such function is compared for EQUALITY, to rounding,
with the catalogue expression compiled by ``numerics.core.compile.compile_expr`` (the hidden
constants C_i set to 1, as the float64 code does), over domains that span orders of magnitude
(``numerics.core.strategies``).

Tolerances: both sides evaluate products, quotients, square roots and sums of non-negative
terms in float64 (``math`` target) in different orders, so they agree to a few eps per
operation; where the float64 code uses a different (stable) form than the catalogue, the
catalogue is evaluated in mpmath at 30 digits instead, so only the float64 side rounds.

What is not here: Corollary 5.3's epsilon_1 (``convergence.epsilon_1``) is compiled from the
catalogue, not typed, so equality would check compile_expr against itself; Definition 4.1's
constants are maxima over the network, not formulas of the catalogue.
"""
from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from numerics.core import strategies as core
from numerics.core.compile import compile_expr
from numerics.core.tolerance import EPS, Tol, rel_err
from numerics.masking import bounds as bd
from numerics.masking import convergence as cv
from numerics.masking import network as nw
from numerics.masking import ntk
from numerics.masking import smoothness as sm
from theory.masking import convergence as TC
from theory.masking import network as TN
from theory.masking import ntk as TK
from theory.masking import smoothness as TS
from verify.profiles import examples as budget
from numerics.masking.instances import networks

pytestmark = pytest.mark.witness("fast")

#: each side: at most ~10 roundings of non-negative terms, so the two agree to 2 x 10 eps
REORDERED = Tol(32 * EPS, why="two float64 evaluations of the same sum of products of non-negative terms, "
                              "each <= ~10 roundings, in different orders")
#: float64 side only (the catalogue in mpmath at 30 digits): ~10 roundings, amplified at most 4x
FLOAT_ONLY = Tol(64 * EPS, why="one float64 evaluation (~10 roundings) against an mpmath value; the NTK "
                               "angle atan2 form is accurate to a few eps relative (ntk._gram)")

ones = {C: 1 for C in (TC.C2, TC.C3, TC.C4, TC.C5, TC.C6, TC.C7)}  # the float64 code's constants


def _rhs(statement, label):
    return statement.equation(label).rhs.subs(ones)


# moderate magnitudes: the requirements multiply up to eight of them (n^4 K^2 ...)
positive = core.magnitudes(1e-30, 1e30)
counts = st.integers(1, 10**6)


# ------------------------------------------------------------------------------ thm.5.6
RADIUS_16 = compile_expr(sp.expand(_rhs(TC.THEOREM_5_6, "rate") - TC.RATE),
                         (TN.kappa, TC.tau, TN.m, TN.n, TN.d, TC.phi_hat, TC.psi_hat))


@pytest.mark.statement("thm.5.6")
@given(kappa=positive, tau=positive, m=counts, n=counts, d=counts, phi=positive, psi=positive)
def test_radius_16_is_the_catalogue_expression(kappa, tau, m, n, d, phi, psi):
    """``bounds.radius_16`` = Theorem 5.6's radius (16) (the rate's right side minus the linear term)."""
    got = bd.radius_16(kappa, tau, m, n, d, phi, psi)
    want = RADIUS_16(kappa, tau, m, n, d, phi, psi)
    assert rel_err(got, want) <= REORDERED.rtol, f"radius (16): {got!r} vs catalogue {want!r} ({REORDERED})"


# ------------------------------------------------------------------------------ thm.5.2, thm.5.6
_LAM, _SIGMA = TC.lam0, TC.sigma_X
_ARGS = (TN.n, TN.d, TN.m, TC.eta, TC.K, TN.kappa, TC.tau, TC.delta, _LAM, TC.phi_hat, TC.psi_hat)
#: requirement text (``bounds.evaluate``) -> catalogue expression of the required value
REQUIRED = {
    "width m >= n^4 K^2/(lambda_0^4 delta^2 tau^2)": TC.WIDTH.rhs.subs(ones),
    "step eta <= lambda_0/n^2": TC.STEP.rhs.subs(ones),
    "(12) epsilon_1 <= delta m/(n K^4)  [Cor. 5.3 at W_0]": _rhs(TC.THEOREM_5_2, "eps1"),
    "(12) epsilon_2 <= delta lambda_0/(n K^2)  [Cor. 5.4 at W_0]": _rhs(TC.THEOREM_5_2, "eps2"),
    "(12) epsilon_3 <= lambda_0/sqrt(m n)  [Cor. 5.4 at W_0]": _rhs(TC.THEOREM_5_2, "eps3"),
    "(14) kappa <= sqrt(delta lambda_0)/(tau^2 K^2 (m^1/4 sqrt d + n d)(phi_hat + psi_hat))":
        _rhs(TC.THEOREM_5_6, "kappa"),
    "(15) sigma_max(X) phi_hat <= lambda_0/sqrt(n)": _rhs(TC.THEOREM_5_6, "data"),
}
_COMPILED = {k: compile_expr(v, _ARGS) for k, v in REQUIRED.items()}
_SUCCESS = compile_expr(TC.PROB.rhs, _ARGS)
_RADIUS_13 = compile_expr(sp.expand(_rhs(TC.THEOREM_5_2, "rate") - TC.RATE),
                          (TN.m, TN.n, _LAM, sp.Symbol(r"\varepsilon_1"), sp.Symbol(r"\varepsilon_2")))
_X, _Y = bd.synthetic_data(6, 3, 0)


#: default tier: a few examples (each builds a network and evaluates Corollaries 5.3, 5.4 on it,
#: ~1 s); the slow tier runs the full campaign
TIERS = [pytest.param(3, 4, id="default"), pytest.param(budget(40), 64, id="full", marks=pytest.mark.slow)]


@pytest.mark.statement("thm.5.2")
@pytest.mark.statement("thm.5.6")
@pytest.mark.parametrize("examples, width", TIERS)
@pytest.mark.property
def test_requirements_are_the_catalogue_expressions(examples, width):
    """Every required value ``bounds.evaluate`` prints (width, step, (12), (14), (15)), the success
    probability and the radius (13) equal Theorems 5.2 and 5.6's expressions at the instance's
    lambda_0, phi_hat, psi_hat, epsilon_i; K up to 1e4, the width m at most ``width`` (each
    example builds the network)."""

    @settings(max_examples=examples)
    @given(m=st.integers(1, 10**4), eta=positive, K=st.integers(1, 10**4), kappa=core.magnitudes(1e-6, 1e2),
           tau=core.magnitudes(1e-3, 1e3), delta=st.floats(1e-12, 1 - 1e-12))
    def campaign(m, eta, K, kappa, tau, delta):
        _check_requirements(min(m, width), eta, K, kappa, tau, delta)

    campaign()


def _check_requirements(m, eta, K, kappa, tau, delta):
    rep = bd.evaluate(_X, _Y, m=m, eta=eta, K=K, kappa=kappa, tau=tau, delta=delta)
    q = rep.quantities
    vals = (q["n"], q["d"], m, eta, K, kappa, tau, delta, rep.lambda0, q["phi_hat (at W_0)"], q["psi_hat (at W_0)"])
    seen = set()
    for r in rep.requirements:
        try:
            want = _COMPILED[r.what](*vals)
        except ZeroDivisionError:  # (14) at phi_hat + psi_hat = 0: no bound on kappa
            want = math.inf
        ok = r.required == want if math.isinf(want) else rel_err(r.required, want) <= REORDERED.rtol
        assert ok, f"{r.theorem} {r.what}: {r.required!r} vs {want!r} ({REORDERED})"
        seen.add(r.what)
    assert seen == set(REQUIRED), f"requirements without a catalogue expression: {seen ^ set(REQUIRED)}"
    # the success probability 1 - 2 delta - n^2 exp(.) cancels near 0: judge it against its terms' size
    success = _SUCCESS(*vals)
    assert abs(q["success probability"] - success) <= REORDERED.rtol * (1 + 2 * delta + abs(1 - 2 * delta - success))
    r13 = _RADIUS_13(m, q["n"], rep.lambda0, q["epsilon_1"], q["epsilon_2"])
    assert rel_err(q["radius (13): m n eps_2^2/lambda_0^2 + eps_1"], r13) <= REORDERED.rtol


# ------------------------------------------------------------------------------ cor.5.4
_EPS2_A = compile_expr(TC.eps2.coeff(TC.C2), (TN.n, TN.kappa, TN.B_x, TN.R_w, TN.R_u, TN.d, TN.phi_max, TN.psi_max, TN.m))
_EPS2_C = compile_expr(TC.eps2.coeff(TC.C4), (TN.n, TN.kappa, TN.B_x, TN.R_w, TN.R_u, TN.d, TN.phi_max, TN.psi_max, TN.m))
_EPS3 = compile_expr(TC.eps3.subs(ones), (_SIGMA, TN.phi_max, TN.m))


@pytest.mark.statement("cor.5.4")
@settings(max_examples=budget(20))  # each example evaluates the exact expected gradient of a network
@given(net=networks(scale=(-3.0, 3.0), kappa=(-3.0, 1.0)))
def test_corollary_5_4_terms_are_the_catalogue_expressions(net):
    """``convergence.corollary_5_4``'s A, B, C are the C_2, C_3 (times L^{1/2}) and C_4 terms of
    epsilon_2 and epsilon_3 (Corollary 5.4)."""
    W, a, X, y, kappa = net
    c = cv.corollary_5_4(W, a, X, y, kappa)
    dfn = nw.definition_4_1(W, X, y, kappa)
    m, d = np.shape(W)
    args = (len(X), float(kappa), dfn.B_x, dfn.R_w, dfn.R_u, d, dfn.phi_max, dfn.psi_max, m)
    L = float(nw.clean_loss(W, a, X, y))
    B = _EPS3(float(np.linalg.norm(np.asarray(X, float), 2)), dfn.phi_max, m) * math.sqrt(L)
    for name, got, want in (("A", c.A, _EPS2_A(*args)), ("B", c.B, B), ("C", c.C, _EPS2_C(*args))):
        assert rel_err(got, want) <= REORDERED.rtol or got == want, f"{name}: {got!r} vs catalogue {want!r}"


# ------------------------------------------------------------------------------ Section 5 smoothness
_PROOF_C = compile_expr(TS.C_value.subs(TS.s, TS.s_value), (TS.d, TN.kappa, TS.delta))
_ONE_NEURON = compile_expr(TS.ASSUMPTION_5_1_10.equation("one_neuron").rhs, (sp.Symbol("x"), sp.Symbol("c")))
_L_C = TS.LEMMA_D_21.equation("bound").rhs.free_symbols - {TN.n, TN.m}
_D21 = compile_expr(TS.LEMMA_D_21.equation("bound").rhs, (TN.n, TN.m, *_L_C))


@pytest.mark.statement("lemma.D.21.proof")
@given(d=counts, kappa=core.magnitudes(1e-150, 1e150), delta=st.floats(1e-300, 1 - 1e-12))
def test_proof_constant_is_the_catalogue_expression(d, kappa, delta):
    """``smoothness.proof_constant`` = C = 1 + kappa sqrt(2 log(2d/delta)) (Lemma D.22)."""
    assert rel_err(sm.proof_constant(d, kappa, delta), _PROOF_C(d, kappa, delta)) <= REORDERED.rtol


@pytest.mark.statement("asm.5.1.10")
@given(x=core.magnitudes(1e-75, 1e75), c=core.magnitudes(1e-75, 1e75))
def test_one_neuron_needed_is_the_catalogue_expression(x, c):
    """``smoothness.one_neuron_needed`` = 2 x^2 c^2 (Assumption 5.1 (10), part "one_neuron")."""
    assert rel_err(sm.one_neuron_needed(x, c), _ONE_NEURON(x, c)) <= REORDERED.rtol


@pytest.mark.statement("lemma.D.21")
@given(n=counts, m=counts, loss=core.magnitudes())
def test_lemma_d21_rhs_is_the_catalogue_expression(n, m, loss):
    """``smoothness.lemma_d21_rhs`` = sqrt(n)/sqrt(m) L_C^{1/2} (Lemma D.21 as stated)."""
    assert rel_err(sm.lemma_d21_rhs(n, m, loss), _D21(n, m, loss)) <= REORDERED.rtol


# ------------------------------------------------------------------------------ eq. (11)
_GRAM = compile_expr(TK.gram_rhs, (TK.G_ij, TK.rho), "mpmath")


@pytest.mark.statement("eq.11")
@pytest.mark.parametrize("examples", [pytest.param(15, id="default"), pytest.param(budget(200), id="full", marks=pytest.mark.slow)])
@pytest.mark.property
def test_ntk_gram_is_the_catalogue_expression(examples):
    """``ntk.ntk_gram`` (atan2 form) = x_i^T x_j (pi - acos rho_ij)/(2 pi) (eq. (11)), the catalogue
    evaluated in mpmath at 30 digits from the exact float inputs (acos loses digits near rho = +-1
    in float64, which is why the kernel does not use it); judged against |x_i| |x_j|, since
    x_i^T x_j may cancel."""
    settings(max_examples=examples)(given(st.integers(1, 4).flatmap(
        lambda d: st.lists(core.vectors(d, 1e-50, 1e50), min_size=2, max_size=4)))(_check_gram))()


def _check_gram(X):
    X = np.array(X)
    H = ntk.ntk_gram(X)
    with mp.workdps(30):
        for i in range(len(X)):
            for j in range(len(X)):
                xi, xj = [mp.mpf(float(v)) for v in X[i]], [mp.mpf(float(v)) for v in X[j]]
                G = mp.fsum(p * q for p, q in zip(xi, xj))
                ni, nj = mp.sqrt(mp.fsum(p * p for p in xi)), mp.sqrt(mp.fsum(q * q for q in xj))
                want = _GRAM(G, max(-1, min(1, G / (ni * nj))))
                assert abs(H[i, j] - float(want)) <= FLOAT_ONLY.rtol * float(ni * nj), (i, j, H[i, j], want)
