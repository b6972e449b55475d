"""eq. (2), the surrogate gradient, against the derivative of the raw masked loss.

The printed formula, grad_{w_r} L_C = a_r m^{-1/2} sum_i (f(W, x_i . c_i) - y_i)(x_i . c_i)
1{w_r^T(x_i . c_i) >= 0}, is written out here in numpy; the witness is torch autograd of the raw
L_C = 1/2 sum_i (m^{-1/2} sum_r a_r relu(w_r^T(x_i . c_i)) - y_i)^2 on raw Gaussian masks, fuzzed by
Hypothesis over every shape n, m, d <= 4 and scales of W, X, y and kappa over orders of magnitude
((2) needs no Assumption 3.1).  Points within rounding of a kink (some |w_r^T(x_i . c_i)| at the
level of its own rounding) are skipped: there L_C has no derivative and the two sides may pick
different one-sided ones.  The SymPy witness (``setting.eq2_gradient``) is in ``test_symbolic.py``.
"""
from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import assume, given, note, target
from hypothesis import strategies as st

from numerics.core.arrays import DTYPE
from numerics.core.tolerance import EPS, Tol
from theory.masking import setting as T

#: both sides sum the same float64 products in different orders: the error of an entry is a few
#: ulps of the sum of the absolute values of its terms (n m d <= 64 terms)
ROUNDING = Tol(rtol=256 * EPS, why="two float64 evaluations of sum_i e_i x_ik c_ik 1_i, e_i = f_i - y_i, "
                                   "n, m, d <= 4; judged against the sum of absolute values of the terms")
#: a pre-activation within this many ulps of |terms| of 0 is at a kink: skipped
KINK = 1e3 * EPS


def printed_gradient(W, a, X, y, C):
    """Eq. (2) as printed (numpy): rows r of a_r/sqrt(m) sum_i e_i (x_i . c_i) 1{z_ir >= 0}, and the
    per-entry magnitude of its terms (the scale its rounding is judged against)."""
    m = W.shape[0]
    XC = X * C                                   # x_i . c_i, (n, d)
    Z = XC @ W.T                                 # z_ir, (n, m)
    e = (np.maximum(Z, 0) @ a) / np.sqrt(m) - y  # e_i, (n,)
    ind = (Z >= 0).astype(float)
    grad = a[:, None] / np.sqrt(m) * ((e[:, None] * ind).T @ XC)
    size = (np.abs(Z) @ np.abs(a)) / np.sqrt(m) + np.abs(y)
    scale = 1 / np.sqrt(m) * ((size[:, None] * ind).T @ np.abs(XC))
    return grad, scale, Z, np.abs(XC) @ np.abs(W).T


def autograd_gradient(W, a, X, y, C):
    """torch autograd of the raw L_C (no formula for the gradient)."""
    Wt = torch.tensor(W, dtype=DTYPE, requires_grad=True)
    f = torch.relu((torch.tensor(X * C, dtype=DTYPE)) @ Wt.T) @ torch.tensor(a, dtype=DTYPE) / np.sqrt(W.shape[0])
    loss = 0.5 * ((f - torch.tensor(y, dtype=DTYPE)) ** 2).sum()
    (g,) = torch.autograd.grad(loss, Wt)
    return g.numpy()


@st.composite
def masked_problems(draw):
    n, m, d = (draw(st.integers(1, 4)) for _ in range(3))
    entry = st.floats(-1, 1, allow_subnormal=False)
    mat = lambda r, c: np.array(draw(st.lists(st.lists(entry, min_size=c, max_size=c), min_size=r, max_size=r)))  # noqa: E731
    W = mat(m, d) * 10.0 ** draw(st.floats(-3, 3))
    X = mat(n, d) * 10.0 ** draw(st.floats(-3, 3))
    y = np.array(draw(st.lists(entry, min_size=n, max_size=n))) * 10.0 ** draw(st.floats(-3, 3))
    a = np.array(draw(st.lists(st.sampled_from([-1.0, 1.0]), min_size=m, max_size=m)))
    kappa = 10.0 ** draw(st.floats(-3, 2))
    gen = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    C = 1.0 + kappa * gen.standard_normal((n, d))
    return W, a, X, y, C


@pytest.mark.statement("eq.2")
@pytest.mark.witness("property")
@pytest.mark.property
def test_gradient_formula_is_the_derivative_of_the_raw_loss(record):
    """Hypothesis: every entry of eq. (2) within ROUNDING of autograd of the raw L_C,
    target(error / (rtol * scale))."""
    worst = [0.0]

    @given(problem=masked_problems())
    def campaign(problem):
        W, a, X, y, C = problem
        grad, scale, Z, zsize = printed_gradient(W, a, X, y, C)
        assume(np.all(np.abs(Z) > KINK * zsize) and np.all(zsize > 0))
        auto = autograd_gradient(W, a, X, y, C)
        ratio = float(np.max(np.abs(auto - grad) / (ROUNDING.rtol * np.maximum(scale, np.finfo(float).tiny))))
        target(ratio)
        worst[0] = max(worst[0], ratio)
        record(judged=1)
        note(f"ratio {ratio!r}")
        assert ratio <= 1, (f"eq. (2) differs from autograd of the raw L_C by {ratio:.3g} x its rounding "
                            f"({ROUNDING}); reproduce: W={W.tolist()}, a={a.tolist()}, X={X.tolist()}, "
                            f"y={y.tolist()}, C={C.tolist()}")

    campaign()
    record(ratio=worst[0], detail=f"worst |autograd - (2)| / (rtol x scale) = {worst[0]:.3g}")


@pytest.mark.statement("eq.2")
@pytest.mark.witness("selfcheck")  # the witness's power, not evidence for (2)
def test_a_planted_wrong_gradient_is_caught(record):
    """Sanity of the witness above: (2) without its factor a_r, or with 1/m for 1/sqrt(m), differs from
    autograd far beyond ROUNDING on a fixed two-neuron network; the printed form agrees."""
    rng = np.random.default_rng(11)
    W, X = rng.standard_normal((2, 3)), rng.standard_normal((3, 3))
    a, y = np.array([1.0, -1.0]), rng.standard_normal(3)
    C = 1.0 + 0.3 * rng.standard_normal((3, 3))
    grad, scale, _, _ = printed_gradient(W, a, X, y, C)
    auto = autograd_gradient(W, a, X, y, C)
    err = lambda g: float(np.max(np.abs(auto - g) / (ROUNDING.rtol * scale)))  # noqa: E731
    good, no_sign, over_m = err(grad), err(grad / a[:, None]), err(grad / np.sqrt(2))
    record(ratio=good, judged=1, detail=f"printed {good:.3g}, without a_r {no_sign:.3g}, 1/m {over_m:.3g} (x rounding)")
    assert good <= 1 and no_sign > 1e6 and over_m > 1e6


@pytest.mark.statement("eq.2")
@pytest.mark.witness("selfcheck")  # the symbolic witness's power, not evidence for (2)
def test_symbolic_witness_rejects_a_planted_formula():
    """``setting.eq2_gradient`` (which proves the printed formula, ``test_symbolic.py``) does not prove
    one with the indicator 1{z >= 0} replaced by 1/2 (m = n = d = 1)."""
    planted = lambda W, a, X, Y, C, r, mm: [g.replace(T.sp.Heaviside, lambda *_: T.sp.Rational(1, 2))  # noqa: E731
                                            for g in T.printed_gradient(W, a, X, Y, C, r, mm)]
    assert not T.eq2_gradient(planted, mm=1, nn=1, dd=1).proved
