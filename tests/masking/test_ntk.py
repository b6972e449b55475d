"""Unit and meta-tests of eq. (11)'s machinery: ``numerics.masking.ntk`` and ``theory.masking.derivations_ntk``.

Known values, input validation and kinds, the rigour of the enclosure on exactly known
lambda_0; and the witnesses must be able to fail: a planted wrong closed form makes the
symbolic derivations fail, and a planted wrong ``ntk_gram`` makes the Monte Carlo, certified
and property witnesses of ``verify/masking/test_s5_ntk_*.py`` fail.
"""
from __future__ import annotations

import math
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
import sympy as sp
import torch

from numerics.masking import ntk
from numerics.core.tolerance import EPS
from theory.masking import derivations_ntk as DN
from theory.masking import ntk as T
from verify.masking import test_s5_ntk_certified as cert
from verify.masking import test_s5_ntk_montecarlo as mc
from verify.masking import test_s5_ntk_property as prop


def _no_record(**_):
    return None


# ------------------------------------------------------------------------------- known values
def test_known_grams():
    # orthogonal: the orthant probability is 1/4 but x_i^T x_j = 0; antiparallel: probability 0
    X = np.array([[0.5, 0.5], [-0.5, -0.5], [0.5, -0.5]])
    np.testing.assert_array_equal(ntk.ntk_gram(X), np.diag([0.25, 0.25, 0.25]))
    # 60 degrees: rho = 1/2, P = (pi - pi/3)/(2 pi) = 1/3
    Y = np.array([[1.0, 0.0], [0.5, np.sqrt(3) / 2]])
    np.testing.assert_allclose(ntk.ntk_gram(Y), [[0.5, 1 / 6], [1 / 6, 0.5]], rtol=4 * EPS)
    # parallel: P = 1/2; a zero input: a zero row and column
    Z = np.array([[0.3, 0.4], [0.6, 0.8], [0.0, 0.0]])
    np.testing.assert_allclose(ntk.ntk_gram(Z), [[0.125, 0.25, 0], [0.25, 0.5, 0], [0, 0, 0]], rtol=4 * EPS)


def test_finite_gram_counts_the_raw_indicator_with_zero_active():
    X = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 1.0]])
    W = np.array([[1.0, 0.0], [0.0, -1.0]])   # w_1^T x_2 = 0 and w_2^T x_1 = 0 count as active
    active = np.array([[1, 1], [1, 0], [0, 0]], dtype=float)   # active[i, r] = 1{w_r^T x_i >= 0}
    expected = (X @ X.T) * (active @ active.T) / 2
    np.testing.assert_array_equal(ntk.ntk_gram_finite(W, X), expected)


def test_kinds_in_and_out():
    X = [[0.6, 0.8], [0.1, -0.3]]
    assert isinstance(ntk.ntk_gram(X), np.ndarray)
    assert isinstance(ntk.lambda0(np.array(X)), np.float64)
    t = ntk.ntk_gram(torch.tensor(X))
    assert isinstance(t, torch.Tensor) and t.dtype == torch.float64
    assert isinstance(ntk.lambda0(torch.tensor(X)), torch.Tensor)
    assert isinstance(ntk.ntk_gram_finite(torch.ones(3, 2), np.array(X)), torch.Tensor)
    est = ntk.monte_carlo_gram(np.array([[0.0, 0.0], [0.6, 0.8]]), 1000, seed=0)
    assert est.mean.shape == (2, 2) and float(est.stderr[0, 1]) == 0.0 and float(est.mean[0, 1]) == 0.0


@pytest.mark.parametrize("bad", [
    np.array([[np.nan, 1.0]]), np.array([[np.inf, 1.0]]), np.array([1.0, 2.0]),
    np.ones((2, 2, 2)), np.ones((0, 3)), np.ones((3, 0)), "abc"])
def test_bad_inputs_raise(bad):
    for fn in (ntk.ntk_gram, ntk.lambda0, ntk.lambda0_enclosure):
        with pytest.raises(ValueError):
            fn(bad)


def test_bad_weights_samples_and_digits_raise():
    X = np.ones((2, 3))
    for W in (np.ones((4, 2)), np.ones(3), np.ones((0, 3)), np.full((1, 3), np.nan)):
        with pytest.raises(ValueError):
            ntk.ntk_gram_finite(W, X)
    with pytest.raises(ValueError):
        ntk.monte_carlo_gram(X, 1, seed=0)
    with pytest.raises(ValueError):
        ntk.lambda0_enclosure(X, dps=0)
    with pytest.raises(ValueError):
        ntk.ntk_gram(np.full((2, 2), 1e200))     # x_i^T x_j overflows


# ------------------------------------------------------------------------------- the enclosure
def test_enclosure_contains_exact_values():
    """Exactly known lambda_0 (exact rationals): an antiparallel pair (H = diag(1/4, 1/4)), a
    zero input (0), orthonormal inputs (1/2, a multiple eigenvalue: the inertia path) and
    +-x, +-y, +-(x + y) (exactly singular)."""
    x, y = np.array([0.5, 0.25]), np.array([-0.25, 0.5])
    cases = [(np.array([[0.5, 0.5], [-0.5, -0.5]]), Fraction(1, 4)),
             (np.array([[0.5, 0.5], [0.0, 0.0]]), Fraction(0)),
             (np.eye(5), Fraction(1, 2)),
             (np.array([x, -x, y, -y, x + y, -(x + y)]), Fraction(0))]
    for X, exact in cases:
        lo, hi = ntk.lambda0_enclosure(X)
        assert Fraction(lo) <= exact <= Fraction(hi)
        assert hi - lo <= 2 * math.ulp(float(exact)) + 1e-25     # outward rounding of a ~1e-30 ball


def test_enclosure_brackets_an_independent_50_digit_value():
    """Two inputs: lambda_min of [[a, c], [c, b]] with a, b = ||x||^2/2, c = x^T y (pi - acos rho)/(2 pi),
    by mpmath at 50 digits from the exact float64 inputs; the bracket holds it and is <= 2 ulp wide."""
    X = np.array([[1.0, 0.0], [0.5, np.sqrt(3) / 2]])
    with mp.workdps(50):
        x, y = ([mp.mpf(float(v)) for v in row] for row in X)
        nx, ny, g = (sum(p * q for p, q in zip(u, v)) for u, v in ((x, x), (y, y), (x, y)))
        a, b = nx / 2, ny / 2
        c = g * (mp.pi - mp.acos(g / mp.sqrt(nx * ny))) / (2 * mp.pi)
        exact = (a + b) / 2 - mp.sqrt(((a - b) / 2) ** 2 + c * c)
        lo, hi = ntk.lambda0_enclosure(X, dps=40)
        assert mp.mpf(lo) <= exact <= mp.mpf(hi)
    assert hi - lo <= 2 * math.ulp(hi)


# ------------------------------------------------------------------------------- symbolic meta-tests
def _fails(result):
    assert result.proved is False and result.failed_steps, result.report()


def test_catalogue_derivations_prove():
    for fn in DN.DERIVATIONS.values():
        assert fn().proved


@pytest.mark.parametrize("wrong", [
    (sp.pi - sp.acos(T.rho)) / sp.pi,                     # the factor 2 dropped
    sp.Rational(1, 4) + sp.acos(T.rho) / (2 * sp.pi),     # acos for asin in Sheppard's formula
    sp.acos(T.rho) / (2 * sp.pi),                         # theta/(2 pi): the complement
])
def test_wrong_orthant_probability_fails(wrong):
    _fails(DN.orthant(wrong))


@pytest.mark.parametrize("wrong", [
    T.G_ij * (sp.pi - sp.acos(T.rho)) / sp.pi,
    T.G_ij * (sp.pi - sp.asin(T.rho)) / (2 * sp.pi),
    (sp.pi - sp.acos(T.rho)) / (2 * sp.pi),               # without x_i^T x_j
])
def test_wrong_gram_fails(wrong):
    _fails(DN.gram(wrong))


# ------------------------------------------------------------------------------- planted kernels
_gram = ntk.ntk_gram


def complement(X):
    """x_i^T x_j theta/(2 pi): the probability of the wrong wedge (the diagonal is 0)."""
    X = np.asarray(X, dtype=float)
    return X @ X.T / 2 - _gram(X)


def doubled(X):
    """x_i^T x_j (pi - theta)/pi: Sheppard's 1/4 read as 1/2."""
    return 2 * _gram(X)


def naive_clipped(X):
    """The acos(rho) form (loses half the digits near rho = +-1)."""
    X = np.asarray(X, dtype=float)
    G = X @ X.T
    norms = np.linalg.norm(X, axis=1)
    scale = np.outer(norms, norms)
    rho = np.divide(G, scale, out=np.zeros_like(G), where=scale > 0)
    return G * (np.pi - np.arccos(np.clip(rho, -1, 1))) / (2 * np.pi)


PLANTS = {
    "complement": (complement, [
        lambda: mc.test_gram_matches_raw_indicator("generic", mc.SAMPLES, _no_record),
        lambda: cert.test_gram_entries_against_arb("generic_n8", _no_record),
        lambda: prop.test_gram_structure_and_positive_lambda0(_no_record),
    ]),
    "doubled": (doubled, [
        lambda: mc.test_gram_matches_raw_indicator("d1", mc.SAMPLES, _no_record),
        lambda: cert.test_gram_entries_against_arb("small_scale", _no_record),
        lambda: prop.test_gram_structure_and_positive_lambda0(_no_record),
    ]),
    "acos form": (naive_clipped, [
        lambda: cert.test_gram_entries_against_arb("nearly_parallel", _no_record),
    ]),
}
CASES = [pytest.param(name, i, id=f"{name} / witness {i}")
         for name, (_, witnesses) in PLANTS.items() for i in range(len(witnesses))]


@pytest.mark.parametrize("plant,index", CASES)
def test_planted_gram_is_caught(plant, index, monkeypatch):
    wrong, witnesses = PLANTS[plant]
    monkeypatch.setattr(ntk, "ntk_gram", wrong)
    with pytest.raises((AssertionError, ExceptionGroup)):
        witnesses[index]()
