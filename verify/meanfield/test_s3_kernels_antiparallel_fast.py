"""eq. (23) for nearly antiparallel pairs: the relu dual's series branch (pi - theta < 1,
``numerics.core.gaussian_kernels._j_series``) against the raw definition, relatively.

For w ~ N(0, I), u = w.x_a and v = w.x_b are (a r cos phi, b r cos(phi - theta)) in the polar
coordinates of a standard pair (the module docstring of ``gaussian_kernels``), so with
e = pi - theta and the radial moment int_0^inf r^3 e^(-r^2/2) dr = 2,

    E[relu(u) relu(v)] = (a b / pi) int_{wedge} cos(phi) cos(phi - theta) dphi
                       = (a b / pi) e^3 int_0^1 [sin(e s)/e] [sin(e (1 - s))/e] ds,

the wedge {cos phi > 0, cos(phi - theta) > 0} being phi = pi/2 - e s.  The integrand is
normalised to O(1) (mp.quad's error control is absolute: an unnormalised integrand of size
e^2 stops at its first level and is 1e-10 off) and passes a precision ladder.  None of it uses
the arc-cosine closed form.

The direct witness gives ``dual`` the supplement exactly, so the value must be relatively
accurate over the whole range of e where it is a normal float (1e-100 <= e < pi/2, both sides
of the series' boundary e = 1 and of theta = pi/2): a fault of 1e-5 in the series shows here,
where the backward-stable tolerance of ``test_s3_kernels_fast`` cannot see it.  Through
``gram_bar`` the supplement comes from normalised rows, with an absolute error of a few eps.
"""
from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

from numerics.core.gaussian_kernels import dual
from numerics.core.tolerance import EPS, Tol, digits, rel_err
from numerics.meanfield import gram_bar, gram_bar_prime

#: every test here is fast; each names its statement: eq.23 (gram_bar, the relu dual) or eq.23.prime
#: (gram_bar_prime), so that a failure of one kernel is not charged to the other
pytestmark = [pytest.mark.witness("fast")]

#: supplement exact: k = ab/(2 pi), the series' leading term, its sum of alternating terms
#: falling by e^2/20 or faster, and the product each round once (measured: <= 2 ulp)
DIRECT_TOL = Tol(rtol=8 * EPS, why="exact supplement: four roundings of at most 1 ulp (measured <= 2)")


def wedge_reference(a, b, e, dps: int = 30) -> mp.mpf:
    """E[relu(u) relu(v)] at angle pi - e, from the wedge integral above; (dps, 2 dps) agree."""
    def at(d):
        with mp.workdps(d):
            ee = mp.mpf(e)
            f = lambda s: (mp.sin(ee * s) / ee) * (mp.sin(ee * (1 - s)) / ee)  # noqa: E731
            return mp.mpf(a) * mp.mpf(b) / mp.pi * ee**3 * mp.quad(f, [0, 1])
    lo, hi = at(dps), at(2 * dps)
    with mp.workdps(2 * dps):
        assert abs(lo - hi) <= mp.mpf(10) ** (-dps + 3) * abs(hi), f"precision ladder failed at e = {e!r}"
    return hi


#: e over the normal range of the value (e^3/3 >= 1e-300), the series' boundary e = 1 from both
#: sides, and theta = pi/2 (where the direct form takes over) from both sides
BOUNDARY = [1 - 2**-40, 1.0, 1 + 2**-40, math.pi / 2 - 1e-9, math.pi / 2 + 1e-9]
DEFAULT_E = [1e-100, 1e-45, 1e-12, 1e-4, 0.03, 0.5] + BOUNDARY
SLOW_E = [float(10.0**k) for k in np.arange(-100.0, 0.0, 0.25)]


def _direct(e: float, a: float, b: float, record) -> None:
    got = float(dual("relu", a, b, math.pi - e, e))
    want = float(wedge_reference(a, b, e))
    err = rel_err(got, want)
    record(error=err, digits=digits(err))
    assert abs(got - want) <= DIRECT_TOL.bound(want), f"relu dual at pi - theta = {e!r}, a = {a}, b = {b}: {got!r} vs {want!r} " \
                                     f"({err:.2e} relative; {DIRECT_TOL})"


@pytest.mark.statement("eq.23")
@pytest.mark.parametrize("e", DEFAULT_E)
def test_relu_dual_near_antiparallel_is_relatively_accurate(e, record):
    _direct(e, 1.0, 1.0, record)


@pytest.mark.statement("eq.23")
@pytest.mark.parametrize("a, b", [(1e-150, 1e150), (3.7, 0.02), (1e100, 1e-180)])
def test_relu_dual_near_antiparallel_at_extreme_scales(a, b, record):
    _direct(1e-3, a, b, record)


@pytest.mark.statement("eq.23")
@pytest.mark.slow
@pytest.mark.parametrize("e", SLOW_E)
def test_relu_dual_near_antiparallel_whole_range(e, record):
    _direct(e, 1.0, 1.0, record)


def _antiparallel(e: float):
    """Rows x and -c (cos(e) x + sin(e) y) with y orthogonal to x (eq. (23): u = z.x/sqrt(d)), so
    that pi - theta is about e; with the rows' norms/sqrt d and the supplement 2 atan2(|x_a/|x_a|
    + x_b/|x_b||, |x_a/|x_a| - x_b/|x_b||) in mp from the float rows (60 digits)."""
    x = np.array([0.6, -0.8, 0.0])
    y = np.array([0.8, 0.6, 0.0])
    xb = -2.5 * (math.cos(e) * x + math.sin(e) * y)
    X = np.stack([x, xb])
    with mp.workdps(60):
        xa_m, xb_m = [mp.matrix([mp.mpf(float(t)) for t in row]) for row in X]
        na, nb = mp.norm(xa_m), mp.norm(xb_m)
        supp = 2 * mp.atan2(mp.norm(xa_m / na + xb_m / nb), mp.norm(xa_m / na - xb_m / nb))
        sd = mp.sqrt(X.shape[1])  # eq. (23) scales the inputs by 1/sqrt(d)
        return X, na / sd, nb / sd, supp


ANTIPARALLEL_E = [1e-3, 0.1, 0.9, 1 - 1e-9, 1 + 1e-9]


@pytest.mark.statement("eq.23")
@pytest.mark.parametrize("e", ANTIPARALLEL_E)
def test_gram_bar_of_nearly_antiparallel_rows(e, record):
    """``gram_bar`` relu on the rows of ``_antiparallel``: the supplement from the rows is e up to
    the rounding of the rows themselves; both it and the kernel are judged against mp from the
    float rows.  Normalised rows carry an absolute error of a few eps, so the supplement's
    relative error is <= 8 eps / e and J ~ e^3/3 triples it."""
    X, a, b, supp = _antiparallel(e)
    want = float(wedge_reference(a, b, supp))
    got = gram_bar(X, "relu")[0, 1]
    tol = Tol(rtol=8 * EPS + 3 * 8 * EPS / e, why="rows' normalisation: supplement to 8 eps absolute, tripled by J")
    err = rel_err(got, want)
    record(error=err, digits=digits(err))
    assert abs(got - want) <= tol.bound(want), f"gram_bar relu at e = {e!r}: {got!r} vs {want!r} ({err:.2e}; {tol})"


@pytest.mark.statement("eq.23.prime")
@pytest.mark.parametrize("e", ANTIPARALLEL_E)
def test_step_kernel_of_nearly_antiparallel_rows(e, record):
    """``gram_bar_prime`` relu on the same rows: E[1{u > 0} 1{v > 0}] is the wedge's angle over
    2 pi, supp/(2 pi), with the supplement's absolute error of 8 eps."""
    X, _, _, supp = _antiparallel(e)
    step = gram_bar_prime(X, "relu")[0, 1]
    want_step = float(supp / (2 * mp.pi))
    step_tol = Tol(rtol=8 * EPS + 8 * EPS / e, why="the supplement's absolute error of 8 eps")
    err = rel_err(step, want_step)
    record(error=err, digits=digits(err))
    assert abs(step - want_step) <= step_tol.bound(want_step), f"gram_bar_prime relu at e = {e!r}: {step!r} vs {want_step!r} ({step_tol})"
