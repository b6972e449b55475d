"""Machinery tests of ``numerics.core.certified`` (Arb enclosures and the three-valued judges)."""
from __future__ import annotations

import math

import mpmath as mp
import pytest
from flint import arb

from numerics.core import certified as C
from theory.masking import gaussian as g


def contains(ball, x_mp):
    """Does the ball contain the mpmath number (given to 60 digits, as a tiny ball)?"""
    with mp.workdps(60):
        return ball.overlaps(C.to_arb(x_mp) + arb(0, 2.0 ** -190))


# ------------------------------------------------------------------------------- enclosures
@pytest.mark.parametrize("h,k", [(0.3, -1.1), (-4.0, 2.5), (-9.0, -7.0)])
def test_bvn_independent_is_product_of_marginals(h, k):
    with mp.workdps(60):
        exact = mp.ncdf(h) * mp.ncdf(k)
    b = C.bvn_cdf_arb(h, k, 0.0)
    assert contains(b, exact) and b.rel_accuracy_bits() > 150


@pytest.mark.parametrize("rho", [-0.95, -0.3, 0.6, 0.99])
def test_bvn_at_origin_is_sheppard(rho):
    with mp.workdps(60):
        exact = mp.mpf(1) / 4 + mp.asin(mp.mpf(rho)) / (2 * mp.pi)
    b = C.bvn_cdf_arb(0, 0, rho)
    assert contains(b, exact) and b.rel_accuracy_bits() > 150


def test_bvn_boundaries():
    with mp.workdps(60):
        assert contains(C.bvn_cdf_arb(-1.5, 2.5, 1.0), mp.ncdf(-1.5))
        assert contains(C.bvn_cdf_arb(1.0, 0.5, -1.0), mp.ncdf(1.0) - mp.ncdf(-0.5))
    assert C.bvn_cdf_arb(-1.0, -2.0, -1.0).contains(0)
    assert C.bvn_cdf_arb(-1.0, -2.0, -1.0).abs_upper() < arb(10) ** -40


def test_relu_moment1_point_mass_and_tail():
    e = C.relu_moment1_arb(2.5, 0.0)
    assert e.definition == e.closed_form == arb(2.5)
    assert C.relu_moment1_arb(-2.5, 0.0).definition == 0
    with mp.workdps(80):
        exact = mp.npdf(30) - 30 * mp.ncdf(-30)       # E[z 1{z >= 0}], mu = -30, s = 1
    e = C.relu_moment1_arb(-30.0, 1.0)
    assert contains(e.definition, exact) and e.definition.rel_accuracy_bits() > 150


def test_to_arb_is_exact_for_doubles_and_mpf():
    assert C.to_arb(0.1).is_exact()
    with mp.workdps(40):
        x = mp.mpf(1) / 3
    b = C.to_arb(x)
    assert b.is_exact() and b.mid().bits() == x.man_exp[0].bit_length()


def test_enclose_raises_precision_until_the_ball_is_narrow():
    b = C.enclose(C.bvn_cdf_arb, -3.0, -4.0, -0.95, digits=30, prec=64)
    assert b.rel_accuracy_bits() >= 30 * math.log2(10)


# ------------------------------------------------------------------------------- judges
def test_certify_identity_true_false_unknown():
    e = C.relu_moment1_arb(0.7, 1.3)
    assert C.certify_identity(e.definition, e.closed_form, 30) == C.TRUE
    with C.workprec(C.DEFAULT_PREC):
        planted = e.closed_form * (1 + arb(10) ** -20)
    assert C.certify_identity(e.definition, planted, 30) == C.FALSE
    low = C.relu_moment1_arb(0.7, 1.3, prec=40)                   # ~12 digits only
    assert C.certify_identity(low.definition, low.closed_form, 30) == C.UNKNOWN
    assert {C.TRUE, C.FALSE, C.UNKNOWN} == {"true", "false", "unknown"}


def test_certified_witness_refutes_a_wrong_identity():
    """The proxy sigma_hat = mu Phi(mu/s) is not E[z 1{z >= 0}]: certified refutation."""
    e = C.relu_moment1_arb(0.7, 1.3)
    with C.workprec(C.DEFAULT_PREC):
        proxy = C._eval(g.sigma_hat, {g.mu: arb(0.7), g.s: arb(1.3)})
    assert C.certify_identity(e.definition, proxy, 30) == C.FALSE


def test_certify_float():
    e = C.relu_moment1_arb(0.7, 1.3)
    x = e.best()
    assert x.rel_accuracy_bits() > 150
    good = float(x.mid())
    assert C.certify_float(good, x, 1e-15) == C.TRUE
    assert C.certify_float(good * (1 + 1e-10), x, 1e-13) == C.FALSE
    assert C.certify_float(good, arb(good, 1e-12), 1e-13) == C.UNKNOWN
    assert C.certify_float(0.0, arb(0), 1e-13) == C.TRUE


# ------------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("call,name", [
    (lambda: C.bvn_cdf_arb(0.0, 0.0, 1.5), "rho"),
    (lambda: C.bvn_cdf_arb(math.nan, 0.0, 0.0), "h"),
    (lambda: C.relu_moment1_arb(0.0, -1.0), "s"),
    (lambda: C.relu_moment1_arb(math.inf, 1.0), "mu"),
    (lambda: C.relu_moment1_arb(0.0, 1.0, moment=3), "moment"),
    (lambda: C.relu_moment2_arb(0.0, 0.0, 1.0, 1.0, 1.0), "rho"),
    (lambda: C.relu_moment2_arb(0.0, 0.0, 0.0, 1.0, 0.1), "s1"),
])
def test_bad_input_raises_value_error(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_to_arb_is_exact_for_negative_mpf():
    """mpmath's ``man_exp`` carries no sign; to_arb must keep it (a past bug turned -0.1 into 0.1)."""
    import mpmath as mp
    from numerics.core.certified import to_arb

    with mp.workdps(45):
        for v in ("-0.1", "0.3", "-1e-30", "-5"):
            x = mp.mpf(v)
            a = to_arb(x)
            assert a.rad() == 0
            man, exp = a.mid().man_exp()
            assert mp.ldexp(mp.mpf(int(man)), int(exp)) == x
