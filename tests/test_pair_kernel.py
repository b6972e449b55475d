"""The compiled pair kernel of the exact network pass (``numerics.masking.pair_kernel``): its cache
soundness, its routing in ``network``, and its pieces against their tensor twins.  The witnesses of
its accuracy (mpmath, every branch, thread counts) are ``verify/masking/test_s4_network_kernel.py``."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from numerics.core import closed_form as cf
from numerics.core.tolerance import Tol
from numerics.masking import network as nw
from numerics.masking import pair_kernel as pk


def test_recorded_digests_are_current():
    """The cached code inlines ``bvn_compiled``'s and ``vmath``'s functions; numba's cache tracks only
    this file, so a change there must update ``_DEPENDS`` (which edits this file, a new cache)."""
    assert pk._digests() == pk._DEPENDS, ("numerics/core/bvn_compiled.py or vmath.py changed: update "
                                          f"pair_kernel._DEPENDS to {pk._digests()}")


U = 2.0**-53
#: rho = u.v/sqrt(|u|^2 |v|^2) of 7 terms summed in two orders: |drho| <= 2 (7 + 3) u sum|u_i v_i|/(|u| |v|)
#: <= 20 u (Cauchy-Schwarz); measured <= 4 u over 200 seeds and scales 1e-12..1
RHO = Tol(rtol=0.0, atol=20 * U, why="two summation orders of a 7-term dot product, normalised (Cauchy-Schwarz)")
#: q from Lagrange's identity, 21 squared minors (each from error-free products, a few ulps) over |u|^2 |v|^2,
#: then sqrt: relative (21 + 7 + 4) u / 2 per formulation, two of them; measured <= 5.3 u
Q = Tol(rtol=32 * U, why="two orders of the sum of 21 squared exact-product minors, halved by sqrt")
#: 1^T e2: e2 = (sum_j u_j m_ji) normalised, each component to (7 + 4) u relative to |u| |m|, then summed:
#: |d 1^T e2| <= 2 (11 + 7) u sum_i |e2_i|; measured <= 4.1 u of sum |e2_i|
SUMS = Tol(rtol=36 * U, why="two orders of 7-term sums forming a unit vector, then its 7-term sum, per |e2|_1")


def test_plane_matches_closed_form():
    """The compiled ``_plane`` against ``closed_form._plane`` (same formulas, other summation orders), from
    nearly parallel (1e-9) to generic pairs: each output within its rounding bound (the constants above)."""
    rng = np.random.default_rng(3)
    for scale in (1e-12, 1e-9, 1e-5, 0.3, 1.0):
        u = rng.standard_normal(7)
        v = u + scale * rng.standard_normal(7)
        u, v = u / np.linalg.norm(u), v / np.linalg.norm(v)
        rho, q, se2, sf2 = pk._plane(u, v, np.empty(7), np.empty(7))
        rt, qt, e2, f2 = cf._plane(torch.from_numpy(u), torch.from_numpy(v))
        assert abs(rho - float(rt)) <= RHO.bound(1.0), RHO
        assert abs(q - float(qt)) <= Q.bound(float(qt)), Q
        assert abs(se2 - float(e2.sum())) <= SUMS.bound(float(e2.abs().sum())), SUMS
        assert abs(sf2 - float(f2.sum())) <= SUMS.bound(float(f2.abs().sum())), SUMS


def test_routing_and_switch(monkeypatch):
    """CPU float64 passes take the kernel; ``_PAIR_KERNEL = False`` or bvn's tensor formulation the
    tensors; both agree to a few eps normwise, and bad ``threads`` is a clear error."""
    rng = np.random.default_rng(0)
    W, X = rng.standard_normal((6, 3)), rng.standard_normal((5, 3))
    a, y = np.array([1.0, -1, 1, -1, 1, 1]), rng.standard_normal(5)
    assert nw._kernel_serves(torch.as_tensor(W))
    got = nw.expected_loss_and_grad(W, a, X, y, 0.3)
    monkeypatch.setattr(nw, "_PAIR_KERNEL", False)
    assert not nw._kernel_serves(torch.as_tensor(W))
    ref = nw.expected_loss_and_grad(W, a, X, y, 0.3)
    ls, gs = nw.term_sizes(W, X, y, 0.3)
    assert abs(got[0] - ref[0]) <= 8 * 2.0**-52 * ls
    assert np.abs(got[1] - ref[1]).max() <= 8 * 2.0**-52 * gs
    monkeypatch.setattr(nw, "_PAIR_KERNEL", True)
    with pytest.raises(ValueError, match="threads must be >= 1"):
        nw.expected_loss(W, a, X, y, 0.3, threads=0)


def test_any_split_gives_the_same_bits():
    """Each sample's sums are formed by one thread in a fixed order, the deferred pairs and the sums over
    samples in sample order: 1, 2, 3 and 5 threads (uneven splits) give the same bits."""
    rng = np.random.default_rng(4)
    W, X = rng.standard_normal((9, 4)), rng.standard_normal((43, 4))
    W[1] = W[0] * (1 + 1e-10)  # a refined (deferred) pair in every sample
    a, y = np.where(rng.random(9) < 0.5, -1.0, 1.0), rng.standard_normal(43)
    ref = nw.expected_loss_and_grad(W, a, X, y, 0.15, threads=1)
    for threads in (2, 3, 5):
        got = nw.expected_loss_and_grad(W, a, X, y, 0.15, threads=threads)
        assert got[0] == ref[0] and np.array_equal(got[1], ref[1]), threads


@pytest.mark.parametrize("relative", [True, False])
def test_row_function_is_the_loop_row_for_row(relative):
    """``bvn_compiled.phi2_row`` (what the pair kernel calls) and the loop of ``bvn_compiled._fast_paths``
    (bvn_cdf's vectorised entry, written out for speed) route and value every row alike, bit for bit."""
    from numerics.core import bvn
    from numerics.core import bvn_compiled as bc

    g = np.random.default_rng(8)
    n = 3000
    h = np.concatenate([g.normal(0, 3, n), -g.uniform(7, 12, n)])
    k = np.concatenate([g.normal(0, 3, n), g.normal(0, 4, n)])
    r = np.concatenate([np.tanh(1.5 * g.standard_normal(n)), g.uniform(-0.99, 0.99, n)])
    inter = np.ones(h.size, bool)
    rules = bvn._compiled_rules()
    prm = bc.parameters(bvn)
    P, done = bc.fast_paths(h, k, r, inter, relative, prm, rules, 1)
    flat = [z for xw in rules for z in xw]
    buf = np.empty(64)
    nan = float("nan")
    for i in range(h.size):
        v, ok = bc.phi2_row(h[i], k[i], r[i], nan, nan, nan, nan, relative, prm, *flat, buf)
        assert ok == done[i] and (v == P[i] or not ok), (h[i], k[i], r[i], v, P[i])
