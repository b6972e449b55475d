"""Section 4 at network level, property witness: Hypothesis over networks satisfying
Assumption 3.1, with weights, labels and kappa over orders of magnitude (``verify.strategies.
networks``): relations the exact expectations must satisfy whatever their formulas, and the
fuzzing of Theorem 4.2's bound (4) with ``target()`` on |E|/bound.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import example, given, note, target

from numerics.core import closed_form as cf
from numerics.masking import network as nw
from numerics.core.tolerance import EPS, Tol
from verify import strategies as S
from numerics.masking.instances import networks
from verify.strategies import normal_params

pytestmark = pytest.mark.witness("property")
FD = Tol(rtol=1e-8, why="Richardson-extrapolated central differences, step 1e-3 of the smoothing scale (observed <= 5e-11)")
REORDERED = Tol(rtol=64 * EPS, why="permuted neurons: the same sums in another order")
VARIANCE = Tol(rtol=64 * EPS, why="Var f_i >= 0 up to the rounding of E f^2 - (E f)^2")


def _fd_gradient(W, a, X, y, kappa):
    """d/dW E_C[L_C] by central differences, Richardson-extrapolated (error O(h^4))."""
    s_min = kappa * min(np.linalg.norm(W[r] * x) for r in range(len(W)) for x in X)
    h = 1e-3 * s_min / np.abs(X).max()
    grad = np.zeros_like(W)
    for idx in np.ndindex(*W.shape):
        def diff(step):
            Wp, Wm = W.copy(), W.copy()
            Wp[idx] += step
            Wm[idx] -= step
            return (nw.expected_loss(Wp, a, X, y, kappa) - nw.expected_loss(Wm, a, X, y, kappa)) / (2 * step)
        grad[idx] = (4 * diff(h / 2) - diff(h)) / 3
    return grad


@pytest.mark.statement("net.expected_grad")
@S.tiers(15)
def test_expected_grad_is_the_derivative_of_expected_loss(examples):
    """E_C[grad L_C] = grad E_C[L_C] (dominated convergence: L_C is Lipschitz in W and a.e.
    differentiable); the two kernels share no formula past the pair lemmas.  Each example
    takes 4 expected losses per weight (Richardson finite differences): 15 examples in the
    default tier, the profile's count in the slow one."""

    @S.limit(examples)
    @given(net=networks(scale=(-1.0, 1.0), kappa=(-1.0, 0.5), label_bound=False))
    def check(net):
        W, a, X, y, kappa = net
        grad = nw.expected_grad(W, a, X, y, kappa)
        fd = _fd_gradient(W, a, X, y, kappa)
        err = np.abs(grad - fd).max() / nw.term_sizes(W, X, y, kappa)[1]
        note(f"normwise error {err:.2e}")
        assert err <= FD.rtol, f"expected_grad vs d/dW expected_loss: {err:.2e} > {FD}"

    check()


@pytest.mark.statement("net.expected_loss")
@given(net=networks(label_bound=False))
def test_expected_loss_is_at_least_the_loss_of_the_mean(net):
    """E_C[L_C] = 1/2 sum_i ((E f_i - y_i)^2 + Var f_i) >= 1/2 sum_i (E f_i - y_i)^2 (Jensen)."""
    W, a, X, y, kappa = net
    loss = nw.expected_loss(W, a, X, y, kappa)
    mean_part = 0.5 * float(((nw.expected_output(W, a, X, kappa) - y) ** 2).sum())
    assert loss >= mean_part - VARIANCE.rtol * nw.term_sizes(W, X, y, kappa)[0], f"negative variance: {loss} < {mean_part}"


@pytest.mark.statement("net.expected_loss")
@pytest.mark.statement("net.expected_grad")
@given(net=networks(label_bound=False))
def test_neuron_order_does_not_matter(net):
    W, a, X, y, kappa = net
    perm = np.arange(len(W))[::-1]
    loss, grad = nw.expected_loss_and_grad(W, a, X, y, kappa)
    loss_p, grad_p = nw.expected_loss_and_grad(W[perm], a[perm], X, y, kappa)
    loss_size, grad_size = nw.term_sizes(W, X, y, kappa)
    assert abs(loss_p - loss) <= REORDERED.rtol * loss_size, str(REORDERED)
    assert np.abs(grad_p - grad[perm]).max() <= REORDERED.rtol * grad_size, str(REORDERED)


@pytest.mark.statement("def.4.1")
@given(net=networks())
def test_definition_4_1_ranges_and_relations(net):
    """phi_max in [0, 1], psi_max <= 1/sqrt(2e) (eq. (3)); R_u <= B_x R_w; B_x <= 1 (Assumption 3.1)."""
    W, a, X, y, kappa = net
    dfn = nw.definition_4_1(W, X, y, kappa)
    assert 0 <= dfn.phi_max <= 1
    assert 0 <= dfn.psi_max <= 1 / math.sqrt(2 * math.e) * (1 + 4 * EPS)
    assert dfn.R_u <= dfn.B_x * dfn.R_w * (1 + 4 * EPS)
    assert dfn.B_x <= 1


@pytest.mark.statement("rem.4.4")
@pytest.mark.property
def test_remark_4_4_gap_within_its_constant(record):
    """sigma_tilde - sigma_hat <= s phi(t)/sqrt(2 pi) with t = mu/(2 s) = w^T x/(2 kappa ||w . x||):
    the O(.) of Remark 4.4 with its constant made explicit (sharp at mu = 0); mu/s over the
    deep tails, s over twelve orders of magnitude."""
    worst = [0.0]

    @given(params=normal_params(degree=1))
    def campaign(params):
        mu, s = params
        gap = float(cf.relu_moment1(mu, s) - cf.relu_proxy(mu, s))
        bound = s * math.exp(-(mu / (2 * s)) ** 2) / math.sqrt(2 * math.pi)
        ratio = gap / bound if bound > 0 else 0.0
        target(ratio)
        worst[0] = max(worst[0], ratio)
        assert gap <= bound * (1 + 1e-13) + 1e-300, f"gap {gap!r} > {bound!r} at mu={mu!r}, s={s!r}"

    campaign()
    record(ratio=worst[0], detail=f"max (sigma_tilde - sigma_hat)/(s phi(t)/sqrt(2 pi)) = {worst[0]:.6f}; "
                                  "1 is attained at mu = 0")
    # the constant is sharp: at mu = 0 the gap is s varphi(0) = s/sqrt(2 pi), the bound exactly
    for s in (1e-300, 1.0, 1e300):
        at0 = float(cf.relu_moment1(0.0, s) - cf.relu_proxy(0.0, s)) / (s / math.sqrt(2 * math.pi))
        assert abs(at0 - 1) <= 4 * EPS, f"ratio at mu = 0, s = {s}: {at0!r}"


BOUND_4_FAILS = ("Theorem 4.2, eq. (4): |E| <= m n (kappa^2 R_u^2 psi_max^2 + (kappa^2 R_u^2 + kappa R_w) phi_max^2) "
                 "fails; smallest counterexample m = n = d = 1, w = 2, x = 1, y = -6, kappa = 1/2 "
                 "(masking:E4)")


#: erratum masking:E4's smallest counterexample, as a network of the fuzzed domain
E4_EXAMPLE = (np.array([[2.0]]), np.array([1.0]), np.array([[1.0]]), np.array([-6.0]), 0.5)


@pytest.mark.statement("thm.4.2")
@pytest.mark.xfail(strict=True, raises=AssertionError, reason=BOUND_4_FAILS)
@pytest.mark.property
def test_bound_4_fuzzed_over_assumption_3_1(record):
    """Fuzz (4) over networks satisfying Assumption 3.1 and B_y <= 3 sqrt(m) R_w, moderate kappa
    (10^-1.5 .. 10), weights over six orders of magnitude, pushing |E|/bound up with target().
    Only instances where float64 resolves E (|E| > its rounding estimate) are judged.  The
    erratum's counterexample is an explicit example, so the finding does not depend on the
    derandomised stream (which varies with the Hypothesis version and with the modules a
    session has imported); whether the search finds violations by itself is the fuzz
    campaign's test (``tests/masking/test_campaigns.py``, seeded)."""
    worst = [0.0, None]

    @given(net=networks(scale=(-3.0, 3.0), kappa=(-1.5, 1.0)))
    @example(net=E4_EXAMPLE)
    def campaign(net):
        W, a, X, y, kappa = net
        th = nw.theorem_4_2(W, a, X, y, kappa)
        if not (th.hypothesis and th.resolved):
            return
        target(th.ratio)
        if th.ratio > worst[0]:
            worst[:] = [th.ratio, net]
        note(f"E = {th.E!r}, bound = {th.bound!r}, ratio = {th.ratio:.4f}")
        assert th.holds, (f"(4) fails: |E| = {abs(th.E):.6g} > bound {th.bound:.6g} (ratio {th.ratio:.3f}); "
                          f"reproduce: numerics.masking.network.theorem_4_2(*{tuple(np.asarray(v).tolist() if isinstance(v, np.ndarray) else v for v in net)!r})")

    try:
        campaign()
    finally:
        record(ratio=worst[0], detail=f"worst |E|/bound found: {worst[0]:.3f}")
