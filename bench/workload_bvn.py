"""The Phi2 arguments of the papers' own workload (benchmark input sets, not a test).

Fig. 3(a)'s exact pass (``numerics.masking.network.expected_loss`` and ``expected_grad``, one
pass over every pair of neurons for each sample) calls ``bvn.bvn_cdf`` on (a_ir, a_ir', rho)
for all n m (m - 1)/2 pairs, with ``relative=False``, and again, with the exact q, on the
pairs with |rho| > 0.9.  :func:`record_pass` records those calls for given (W, a, X, y, kappa);
the calls are recorded, not evaluated (the recorder returns zeros: the arguments depend only
on W, X and kappa), so a set costs the pass's geometry only (~3 s at Fig. 3(a)'s size).

:func:`harvest` takes them at the W that Fig. 3(a)'s training reaches: the default ``Config`` of
``numerics.masking.training`` (n = 500, d = 20, m = 100, eta = 0.005, the first init), W_0 for
``step`` 0 and otherwise W after ``step`` steps of masked gradient descent, eq. (1), of mask
seed 0 (``MaskedGD``: the same trajectory as seed 0 of ``maskverify train``; 2000 steps take ~4 s
on one core).  2,475,000 pairs per set plus the refined ones (665 at W_0, kappa = 0.2).

Set names: ``w<step>k<kappa>`` (``w0k0.2``, ``w500k0.2``, ``w2000k2``; :func:`parse_set`);
``FIG3A_SETS`` lists Fig. 3(a)'s kappas > 0 at steps 0, 500 and 2000.  Reproducible from the code
alone: no file needs to be kept.  ``--out DIR`` writes each set as ``DIR/w<step>_kappa<k>.npz``
(arrays h, k, rho and ``q``, NaN where the call had none, ``relative`` and ``atol``), e.g.
``python bench/workload_bvn.py --kappa 0.2 2 --steps 0 2000 --out /tmp/workload``.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import re
import sys
from dataclasses import replace

import numpy as np
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from numerics.core import bvn  # noqa: E402
from numerics.masking import network, training  # noqa: E402

#: Fig. 3(a)'s kappas with a mask (kappa = 0 has no Phi2 work: every pair is degenerate)
FIG3A_KAPPAS = tuple(k for k in training.FIG3A["kappas"] if k > 0)
#: the points of the training trajectory harvested: W_0, and W after 500 and 2000 masked steps
FIG3A_STEPS = (0, 500, 2000)
_NAME = re.compile(r"^w(?P<step>[0-9]+)k(?P<kappa>[0-9.eE+-]+)$")


def set_name(step: int, kappa: float) -> str:
    """The name of the set at ``step`` and ``kappa`` (inverse of :func:`parse_set`)."""
    return f"w{int(step)}k{kappa:g}"


FIG3A_SETS = tuple(set_name(s, k) for s in FIG3A_STEPS for k in FIG3A_KAPPAS)


def parse_set(name: str):
    """(step, kappa) of a set name ``w<step>k<kappa>`` with kappa > 0, or None."""
    m = _NAME.match(name)
    if not m:
        return None
    try:
        kappa = float(m.group("kappa"))
    except ValueError:
        return None
    return (int(m.group("step")), kappa) if kappa > 0 and np.isfinite(kappa) else None


@contextlib.contextmanager
def recording():
    """Inside, ``bvn.bvn_cdf`` records its arguments in the yielded list (one dict per call:
    h, k, rho, q or None, relative, atol) and returns zeros."""
    calls, real = [], bvn.bvn_cdf

    def record(h, k, rho, *, relative=True, q=None, atol=0.0, **kw):
        assert not kw, kw
        calls.append(dict(h=h.detach().reshape(-1).clone(), k=k.detach().reshape(-1).clone(),
                          rho=rho.detach().reshape(-1).clone(),
                          q=None if q is None else q.detach().reshape(-1).clone(), relative=relative,
                          atol=float(atol)))
        return torch.zeros_like(h)

    bvn.bvn_cdf = record
    try:
        yield calls
    finally:
        bvn.bvn_cdf = real


def record_pass(W, a, X, y, kappa) -> dict:
    """Every ``bvn_cdf`` call of one exact pass at (W, a, X, y, kappa): dict of numpy arrays h, k,
    rho, q (NaN where the call passed none), ``relative`` and ``atol`` (per point, the call's mode)
    and ``sizes`` (points per call), in call order.  The pass's tensor formulation is recorded
    (``network._PAIR_KERNEL`` off): it calls ``bvn_cdf`` on every pair, the compiled pair kernel
    evaluates the same arguments row by row inside its sweep."""
    kernel, network._PAIR_KERNEL = network._PAIR_KERNEL, False
    try:
        with recording() as calls:
            network.expected_loss(W, a, X, y, float(kappa))
    finally:
        network._PAIR_KERNEL = kernel
    cat = lambda key: torch.cat([c[key] for c in calls]).numpy()  # noqa: E731
    q = np.concatenate([np.full(c["h"].numel(), np.nan) if c["q"] is None else c["q"].numpy()
                        for c in calls])
    rel = np.concatenate([np.full(c["h"].numel(), bool(c["relative"])) for c in calls])
    atol = np.concatenate([np.full(c["h"].numel(), c["atol"]) for c in calls])
    return dict(h=cat("h"), k=cat("k"), rho=cat("rho"), q=q, relative=rel, atol=atol,
                sizes=np.array([c["h"].numel() for c in calls]))


def random_network(n: int = 500, d: int = 20, m: int = 100, seed: int = 0):
    """(W, a, X, y) of the benchmarks' random network at Fig. 3(a)'s size: w ~ N(0, I), unit-norm
    x (Assumption 3.1), a uniform +-1, y ~ N(0, 1), float64, from one seeded generator."""
    g = torch.Generator().manual_seed(seed)
    W = torch.randn(m, d, generator=g, dtype=torch.float64)
    X = torch.randn(n, d, generator=g, dtype=torch.float64)
    X /= X.norm(dim=1, keepdim=True)
    a = torch.where(torch.rand(m, generator=g) < 0.5, -1.0, 1.0).to(torch.float64)
    y = torch.randn(n, generator=g, dtype=torch.float64)
    return W, a, X, y


def trajectory(kappa: float, steps=FIG3A_STEPS):
    """{step: W} along seed 0's masked gradient descent, eq. (1), of the default ``Config`` at
    ``kappa`` (W_0 at step 0), and the problem (X, y, a).  ValueError if the run diverges."""
    cfg = replace(training.Config(), kappas=(float(kappa),))
    run = training.MaskedGD(cfg, seeds=[0])
    out = {}
    for s in sorted(set(int(s) for s in steps)):
        run.advance(s - run.step)
        if run.diverged_at[0, 0] >= 0:
            raise ValueError(f"kappa = {kappa:g}: masked GD diverged at step {run.diverged_at[0, 0]}")
        out[s] = run.W[0, 0].clone()
    return out, (run.X, run.y, run.a[0, 0])


def harvest(kappa: float, step: int = 0) -> dict:
    """The workload set ``w<step>k<kappa>`` (module docstring): :func:`record_pass` at W after
    ``step`` masked steps of the default ``Config`` (W_0 for step 0)."""
    Ws, (X, y, a) = trajectory(kappa, [step])
    return record_pass(Ws[step], a, X, y, kappa)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kappa", type=float, nargs="+", default=list(FIG3A_KAPPAS),
                    help="kappas (default: Fig. 3(a)'s, %s)" % " ".join(f"{k:g}" for k in FIG3A_KAPPAS))
    ap.add_argument("--steps", type=int, nargs="+", default=list(FIG3A_STEPS),
                    help="masked GD steps before the harvest (default 0 500 2000)")
    ap.add_argument("--out", required=True, help="directory for the .npz files")
    args = ap.parse_args(argv)
    if min(args.kappa) <= 0 or min(args.steps) < 0:
        ap.error("every kappa must be > 0 and every step >= 0")
    os.makedirs(args.out, exist_ok=True)
    for kap in args.kappa:
        Ws, (X, y, a) = trajectory(kap, args.steps)
        for step, W in Ws.items():
            s = record_pass(W, a, X, y, kap)
            path = os.path.join(args.out, f"w{step}_kappa{kap:g}.npz")
            np.savez(path, **s)
            print(f"{path}: {s['h'].size:,} points ({int(np.isfinite(s['q']).sum()):,} with q)", flush=True)


if __name__ == "__main__":
    main()
