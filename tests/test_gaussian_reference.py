"""``numerics.core.gaussian_reference`` against closed forms derived independently of it.

Closed forms (standard normal x, y; (u, v) of correlation rho, means 0 unless said):

- E ReLU(u) ReLU(v) = s1 s2 (sqrt(1 - rho^2) + (pi - arccos rho) rho) / (2 pi): the arc-cosine
  kernel of degree 1 (integrate over the wedge u, v > 0 in polar coordinates; ReLU is
  positively homogeneous, so the scales factor out);
- E 1{u > 0} 1{v > 0} = 1/4 + arcsin(rho) / (2 pi) (Sheppard's orthant probability; the angle of
  the wedge is pi - arccos rho);
- E u^2 v^2 = s1^2 s2^2 (1 + 2 rho^2) (Isserlis: E x^2 y'^2 with y' = rho x + q y);
- E erf(a u) erf(b v) = (2/pi) arcsin(2 a b rho / sqrt((1 + 2 a^2)(1 + 2 b^2))) (unit variances:
  erf(a u) = 2 P(z <= sqrt 2 a u) - 1 for an independent z, so the expectation is an orthant
  probability of two correlated Gaussians);
- E erf(a u), u ~ N(mu, s^2) = erf(a mu / sqrt(1 + 2 a^2 s^2)) (the same device: P(z - sqrt 2 a u
  <= 0) with z - sqrt 2 a u ~ N(-sqrt 2 a mu, 1 + 2 a^2 s^2), and 2 Phi(sqrt 2 t) - 1 = erf(t));
- E u v = mu1 mu2 + rho s1 s2; E ReLU(u), u ~ N(mu, s^2) = s varphi(mu/s) + mu Phi(mu/s);
  E |u| = s sqrt(2/pi) exp(-mu^2/(2 s^2)) + mu (1 - 2 Phi(-mu/s)).

The closed forms are evaluated at 100 digits from the same binary inputs (near rho = +-1 their
terms cancel: ReLU's at rho = -(1 - 1e-12) is 1.5e-19 from terms of order 1).
"""
from __future__ import annotations

import mpmath as mp
import pytest

from numerics.core.gaussian_reference import bivariate_expectation, gaussian_expectation, relu
from numerics.core.reference import LadderError
from numerics.core.tolerance import Tol

DPS = 15
TOL = Tol(10.0 ** -(DPS - 4), "the ladder makes dps and 2 dps agree to 1e-(dps-3); one digit more for rounding")
NEAR = 1 - 1e-12
RHOS = [0.0, 0.5, -0.5, NEAR, -NEAR, 1.0, -1.0]


def _close(value, exact):
    with mp.workdps(100):  # in mpmath: a value of 1e-2171472409516259334811 is no float
        err = abs(mp.mpf(value) - exact)
        bound = TOL.atol + mp.mpf(TOL.rtol) * abs(exact)
        assert err <= bound if exact else err == 0, (value, exact, TOL)


def _exact(fn, *args):
    with mp.workdps(100):
        return fn(*(mp.mpf(a) for a in args))


def _arccos1(r):
    return (mp.sqrt((1 - r) * (1 + r)) + (mp.pi - mp.acos(r)) * r) / (2 * mp.pi)


@pytest.mark.parametrize("rho", RHOS)
def test_relu_relu_is_the_arc_cosine_kernel(rho):
    _close(bivariate_expectation(relu, relu, rho, kinks_f=(0,), kinks_g=(0,), dps=DPS), _exact(_arccos1, rho))


@pytest.mark.parametrize("rho, s1, s2", [(0.5, 1e-8, 1e6), (-NEAR, 1e5, 1e-3), (0.3, 1e-150, 1e150)])
def test_relu_relu_scales_over_orders_of_magnitude(rho, s1, s2):
    exact = _exact(lambda r, a, b: a * b * _arccos1(r), rho, s1, s2)
    _close(bivariate_expectation(relu, relu, rho, s1=s1, s2=s2, kinks_f=(0,), kinks_g=(0,), dps=DPS), exact)


@pytest.mark.parametrize("rho", [-0.5, NEAR, -1.0])
def test_a_jump_at_a_declared_kink_is_sheppards_orthant(rho):
    def step(x):
        return mp.mpf(1) if x > 0 else mp.mpf(0)

    _close(bivariate_expectation(step, step, rho, kinks_f=(0,), kinks_g=(0,), dps=DPS),
           _exact(lambda r: mp.mpf(1) / 4 + mp.asin(r) / (2 * mp.pi), rho))


@pytest.mark.parametrize("rho, s1, s2", [(0.5, 1, 1), (-1.0, 1, 1), (NEAR, 1e-4, 1e7)])
def test_fourth_moment_is_isserlis(rho, s1, s2):
    _close(bivariate_expectation(lambda x: x * x, lambda x: x * x, rho, s1=s1, s2=s2, dps=DPS),
           _exact(lambda r, a, b: a * a * b * b * (1 + 2 * r * r), rho, s1, s2))


def _erf_erf(r, a, b):
    return _exact(lambda r, a, b: 2 / mp.pi * mp.asin(2 * a * b * r / mp.sqrt((1 + 2 * a * a) * (1 + 2 * b * b))),
                  r, a, b)


@pytest.mark.parametrize("rho, a, b", [pytest.param(0.5, 0.5, 2, marks=pytest.mark.slow),
                                       pytest.param(-NEAR, 2, 0.5, marks=pytest.mark.slow), (1.0, 1.5, 0.25)])
def test_erf_erf_is_the_arcsine_kernel(rho, a, b):
    """(At rho = 0 the value is 0 by symmetry and only rounding noise is left, which no relative
    ladder can judge; erf(10 u) already varies on a tenth of the panel's scale and erf(1000 u),
    which steps over 1e-3 standard units, fails the ladder unless declared steep (below): the
    scales are the variances'.)"""
    _close(bivariate_expectation(lambda x: mp.erf(a * x), lambda x: mp.erf(b * x), rho, dps=DPS), _erf_erf(rho, a, b))


def test_a_function_too_steep_for_the_panels_fails_the_ladder():
    with pytest.raises(LadderError):
        bivariate_expectation(lambda x: mp.erf(x), lambda x: mp.erf(1000 * x), 0.5, dps=DPS)


def _erf_mean(a, mu, s):
    return _exact(lambda a, m, s: mp.erf(a * m / mp.sqrt(1 + 2 * a * a * s * s)), a, mu, s)


#: a s >= 10: erf(a u) steps over 1/(a s) <= 0.1 standard units
STEEP_1D = [(10, 0.3, 1), (1e3, 1e-3, 1e-2), (1e6, 0.3, 1)]


@pytest.mark.parametrize("a, mu, s", STEEP_1D)
def test_a_steep_function_fails_the_ladder_undeclared(a, mu, s):
    with pytest.raises(LadderError):
        gaussian_expectation(lambda x: mp.erf(a * x), mu, s, dps=DPS)


@pytest.mark.parametrize("a, mu, s", STEEP_1D)
def test_declared_steep_points_grade_the_panels(a, mu, s):
    """E erf(a u) with ``steep=((0, 1/a),)``: panels graded toward u = 0 down to 4/(a s) standard
    units, against erf(a mu/sqrt(1 + 2 a^2 s^2))."""
    _close(gaussian_expectation(lambda x: mp.erf(a * x), mu, s, steep=((0, 1 / a),), dps=DPS), _erf_mean(a, mu, s))


#: one of f, g steps over 1/30 standard units; rho = +-1: the outer panels alone (g's grading
#: carried to x through v = rho x); rho = 0.5: also the inner ones, graded at every outer node
STEEP_2D = [(1.0, 0.5, 30), (-1.0, 30, 0.5), pytest.param(0.5, 0.5, 30, marks=pytest.mark.slow)]


@pytest.mark.parametrize("rho, a, b", STEEP_2D)
def test_a_steep_bivariate_fails_the_ladder_undeclared(rho, a, b):
    with pytest.raises(LadderError):
        bivariate_expectation(lambda x: mp.erf(a * x), lambda x: mp.erf(b * x), rho, dps=DPS)


@pytest.mark.parametrize("rho, a, b", STEEP_2D)
def test_declared_steep_points_of_f_and_g(rho, a, b):
    """E erf(a u) erf(b v) with ``steep_f=((0, 1/a),)``, ``steep_g=((0, 1/b),)``, against the
    arcsine kernel."""
    value = bivariate_expectation(lambda x: mp.erf(a * x), lambda x: mp.erf(b * x), rho, steep_f=((0, 1 / a),),
                                  steep_g=((0, 1 / b),), dps=DPS)
    _close(value, _erf_erf(rho, a, b))


@pytest.mark.parametrize("mu1, mu2, s1, s2, rho", [(3, -2, 0.5, 4, 0.5), (1e6, 1e-6, 1e3, 1e-9, -NEAR)])
def test_means_enter(mu1, mu2, s1, s2, rho):
    _close(bivariate_expectation(lambda x: x, lambda x: x, rho, mu1, mu2, s1, s2, dps=DPS),
           _exact(lambda a, b, c, d, r: a * b + r * c * d, mu1, mu2, s1, s2, rho))


@pytest.mark.parametrize("mu, s", [(0.3, 2), (-1e5, 1e-6), (1e-5, 1e5), (-7, 1), (0, 1e-200)])
def test_one_variable_relu_and_abs(mu, s):
    relu_exact = _exact(lambda m, s: s * mp.npdf(m / s) + m * mp.ncdf(m / s), mu, s)
    abs_exact = _exact(lambda m, s: s * mp.sqrt(2 / mp.pi) * mp.exp(-m * m / (2 * s * s)) + m * (1 - 2 * mp.ncdf(-m / s)),
                       mu, s)
    _close(gaussian_expectation(relu, mu, s, kinks=(0,), dps=DPS), relu_exact)
    _close(gaussian_expectation(abs, mu, s, kinks=(0,), dps=DPS), abs_exact)


def test_an_undeclared_kink_is_caught_by_the_ladder():
    """Without the split a jump sits inside a panel: dps and 2 dps disagree, and the ladder says so."""
    with pytest.raises(LadderError):
        gaussian_expectation(lambda x: mp.mpf(1) if x > mp.mpf("0.1") else mp.mpf(0), dps=DPS)


@pytest.mark.parametrize("call, match", [
    (lambda: gaussian_expectation(relu, 0, 0), "sigma must be > 0"),
    (lambda: gaussian_expectation(relu, 0, -1), "sigma must be > 0"),
    (lambda: gaussian_expectation(relu, float("nan"), 1), "mu must be finite"),
    (lambda: gaussian_expectation(relu, 0, 1, kinks=(float("inf"),)), "kinks must be finite"),
    (lambda: gaussian_expectation("relu", 0, 1), "f must be a function"),
    (lambda: bivariate_expectation(relu, relu, 1.5), r"rho must be in \[-1, 1\]"),
    (lambda: bivariate_expectation(relu, relu, -1.0000001), r"rho must be in \[-1, 1\]"),
    (lambda: bivariate_expectation(relu, relu, 0.5, s2=0), "s2 must be > 0"),
    (lambda: bivariate_expectation(relu, None, 0.5), "g must be a function"),
    (lambda: bivariate_expectation(relu, relu, True), "rho must be a real number"),
    (lambda: gaussian_expectation(relu, steep=((0, 0),)), r"steep must be a sequence of \(point, width > 0\)"),
    (lambda: gaussian_expectation(relu, steep=(0.5,)), r"steep must be a sequence of \(point, width > 0\)"),
    (lambda: bivariate_expectation(relu, relu, 0.5, steep_g=((float("nan"), 1),)),
     "steep_g must be a sequence"),
])
def test_bad_input_is_a_value_error(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_an_mpf_input_keeps_its_digits():
    """rho = -1 + 1e-20 given as a 60-digit mpf stays above -1 (mp.mpf would round it to -1 at 15
    digits, where the value is exactly 0; here it is about 1e-31)."""
    with mp.workdps(60):
        rho = -1 + mp.mpf("1e-20")
        exact = _exact(_arccos1, rho)
    value = bivariate_expectation(relu, relu, rho, kinks_f=(0,), kinks_g=(0,), dps=DPS)
    assert value > 0
    _close(value, exact)
