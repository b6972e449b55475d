"""The sync-free formulation of ``bvn_cdf``'s fast paths (``bvn._fast_paths_masked``), which
CUDA tensors take: every rule on every row, picked by masks, no host synchronisation.

Run here on the CPU (``bvn._MASKED = True``) against the routed tensor formulation (which
computes each rule only on its rows); ``tests/test_gpu.py`` and the ``gpu`` test of
``test_bvn_kernels.py`` run it on a device.
"""
from __future__ import annotations

import numpy as np
import pytest
import torch

from numerics.core import bvn
from numerics.core import normal as nm

from test_bvn_kernels import fast_path_mix, interior as _interior

EPS = float(np.finfo(np.float64).eps)


def _points():
    return fast_path_mix(60000, 13, 6000, 7)


@pytest.mark.parametrize("relative", [True, False])
def test_masked_fast_paths_match_the_routed_ones(relative, monkeypatch):
    """Same rows done and the same values but for the order of the node sums: a sum of at
    most 48 positive terms computed in two orders differs by at most 2 * 47 eps relatively
    (as ``test_chunk_size_changes_nothing_but_summation_order``); and whole ``bvn_cdf``
    calls, general path included, agree to the same bound."""
    monkeypatch.setattr(bvn, "_COMPILED", False)
    h, k, rho = _points()
    n = h.numel()
    out = {}
    for masked in (False, True):
        monkeypatch.setattr(bvn, "_MASKED", masked)
        res = {"P": torch.zeros(n, dtype=torch.float64)}
        done = bvn._fast_paths(h, k, rho, _interior(h, k, rho), res, relative)
        out[masked] = (res["P"], done, bvn.bvn_cdf(h, k, rho, relative=relative))
    (pr, dr, wr), (pm, dm, wm) = out[False], out[True]
    assert int(dr.sum()) > 40000
    assert torch.equal(dr, dm)
    tol = 2 * 47 * EPS
    for a, b in ((pr[dr], pm[dm]), (wr, wm)):
        assert torch.equal(a == 0, b == 0)
        nz = a != 0
        err = ((a[nz] - b[nz]) / a[nz]).abs().max().item()
        assert err <= tol, err


def test_masked_fast_paths_never_synchronise(monkeypatch):
    """No ``nonzero``, ``.item()``, ``bool()`` or ``.tolist()`` on a tensor inside the masked
    fast paths (each is a host synchronisation on a device): the calls are counted while
    ``bvn._fast_paths`` runs with ``_MASKED`` and must be none."""
    monkeypatch.setattr(bvn, "_COMPILED", False)
    monkeypatch.setattr(bvn, "_MASKED", True)
    h, k, rho = (x[:20000] for x in _points())
    calls = []

    def counting(name, fn):
        def wrapped(*args, **kwargs):
            calls.append(name)
            return fn(*args, **kwargs)
        return wrapped

    for owner, name in ((torch, "nonzero"), (torch.Tensor, "nonzero"), (torch.Tensor, "item"),
                        (torch.Tensor, "__bool__"), (torch.Tensor, "tolist"), (torch, "argwhere")):
        monkeypatch.setattr(owner, name, counting(name, getattr(owner, name)))
    res = {"P": torch.zeros(h.numel(), dtype=torch.float64)}
    done = bvn._fast_paths(h, k, rho, _interior(h, k, rho), res)
    monkeypatch.undo()
    assert calls == []
    assert int(done.sum()) > 10000  # and it did the work


def test_masked_interval_prob_is_the_routed_one():
    """``normal.interval_prob(..., masked=True)`` evaluates the short-interval rule on every
    element and picks it by mask: the same arithmetic on the same elements, so bit for bit
    the same values, on short, long, tail, empty and infinite intervals."""
    rng = np.random.default_rng(2)
    a = rng.uniform(-40, 40, 20000)
    b = a + np.where(rng.random(20000) < 0.5, 10 ** rng.uniform(-14, 0.5, 20000), rng.uniform(-5, 30, 20000))
    a[:50], b[50:100] = -np.inf, np.inf
    ta, tb = torch.from_numpy(a), torch.from_numpy(b)
    assert torch.equal(nm.interval_prob(ta, tb, masked=True), nm.interval_prob(ta, tb))
