"""The Phi2 arguments of the papers' own workload (benchmark input sets, not a test).

Fig. 3(a)'s exact pass (``numerics.masking.network.expected_loss`` and ``expected_grad``, one
pass over every pair of neurons for each sample) calls ``bvn.bvn_cdf`` on (a_ir, a_ir', rho)
for all n m (m - 1)/2 pairs, with ``relative=False``, and again, with the exact q, on the
pairs with |rho| > 0.9.  :func:`harvest` records those calls at W_0 of
``numerics.masking.training.problem`` for the default ``Config`` (n = 500, d = 20, m = 100,
the first init) and a given kappa: the same data, init and geometry as
``maskverify train``.  The calls are recorded, not evaluated (the recorder returns zeros: the
arguments depend only on W, X and kappa), so a set costs the pass's geometry only.

Reproducible from the code alone: no file needs to be kept.  ``--out DIR`` writes each set
as ``DIR/w0_kappa<k>.npz`` (arrays h, k, rho and ``q``, NaN where the call had none), e.g.
``python bench/workload_bvn.py --kappa 0.2 2 --out /tmp/workload``.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import sys

import numpy as np
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from numerics.core import bvn  # noqa: E402


@contextlib.contextmanager
def recording():
    """Inside, ``bvn.bvn_cdf`` records its arguments in the yielded list (one dict per call:
    h, k, rho, q or None, relative) and returns zeros."""
    calls, real = [], bvn.bvn_cdf

    def record(h, k, rho, *, relative=True, q=None, **kw):
        assert not kw, kw
        calls.append(dict(h=h.detach().reshape(-1).clone(), k=k.detach().reshape(-1).clone(),
                          rho=rho.detach().reshape(-1).clone(),
                          q=None if q is None else q.detach().reshape(-1).clone(), relative=relative))
        return torch.zeros_like(h)

    bvn.bvn_cdf = record
    try:
        yield calls
    finally:
        bvn.bvn_cdf = real


def harvest(kappa: float, step: int = 0) -> dict:
    """The workload set at W_0 (``step`` 0, the only one so far) of the default ``Config``:
    dict of numpy arrays h, k, rho, q (NaN where the call passed none) and ``relative``
    (bool per point, the call's mode), in call order."""
    from numerics.masking import network, training

    if step != 0:
        raise ValueError("only W_0 (step 0) is harvested")
    cfg = training.Config()
    pb = training.problem(cfg)
    W, a = pb.W0[0, 0], pb.a[0, 0]
    with recording() as calls:
        network.expected_loss(W, a, pb.X, pb.y, float(kappa))
    cat = lambda key: torch.cat([c[key] for c in calls]).numpy()  # noqa: E731
    q = np.concatenate([np.full(c["h"].numel(), np.nan) if c["q"] is None else c["q"].numpy()
                        for c in calls])
    rel = np.concatenate([np.full(c["h"].numel(), bool(c["relative"])) for c in calls])
    return dict(h=cat("h"), k=cat("k"), rho=cat("rho"), q=q, relative=rel)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kappa", type=float, nargs="+", default=[0.2, 2.0], help="kappas of Fig. 3(a)")
    ap.add_argument("--out", required=True, help="directory for the .npz files")
    args = ap.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    for kap in args.kappa:
        s = harvest(kap)
        path = os.path.join(args.out, f"w0_kappa{kap:g}.npz")
        np.savez(path, **s)
        print(f"{path}: {s['h'].size:,} points ({int(np.isfinite(s['q']).sum()):,} with q)")


if __name__ == "__main__":
    main()
