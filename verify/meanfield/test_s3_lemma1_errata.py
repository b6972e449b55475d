"""Lemma 1 (19) with kappa as printed fails (meanfield:E1); with the proof's kappa* it holds.

The instance: ReLU, n = d = 1, x = 1 (G = 1), y = 1, m = 2, c = (2, -2), W^0 = (1, 1),
I = (3/4, 5/4).  The flow is exact (r = -e^{-4t}, h = 1 +- (1 - e^{-4t})/2); the RK4
integrator of (11) reproduces it, and (19) is evaluated along its trajectory.
"""
from __future__ import annotations

import math

import pytest
import torch

from numerics.core.arrays import DTYPE
from numerics.core.tolerance import Tol
from numerics.meanfield import dynamics as dy
from theory.meanfield import derivations as dv

pytestmark = pytest.mark.statement("lemma.1")
REASON = ("Lemma 1 prints kappa = 9 lambda_2 (I_r - I_l)/(2 lambda_1 K); its proof gives (I_r - I_l) in the "
          "denominator (meanfield:E1)")
I = (0.75, 1.25)
#: RK4 with step halving to 1e-10; the exact flow is known, the integrator must match it
FLOW_TOL = Tol(rtol=1e-8, why="RK4 step halving accepted at 1e-10 (x (1 + max|h|)); smooth flow (no kink crossed)")


def _problem():
    t = lambda v: torch.tensor(v, dtype=DTYPE)
    return dy.Problem(t([[1.0]]), t([1.0]), t([2.0, -2.0]), dy.parse_activation("relu"), t([[1.0], [1.0]]))


def _slack(kappa, traj, p):
    """min over recorded t of (eta^t)^{3/2} - [(tilde eta^0)^{3/2} - kappa (sqrt L0 - sqrt Lt)/c_hat]."""
    third = (I[1] - I[0]) / 3
    eta0 = dy.active_fraction(traj.states[0], I[0] + third, I[1] - third)
    L0 = traj.losses[0]
    return min(dy.active_fraction(h, *I) ** 1.5 - (eta0**1.5 - kappa * (math.sqrt(L0) - math.sqrt(L)) / p.c_hat)
               for h, L in zip(traj.states, traj.losses))


@pytest.fixture(scope="module")
def flow():
    p = _problem()
    return p, dy.integrate(p, math.log(2) * 2, records=64, rtol=1e-10)


@pytest.mark.witness("dynamics")
def test_integrator_matches_exact_flow(flow, record):
    p, traj = flow
    worst = 0.0
    for t, h in zip(traj.times, traj.states):
        e = math.exp(-4 * t)
        exact = torch.tensor([[1 + (1 - e) / 2], [1 - (1 - e) / 2]], dtype=DTYPE)
        worst = max(worst, float((h - exact).abs().max()))
    record(error=worst)
    assert worst <= FLOW_TOL.bound(1.5), f"RK4 vs exact flow: {worst:.3g} ({FLOW_TOL})"


@pytest.mark.witness("dynamics")
@pytest.mark.xfail(strict=True, raises=AssertionError, reason=REASON)
def test_lemma1_as_printed_along_the_flow(flow, record):
    p, traj = flow
    slack = _slack(dy.kappa_printed(*I, 1.0, 1.0, 1.0), traj, p)
    record(detail=f"min slack {slack:.4f}")
    assert slack >= 0, f"(19) with the printed kappa fails: min slack {slack:.4f}"


@pytest.mark.witness("dynamics")
def test_lemma1_printed_counterexample_numbers(flow):
    """Pins the finding: at t = log 2 both neurons are out of I and the printed right side is 0.25422."""
    p, traj = flow
    k = traj.times.index(min(traj.times, key=lambda s: abs(s - math.log(2))))
    assert traj.times[k] == pytest.approx(math.log(2), rel=1e-12)
    assert dy.active_fraction(traj.states[k], *I) == 0.0
    rhs = 1 - dy.kappa_printed(*I, 1.0, 1.0, 1.0) * (math.sqrt(traj.losses[0]) - math.sqrt(traj.losses[k])) / 2
    assert rhs == pytest.approx(1 - 9 / 8 * (2**-0.5 - 2**-4.5), rel=1e-8)
    assert rhs == pytest.approx(0.254223316717313, rel=1e-8)


@pytest.mark.statement("lemma.1.proof")
@pytest.mark.witness("dynamics")
def test_lemma1_with_proof_kappa_holds(flow, record):
    p, traj = flow
    slack = _slack(dy.kappa_proof(*I, 1.0, 1.0, 1.0), traj, p)
    record(detail=f"min slack {slack:.4f}")
    assert slack >= 0


@pytest.mark.witness("symbolic")
@pytest.mark.xfail(strict=True, raises=AssertionError, reason=REASON)
def test_lemma1_as_printed_symbolic():
    """The exact refutation (``lemma1_refuted``) proves the printed (19) false; read as a check of
    (19) it fails."""
    assert not dv.lemma1_refuted().proved
