"""eq. (23) and the derivative kernel: the float64 kernels against the raw-definition references
of ``numerics.meanfield.reference`` at the hard inputs: generic, nearly parallel, antiparallel,
orthogonal, d = 1, zero rows, norms 1e-3 and 1e3 (tanh: Gauss-Hermite at scales <= 0.8 here;
the whole range 1e-8 .. 1e4 in ``test_s3_kernels_tanh_range.py``)."""
from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest
import sympy as sp

from numerics.core.compile import compile_expr
from numerics.core.tolerance import EPS, Tol, digits, rel_err
from numerics.meanfield import gram_bar, gram_bar_prime
from numerics.meanfield import reference as ref
from theory.core import dual_kernels as dk

CLOSED = ("relu", "abs", "leaky_relu:0.1", "erf")
#: The kernels are backward stable: exact for inputs within a few ulps of the given ones (Kahan's
#: angle from the normalised rows has an absolute error of a few eps, also near 0 and pi).  So the
#: forward error is bounded by eps times the kernel's condition number: |dk| <= 64 eps (|k| + a b
#: |dk/dtheta| + ...), the derivative taken from theory's closed form (a nearly antiparallel relu
#: pair has k ~ (pi - theta)^3 and relative error eps/(pi - theta), as any backward-stable method)
COND_TOL = Tol(rtol=64 * EPS, why="backward stable: 64 eps times (|k| + |dk/dtheta|), theta's error a few eps")

_FORMS = {("relu", False): dk.RELU, ("abs", False): dk.ABS, ("leaky_relu:0.1", False): dk.LEAKY,
          ("erf", False): dk.ERF, ("relu", True): dk.RELU_STEP, ("abs", True): dk.SIGN,
          ("leaky_relu:0.1", True): dk.LEAKY_STEP, ("erf", True): dk.ERF_PRIME}


def _condition(act, derivative, a, b, theta):
    """|k| + |dk/dtheta| at the pair, from theory's closed form (the error scale of COND_TOL)."""
    expr = _FORMS[(act, derivative)].subs(dk.alpha, sp.Rational(1, 10))
    k = compile_expr(expr, (dk.a, dk.b, dk.theta))
    dkdt = compile_expr(sp.diff(expr, dk.theta), (dk.a, dk.b, dk.theta))
    return abs(k(a, b, theta)) + abs(dkdt(a, b, theta))


rng = np.random.default_rng(2022)
base = rng.standard_normal(5)
PAIRS = {
    "generic": (base, rng.standard_normal(5)),
    "near-parallel": (base, base + 1e-9 * rng.standard_normal(5)),
    "antiparallel": (base, -base * 1.7 + 1e-9 * rng.standard_normal(5)),
    "orthogonal": (np.array([1.0, 0.0, 0.0]), np.array([0.0, 2.0, 0.0])),
    "d=1 same sign": (np.array([0.3]), np.array([2.0])),
    "d=1 opposite": (np.array([0.3]), np.array([-2.0])),
    "small norms": (1e-3 * base / np.linalg.norm(base), 1e-3 * rng.standard_normal(5)),
    "large norms": (1e3 * base / np.linalg.norm(base), 1e3 * rng.standard_normal(5) / np.sqrt(5)),
}


def _check(act, case, derivative, record):
    xa, xb = PAIRS[case]
    got = (gram_bar_prime if derivative else gram_bar)(np.stack([xa, xb]), act)[0, 1]
    want = ref.gram_entry(xa, xb, act, derivative=derivative, dps=20)
    A, P, Q, B, rho = ref.pair_law(xa, xb, 20)
    scale = _condition(act, derivative, float(A), float(B), float(mp.acos(rho)))
    err = abs(got - float(want)) / scale
    record(error=rel_err(got, float(want)), digits=digits(rel_err(got, float(want))))
    assert abs(got - float(want)) <= COND_TOL.bound(scale), f"{act} {case}: {got!r} vs {float(want)!r} ({COND_TOL})"
    return err


#: the default tier checks these (activation, case) pairs; the whole grid runs under -m slow
DEFAULT = {("relu", "antiparallel"), ("relu", "near-parallel"), ("relu", "large norms"), ("abs", "generic"),
           ("leaky_relu:0.1", "antiparallel"), ("erf", "near-parallel"), ("erf", "large norms"),
           ("relu", "d=1 opposite"), ("abs", "small norms"), ("leaky_relu:0.1", "orthogonal")}
GRID = [pytest.param(act, case, marks=() if (act, case) in DEFAULT else pytest.mark.slow)
        for act in CLOSED for case in sorted(PAIRS)]


@pytest.mark.statement("eq.23")
@pytest.mark.witness("fast")
@pytest.mark.parametrize("act, case", GRID)
def test_gram_bar_closed_forms(act, case, record):
    _check(act, case, False, record)


@pytest.mark.statement("eq.23.prime")
@pytest.mark.witness("fast")
@pytest.mark.parametrize("act, case", GRID)
def test_gram_bar_prime_closed_forms(act, case, record):
    _check(act, case, True, record)


@pytest.mark.statement("eq.23")
@pytest.mark.witness("fast")
@pytest.mark.parametrize("act", CLOSED + ("tanh",))
def test_zero_row_and_diagonal(act):
    """A zero row gives u = 0 surely: Gbar = s(0) E[s(v)] = 0 for every activation here; the
    diagonal of relu is E[relu(u)^2] = |x|^2/(2d) exactly."""
    X = np.array([[0.0, 0.0], [1.0, -2.0]])
    G = gram_bar(X, act)
    assert G[0, 0] == 0.0 and G[0, 1] == 0.0 and G[1, 0] == 0.0
    if act == "relu":
        assert G[1, 1] == pytest.approx(5.0 / 4.0, rel=4 * EPS)


@pytest.mark.statement("eq.23.prime")
@pytest.mark.witness("fast")
def test_prime_zero_row_conventions():
    """relu'(0) = |.|'(0) = leaky'(0) = 0 (the paper's convention): a zero row gives 0; erf'(0) =
    2/sqrt(pi) gives (4/pi)/sqrt(1 + 2 b^2); tanh'(0) = 1 gives E[sech^2(v)]."""
    X = np.array([[0.0, 0.0], [1.0, -2.0]])   # b^2 = 5/2
    for act in ("relu", "abs", "leaky_relu:0.1"):
        assert gram_bar_prime(X, act)[0, 1] == 0.0
    assert gram_bar_prime(X, "erf")[0, 1] == pytest.approx(4 / np.pi / np.sqrt(6.0), rel=8 * EPS)
    want = float(ref.gram_entry(X[0], X[1], "erf", derivative=True, dps=20))
    assert gram_bar_prime(X, "erf")[0, 1] == pytest.approx(want, rel=8 * EPS)
    assert gram_bar_prime(X, "tanh")[0, 0] == pytest.approx(1.0, rel=8 * EPS)


#: the Gauss-Hermite check (scales <= 0.8, so tanh's poles lie at distance >= pi/1.6 from the
#: real axis): its own convergence is measured (200 against 300 nodes) and must be below the
#: tolerance; its summation rounding is about 1e-15 of the sum of |terms|.  Scales 1e-8 .. 1e4:
#: test_s3_kernels_tanh_range.py (30-digit graded-panel references)
TANH_TOL = Tol(rtol=1e-13, why="Gauss-Hermite 300^2 at scales <= 0.8: 200-vs-300-node agreement and summation "
                              "rounding ~1e-15 of sum |w f g|")


def _scaled(x, scale):
    return x / np.linalg.norm(x) * np.sqrt(len(x)) * scale


@pytest.mark.witness("fast")
@pytest.mark.parametrize("case, derivative", [
    # each case credited to its kernel's statement: gram_bar (eq.23) or gram_bar_prime (eq.23.prime)
    pytest.param(case, der, marks=[pytest.mark.statement("eq.23.prime" if der else "eq.23")]
                 + ([] if (case, der) in {("antiparallel", False), ("small norms", True)} else [pytest.mark.slow]))
    for case in ("generic", "near-parallel", "antiparallel", "orthogonal", "small norms") for der in (False, True)])
def test_tanh_against_gauss_hermite(case, derivative, record):
    xa, xb = PAIRS[case]
    if case != "small norms":
        xa, xb = _scaled(xa, 0.8), _scaled(xb, 0.5)
    X = np.stack([xa, xb])
    got = (gram_bar_prime if derivative else gram_bar)(X, "tanh")[0, 1]
    want = ref.gauss_hermite_entry(xa, xb, "tanh", derivative=derivative)
    coarse = ref.gauss_hermite_entry(xa, xb, "tanh", derivative=derivative, nodes=200)
    scale = max(abs(want), np.linalg.norm(xa) * np.linalg.norm(xb) / len(xa)) if not derivative else 1.0
    err = abs(got - want) / scale
    record(error=err, digits=digits(err))
    assert abs(coarse - want) <= TANH_TOL.bound(scale) / 10, f"Gauss-Hermite not converged: {coarse!r} vs {want!r}"
    assert abs(got - want) <= TANH_TOL.bound(scale), f"tanh {case}: {got!r} vs {want!r} ({TANH_TOL})"


@pytest.mark.statement("eq.23")
@pytest.mark.witness("fast")
def test_gram_matrix_shape_symmetry_psd():
    X = rng.standard_normal((4, 3))
    for act in CLOSED + ("tanh",):
        G = gram_bar(X, act)
        assert G.shape == (4, 4) and G.dtype == np.float64
        assert np.array_equal(G, G.T)
        assert np.linalg.eigvalsh(G).min() > -1e-14 * np.abs(G).max()
