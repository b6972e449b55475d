"""Section 4 at network level, the compiled pair kernel: its stated normwise contract against the
mpmath network reference, branch by branch, and the routing windows it adds to ``bvn_cdf``.

``numerics.masking.pair_kernel`` computes the exact pass (E_C[L_C], E_C[grad L_C]) on the CPU, each
pair of neurons visited once in registers; its contract (module docstring, ``network.CONTRACT``):
normwise within 64 eps of ``network.term_sizes``.  Here

* every branch of its per-pair code -- parallel (d = 1) and antiparallel pairs (q = 0), a degenerate
  member (s = 0), the refined band |rho| > 0.9, the atol routes (a one-dimensional tail, the rule's
  band), the deferred general path (fast paths off), deep tails and kappa from 1e-3 to 1e2 -- is held
  to ``numerics.masking.reference_network`` (raw integrals in mpmath) within the witness's own copy of
  the contract, the branch reached counted by the kernel;
* the kernel against the tensor formulation (the reference formulation, and the CUDA path), and its
  thread counts 1 and 2 bit for bit;
* the contract's tightness: on tail rows of the gradient, where P's absolute error is not lost under
  the rounding, each entry is within its rounding plus P's share of the contract (CONTRACT 2^-14) times
  P's coefficients; the pass derives P's tolerance from its contract, so a contract loosened 16x (P's
  atol 2^-56) fails here;
* ``bvn_cdf``'s atol window for the rule's band (``bvn._band_within_atol``, and its compiled row
  ``bvn_compiled.phi2_band_within_atol``): both sides of its three edges (max|h, k| across 8 and 10,
  the range across 40) against mpmath, and the rule from -1's max|h, k| <= 1e3 edge.
"""
from __future__ import annotations

import functools

import mpmath
import numpy as np
import pytest
import torch

from numerics.core import bvn
from numerics.core import bvn_compiled as bc
from numerics.core import normal as nm
from numerics.core import reference as core_ref
from numerics.core.tolerance import Tol, digits
from numerics.masking import network as nw
from numerics.masking import pair_kernel as pk
from numerics.masking import reference_network as rn
from verify.masking import test_s4_network_reference as netref
from verify.masking.test_s4_network_fast import _nearly_parallel
from verify.masking.test_s4_network_montecarlo import NETWORKS

pytestmark = pytest.mark.witness("reference")
EPS = 2.0**-52
#: the witness's own copy of the pass's contract (``network.CONTRACT``)
CONTRACT = Tol(rtol=64 * EPS, why="the pair kernel's stated normwise contract: 64 eps of network.term_sizes")
#: P's share of it, as an absolute error (``network._P_SHARE``: 2^-14 of the contract, 2^-60)
P_SHARE = 2.0**-14
#: the kernel and the tensor formulation differ only by rounding (libm against torch, sums in order)
TWINS = Tol(rtol=16 * EPS, why="two float64 formulations of the same closed forms, normwise")

_GENERIC = NETWORKS["generic"]
#: name -> (network, the kernel's count that must be >= 1 there, or None)
CASES = {
    "parallel_d1": (NETWORKS["d1"], "refined"),
    "antiparallel": ((np.array([[0.7, -0.2, 0.4], [-1.4, 0.4, -0.8], [0.3, 0.9, -0.5]]), np.array([1.0, 1.0, -1.0]),
                      np.array([[0.5, 0.4, -0.7]]), np.array([0.3]), 0.3), "refined"),
    "degenerate_s0": (NETWORKS["degenerate"], None),
    "refined_band": (_nearly_parallel(), "refined"),
    # one sample, three neurons: their pairs reach the tail route (a neuron almost surely off)
    "atol_tail": ((np.array([[-1.324, -0.248, 0.42], [1.136, 0.11, -0.553], [-0.785, 0.749, 1.635]]),
                   np.array([1.0, -1.0, 1.0]), np.array([[0.273, -1.233, -0.958]]), np.array([0.5]),
                   0.16125173108726357), "atol"),
    # ... and the rule's band (8 < max|a| <= 10)
    "rule_band": ((np.array([[-0.199, -0.688, -0.035], [0.61, 0.047, 0.15], [-0.918, -1.118, -0.278]]),
                   np.array([1.0, -1.0, 1.0]), np.array([[0.936, 0.387, 1.095]]), np.array([0.5]),
                   0.17124687685403087), "band"),
    "kappa_1e-3": ((_GENERIC[0][:3], _GENERIC[1][:3], _GENERIC[2][:1], _GENERIC[3][:1], 1e-3), None),
    "kappa_1e2": ((_GENERIC[0][:3], _GENERIC[1][:3], _GENERIC[2][:1], _GENERIC[3][:1], 1e2), None),
    "deep_tail": ((_GENERIC[0][:3], _GENERIC[1][:3], _GENERIC[2][:1], _GENERIC[3][:1], 0.01), None),
}
#: the default tier keeps one case that reaches the refined, tail and band branches at once; the others
#: (an mpmath network reference each, 2-4 s) run in the slow tier
SLOW = set(CASES) - {"rule_band"}


@functools.lru_cache(maxsize=None)
def _reference(name):
    W, a, X, y, kappa = CASES[name][0]
    loss = float(rn.expected_loss(W, a, X, y, kappa, dps=30))
    grad = np.array([[float(g) for g in row] for row in rn.expected_grad(W, a, X, y, kappa, dps=30)])
    return loss, grad


def _kernel(W, a, X, y, kappa, threads=1):
    """(loss, grad, stats) by the kernel directly (the counts of the branches it took)."""
    t = {k: torch.as_tensor(np.asarray(v, dtype=np.float64)) for k, v in dict(W=W, a=a, X=X, y=y).items()}
    st = {}
    Ef, Ef2, grad = pk.moments(t["W"], t["a"], t["X"], t["y"], float(kappa), want_grad=True, threads=threads,
                               p_atol=nw._P_ATOL, rho_refine=nw._RHO_REFINE, a_clamp=nw._A_CLAMP, stats=st)
    loss = float(nw._loss_from(torch.from_numpy(Ef), torch.from_numpy(Ef2), t["y"]))
    return loss, grad, st


def _normwise(net, loss, grad, ref):
    W, a, X, y, kappa = net
    ls, gs = nw.term_sizes(W, X, y, kappa)
    return abs(loss - ref[0]) / ls, float(np.abs(grad - ref[1]).max()) / gs


@pytest.mark.statement("net.expected_loss")
@pytest.mark.statement("net.expected_grad")
@pytest.mark.parametrize("name", [pytest.param(k, marks=[pytest.mark.slow] if k in SLOW else []) for k in CASES])
def test_kernel_branches_against_mpmath(name, record):
    """Each branch of the pair kernel, counted, within the stated contract of mpmath's raw integrals;
    the public entry points take the kernel (CPU, float64) and agree with it bit for bit."""
    net, branch = CASES[name]
    loss, grad, st = _kernel(*net)
    if branch is not None:
        assert st[branch] >= 1, f"{name}: no pair took the {branch} branch ({st})"
    assert nw._kernel_serves(torch.as_tensor(net[0]))
    pub = nw.expected_loss_and_grad(*net)
    assert pub[0] == loss and np.array_equal(pub[1], grad)
    el, eg = _normwise(net, loss, grad, _reference(name))
    err = max(el, eg)
    record(error=err, digits=digits(err), detail=f"{name}: normwise loss {el:.1e}, grad {eg:.1e}; {st}")
    assert err <= CONTRACT.rtol, f"{name}: normwise error loss {el:.2e}, grad {eg:.2e} > {CONTRACT}"


@pytest.mark.statement("net.expected_loss")
@pytest.mark.statement("net.expected_grad")
def test_kernel_deferred_general_path_against_mpmath(monkeypatch, record):
    """``bvn._FAST_P = False``: every pair is deferred to the batched ``bvn_cdf`` general path after the
    sweep and its terms added by ``_finish``; still within the contract of mpmath."""
    monkeypatch.setattr(bvn, "_FAST_P", False)
    net = CASES["rule_band"][0]
    loss, grad, st = _kernel(*net)
    assert st["deferred"] == st["pairs"] and st["general"] >= 1
    el, eg = _normwise(net, loss, grad, _reference("rule_band"))
    record(error=max(el, eg), detail=f"all {st['pairs']} pairs deferred: loss {el:.1e}, grad {eg:.1e}")
    assert max(el, eg) <= CONTRACT.rtol


def _random_net(n, m, d, kappa, seed):
    g = np.random.default_rng(seed)
    X = g.standard_normal((n, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    W = g.standard_normal((m, d))
    W[1] = W[0] * (1 + 1e-9)  # a parallel pair
    W[2] = -0.5 * W[3]  # an antiparallel pair
    return W, np.where(g.random(m) < 0.5, -1.0, 1.0), X, g.standard_normal(n), kappa


@pytest.mark.statement("net.expected_loss")
@pytest.mark.statement("net.expected_grad")
@pytest.mark.parametrize("kappa", [1e-3, 0.2, 1e2])
def test_kernel_matches_tensor_formulation_and_threads(kappa, monkeypatch, record):
    """The kernel against the tensor formulation (``_PAIR_KERNEL = False``) normwise, and its thread
    counts 1 and 2 bit for bit (n = 40 samples: two parts)."""
    net = _random_net(40, 12, 5, kappa, seed=int(kappa * 1000) + 1)
    one = _kernel(*net, threads=1)
    two = _kernel(*net, threads=2)
    assert one[0] == two[0] and np.array_equal(one[1], two[1]), "thread count changed the result"
    monkeypatch.setattr(nw, "_PAIR_KERNEL", False)
    ref = nw.expected_loss_and_grad(*net)
    el, eg = _normwise(net, one[0], one[1], ref)
    record(error=max(el, eg), detail=f"kappa {kappa:g}: kernel vs tensors loss {el:.1e}, grad {eg:.1e}; {one[2]}")
    assert max(el, eg) <= TWINS.rtol, f"kernel vs tensor formulation: {el:.2e}, {eg:.2e} > {TWINS}"


@pytest.mark.statement("net.expected_grad")
def test_kernel_contract_is_tight_on_tail_rows(record):
    """``network.ATOL``'s network (``test_s4_network_reference.ATOL_NET``: a pair on the tail route,
    a pair just past its edge): the gradient rows of the neurons almost surely off, where P's absolute
    error shows, are within their rounding plus P's share of this witness's copy of the contract
    (CONTRACT 2^-14 where a tail or the band lets the pass use it, else relative=False's 1e-14
    Phi Phi) times P's coefficients.  A pass whose contract is loosened 16x asks P for 2^-56 and the
    pair past the edge takes the tail route, 4.2 of the stated 2^-60 off: this fails."""
    W, a, X, y, kappa = netref.ATOL_NET
    loss, grad, st = _kernel(W, a, X, y, kappa)
    assert st["atol"] >= 1, st
    ref = netref._atol_net_reference()
    assert netref.P_ATOL == CONTRACT.rtol * P_SHARE  # the two witnesses' copies agree
    allowed = netref.TAIL_ROUND.rtol * np.abs(ref) + netref._p_budget(W, X, kappa)
    ratio = max(float((np.abs(grad[r] - ref[r]) / allowed[r]).max()) for r in (0, 2))
    record(ratio=ratio, detail=f"{st}; worst tail-row error / allowed {ratio:.3g}")
    assert ratio <= 1, f"tail rows: error / (rounding + P's share of the contract) = {ratio:.3g}"
    assert np.abs(grad - ref).max() <= CONTRACT.rtol * nw.term_sizes(W, X, y, kappa)[1]
    assert nw.CONTRACT <= CONTRACT.rtol, f"the pass states a looser contract ({nw.CONTRACT:.3g}) than {CONTRACT}"


# ------------------------------------------------------------- bvn_cdf's window for the rule's band
#: (family, h, k, rho, atol, Phi2 by mpmath at 30 digits): both sides of the band's edges --
#: max|h, k| across _FP_HMAX2 = 8 (rho > 0, and rho < 0 with the peak inside [-1, rho]) and across
#: _FP_HMAX_ATOL = 10 (at atol = 1e-30: at 2^-60 every row past 8.77 is pinned by a tail first), the
#: range across _FP_DF2 = 40 at max|h, k| = 8.5 (rho = t40 -+ 0.01, 0.001, t40 = 0.74159839...) --
#: frozen here; ``test_band_edge_table_is_the_raw_definition`` (slow) recomputes them
BAND_EDGES = [
    ("max|h,k| across 8", -7.9, -0.3, 0.65, 2.0**-60, 1.394517146577535e-15),
    ("max|h,k| across 8", -7.99, -0.3, 0.65, 2.0**-60, 6.746937686514788e-16),
    ("max|h,k| across 8", -8.01, -0.3, 0.65, 2.0**-60, 5.735422180076752e-16),
    ("max|h,k| across 8", -8.1, -0.3, 0.65, 2.0**-60, 2.7479593923461445e-16),
    ("max|h,k| across 8, rho < 0", 7.9, -7.0, -0.75, 2.0**-60, 1.2797140974842832e-12),
    ("max|h,k| across 8, rho < 0", 7.99, -7.0, -0.75, 2.0**-60, 1.2797552004524596e-12),
    ("max|h,k| across 8, rho < 0", 8.01, -7.0, -0.75, 2.0**-60, 1.2797618006600413e-12),
    ("max|h,k| across 8, rho < 0", 8.1, -7.0, -0.75, 2.0**-60, 1.2797835602350953e-12),
    ("max|h,k| across 10 (atol 1e-30)", -9.9, -0.3, 0.6, 1e-30, 2.0813752194919963e-23),
    ("max|h,k| across 10 (atol 1e-30)", -9.99, -0.3, 0.6, 1e-30, 8.429087200440063e-24),
    ("max|h,k| across 10 (atol 1e-30)", -10.01, -0.3, 0.6, 1e-30, 6.887627051420015e-24),
    ("max|h,k| across 10 (atol 1e-30)", -10.1, -0.3, 0.6, 1e-30, 2.7621094717639766e-24),
    ("range across 40 at 8.5", -8.5, -0.3, 0.7315983920774842, 2.0**-60, 9.479534822203318e-18),
    ("range across 40 at 8.5", -8.5, -0.3, 0.7405983920774842, 2.0**-60, 9.479534822203318e-18),
    ("range across 40 at 8.5", -8.5, -0.3, 0.7425983920774842, 2.0**-60, 9.479534822203318e-18),
    ("range across 40 at 8.5", -8.5, -0.3, 0.7515983920774842, 2.0**-60, 9.479534822203318e-18),
]
#: the band's rows are far inside atol: the rule's own error there beyond 8 eps of the value is
#: ~1e-13 of a bound <= 3.2e-15 (module docstring of bvn, ``_FP_ATOL_REL``); 1e-6 atol is a margin
BAND_TIGHT = Tol(rtol=8 * EPS, atol=1e-6, why="the rule in its band: 8 eps of max(Phi2, Phi Phi) plus 1e-6 atol")


def _band_route(h, k, r, atol):
    """Which rows ``bvn._band_within_atol`` takes (after the fast paths and the tail route)."""
    res = {"P": torch.zeros_like(h)}
    interior = torch.ones_like(h, dtype=torch.bool)
    done = bvn._fast_paths(h, k, r, interior, res, False)
    if done is not None:
        interior &= ~done
    done = bvn._within_atol(h, k, interior, res, atol)
    if done is not None:
        interior &= ~done
    band = bvn._band_within_atol(h, k, r, interior, res, atol)
    return bool(band is not None and bool(band.any()))


def _kernel_row(h, k, r, atol):
    """P as the pair kernel's sweep forms it: fast path, tail route, band (compiled rows), else the
    deferred bvn_cdf call."""
    rules = [z for xw in bvn._compiled_rules() for z in xw]
    prm = bc.parameters(bvn)
    buf = np.empty(64)
    ph, pk_ = (float(nm.cdf(torch.tensor(v, dtype=torch.float64))) for v in (h, k))
    nan = float("nan")
    v, ok = bc.phi2_row(h, k, r, ph, pk_, nan, nan, False, prm, *rules, buf)
    if not ok:
        v, ok = bc.phi2_within_atol(h, k, ph, pk_, atol, bvn._ABS_SCREEN, prm[bc._CLAMP])
    if not ok:
        v, ok = bc.phi2_band_within_atol(h, k, r, ph, pk_, nan, nan, atol, prm, *rules[:8], buf)
    if not ok:
        v = float(bvn.bvn_cdf(*(torch.tensor([x], dtype=torch.float64) for x in (h, k, r)), relative=False,
                              atol=atol)[0])
    return v


@pytest.mark.statement("net.expected_grad")
@pytest.mark.parametrize("formulation", ["compiled", "tensor", "masked", "kernel_row"])
def test_band_window_edges_every_formulation(formulation, monkeypatch, record):
    """Both sides of every edge of the band window, in each formulation of ``bvn_cdf(relative=False,
    atol)`` and the pair kernel's compiled rows: within atol plus 1e-14 of max(Phi2, Phi Phi) (the
    fast rules' relative=False contract) of mpmath, the band's own rows within ``BAND_TIGHT``; the band
    takes the rows on the inner side of every edge and none on the outer side."""
    monkeypatch.setattr(bvn, "_COMPILED", formulation != "tensor")
    monkeypatch.setattr(bvn, "_MASKED", formulation == "masked")
    worst, taken = (0.0, None), 0
    for fam, h, k, r, atol, ref in BAND_EDGES:
        t = [torch.tensor([x], dtype=torch.float64) for x in (h, k, r)]
        inner = bvn._FP_HMAX2 < max(abs(h), abs(k)) <= bvn._FP_HMAX_ATOL and not (fam.startswith("range") and r > 0.7416)
        band = _band_route(*t, atol)
        assert band == inner, f"{fam} at {(h, k, r)}: band route {band}, expected {inner}"
        taken += band
        got = _kernel_row(h, k, r, atol) if formulation == "kernel_row" else float(
            bvn.bvn_cdf(*t, relative=False, atol=atol)[0])
        base = float(nm.cdf(t[0])[0] * nm.cdf(t[1])[0])
        err = abs(got - ref)
        ratio = err / (atol + 1e-14 * max(ref, base))
        worst = max(worst, (ratio, (fam, h, k, r, got, ref)), key=lambda w: w[0])
        if band:
            assert err <= BAND_TIGHT.rtol * max(ref, base) + BAND_TIGHT.atol * atol, (fam, h, k, r, got, ref)
    record(ratio=worst[0], detail=f"{formulation}: {taken} band rows of {len(BAND_EDGES)}; worst {worst[0]:.2g} "
                                  f"of allowed at {worst[1]}")
    assert worst[0] <= 1, f"{formulation}: {worst[0]:.3g} x allowed at {worst[1]}"


@pytest.mark.slow
def test_band_edge_table_is_the_raw_definition():
    """The frozen references of ``BAND_EDGES`` are mpmath's raw definition (``numerics.core.reference``)."""
    for fam, h, k, r, _, ref in BAND_EDGES:
        exact = core_ref.bvn_cdf(h, k, r, dps=30)
        assert abs(ref - float(exact)) <= 2 * EPS * float(exact), (fam, h, k, r)
