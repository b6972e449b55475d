"""eq. (23) and its derivative kernel for tanh on both sides of the scale switch of
``numerics.core.gaussian_kernels.tanh_dual``: a pair with s = max(|x_a|, |x_b|)/sqrt d <= s_max of a
row (s_max, h, K) of ``TRAPEZOID_RULES`` goes to that row's tensor trapezoidal rule, a pair beyond
the last row (s > 6) to the polar rule.  Judged entry by entry (diagonal included) against the
graded-panel Arb references ``numerics.meanfield.reference.tanh_entry_panels`` (the raw double
integral, conditioning on u; not a trapezoidal or Gauss-Hermite rule) at the tanh range file's
contract, 64 eps of sqrt(G_aa G_bb).

Rows sit exactly at the edges (s = s_max, the rule's worst point) and just past them (s = s_max
(1 + 2^-20), the next row's or the polar rule's territory), parallel, antiparallel, nearly
antiparallel, generic, a zero row, d = 1, tiny scales (1e-8) and a tiny row beside one at 1e4.  The
edge is where it must be: ``test_rule_breaks_just_past_its_edge`` evaluates the Exp. 1 row's rule at
1.2 (sech^2) and 1.4 (tanh) times its s_max and finds it past the contract there, so a table
widened by those factors would fail; ``test_every_rule_meets_its_bound`` re-evaluates each row's a
priori bound (a check of the table against its own derivation: a self-check).
"""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from numerics.core import gaussian_kernels as gk
from numerics.core.tolerance import EPS, digits
from numerics.meanfield import gram_bar, gram_bar_prime
from numerics.meanfield import reference as ref
from numerics.meanfield.certified import exp1_data
from verify.meanfield.test_s3_kernels_tanh_range import DERIVATIVE, SCALE_TOL

#: the references' digits: the panels' plan error is below 10^-(dps+5) (their docstring), far below
#: the 64 eps = 1.4e-14 judged here; the precision ladder is the tanh range file's (slow) business
REF_DPS = 20
#: just past an edge: s_max (1 + 2^-20), exact in binary for the rows used
PAST = 1 + 2.0**-20
#: the Exp. 1 row (its scales are 0.66 .. 1.20) and the factors past its s_max where it fails
EXP1_ROW = next(r for r in gk.TRAPEZOID_RULES if r[0] == 1.25)
BREAK = {False: 1.4, True: 1.2}


def _reference(xa, xb, derivative):
    """The panels' value (two zero rows: u = v = 0 surely, s(0)^2 exactly, which the reference returns)."""
    return float(ref.tanh_entry_panels(xa, xb, derivative=derivative, dps=REF_DPS, ladder=False))


def _scaled_errors(got, want):
    """|got - want| / sqrt(want_aa want_bb); where that scale is 0 (tanh with a zero row: the entry
    is 0 exactly) the error is 0 if got equals want exactly and inf otherwise."""
    scale = np.sqrt(np.outer(np.diag(want), np.diag(want)))
    diff = np.abs(got - want)
    return np.where(scale > 0, diff / np.where(scale > 0, scale, 1.0), np.where(diff == 0, 0.0, np.inf))


def _judge(X, derivative, record):
    X = np.asarray(X, dtype=np.float64)
    got = (gram_bar_prime if derivative else gram_bar)(X, "tanh")
    n = len(X)
    want = np.empty((n, n))
    for i in range(n):
        for j in range(i, n):
            want[i, j] = want[j, i] = _reference(X[i], X[j], derivative)
    err = _scaled_errors(got, want)
    i, j = np.unravel_index(np.argmax(err), err.shape)
    record(error=float(err[i, j]), digits=digits(float(err[i, j])), judged=n * (n + 1) // 2)
    s = np.linalg.norm(X, axis=1) / math.sqrt(X.shape[1])
    kernel = "gram_bar_prime" if derivative else "gram_bar"
    assert err[i, j] <= SCALE_TOL.rtol, (
        f"{kernel}(X, 'tanh')[{i}, {j}] = {got[i, j]!r}, reference {want[i, j]!r}: {err[i, j] / EPS:.1f} eps of "
        f"sqrt(G_aa G_bb) ({SCALE_TOL}); scales {s[i]:.17g}, {s[j]:.17g}\nreproduce: import numpy as np; "
        f"from numerics.meanfield import {kernel}; {kernel}(np.array({[X[i].tolist(), X[j].tolist()]!r}), 'tanh')")


def _at(s, direction, d=4):
    """A row of dimension d and scale |x|/sqrt d = s exactly: s sqrt(d) times a unit ``direction``
    whose norm is exact (entries +-1/2, +-1, or a single nonzero)."""
    u = np.asarray(direction, dtype=np.float64)
    return s * math.sqrt(d) / np.linalg.norm(u) * u


GENERIC = np.array([1.0, -2.0, 0.5, 3.0])
LAST = gk.TRAPEZOID_RULES[-1][0]
MATRICES = {
    # Exp. 1's first three inputs (d = 20, scales about 1): the kernel as the campaigns call it
    "exp1": exp1_data(40, 20)[:3],
    # the last row's edge: s = 6 (trapezoid), 6 (1 + 2^-20) (polar), beside a generic row
    "edge-last-inside": np.stack([_at(LAST, [1, 1, 1, 1]), GENERIC]),
    "edge-last-outside": np.stack([_at(LAST * PAST, [1, 1, 1, 1]), GENERIC]),
    # the Exp. 1 row's edge, nearly antiparallel (pi - theta ~ 1e-8) and exactly antiparallel
    "edge-exp1-antiparallel": np.stack([_at(1.25, [1, 1, 1, 1]), -_at(1.25, [1, 1, 1, 1]) + [0, 0, 0, 2.5e-8],
                                        -_at(1.25 * PAST, [1, 1, 1, 1])]),
    # d = 1: parallel and antiparallel only; a zero row (u = 0 surely)
    "d1-zero": np.array([[1.25], [-0.7], [0.0], [1.25 * PAST]]),
    # tiny scales (relative accuracy of G ~ a b)
    "tiny": np.stack([_at(1e-8, [1, -1, 1, 1]), _at(1e-3, GENERIC / 4)]),
}
#: slow: a tiny row beside one at 1e4 (the polar rule, its levels grown with the scale)
SLOW_MATRICES = {"tiny-huge": np.stack([_at(1e-8, [1, -1, 1, 1]), _at(1e4, [0, 1, 0, 0])])}


@pytest.mark.witness("fast")
@pytest.mark.parametrize("derivative", DERIVATIVE)
@pytest.mark.parametrize("name", list(MATRICES))
def test_tanh_kernels_across_the_switch(name, derivative, record):
    _judge(MATRICES[name], derivative, record)


@pytest.mark.slow
@pytest.mark.witness("fast")
@pytest.mark.parametrize("derivative", DERIVATIVE)
@pytest.mark.parametrize("name", list(SLOW_MATRICES))
def test_tanh_kernels_tiny_beside_huge(name, derivative, record):
    _judge(SLOW_MATRICES[name], derivative, record)


#: every row's edge, generic / nearly parallel / nearly antiparallel
EDGE_GEOMETRIES = {"generic": GENERIC, "near-parallel": np.array([1.0, 1.0, 1.0, 1.0 + 1e-7]),
                   "near-antiparallel": np.array([-1.0, -1.0, -1.0, -1.0 + 1e-7])}


@pytest.mark.slow
@pytest.mark.witness("fast")
@pytest.mark.parametrize("derivative", DERIVATIVE)
@pytest.mark.parametrize("geometry", list(EDGE_GEOMETRIES))
@pytest.mark.parametrize("s_max", [r[0] for r in gk.TRAPEZOID_RULES])
def test_every_row_at_its_edge(s_max, geometry, derivative, record):
    """Each row at its worst scale s = s_max (both rows of the pair at the edge)."""
    _judge(np.stack([_at(s_max, [1, 1, 1, 1]), _at(s_max, EDGE_GEOMETRIES[geometry])]), derivative, record)


@pytest.mark.witness("selfcheck")
@pytest.mark.parametrize("derivative", [False, True])
def test_every_rule_meets_its_bound(derivative):
    """Each row's a priori bound (``trapezoid_bound``, the rule's docstring) is below the rules'
    budget RULE_TARGET, and the rows are ordered by scale and by cost: a check of the table
    against its own derivation, not of (23)."""
    rows = gk.TRAPEZOID_RULES
    assert [r[0] for r in rows] == sorted(r[0] for r in rows)
    assert [r[2] for r in rows] == sorted(r[2] for r in rows)
    for s_max, h, K in rows:
        assert K * h >= 9.0
        bound = gk.trapezoid_bound(s_max, h, K, derivative=derivative)
        assert bound <= gk.RULE_TARGET, f"row {(s_max, h, K)}: bound {bound:.2e} > {gk.RULE_TARGET:.0e}"


@pytest.mark.witness("selfcheck")
@pytest.mark.parametrize("derivative", [False, True])
def test_rule_breaks_just_past_its_edge(derivative, record):
    """The Exp. 1 row's rule (h, K) evaluated at BREAK times its s_max misses the contract (so the
    row's edge could not be widened by that factor); at s_max it meets it (the matrices above).
    Rows at scale s = BREAK s_max, generic angle, d = 4; the rule is called directly (the switch
    would hand these pairs to the next row)."""
    s_max, h, K = EXP1_ROW
    X = np.stack([_at(BREAK[derivative] * s_max, [1, 1, 1, 1]), _at(BREAK[derivative] * s_max, GENERIC)])
    norms, theta, supp = gk.pair_angles(torch.as_tensor(X))
    s = norms / 2.0
    f = gk.sech2 if derivative else torch.tanh
    i, j = torch.triu_indices(2, 2)
    cos_t = torch.where(theta[i, j] <= math.pi / 2, torch.cos(theta[i, j]), -torch.cos(supp[i, j]))
    sin_t = torch.sin(torch.minimum(theta[i, j], supp[i, j]))
    got = gk.trapezoid_expectation(f, s[i], s[j], cos_t, sin_t, h, K).numpy()
    want = [_reference(X[p], X[q], derivative) for p, q in zip(i.tolist(), j.tolist())]
    full = lambda v: np.array([[v[0], v[1]], [v[1], v[2]]])
    err = _scaled_errors(full(got), full(want)).max()
    record(error=float(err), detail=f"row {EXP1_ROW} at {BREAK[derivative]} s_max: {err / EPS:.0f} eps")
    assert err > SCALE_TOL.rtol, f"{err / EPS:.1f} eps at {BREAK[derivative]} s_max: the edge is not tight"
