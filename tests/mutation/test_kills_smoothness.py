"""Fast witnesses of ``numerics.masking.smoothness`` written to kill its mutants
(bench/mutation.py, notes/mutation.md).

References: for c ~ N(1, kappa^2 I_d) the coordinates are independent with distribution
function P(c_j <= x) = Phi((x - 1)/kappa), so P(||c||_inf <= t) = (Phi((t-1)/kappa) -
Phi((-t-1)/kappa))^d, by mpmath's ncdf at 40 digits (not the module's erfc route); the
one-neuron C_1^needed by torch autograd of the raw loss; bad input named in its message.
"""
from __future__ import annotations

import math

import mpmath as mp
import pytest
import torch
from flint import arb

from numerics.masking import smoothness as sm

DPS = 40


def inside_prob(t, kappa, d):
    """P(||c||_inf <= t) for c ~ N(1, kappa^2 I_d), from the coordinates' distribution function."""
    t, kappa = mp.mpf(t), mp.mpf(kappa)
    return (mp.ncdf((t - 1) / kappa) - mp.ncdf((-t - 1) / kappa)) ** d


def close(ball, ref):
    """The ball's midpoint agrees with the mpmath reference to 30 digits (the balls are at
    128 bits, ~38 digits; the references at 40)."""
    with mp.workdps(DPS):
        mid = mp.mpf(ball.mid().str(45, radius=False))
        return abs(mid - ref) <= mp.mpf(10) ** -30 * abs(ref)


def test_event_failure_counts_every_copy():
    # F = 1 - P(||c||_inf <= C)^copies, C = 1 + kappa sqrt(2 log(2d/delta)) (D.21's event)
    d, kappa, delta, copies = 3, 0.7, 0.05, 4
    with mp.workdps(DPS):
        C = 1 + mp.mpf(kappa) * mp.sqrt(2 * mp.log(2 * d / mp.mpf(delta)))
        ref = 1 - inside_prob(C, kappa, d) ** copies
    assert close(sm.event_failure_arb(d, kappa, delta, copies), ref)


def test_needed_exceeds_bound_counts_every_sample():
    # P <= 1 - P(||c||_inf <= sqrt(C_1/2))^n
    C1, kappa, d, n = 5.0, 0.8, 2, 6
    with mp.workdps(DPS):
        ref = 1 - inside_prob(mp.sqrt(mp.mpf(C1) / 2), kappa, d) ** n
    assert close(sm.needed_exceeds_bound_arb(C1, kappa, d, n), ref)


def test_violation_probability_two_sided():
    # n = d = 1, x = 1: P(|c| > t) = P(c > t) + P(c < -t), t = sqrt(C_1/2), c ~ N(1, kappa^2)
    C1, kappa = 3.0, 0.9
    with mp.workdps(DPS):
        t = mp.sqrt(mp.mpf(C1) / 2)
        one = 1 - mp.ncdf((t - 1) / kappa)
        two = one + mp.ncdf((-t - 1) / kappa)
    assert close(sm.violation_probability_arb(C1, kappa), one)
    assert close(sm.violation_probability_arb(C1, kappa, two_sided=True), two)


def test_union_bound_is_the_mills_form():
    # 2 d varphi(s)/s at s = sqrt(2 log(2d/delta)) (the union bound with Mills' ratio, before
    # simplifying varphi(s) = delta/(2 d sqrt(2 pi)))
    for d, delta in [(1, 0.1), (7, 0.01), (100, 1e-6)]:
        with mp.workdps(DPS):
            s = mp.sqrt(2 * mp.log(2 * d / mp.mpf(delta)))
            ref = 2 * d * mp.npdf(s) / s
        assert close(sm.union_bound_arb(d, 0.5, delta), ref)


def test_one_neuron_needed_by_autograd():
    # m = n = d = 1, a = 1, w x c > 0: C_1^needed = m |dL/dw|^2/(n L), L = (relu(w x c) - y)^2/2
    for x, c, w, y in [(3.0, 0.5, 0.7, -1.0), (0.2, 4.0, 2.0, 5.0), (1e-3, 1e3, 1.5, 0.25)]:
        wt = torch.tensor(w, dtype=torch.float64, requires_grad=True)
        loss = 0.5 * (torch.relu(wt * x * c) - y) ** 2
        (g,) = torch.autograd.grad(loss, wt)
        want = float((g**2 / loss).detach())
        # autograd and the division: a few roundings of numbers of order 1
        assert sm.one_neuron_needed(x, c) == pytest.approx(want, rel=1e-14)


@pytest.mark.parametrize("kappa", [-1.0, 0.0, math.inf, math.nan])
def test_d22_rejects_bad_kappa(kappa):
    with pytest.raises(ValueError, match="kappa must be > 0"):
        sm.proof_constant(3, kappa, 0.1)


def test_arb_inputs_are_named():
    with pytest.raises(ValueError, match="t and kappa must be > 0"):
        sm.sup_norm_failure_arb(1.5, 2, 0.0)
    with pytest.raises(ValueError, match=r"^t must be finite"):
        sm.sup_norm_failure_arb(math.nan, 2, 0.5)
    with pytest.raises(ValueError, match=r"^kappa must be finite"):
        sm.violation_probability_arb(1.0, math.inf)
    assert isinstance(sm.sup_norm_failure_arb(arb(2), 2, 0.5), arb)


def test_smoothness_names_bad_masks():
    W = torch.ones(2, 2, dtype=torch.float64)
    a = torch.tensor([1.0, -1.0], dtype=torch.float64)
    X = torch.ones(3, 2, dtype=torch.float64)
    y = torch.zeros(3, dtype=torch.float64)
    with pytest.raises(ValueError, match=r"^C must be real numbers"):
        sm.smoothness(W, a, X, y, [["a", "b"]] * 3)
