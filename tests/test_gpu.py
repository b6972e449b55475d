"""The torch kernels on a CUDA device agree with the CPU (marker ``gpu``; skipped without CUDA).

Run on a GPU machine with ``pytest -m gpu tests/test_gpu.py``.  The kernels are written once
in torch, so the check is that the device's libm (erfc, exp, expm1, log1p) and reduction
orders change nothing beyond rounding: relative 1e-13 pointwise for the lemmas, normwise for
the network sums; and that the raw-mask Monte Carlo on the device agrees with the exact values.
"""
from __future__ import annotations

import pytest
import torch

from numerics.core import bvn
from numerics.core import closed_form as cf
from numerics.masking import network as nw
from numerics.core.tolerance import ZTest

pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")]
CUDA = torch.device("cuda")


def _points(n, seed=0):
    g = torch.Generator().manual_seed(seed)
    h = torch.randn(n, generator=g, dtype=torch.float64) * 6
    k = torch.randn(n, generator=g, dtype=torch.float64) * 6
    rho = torch.rand(n, generator=g, dtype=torch.float64) * 2 - 1
    rho[:20] = 1.0
    rho[20:40] = -1.0
    return h, k, rho


def test_bvn_fast_paths_on_cuda_never_synchronise():
    """The masked fast paths (``bvn._fast_paths_masked``, what CUDA tensors take) run under
    ``torch.cuda.set_sync_debug_mode("error")``, which raises on any host synchronisation,
    and give the CPU's values (relative 1e-13)."""
    h, k, rho = _points(200_000)
    interior = torch.isfinite(h) & torch.isfinite(k) & (rho.abs() < 1)
    res = {"P": torch.zeros(h.numel(), dtype=torch.float64)}
    done = bvn._fast_paths(h, k, rho, interior, res)
    g = [t.to(CUDA) for t in (h, k, rho, interior)]
    gres = {"P": torch.zeros(h.numel(), dtype=torch.float64, device=CUDA)}
    torch.cuda.synchronize()
    torch.cuda.set_sync_debug_mode("error")
    try:
        gdone = bvn._fast_paths(*g, gres)
    finally:
        torch.cuda.set_sync_debug_mode("default")
    assert torch.equal(gdone.cpu(), done)
    cpu, gpu = res["P"][done], gres["P"].cpu()[done]
    assert ((gpu - cpu).abs() / cpu.abs().clamp(min=1e-300)).max().item() <= 1e-13


def test_bvn_atol_route_on_cuda_never_synchronises():
    """``bvn_cdf``'s atol route (``bvn._within_atol``, what the exact network pass adds) runs on CUDA
    as masks, under ``set_sync_debug_mode("error")``, and pins the same rows to the CPU's values."""
    h, k, rho = _points(200_000)
    h, k = 3 * h, 3 * k  # out to +-18 sigma: many rows beyond the route's screen
    interior = torch.isfinite(h) & torch.isfinite(k) & (rho.abs() < 1)
    atol = nw._P_ATOL
    res = {"P": torch.zeros(h.numel(), dtype=torch.float64)}
    done = bvn._within_atol(h, k, interior, res, atol)
    g = [t.to(CUDA) for t in (h, k, interior)]
    gres = {"P": torch.zeros(h.numel(), dtype=torch.float64, device=CUDA)}
    torch.cuda.synchronize()
    torch.cuda.set_sync_debug_mode("error")
    try:
        gdone = bvn._within_atol(*g, gres, atol)
    finally:
        torch.cuda.set_sync_debug_mode("default")
    assert torch.equal(gdone.cpu(), done) and int(done.sum()) > 1000
    cpu, gpu = res["P"][done], gres["P"].cpu()[done]
    assert ((gpu - cpu).abs() <= 1e-13 * cpu.abs()).all()


@pytest.mark.parametrize("fn", [cf.bvn_cdf, cf.orthant_prob])
def test_bivariate_kernels_on_cuda_match_cpu(fn):
    h, k, rho = _points(200_000)
    s = torch.ones_like(h)
    args = (h, k, rho) if fn is cf.bvn_cdf else (h, k, s, 2 * s, rho)
    cpu = fn(*args)
    gpu = fn(*(a.to(CUDA) for a in args)).cpu()
    rel = ((gpu - cpu).abs() / cpu.abs().clamp(min=1e-300)).max().item()
    assert rel <= 1e-13, f"{fn.__name__}: CUDA vs CPU relative difference {rel:.2e}"


def test_bvn_cdf_across_device_chunks_matches_cpu():
    """More points than one device chunk (``bvn._CHUNK_DEVICE``), from the neuron-pair
    regime (h, k ~ N(0, 4), rho = tanh(1.5 N(0, 1)), ~30 % with |rho| > 0.9) plus rho
    within 1e-12 of +-1 with an accurate q: the chunk seams and the q path agree with the
    CPU's 64k-point chunks to the same 1e-13 (rows are independent; only libm differs)."""
    n = bvn._CHUNK_DEVICE + 4097
    g = torch.Generator().manual_seed(2)
    h = torch.randn(n, generator=g, dtype=torch.float64) * 2
    k = torch.randn(n, generator=g, dtype=torch.float64) * 2
    rho = torch.tanh(1.5 * torch.randn(n, generator=g, dtype=torch.float64))
    cpu = bvn.bvn_cdf(h, k, rho)
    gpu = bvn.bvn_cdf(h.to(CUDA), k.to(CUDA), rho.to(CUDA)).cpu()
    rel = ((gpu - cpu).abs() / cpu.abs().clamp(min=1e-300)).max().item()
    assert rel <= 1e-13, f"bvn_cdf: CUDA vs CPU relative difference {rel:.2e}"
    q = 10.0 ** (-12 * torch.rand(4096, generator=g, dtype=torch.float64))
    sgn = torch.where(torch.rand(4096, generator=g) < 0.5, -1.0, 1.0).to(torch.float64)
    r = sgn * torch.sqrt((1 - q) * (1 + q))
    args = (h[:4096], k[:4096], r)
    cpu = bvn.bvn_cdf(*args, q=q)
    gpu = bvn.bvn_cdf(*(a.to(CUDA) for a in args), q=q.to(CUDA)).cpu()
    rel = ((gpu - cpu).abs() / cpu.abs().clamp(min=1e-300)).max().item()
    assert rel <= 1e-13, f"bvn_cdf with q: CUDA vs CPU relative difference {rel:.2e}"


def test_relu_moment2_on_cuda_matches_cpu():
    h, k, rho = _points(200_000, seed=1)
    s1, s2 = h.abs() + 0.1, k.abs() + 0.2
    cpu = cf.relu_moment2(h, k, s1, s2, rho)
    gpu = cf.relu_moment2(h.to(CUDA), k.to(CUDA), s1.to(CUDA), s2.to(CUDA), rho.to(CUDA)).cpu()
    err = ((gpu - cpu).abs() / (h.abs() * k.abs() + s1 * s2)).max().item()
    assert err <= 1e-13, f"relu_moment2: CUDA vs CPU normwise difference {err:.2e}"


def _network(n=200, m=100, d=20, seed=0):
    g = torch.Generator().manual_seed(seed)
    X = torch.randn(n, d, generator=g, dtype=torch.float64)
    X /= X.norm(dim=1, keepdim=True)
    W = torch.randn(m, d, generator=g, dtype=torch.float64)
    a = torch.where(torch.rand(m, generator=g) < 0.5, -1.0, 1.0).to(torch.float64)
    y = torch.randn(n, generator=g, dtype=torch.float64)
    return W, a, X, y


def test_network_expectations_on_cuda_match_cpu():
    W, a, X, y = _network()
    loss, grad = nw.expected_loss_and_grad(W, a, X, y, 0.2)
    loss_g, grad_g = nw.expected_loss_and_grad(*(t.to(CUDA) for t in (W, a, X, y)), 0.2)
    assert loss_g.device.type == "cuda"
    assert abs(loss_g.item() - loss.item()) <= 1e-12 * abs(loss.item())
    assert (grad_g.cpu() - grad).abs().max().item() <= 1e-12 * grad.abs().max().item()


def test_monte_carlo_on_cuda_agrees_with_exact():
    W, a, X, y = (t.to(CUDA) for t in _network(n=50, m=20, d=10))
    loss, grad = nw.expected_loss_and_grad(W, a, X, y, 0.3)
    est_loss, est_grad = nw.monte_carlo(W, a, X, y, 0.3, 100_000, seed=3, batch=10_000)
    test = ZTest(alpha=1e-6, comparisons=1 + W.numel())
    z = max(est_loss.z_scores(loss).abs().max().item(), est_grad.z_scores(grad).abs().max().item())
    assert z <= test.z, f"CUDA Monte Carlo vs exact: |z| = {z:.2f} > {test}"
