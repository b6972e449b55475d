"""Fast witnesses of ``numerics.masking.network`` written to kill its mutants (bench/mutation.py,
notes/mutation.md), through its public functions only.

References, never the module's own formulas:
- ``reference_network.json``: ``numerics.masking.reference_network`` (mpmath quadrature of the
  raw Gaussian moments, precision ladder 30/60 digits) for E_C[L_C], E_C[grad L_C] and
  Theorem 4.2's T1, T2, E and bound on small networks that reach every branch (see
  ``mutation_references.networks``); written by ``python tests/mutation/mutation_references.py``;
- the raw network written out here in plain Python (f(W, x) = m^{-1/2} sum_r a_r ReLU(w_r^T x),
  the loss, eq. (2)'s gradient with 1{w_r^T x >= 0}) for the clean and per-mask functions;
- Definition 4.1 (eq. (3)) evaluated in mpmath from exact sums; ``numerics.core.reference``'s
  raw quadrature of E[ReLU(z)] for ``expected_output``;
- Monte Carlo of raw masks against the reference, |mean - exact| <= z stderr.

Tolerances.  The exact functions are accurate normwise (the module docstring): each is judged
against the sizes of its terms, S_i = m^{-1/2} sum_r (|w_r^T x_i| + kappa ||w_r . x_i||) + |y_i|,
loss size 1/2 sum_i S_i^2, gradient size m^{-1/2} sum_i ||x_i||_inf (1 + kappa)^2 S_i, computed
here from the definition (not by ``term_sizes``, which is itself checked against it).
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import mpmath as mp
import numpy as np
import pytest
import torch

from numerics.masking import network as nw

HERE = Path(__file__).resolve().parent
NETS = json.loads((HERE / "reference_network.json").read_text())["networks"]
EPS = 2.0**-52
#: normwise error of the exact loss/gradient and of T1, T2, E: sums of O(m^2 n) pair terms, each
#: a few eps of its size (the module docstring); measured worst 0.54 eps on these networks
NORMWISE = 8 * EPS
#: the raw network in float64 against plain-Python sums of the same terms: a few roundings
RAW = 8 * EPS
#: Monte Carlo: |mean - exact| <= Z stderr, false alarm ~1e-7 per coordinate (two-sided normal)
Z = 5.3


def net(name):
    r = NETS[name]
    return (np.array(r["W"], dtype=np.float64), np.array(r["a"], dtype=np.float64),
            np.array(r["X"], dtype=np.float64), np.array(r["y"], dtype=np.float64), float(r["kappa"]))


def sizes(W, X, y, kappa):
    """(loss size, gradient size) of the module docstring, from the definition."""
    m = W.shape[0]
    S = [(sum(abs(float(w @ x)) + kappa * float(np.linalg.norm(w * x)) for w in W)) / math.sqrt(m) + abs(yi)
         for x, yi in zip(X, y)]
    loss = 0.5 * sum(s * s for s in S)
    grad = sum(float(np.abs(x).max()) * s for x, s in zip(X, S)) * (1 + kappa) ** 2 / math.sqrt(m)
    return loss, grad


def raw_f(W, a, x):
    """f(W, x) = m^{-1/2} sum_r a_r ReLU(w_r^T x) in plain Python."""
    return math.fsum(ar * max(math.fsum(wr * x), 0.0) for wr, ar in zip(W, a)) / math.sqrt(len(W))


def raw_loss_grad(W, a, X, y):
    """L = 1/2 sum_i (f_i - y_i)^2 and eq. (2): a_r m^{-1/2} sum_i (f_i - y_i) x_i 1{w_r^T x_i >= 0}."""
    m = len(W)
    loss, grad = 0.0, np.zeros_like(W)
    for x, yi in zip(X, y):
        res = raw_f(W, a, x) - yi
        loss += 0.5 * res * res
        for r in range(m):
            if math.fsum(W[r] * x) >= 0:
                grad[r] += a[r] / math.sqrt(m) * res * x
    return loss, grad


def normwise(got, want: str | list, size):
    with mp.workdps(40):
        if isinstance(want, str):
            return float(abs(mp.mpf(float(got)) - mp.mpf(want)) / size)
        return max(float(abs(mp.mpf(float(g)) - mp.mpf(w))) for gr, wr in zip(np.asarray(got), want)
                   for g, w in zip(gr, wr)) / size


@pytest.mark.parametrize("name", list(NETS))
def test_expected_loss_and_grad_against_the_reference(name):
    W, a, X, y, kappa = net(name)
    ref = NETS[name]
    ls, gs = sizes(W, X, y, kappa)
    loss, grad = nw.expected_loss_and_grad(W, a, X, y, kappa)
    assert isinstance(loss, np.floating) and grad.shape == W.shape
    assert normwise(loss, ref["loss"], ls) <= NORMWISE, (name, float(loss), ref["loss"])
    assert normwise(grad, ref["grad"], gs) <= NORMWISE, (name, grad, ref["grad"])
    assert normwise(nw.expected_loss(W, a, X, y, kappa), ref["loss"], ls) <= NORMWISE
    assert normwise(nw.expected_grad(W, a, X, y, kappa), ref["grad"], gs) <= NORMWISE
    # one sample per chunk of pairs: the same values
    one = nw.expected_loss_and_grad(W, a, X, y, kappa, pair_budget=1)
    assert normwise(one[0], ref["loss"], ls) <= NORMWISE and normwise(one[1], ref["grad"], gs) <= NORMWISE


@pytest.mark.parametrize("name", [n for n in NETS if "T1" in NETS[n]])
def test_theorem_4_2_against_the_reference(name):
    W, a, X, y, kappa = net(name)
    ref = NETS[name]
    ls, _ = sizes(W, X, y, kappa)
    th = nw.theorem_4_2(W, a, X, y, kappa)
    for field in ("T1", "T2", "E"):
        assert normwise(getattr(th, field), ref[field], ls) <= NORMWISE, (name, field, getattr(th, field), ref[field])
    assert normwise(th.expected_loss, ref["loss"], ls) <= NORMWISE
    # bound (4): a sum of non-negative products with phi_max^2 and psi_max^2, each carrying twice
    # the relative error of phi_max, psi_max (``definition_mp``), plus a few roundings
    amp = max(definition_mp(W, X, y, kappa)[1].values())
    with mp.workdps(40):
        bound = mp.mpf(ref["bound"])
        assert abs(mp.mpf(th.bound) - bound) <= 8 * EPS * (1 + amp) * bound, (name, th.bound, ref["bound"])
    assert th.E_error == pytest.approx(32 * EPS * ls, rel=1e-12)
    assert th.ratio == abs(th.E) / th.bound
    assert th.holds == (abs(th.E) <= th.bound)
    assert th.resolved == (abs(th.E) > th.E_error)
    m = W.shape[0]
    assert th.hypothesis == (np.abs(y).max() <= 3 * math.sqrt(m) * np.linalg.norm(W, axis=1).max())


def test_theorem_4_2_at_kappa_zero_is_exact():
    """kappa = 0: masks are 1 surely, E = 0 and bound (4) = 0, so ratio 0 and the bound holds."""
    W, a, X, y, _ = net("kappa_0")
    th = nw.theorem_4_2(W, a, X, y, 0.0)
    loss, _ = raw_loss_grad(W, a, X, y)
    assert th.E == 0.0 and th.bound == 0.0 and th.T2 == 0.0
    assert th.ratio == 0.0 and th.holds and not th.resolved
    assert abs(th.T1 - loss) <= RAW * sizes(W, X, y, 0.0)[0]
    assert abs(th.expected_loss - loss) <= RAW * sizes(W, X, y, 0.0)[0]


def definition_mp(W, X, y, kappa):
    """Definition 4.1 in mpmath from exact sums: t_ir = w_r^T x_i / (2 kappa ||u_ir||),
    phi = exp(-t^2), psi = |t| phi; s = 0: phi = psi = 0 if w_r^T x_i != 0, phi = 1, psi = 0 if = 0.
    Also, for phi_max and psi_max, the relative float64 error their maximising pair allows:
    t carries eps (cond + 3), cond = sum_j |w_j x_j| / |w^T x| (the dot product's condition), and
    exp(-t^2) amplifies it by 2 t^2 (psi by 2 t^2 + 1)."""
    with mp.workdps(50):
        phis, psis = [], []
        for x in X:
            for w in W:
                prods = [mp.mpf(float(p)) * mp.mpf(float(q)) for p, q in zip(w, x)]
                mu, s = mp.fsum(prods), kappa * mp.sqrt(mp.fsum(v * v for v in prods))
                if s > 0:
                    tt = mu / (2 * s)
                    cond = mp.fsum(abs(v) for v in prods) / abs(mu) if mu else mp.mpf(1)
                    amp = 2 * tt * tt * (cond + 3)
                    phis.append((mp.exp(-tt * tt), 1 + amp))
                    psis.append((abs(tt) * mp.exp(-tt * tt), 2 + amp))
                else:
                    phis.append((mp.mpf(1) if mu == 0 else mp.mpf(0), 1))
                    psis.append((mp.mpf(0), 1))
        R_u = max(mp.sqrt(mp.fsum((mp.mpf(float(p)) * mp.mpf(float(q))) ** 2 for p, q in zip(w, x)))
                  for x in X for w in W)
        (phi_max, phi_amp), (psi_max, psi_amp) = max(phis, key=lambda v: v[0]), max(psis, key=lambda v: v[0])
        values = dict(B_x=float(np.abs(X).max()), B_y=float(np.abs(y).max()),
                      R_w=max(mp.sqrt(mp.fsum(mp.mpf(float(p)) ** 2 for p in w)) for w in W),
                      R_u=R_u, phi_max=phi_max, psi_max=psi_max)
        return values, {"phi_max": float(phi_amp), "psi_max": float(psi_amp)}


@pytest.mark.parametrize("name", ["generic", "u_zero", "small_kappa", "kappa_0", "d1"])
def test_definition_4_1(name):
    W, _, X, y, kappa = net(name)
    got = nw.definition_4_1(W, X, y, kappa)
    want, amp = definition_mp(W, X, y, kappa)
    for field, w in want.items():
        g = getattr(got, field)
        # the norms and maxima: a few roundings; phi_max, psi_max: times their amplification
        tol = 4 * EPS * amp.get(field, 1)
        assert abs(mp.mpf(g) - w) <= tol * abs(w), (name, field, g, w)


@pytest.mark.parametrize("name", ["generic", "u_zero", "d1", "small_kappa", "huge_scale"])
def test_term_sizes(name):
    W, _, X, y, kappa = net(name)
    got = nw.term_sizes(W, X, y, kappa)
    want = sizes(W, X, y, kappa)
    assert got == pytest.approx(want, rel=RAW)


@pytest.mark.parametrize("name", ["generic", "u_zero", "kappa_0", "tiny_scale"])
def test_expected_output_against_raw_quadrature(name):
    from numerics.core import reference as ref

    W, a, X, _, kappa = net(name)
    got = nw.expected_output(W, a, X, kappa)
    for gi, x in zip(got, X):
        terms = []
        for w, ar in zip(W, a):
            mu, nu = float(w @ x), float(np.linalg.norm(w * x))
            terms.append(ar * (ref.relu_moment1(mu, kappa * nu) if kappa * nu > 0 else max(mu, 0.0)))
        want = math.fsum(float(v) for v in terms) / math.sqrt(len(W))
        scale = sum(abs(float(w @ x)) + kappa * float(np.linalg.norm(w * x)) for w in W) / math.sqrt(len(W))
        assert abs(gi - want) <= RAW * scale, (name, gi, want)
    assert isinstance(nw.expected_output(*(torch.as_tensor(v) for v in (W, a, X)), kappa), torch.Tensor)


@pytest.mark.parametrize("name", ["generic", "u_zero", "d1", "parallel"])
def test_clean_network_against_its_definition(name):
    """output, clean_loss, clean_grad against the plain-Python network (1{w^T x >= 0}: u_zero
    has w_r^T x_i = 0); and at kappa = 0 the exact expectations are the clean ones."""
    W, a, X, y, _ = net(name)
    loss, grad = raw_loss_grad(W, a, X, y)
    ls, gs = sizes(W, X, y, 0.0)
    out = nw.output(W, a, X)
    assert np.abs(out - np.array([raw_f(W, a, x) for x in X])).max() <= RAW * ls
    assert abs(nw.clean_loss(W, a, X, y) - loss) <= RAW * ls
    assert np.abs(nw.clean_grad(W, a, X, y) - grad).max() <= RAW * gs
    e_loss, e_grad = nw.expected_loss_and_grad(W, a, X, y, 0.0)
    assert abs(e_loss - loss) <= NORMWISE * ls
    assert np.abs(e_grad - grad).max() <= NORMWISE * gs
    t = nw.output(*(torch.as_tensor(v) for v in (W, a, X)))
    assert isinstance(t, torch.Tensor) and t.shape == (X.shape[0],)


def test_per_mask_loss_and_gradient_against_eq_2():
    """surrogate_loss / surrogate_grad for given masks C (B, n, d) against the plain-Python
    L_C and eq. (2) at x_i . c_i, including a mask that puts w_r^T (x_i . c_i) exactly at 0."""
    W, a, X, y, _ = net("generic")
    g = torch.Generator().manual_seed(3)
    C = 1.0 + 0.7 * torch.randn(4, *X.shape, generator=g, dtype=torch.float64)
    # x_0 . c = (0.4, 0.8, 0) exactly, so w_0^T (x_0 . c) = 0.8 * 0.4 - 0.4 * 0.8 = 0 exactly: active
    C[3, 0] = torch.tensor([0.8, 2.0, 0.0], dtype=torch.float64)
    Wt, at, Xt, yt = (torch.as_tensor(v) for v in (W, a, X, y))
    losses, grads = nw.surrogate_grad(Wt, at, Xt, yt, C)
    direct = nw.surrogate_loss(Wt, at, Xt, yt, C)
    assert losses.shape == (4,) and grads.shape == (4, *W.shape)
    ls, gs = sizes(W, X, y, 1.0)
    for b in range(4):
        Xc = X * C[b].numpy()
        loss, grad = raw_loss_grad(W, a, Xc, y)
        assert abs(float(losses[b]) - loss) <= RAW * ls and abs(float(direct[b]) - loss) <= RAW * ls
        assert np.abs(grads[b].numpy() - grad).max() <= RAW * gs, b


def test_monte_carlo_of_raw_masks_against_the_reference():
    W, a, X, y, kappa = net("generic")
    ref = NETS["generic"]
    steps = []
    loss, grad = nw.monte_carlo(W, a, X, y, kappa, 6000, seed=11, batch=2500, progress=steps.append)
    assert steps == [2500, 2500, 1000]
    assert loss.samples == grad.samples == 6000
    assert abs(float(loss.mean) - float(ref["loss"])) <= Z * float(loss.stderr)
    exact = torch.tensor([[float(v) for v in row] for row in ref["grad"]], dtype=torch.float64)
    assert bool(((grad.mean - exact).abs() <= Z * grad.stderr).all()), (grad.mean, exact, grad.stderr)
    # a standard error of the right size: sqrt(Var / N) with Var estimated by another seed's draws
    again, _ = nw.monte_carlo(W, a, X, y, kappa, 6000, seed=12, batch=6000)
    # the relative sd of a sample sd is sqrt((kurtosis - 1)/(4N)) <= 5 % for a kurtosis up to 60 at
    # N = 6000: the ratio of two independent ones lies in [0.75, 1.33] at ~4 of their sigmas
    assert 0.75 < float(loss.stderr / again.stderr) < 1.33
    same, _ = nw.monte_carlo(W, a, X, y, kappa, 6000, seed=11, batch=2500)
    assert torch.equal(same.mean, loss.mean) and torch.equal(same.stderr, loss.stderr)


def test_monte_carlo_is_the_mean_of_its_seeded_draws():
    """The seeded protocol: the draws are C = 1 + kappa G, G from ``torch.randn(b, n, d)`` of a
    torch.Generator seeded with ``seed``, batch after batch (3 samples in batches of 2 and 1).
    The estimate is then the sample mean and standard error sqrt(sum (v - mean)^2 / ((N - 1) N))
    of the raw per-mask loss and eq. (2)'s gradient at those masks (plain Python here)."""
    W, a, X, y, kappa = net("generic")
    gen = torch.Generator().manual_seed(5)
    G = torch.cat([torch.randn(b, *X.shape, generator=gen, dtype=torch.float64) for b in (2, 1)])
    vals = [raw_loss_grad(W, a, X * (1.0 + kappa * g.numpy()), y) for g in G]
    loss, grad = nw.monte_carlo(W, a, X, y, kappa, 3, seed=5, batch=2)
    for est, v in ((loss, np.array([v[0] for v in vals])), (grad, np.stack([v[1] for v in vals]))):
        mean = v.mean(0)
        var = ((v - mean) ** 2).sum(0) / 2
        # the estimator forms var from sum v^2 / N - mean^2: its rounding is a few eps of
        # mean(v^2) + mean^2 (per coordinate); the mean a few eps of mean |v|
        assert np.all(np.abs(est.mean.numpy() - mean) <= RAW * np.abs(v).mean(0))
        tol = 16 * EPS * ((v**2).mean(0) + mean**2)
        assert np.all(np.abs(est.stderr.numpy() ** 2 * 3 - var) <= tol), (est.stderr, var)


def test_monte_carlo_at_kappa_zero_has_no_spread():
    W, a, X, y, _ = net("u_zero")
    loss, grad = nw.monte_carlo(W, a, X, y, 0.0, 5, seed=0, batch=2)
    want_loss, want_grad = raw_loss_grad(W, a, X, y)
    ls, gs = sizes(W, X, y, 0.0)
    assert float(loss.stderr) == 0.0 and bool((grad.stderr == 0).all())
    assert abs(float(loss.mean) - want_loss) <= RAW * ls
    assert np.abs(grad.mean.numpy() - want_grad).max() <= RAW * gs
    with pytest.raises(ValueError, match="samples must be >= 2, got 1"):
        nw.monte_carlo(W, a, X, y, 0.5, 1, seed=0)


def test_ntk_names_forward_to_the_ntk_module():
    from numerics.masking import ntk

    X = np.array([[0.6, 0.8], [1.0, 0.0], [-0.28, 0.96]])
    assert np.array_equal(np.asarray(nw.ntk_gram(X)), np.asarray(ntk.ntk_gram(X)))
    assert nw.lambda0(X) == ntk.lambda0(X)


@pytest.mark.parametrize("bad, message", [
    (dict(W=np.array([[np.nan, 0.0, 0.0]] * 3)), "W contains NaN"),
    (dict(W=np.zeros(3)), r"W must have shape \(m, d\), got \(3,\)"),
    (dict(W=np.zeros((0, 3)), a=np.zeros(0)), r"W must have m >= 1 neurons and d >= 1 inputs, got \(0, 3\)"),
    (dict(a=np.array([1.0, 0.5, 1.0])), r"a must have entries \+1 or -1 \(Section 3: a_r in \{-1, 1\}\)"),
    (dict(a=np.ones(4)), r"a must have shape \(m,\) = \(3,\), got \(4,\)"),
    (dict(X=np.ones((3, 2))), r"X must have shape \(n, d\) with d = 3 \(from W\), got \(3, 2\)"),
    (dict(X=np.ones((0, 3)), y=np.ones(0)), r"X must have shape \(n, d\) with d = 3 \(from W\), got \(0, 3\)"),
    (dict(X=np.ones(3)), r"X must have shape \(n, d\)"),
    (dict(X=np.array([[1.0, np.inf, 0.0]] * 2)), "X must be finite"),
    (dict(y=np.ones(3)), r"y must have shape \(n,\) = \(2,\), got \(3,\)"),
    (dict(y=np.array([0.0, np.nan])), "y contains NaN"),
    (dict(kappa=-0.1), "kappa must be >= 0"),
    (dict(kappa=np.ones(2)), r"kappa must be a scalar, got shape \(2,\)"),
])
def test_bad_input_is_a_clear_error(bad, message):
    W, a, X, y, kappa = net("generic")
    args = dict(W=W, a=a, X=X, y=y, kappa=kappa) | bad
    with pytest.raises(ValueError, match=f"^{message}"):
        nw.expected_loss_and_grad(**args)


@pytest.mark.slow
def test_table_is_current():
    """Two networks recomputed from the raw definition equal the stored strings."""
    import mutation_references as mr

    nets = mr.networks()
    for name in ("d1", "kappa_0"):
        row = mr.network_row(nets[name])
        assert row == {k: v for k, v in NETS[name].items() if k in row}, name
