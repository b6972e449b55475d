"""Section 4 at network level, fast witness: the O(1)-per-pair network kernels against the
lemma kernels assembled as the proof sketches write them, and the degenerate cases.

``numerics.masking.network`` evaluates E_C[L_C] and E_C[grad L_C] from Rosenbaum's closed forms
with Stein's contraction E[c c^T 1{c^T u >= 0, c^T v >= 0}] v = F 1 + kappa H u_hat +
kappa^2 P v.  Here the same quantities are assembled independently, pair by pair, from the
verified lemma kernels of ``numerics.core.closed_form`` (``relu_moment2``, ``mask_moment2`` as a
d x d matrix, ``mask_moment1``): two float64 routes that share no formula past the lemmas.
They must agree normwise to a few hundred eps.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from numerics.core import closed_form as cf
from numerics.masking import network as nw
from numerics.core.tolerance import Tol, digits
from verify.masking.test_s4_network_montecarlo import NETWORKS

pytestmark = pytest.mark.witness("fast")
REORDERED = Tol(rtol=1e-14, why="the same sums chunked differently: rounding of the summation order")
KAPPA0 = Tol(rtol=64 * 2.0**-52, why="E f^2 - (E f)^2 = 0 at kappa = 0 only up to the rounding of m^2 products")
AGREE = Tol(rtol=256 * 2.0**-52, why="two float64 routes through the lemmas, normwise over sums of O(m^2) terms")


def _assembled(W, a, X, y, kappa):
    """E_C[L_C] and E_C[grad L_C] from the lemma kernels, one pair at a time (proof sketches)."""
    m, d = W.shape
    loss, grad = 0.0, np.zeros((m, d))
    for x, yi in zip(X, y):
        U = W * x
        mu, s = W @ x, kappa * np.linalg.norm(U, axis=1)
        Ef = sum(a[r] * cf.relu_moment1(mu[r], s[r]) for r in range(m)) / math.sqrt(m)
        Ef2 = 0.0
        for r in range(m):
            for q in range(m):
                if r == q:
                    e1 = cf.relu_square_moment(mu[r], s[r])
                else:
                    nr, nq = np.linalg.norm(U[r]), np.linalg.norm(U[q])
                    rho = float(np.clip(U[r] @ U[q] / (nr * nq), -1, 1)) if nr * nq > 0 else 0.0
                    e1 = cf.relu_moment2(mu[r], mu[q], s[r], s[q], rho)
                Ef2 += a[r] * a[q] * e1 / m
        loss += 0.5 * (Ef2 - 2 * yi * Ef + yi**2)
        for r in range(m):
            inner = -yi * cf.mask_moment1(U[r], kappa)
            for q in range(m):
                M2 = cf.mask_moment2(U[r], None if q == r else U[q], kappa)
                inner = inner + a[q] / math.sqrt(m) * (M2 @ U[q])
            grad[r] += a[r] / math.sqrt(m) * x * inner
    return loss, grad


def _nearly_parallel():
    W = np.array([[0.8, -0.4, 0.3], [0.8, -0.4, 0.3 + 1e-9], [-0.8, 0.4, -0.3]])
    return W, np.array([1.0, -1.0, 1.0]), np.array([[0.5, 0.4, -0.7], [0.1, 0.9, 0.2]]), np.array([0.3, -0.1]), 0.4


CASES = dict(NETWORKS)
CASES["nearly_parallel"] = _nearly_parallel()
CASES["kappa_0"] = NETWORKS["generic"][:4] + (0.0,)
CASES["kappa_0_near_parallel"] = _nearly_parallel()[:4] + (0.0,)  # |rho| > 0.9 but no Gaussian pair
CASES["tiny_scale"] = (NETWORKS["generic"][0] * 1e-40,) + NETWORKS["generic"][1:3] + (NETWORKS["generic"][3] * 1e-40, 0.3)
CASES["huge_scale"] = (NETWORKS["generic"][0] * 1e40,) + NETWORKS["generic"][1:3] + (NETWORKS["generic"][3] * 1e40, 0.3)
CASES["deep_tail"] = (NETWORKS["generic"][0],) + NETWORKS["generic"][1:4] + (0.01,)


@pytest.mark.statement("net.expected_loss")
@pytest.mark.statement("net.expected_grad")
@pytest.mark.parametrize("name", list(CASES))
def test_network_kernels_match_lemma_assembly(name, record):
    W, a, X, y, kappa = CASES[name]
    loss, grad = nw.expected_loss_and_grad(W, a, X, y, kappa)
    ref_loss, ref_grad = _assembled(W, a, X, y, kappa)
    scale_loss, scale_grad = nw.term_sizes(W, X, y, kappa)
    err_loss = abs(loss - ref_loss) / scale_loss
    err_grad = np.abs(grad - ref_grad).max() / scale_grad
    err = max(err_loss, err_grad)
    record(error=err, digits=digits(err), detail=f"{name}: normwise loss {err_loss:.1e}, grad {err_grad:.1e}")
    assert err <= AGREE.rtol, f"{name}: normwise error loss {err_loss:.2e}, grad {err_grad:.2e} > {AGREE}"


@pytest.mark.statement("net.expected_loss")
@pytest.mark.statement("net.expected_grad")
def test_kappa_zero_is_the_clean_network(record):
    """kappa = 0: c = 1 surely, so E_C[L_C] = L(W) and E_C[grad L_C] = grad L(W) (eq. (2), 1{>= 0})."""
    for name in ("generic", "d1", "degenerate"):
        W, a, X, y, _ = NETWORKS[name]
        loss, grad = nw.expected_loss_and_grad(W, a, X, y, 0.0)
        assert loss == pytest.approx(nw.clean_loss(W, a, X, y), rel=KAPPA0.rtol, abs=0), str(KAPPA0)
        np.testing.assert_allclose(grad, nw.clean_grad(W, a, X, y), rtol=0, atol=8 * 2.0**-52)
    record(detail="kappa = 0 gives the clean loss and gradient for generic, d = 1 and degenerate networks")


@pytest.mark.statement("net.expected_loss")
def test_chunking_does_not_change_the_result(record):
    W, a, X, y, kappa = NETWORKS["generic"]
    one = nw.expected_loss_and_grad(W, a, X, y, kappa, pair_budget=1)
    many = nw.expected_loss_and_grad(W, a, X, y, kappa, pair_budget=10**9)
    assert one[0] == pytest.approx(many[0], rel=REORDERED.rtol)
    np.testing.assert_allclose(one[1], many[1], rtol=REORDERED.rtol, atol=REORDERED.rtol * np.abs(many[1]).max())
    record(detail="pair_budget 1 (one sample per chunk) and 1e9 agree")


@pytest.mark.statement("net.expected_loss")
def test_array_kinds_round_trip():
    W, a, X, y, kappa = NETWORKS["generic"]
    out = nw.expected_loss(W, a, X, y, kappa)
    assert isinstance(out, np.floating)
    t = nw.expected_grad(*(torch.as_tensor(v) for v in (W, a, X, y)), kappa)
    assert isinstance(t, torch.Tensor) and t.dtype == torch.float64 and t.shape == W.shape


@pytest.mark.statement("net.expected_loss")
@pytest.mark.parametrize("bad, message", [
    (dict(W=np.array([[np.nan, 0.0, 0.0]] * 4)), "W contains NaN"),
    (dict(W=np.zeros(3)), "W must have shape"),
    (dict(a=np.array([1.0, 0.5, 1.0, 1.0])), "a must have entries"),
    (dict(a=np.ones(3)), "a must have shape"),
    (dict(X=np.ones((3, 2))), "X must have shape"),
    (dict(y=np.ones(2)), "y must have shape"),
    (dict(kappa=-0.1), "kappa must be >= 0"),
    (dict(kappa=np.ones(2)), "kappa must be a scalar"),
])
def test_bad_input_is_a_clear_error(bad, message):
    W, a, X, y, kappa = NETWORKS["generic"]
    args = dict(W=W, a=a, X=X, y=y, kappa=kappa) | bad
    with pytest.raises(ValueError, match=message):
        nw.expected_loss_and_grad(**args)
