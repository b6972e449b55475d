"""Tests of ``numerics.masking.reference_network``: Section 4's network-level references.

Independent witnesses used here: the clean network at kappa = 0 (exact arithmetic), a
one-dimensional quadrature of the raw masked loss when d = 1, plain numpy Monte Carlo of
raw masks, finite differences of the loss reference, and, for the exponentially small E of
Theorem 4.2 with one neuron, the textbook normal moments E[z 1{z >= 0}] = mu Phi + s varphi
and E[z^2 1{z >= 0}] = (mu^2 + s^2) Phi + mu s varphi (test-side only; the module never uses them).
"""
from __future__ import annotations


import mpmath as mp
import numpy as np
import pytest

from numerics.masking import reference_network as rn
from numerics.core.reference import LadderError
from numerics.core.tolerance import Tol, ZTest

DPS = 30
REF = Tol(1e-26, why="30-digit reference, ladder-checked to 27 digits, vs an exact or 30-digit value")
LADDER = Tol(1e-17, why="20-digit result vs 40-digit result (ladder tolerance at dps = 20)")
QUAD = Tol(1e-24, why="30-digit reference vs mp.quad (tanh-sinh) at 30 digits, split at the kink")
FD = Tol(1e-18, why="central difference, step 2^-40 at 40 digits: h^2 ~ 1e-24, rounding 1e-40/h ~ 1e-28")


@pytest.fixture(autouse=True)
def _high_precision():
    """Test-side arithmetic at 60 digits, so that it never limits a check."""
    with mp.workdps(60):
        yield


def network(n, m, d, seed, *, a=None):
    rng = np.random.default_rng(seed)
    W = rng.normal(size=(m, d))
    X = rng.normal(size=(n, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)          # Assumption 3.1: ||x_i|| <= 1
    a = rng.choice([-1.0, 1.0], size=m) if a is None else np.asarray(a, dtype=float)
    return W, a, X, rng.normal(size=n)


def rel(x, y):
    x, y = mp.mpf(x), mp.mpf(y)
    return abs(x - y) / abs(y) if y else abs(x)


def normwise(A, B):
    """max |A - B| / max |B| over entries of two nested lists."""
    diff = max(abs(mp.mpf(p) - mp.mpf(q)) for ra, rb in zip(A, B, strict=True)
               for p, q in zip(ra, rb, strict=True))
    scale = max(abs(mp.mpf(q)) for rb in B for q in rb)
    return diff / scale if scale else diff


def clean(W, a, X, y):
    """Clean loss and gradient 1/2 sum (f(W, x_i) - y_i)^2, eq. (2) with c = 1, in mpmath."""
    W, X = [[mp.mpf(v) for v in row] for row in W], [[mp.mpf(v) for v in row] for row in X]
    a, y = [mp.mpf(v) for v in a], [mp.mpf(v) for v in y]
    m, d = len(W), len(W[0])
    loss, grad = mp.mpf(0), [[mp.mpf(0)] * d for _ in range(m)]
    for xi, yi in zip(X, y):
        pre = [mp.fsum(w * x for w, x in zip(wr, xi)) for wr in W]
        res = mp.fsum(ar * max(p, 0) for ar, p in zip(a, pre)) / mp.sqrt(m) - yi
        loss += res ** 2 / 2
        for r in range(m):
            if pre[r] >= 0:
                for k in range(d):
                    grad[r][k] += a[r] / mp.sqrt(m) * res * xi[k]
    return loss, grad


# ------------------------------------------------------------------------------- ladder
def test_results_agree_across_precisions():
    W, a, X, y = network(2, 2, 2, seed=3)
    lo = rn.theorem_4_2(W, a, X, y, 0.3, dps=20)
    hi = rn.theorem_4_2(W, a, X, y, 0.3, dps=40)
    for field in ("expected_loss", "T1", "T2", "E", "bound"):
        assert rel(getattr(lo, field), getattr(hi, field)) <= LADDER.rtol, (field, LADDER)
    assert normwise(rn.expected_grad(W, a, X, y, 0.3, dps=20),
                    rn.expected_grad(W, a, X, y, 0.3, dps=40)) <= LADDER.rtol


def test_cancellation_is_resolved_with_extra_digits(monkeypatch):
    """Labels equal to the float64 network outputs: the loss is ~1e-33, a 30-digit
    cancellation the first ladder rung cannot resolve; the retry with EXTRA_DPS can."""
    W, a, X, _ = network(2, 2, 2, seed=4)
    y = np.maximum(X @ W.T, 0) @ a / np.sqrt(2)
    exact, _ = clean(W, a, X, y)
    assert 0 < exact < 1e-28
    assert rel(rn.expected_loss(W, a, X, y, 0.0), exact) <= REF.rtol
    monkeypatch.setattr(rn, "EXTRA_DPS", (0,))
    with pytest.raises(LadderError, match="unresolved"):
        rn.expected_loss(W, a, X, y, 0.0)


# ------------------------------------------------------------------------------- kappa = 0
def test_kappa_zero_is_the_clean_network():
    W, a, X, y = network(3, 3, 3, seed=5)
    W[1] = [X[0, 1], -X[0, 0], 0.0]                     # w_1^T x_0 = 0 exactly: 1{0 >= 0} = 1
    assert mp.fsum(mp.mpf(w) * mp.mpf(x) for w, x in zip(W[1], X[0])) == 0   # exact at 60 digits
    loss, grad = clean(W, a, X, y)
    assert rel(rn.expected_loss(W, a, X, y, 0.0), loss) <= REF.rtol
    assert normwise(rn.expected_grad(W, a, X, y, 0.0), grad) <= REF.rtol
    t = rn.theorem_4_2(W, a, X, y, 0.0)
    assert t.E == 0 and t.T2 == 0 and t.bound == 0 and t.phi_max == 1 and t.psi_max == 0
    assert rel(t.T1, loss) <= REF.rtol


# ------------------------------------------------------------------------------- d = 1
def direct_one_coordinate(W, a, X, y, kappa):
    """E_C[L_C] and E_C[grad_W L_C] when each x_i has one nonzero coordinate k_i (any x_i
    when d = 1): every w_r^T (x_i . c_i) = w_rk x_ik c_ik, all kinks at c_ik = 0, so each
    expectation is a one-dimensional mp.quad of the raw integrand of eq. (2)."""
    m, d = W.shape
    kappa = mp.mpf(kappa)
    loss, grad = mp.mpf(0), [[mp.mpf(0)] * d for _ in range(m)]
    for xi, yi in zip(X, y):
        (k,) = np.flatnonzero(xi)
        xk, yi = mp.mpf(xi[k]), mp.mpf(yi)
        def pre(c):
            return [mp.mpf(w) * xk * c for w in W[:, k]]

        def res(c):
            return mp.fsum(ar * max(p, 0) for ar, p in zip(a, pre(c))) / mp.sqrt(m) - yi

        def expect(g):
            with mp.workdps(DPS + 10):
                return mp.quad(lambda c: g(c) * mp.npdf(c, 1, kappa), [-mp.inf, 0, 1, mp.inf])

        loss += expect(lambda c: res(c) ** 2) / 2
        for r in range(m):
            grad[r][k] += a[r] / mp.sqrt(m) * expect(
                lambda c: res(c) * xk * c * (1 if pre(c)[r] >= 0 else 0))
    return loss, grad


def test_one_dimensional_network_against_direct_quadrature():
    """d = 1: every pair of neurons is parallel (rho = +1) or antiparallel (rho = -1)."""
    W = np.array([[0.7], [-0.4], [1.3]])                  # 0 || 2, both antiparallel to 1
    a = np.array([1.0, 1.0, -1.0])
    X = np.array([[0.9], [-0.6]])
    y = np.array([0.3, -0.2])
    loss, grad = direct_one_coordinate(W, a, X, y, 0.5)
    assert rel(rn.expected_loss(W, a, X, y, 0.5), loss) <= QUAD.rtol
    assert normwise(rn.expected_grad(W, a, X, y, 0.5), grad) <= QUAD.rtol
    t = rn.theorem_4_2(W, a, X, y, 0.5)
    assert rel(t.E, loss - t.T1 - t.T2) <= QUAD.rtol * t.expected_loss / abs(t.E)


def test_zero_neuron_and_zero_input_coordinates():
    """w_0 = 0 (u_i0 = 0: z = 0 surely, 1{0 >= 0} = 1, the 0/0 convention phi = 1) and inputs
    with zero coordinates (u_ir with zero entries, a degenerate d = 2 Gaussian)."""
    W = np.array([[0.0, 0.0], [0.8, -0.3]])
    a = np.array([1.0, -1.0])
    X = np.array([[0.6, 0.0], [0.0, -0.7]])
    y = np.array([0.1, 0.4])
    loss, grad = direct_one_coordinate(W, a, X, y, 0.25)
    assert rel(rn.expected_loss(W, a, X, y, 0.25), loss) <= QUAD.rtol
    assert normwise(rn.expected_grad(W, a, X, y, 0.25), grad) <= QUAD.rtol
    t = rn.theorem_4_2(W, a, X, y, 0.25)
    assert t.phi_max == 1 and rel(t.R_u, mp.mpf(0.8) * mp.mpf(0.6)) <= REF.rtol
    assert rel(t.expected_loss, t.T1 + t.T2 + t.E) <= REF.rtol


# ------------------------------------------------------------------------------- symmetry
def test_permuting_neurons_with_their_signs():
    W, a, X, y = network(3, 3, 2, seed=6, a=[1.0, 1.0, -1.0])
    perm = [2, 0, 1]
    L = rn.expected_loss(W, a, X, y, 0.4)
    G = rn.expected_grad(W, a, X, y, 0.4)
    assert rel(rn.expected_loss(W[perm], a[perm], X, y, 0.4), L) <= REF.rtol
    assert normwise(rn.expected_grad(W[perm], a[perm], X, y, 0.4), [G[r] for r in perm]) <= REF.rtol


# ------------------------------------------------------------------------------- bad input
def test_bad_input_raises():
    W, a, X, y = network(2, 2, 2, seed=7)
    with pytest.raises(ValueError, match="a must have entries"):
        rn.expected_loss(W, [1.0, 0.5], X, y, 0.1)
    with pytest.raises(ValueError, match="kappa"):
        rn.expected_loss(W, a, X, y, -0.1)
    with pytest.raises(ValueError, match="finite"):
        rn.expected_grad(W, a, X, [0.0, float("nan")], 0.1)
    with pytest.raises(ValueError, match="columns"):
        rn.theorem_4_2(W, a, X[:, :1], y, 0.1)
    with pytest.raises(ValueError, match="entries"):
        rn.expected_loss(W, a, X, y[:1], 0.1)


# ------------------------------------------------------------------------------- Theorem 4.2
def T1_T2(W, a, X, y, kappa):
    """T1 and T2 of Theorem 4.2 transcribed from the statement, at the test's 60 digits."""
    m = len(W)
    T1 = T2 = mp.mpf(0)
    for xi, yi in zip(X, y):
        u = [[mp.mpf(w) * mp.mpf(x) for w, x in zip(wr, xi)] for wr in W]
        Phi = [mp.ncdf(mp.fsum(ur) / (kappa * mp.norm(ur))) for ur in u]
        f_hat = mp.fsum(ar * mp.fsum(ur) * p for ar, ur, p in zip(a, u, Phi)) / mp.sqrt(m)
        T1 += (f_hat - mp.mpf(yi)) ** 2 / 2
        v = [mp.fsum(ar * ur[k] * p for ar, ur, p in zip(a, u, Phi)) for k in range(len(xi))]
        T2 += kappa ** 2 * mp.fsum(t * t for t in v) / (2 * m)
    return T1, T2


def test_E_equals_loss_minus_T1_T2_when_small():
    """All u_ir positive, so mu/s >= 1/kappa: E is ~1e-14 of the loss here; the direct
    difference with a 60-digit loss keeps ~45 of its digits and must match the regrouped E."""
    rng = np.random.default_rng(8)
    W = rng.uniform(0.5, 1.5, size=(2, 2))
    X = rng.uniform(0.2, 0.7, size=(2, 2))
    a, y, kappa = np.array([1.0, -1.0]), np.array([0.5, -0.3]), mp.mpf(0.2)
    t = rn.theorem_4_2(W, a, X, y, kappa)
    T1, T2 = T1_T2(W, a, X, y, kappa)
    assert rel(t.T1, T1) <= REF.rtol and rel(t.T2, T2) <= REF.rtol
    diff = rn.expected_loss(W, a, X, y, kappa, dps=60) - T1 - T2
    assert 1e-20 < abs(t.E) / t.expected_loss < 1e-10
    assert rel(t.E, diff) <= REF.rtol


def test_E_exponentially_small_single_neuron():
    """m = n = 1, kappa = 0.01: E ~ 1e-1000.  Checked against the textbook normal moments:
    E = 1/2 ((mu^2 + s^2) Phi(a) Phi(-a) + mu s varphi(a)) - y s varphi(a), a = mu/s."""
    w, x, y, kappa = [0.9, 0.6], [0.5, 0.7], 1.2, 0.01
    t = rn.theorem_4_2([w], [1.0], [x], [y], kappa)
    with mp.workdps(60):
        u = [mp.mpf(p) * mp.mpf(q) for p, q in zip(w, x)]
        mu, s = mp.fsum(u), mp.mpf(kappa) * mp.norm(u)
        A = mu / s
        E = ((mu ** 2 + s ** 2) * mp.ncdf(A) * mp.ncdf(-A) + mu * s * mp.npdf(A)) / 2 \
            - mp.mpf(y) * s * mp.npdf(A)
        xr = mu / (2 * s)
        bound = mp.mpf(kappa) ** 2 * mp.norm(u) ** 2 * (xr * mp.exp(-xr ** 2)) ** 2 \
            + (mp.mpf(kappa) ** 2 * mp.norm(u) ** 2 + mp.mpf(kappa) * mp.norm(w)) * mp.exp(-xr ** 2) ** 2
    assert E < mp.mpf("1e-1000")
    assert rel(t.E, E) <= REF.rtol
    assert rel(t.bound, bound) <= REF.rtol


# ------------------------------------------------------------------------------- Monte Carlo
def _mc_loss_grad(W, a, X, y, kappa, samples, seed, batch=250_000):
    """Mean and standard error of (L_C, grad_W L_C) over raw masks, eq. (2), in numpy."""
    rng = np.random.default_rng(seed)
    (n, d), m = X.shape, W.shape[0]
    s1 = s2 = 0.0
    for start in range(0, samples, batch):
        b = min(batch, samples - start)
        xc = X[None] * (1.0 + kappa * rng.standard_normal((b, n, d)))      # x_i . c_i
        pre = xc @ W.T                                                      # (b, n, m)
        res = np.maximum(pre, 0.0) @ a / np.sqrt(m) - y                     # (b, n)
        grad = np.einsum("bn,bnm,bnd->bmd", res, (pre >= 0).astype(float), xc)
        vals = np.concatenate([0.5 * (res ** 2).sum(1)[:, None],
                               (grad * (a / np.sqrt(m))[None, :, None]).reshape(b, -1)], 1)
        s1, s2 = s1 + vals.sum(0), s2 + (vals ** 2).sum(0)
    mean = s1 / samples
    var = (s2 / samples - mean ** 2) * samples / (samples - 1)
    return mean, np.sqrt(var / samples)


def test_monte_carlo_of_raw_masks():
    W, a, X, y = network(3, 3, 3, seed=9)
    kappa = 0.6
    ref_vals = [rn.expected_loss(W, a, X, y, kappa, dps=15)]
    ref_vals += [g for row in rn.expected_grad(W, a, X, y, kappa, dps=15) for g in row]
    mean, se = _mc_loss_grad(W, a, X, y, kappa, samples=10 ** 6, seed=2024)
    zt = ZTest(alpha=1e-6, comparisons=len(ref_vals))
    z = (mean - np.array([float(v) for v in ref_vals])) / se
    assert np.all(np.abs(z) <= zt.z), (z, str(zt))


# ------------------------------------------------------------------------------- derivative
def test_grad_is_the_derivative_of_the_expected_loss():
    """d/dW E_C[L_C] = E_C[grad_W L_C] (Lipschitz integrand): central differences of the
    loss reference at 40 digits against the gradient reference."""
    W, a, X, y = network(2, 2, 2, seed=10)
    kappa, h = 0.35, mp.ldexp(1, -40)
    G = rn.expected_grad(W, a, X, y, kappa, dps=40)
    Wm = [[mp.mpf(v) for v in row] for row in W]
    fd = [[None] * 2 for _ in range(2)]
    for r in range(2):
        for k in range(2):
            plus = [row[:] for row in Wm]
            minus = [row[:] for row in Wm]
            plus[r][k] += h                                  # exact: 2^-40 added to a double
            minus[r][k] -= h
            fd[r][k] = (rn.expected_loss(plus, a, X, y, kappa, dps=40)
                        - rn.expected_loss(minus, a, X, y, kappa, dps=40)) / (2 * h)
    assert normwise(fd, G) <= FD.rtol, str(FD)
