"""eq. (23) and its derivative kernel for tanh over the whole input range: ``gram_bar`` and
``gram_bar_prime`` (``numerics.core.gaussian_kernels.tanh_dual``: a trapezoidal rule at pair scales
max(a, b) <= 6, the polar Gauss-Legendre quadrature beyond; ``test_s3_kernels_tanh_switch.py`` samples its edges)
against 30-digit references, entry by entry, diagonal included.

Inputs: scales a = |x|/sqrt d from 1e-8 to 1e4 for each row independently, angles 0, pi, pi/2
exactly, nearly parallel and nearly antiparallel (1e-9 .. 1e-1 from 0 and pi) and uniform,
d = 1, 2, 3, 5 (``tanh_reference_table.py``: three matrices in the default tier, 36 seeded
pairs in the slow one).  The references are ``numerics.meanfield.reference.tanh_entry_panels``
(conditioning on u, graded fixed panels in Arb, precision ladder 30/60 digits), stored in
``tanh_reference.json`` because they cost about a second each; ``test_table_is_current``
(slow) recomputes rows, and the reference itself is checked against the certified Arb
enclosure (slow) and against Gauss-Hermite at small scales (fast): those three check the
reference, not (23), and are self-checks (witness "selfcheck", never evidence).  Each test is
credited to the statement of its kernel: eq.23 (gram_bar) or eq.23.prime (gram_bar_prime).

The Gauss-Hermite witness of ``test_s3_kernels_fast.py`` stops at scales 0.8 (tanh's poles);
this one covers the range the kernel's grading is built for (its levels grow with log2 of the
largest scale).
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import mpmath as mp
import numpy as np
import pytest

from numerics.core.tolerance import EPS, Tol, digits
from numerics.meanfield import gram_bar, gram_bar_prime
from numerics.meanfield import reference as ref

TABLE = json.loads((Path(__file__).with_name("tanh_reference.json")).read_text())
MATRICES = {m["name"]: m for m in TABLE["matrices"]}
#: The kernel's promise (numerics.core.gaussian_kernels, module docstring): each of its rules errs
#: by below 1e-15 (RULE_TARGET) relative to the integrand's scale.  The scale of the entry E[s(u) s(v)] is its
#: Cauchy-Schwarz bound sqrt(E s(u)^2 E s(v)^2) = sqrt(Gbar_aa Gbar_bb) -- |Gbar_ab| itself for
#: parallel rows, and the only meaningful scale where Gbar_ab -> 0 (orthogonal rows) -- and
#: 64 eps = 1.4e-14 of it leaves the 1e-15 and float64 rounding, the tolerance of the certified
#: witness (test_s3_kernels_certified.ARB_TOL) at its moderate inputs.
SCALE_TOL = Tol(rtol=64 * EPS, why="docstring: rule error < 1e-15 of the integrand's scale sqrt(G_aa G_bb); "
                                    "rounding; as the certified witness")
#: the stored references carry 25 digits of a 30-digit value
TABLE_TOL = Tol(rtol=1e-24, why="25 stored digits of the 30-digit reference")


def _rows(m) -> np.ndarray:
    return np.array([[float.fromhex(v) for v in r] for r in m["X"]])


def _check(name, derivative, record):
    m = MATRICES[name]
    X = _rows(m)
    got = (gram_bar_prime if derivative else gram_bar)(X, "tanh")
    with mp.workdps(40):
        want = np.array([[float(mp.mpf(v)) for v in r] for r in m["sech2" if derivative else "tanh"]])
    scale = np.sqrt(np.outer(np.diag(want), np.diag(want)))
    err = np.abs(got - want) / scale
    i, j = np.unravel_index(np.argmax(err), err.shape)
    record(error=float(err[i, j]), digits=digits(float(err[i, j])))
    kernel = "gram_bar_prime" if derivative else "gram_bar"
    assert err[i, j] <= SCALE_TOL.rtol, (
        f"{kernel}(X, 'tanh')[{i}, {j}] = {got[i, j]!r}, reference {want[i, j]!r}: error {err[i, j] / EPS:.0f} eps "
        f"of sqrt(G_aa G_bb) = {scale[i, j]:.3e} ({SCALE_TOL}); rows |x|/sqrt d = "
        f"{np.linalg.norm(X[i]) / math.sqrt(X.shape[1]):.3e}, {np.linalg.norm(X[j]) / math.sqrt(X.shape[1]):.3e}\n"
        f"reproduce: import numpy as np; from numerics.meanfield import {kernel}; "
        f"{kernel}(np.array({[X[i].tolist(), X[j].tolist()]!r}), 'tanh')")


DEFAULT = [m["name"] for m in TABLE["matrices"] if m["tier"] == "default"]
SWEEP = [m["name"] for m in TABLE["matrices"] if m["tier"] == "slow"]


def _credited(*values, derivative: bool):
    """A parameter set credited to the statement of its kernel: gram_bar (eq.23) or gram_bar_prime
    (eq.23.prime, the derivative kernel), so that a failure of one is not charged to the other."""
    return pytest.param(*values, marks=pytest.mark.statement("eq.23.prime" if derivative else "eq.23"))


#: derivative = False, True, each credited to its kernel's statement
DERIVATIVE = [_credited(d, derivative=d) for d in (False, True)]


@pytest.mark.statement("eq.23")
@pytest.mark.witness("fast")
@pytest.mark.parametrize("name", DEFAULT)
def test_gram_bar_tanh_whole_range(name, record):
    _check(name, False, record)


@pytest.mark.statement("eq.23.prime")
@pytest.mark.witness("fast")
@pytest.mark.parametrize("name", DEFAULT)
def test_gram_bar_prime_tanh_whole_range(name, record):
    _check(name, True, record)


@pytest.mark.slow
@pytest.mark.witness("fast")
@pytest.mark.parametrize("derivative", DERIVATIVE)
@pytest.mark.parametrize("name", SWEEP)
def test_tanh_kernels_log_uniform_sweep(name, derivative, record):
    _check(name, derivative, record)


# ----------------------------------------------------------------------------- the reference
@pytest.mark.slow
@pytest.mark.witness("selfcheck")
@pytest.mark.parametrize("name, i, j", [(DEFAULT[1], 0, 1), (DEFAULT[2], 0, 1), (SWEEP[10], 0, 1), (SWEEP[32], 0, 1)])
@pytest.mark.parametrize("derivative", DERIVATIVE)
def test_table_is_current(name, i, j, derivative):
    """The stored entry is what ``tanh_entry_panels`` gives now (ladder included): a check of the
    suite's own reference table, not of (23), so a self-check (no evidence for the statement)."""
    m = MATRICES[name]
    X = _rows(m)
    now = ref.tanh_entry_panels(X[i], X[j], derivative=derivative, dps=TABLE["dps"])
    with mp.workdps(40):
        stored = mp.mpf(m["sech2" if derivative else "tanh"][i][j])
        assert abs(now - stored) <= TABLE_TOL.bound(abs(now)), f"{name} [{i}, {j}]: {now} vs stored {stored}"


@pytest.mark.slow
@pytest.mark.witness("selfcheck")
@pytest.mark.parametrize("xa, xb, derivative", [_credited([1.0, 0.5, -0.2], [0.3, -1.0, 2.0], False, derivative=False),
                                                _credited([2.0], [-3.0], True, derivative=True),
                                                _credited([0.8, 0.1], [0.8, 0.1 + 1e-8], True, derivative=True)])
def test_reference_inside_certified_ball(xa, xb, derivative):
    """The panels' value lies in the Arb enclosure of the raw double integral (radius < 1e-20): a
    check of the reference the kernels are judged against, so a self-check."""
    ball = ref.tanh_entry_arb(np.array(xa), np.array(xb), derivative=derivative)
    val = ref.tanh_entry_panels(np.array(xa), np.array(xb), derivative=derivative)
    with mp.workdps(40):
        mid, rad = mp.mpf(ball.mid().str(40, radius=False)), mp.mpf(ball.rad().str(5, radius=False))
        assert rad < 1e-20
        assert abs(val - mid) <= rad + mp.mpf(10) ** -30, f"{val} outside {ball.str(30)}"


#: Gauss-Hermite 300^2 at scales <= 0.8 is accurate to ~1e-15 of the integrand's scale
#: (test_s3_kernels_fast.TANH_TOL measures it); the panels at 16 digits (measured: 3e-23 from
#: the 30-digit value) are far below that
GH_TOL = Tol(rtol=1e-13, why="Gauss-Hermite 300^2 at scales <= 0.8 (test_s3_kernels_fast.TANH_TOL)")


@pytest.mark.witness("selfcheck")
@pytest.mark.parametrize("derivative", DERIVATIVE)
def test_reference_agrees_with_gauss_hermite_at_small_scales(derivative):
    """The panels against Gauss-Hermite where it is accurate: a check of the reference, a self-check."""
    xa, xb = np.array([0.5, -0.6, 0.3]), np.array([0.9, 0.2, -0.7])
    want = ref.gauss_hermite_entry(xa, xb, "tanh", derivative=derivative)
    val = float(ref.tanh_entry_panels(xa, xb, derivative=derivative, dps=16, ladder=False))
    scale = 1.0 if derivative else np.linalg.norm(xa) * np.linalg.norm(xb) / len(xa)
    assert abs(val - want) <= GH_TOL.bound(scale), f"{val!r} vs Gauss-Hermite {want!r} ({GH_TOL})"
