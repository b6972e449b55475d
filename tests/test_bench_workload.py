"""The bookkeeping of the benchmarks' workload sets (``bench/workload_bvn.py``) and of the
expected-dynamics projection (``bench/bench_expected.py``): benchmarks are not tests, but the
harvest must be complete and the projection's arithmetic right."""
from __future__ import annotations

import math
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import bench_expected  # noqa: E402
import workload_bvn  # noqa: E402
from numerics.core import bvn  # noqa: E402
from numerics.masking import network, training  # noqa: E402


def _small_network():
    """n = 6 samples, d = 4, m = 7 neurons: neurons 1 and 2 nearly parallel, 3 exactly parallel
    to 0 and 4 antiparallel to 0, so that the pass's refined call (|rho| > 0.9, with q) has rows."""
    g = torch.Generator().manual_seed(3)
    X = torch.randn(6, 4, generator=g, dtype=torch.float64)
    y = torch.randn(6, generator=g, dtype=torch.float64)
    W = torch.randn(7, 4, generator=g, dtype=torch.float64)
    W[2] = W[1] * (1 + 1e-9) + 1e-9
    W[3] = 2 * W[0]
    W[4] = -0.5 * W[0]
    a = torch.tensor([1.0, -1, 1, 1, -1, 1, -1], dtype=torch.float64)
    return W, a, X, y


@pytest.mark.parametrize("kappa", [0.05, 0.7])
def test_harvest_is_complete(kappa, monkeypatch):
    """The harvested arguments, evaluated by bvn_cdf and fed back to the pass in call order, give
    the pass's own loss and gradient bit for bit: no call is missed, reordered or altered (the
    pass's tensor formulation, which calls bvn_cdf on every pair; the pair kernel does so inside)."""
    monkeypatch.setattr(network, "_PAIR_KERNEL", False)
    W, a, X, y = _small_network()
    calls = workload_bvn.record_pass(W, a, X, y, kappa)
    assert (calls["relative"]).any() and (~calls["relative"]).any()  # both kinds of call present
    assert calls["sizes"].sum() == calls["h"].size
    values, lo = [], 0
    for size in calls["sizes"]:
        part = {key: torch.from_numpy(calls[key][lo:lo + size].copy()) for key in ("h", "k", "rho", "q")}
        rel, atol = bool(calls["relative"][lo]), float(calls["atol"][lo])
        q = None if torch.isnan(part["q"]).all() else part["q"]
        values.append(bvn.bvn_cdf(part["h"], part["k"], part["rho"], relative=rel, q=q, atol=atol))
        lo += size
    want_loss, want_grad = network.expected_loss_and_grad(W, a, X, y, kappa)
    replay = iter(values)

    def from_harvest(h, k, rho, *, relative=True, q=None, atol=0.0):
        v = next(replay)
        assert v.numel() == h.numel()
        return v.reshape(h.shape)

    monkeypatch.setattr(bvn, "bvn_cdf", from_harvest)
    loss, grad = network.expected_loss_and_grad(W, a, X, y, kappa)
    assert next(replay, None) is None                      # every harvested call was used
    assert float(loss) == float(want_loss)
    assert torch.equal(grad, want_grad)


def test_trajectory_is_seed_0_of_the_default_run():
    """The harvested W are those of seed 0 of ``maskverify train``'s batched run (every seed
    and kappa of the default Config at once) after the same number of steps."""
    kappa, steps = 0.4, 3
    Ws, (X, y, a) = workload_bvn.trajectory(kappa, [0, steps])
    cfg = training.Config()
    pb = training.problem(cfg)
    assert torch.equal(Ws[0], pb.W0[0, 0]) and torch.equal(X, pb.X) and torch.equal(a, pb.a[0, 0])
    run = training.MaskedGD(replace(cfg, steps=steps))
    run.advance(steps)
    j = cfg.kappas.index(kappa)
    # batched products may sum in another order: |W| ~ 1, a few steps of eta ~ 5e-3, n = 500 terms
    assert torch.allclose(Ws[steps], run.W[0, j], rtol=0, atol=1e-12)


def test_set_names():
    assert workload_bvn.parse_set("w2000k0.05") == (2000, 0.05)
    assert workload_bvn.parse_set(workload_bvn.set_name(500, 2.0)) == (500, 2.0)
    for bad in ("w0k0", "w0k-1", "wk0.2", "w1.5k0.2", "w0kx", "fuzz", "w0k0.2x"):
        assert workload_bvn.parse_set(bad) is None, bad
    assert len(workload_bvn.FIG3A_SETS) == 3 * len(workload_bvn.FIG3A_KAPPAS)
    assert 0.0 not in workload_bvn.FIG3A_KAPPAS


def test_projection_and_makespan():
    # steps 0..499 rise linearly from 1 to 2 (sum 500 + 249.5), steps 500..999 stay at 2
    assert math.isclose(bench_expected.project({0: 1.0, 500: 2.0}, 1000), 1749.5, rel_tol=1e-14)
    assert bench_expected.project({0: 3.0}, 10) == 30.0
    assert bench_expected.makespan([5, 3, 3, 2], 2) == 7                # LPT: {5, 2}, {3, 3}
    assert bench_expected.makespan([4, 1, 2], 7) == 4                   # one task per worker
    assert bench_expected.makespan([4, 1, 2], 1) == 7


def test_kernel_branch_splits_follow_the_kernels():
    """bench_kernels re-states three kernels' branch rules: on a point of each branch, the kernel's
    value is that branch's formula bit for bit (so the split counts what the kernel does)."""
    import bench_kernels
    from scipy import special as sc

    from numerics.amplification import tail
    from numerics.core import gaussian_kernels as gk

    theta = torch.tensor([0.3, 2.0, 3.0], dtype=torch.float64)         # direct, sin(e) - e cos(e), series
    supp = math.pi - theta
    split = bench_kernels.relu_split(theta, supp)
    assert list(split.values()) == pytest.approx([1 / 3] * 3, abs=0)
    J = gk.arccos1(theta, supp)
    assert J[0] == torch.sin(theta[0]) + supp[0] * torch.cos(theta[0])
    assert J[1] == torch.sin(supp[1]) - supp[1] * torch.cos(supp[1])
    assert J[2] == gk._j_series(supp[2:])[0]

    # tanh: s = max(a, b) = 0.3 (the s_max = 0.5 row), 1.0 (the 1.0 row, at its edge), 7 (polar)
    a, b = torch.tensor([0.3, 1.0, 0.1], dtype=torch.float64), torch.tensor([0.2, 0.5, 7.0], dtype=torch.float64)
    theta = torch.tensor([1.0, 2.0, 0.5], dtype=torch.float64)
    supp = math.pi - theta
    split = bench_kernels.tanh_split(a, b)
    assert [v for k, v in split.items() if k.startswith(("trapezoid", "polar"))] == pytest.approx([1 / 3] * 3, abs=0)
    value = gk.tanh_dual(a, b, theta, supp)
    rows = {r[0]: r for r in gk.TRAPEZOID_RULES}
    cos_t = torch.where(theta <= math.pi / 2, torch.cos(theta), -torch.cos(supp))
    sin_t = torch.sin(torch.minimum(theta, supp))
    for i, s_max in ((0, 0.5), (1, 1.0)):
        _, h, K = rows[s_max]
        one = slice(i, i + 1)
        assert value[i] == gk.trapezoid_expectation(torch.tanh, a[one], b[one], cos_t[one], sin_t[one], h, K)[0]
    assert value[2] == gk.polar_expectation(torch.tanh, torch.tanh, a[2:], b[2:], theta[2:])[0]

    d = np.array([100.0] * 5)
    c = np.array([20.0, 0.0, 0.5, 3.0, 9.9])          # beyond, c = 0, (1 - I_x)/2, Q_x/2, I_y/2
    split, negative = bench_kernels.tail_branches(c, d)
    assert list(split.values()) == [0.2] * 5 and negative == 0.0
    a, x = (d - 1) / 2, c * c / d
    value = tail._tail(c, d)
    assert value[0] == 0.0 and value[1] == 0.5
    assert value[2] == 0.5 * (1 - sc.betainc(0.5, a[2], x[2]))
    assert value[3] == 0.5 * sc.betaincc(0.5, a[3], x[3])
    # the kernel forms y = 1 - x from c^2 exactly, here from the rounded x (two roundings of x ~ 1:
    # |dy| <= eps); I_y(a, 1/2) ~ y^a for small y has relative condition <= a in y, and each side
    # carries Boost's own error (tail.BOOST_EPS)
    eps = np.finfo(float).eps
    y = 1 - x[4]
    rel = a[4] * eps / y + 2 * tail.BOOST_EPS * eps
    assert value[4] == pytest.approx(0.5 * sc.betainc(a[4], 0.5, y), rel=rel)
