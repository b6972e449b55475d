"""What fewer Gauss-Legendre nodes in P would save the exact pass (issue 33 item 3; not a test).

The compiled pair kernel (``numerics.masking.pair_kernel``) takes P = Phi_2(a_1, a_2; rho) of its swept
pairs (|rho| <= ``network._RHO_REFINE`` = 0.9) from ``bvn_compiled.phi2_row``: Phi(a_1) Phi(a_2) plus
Plackett's integral

    (1/2pi) int_0^{asin rho} exp(-(h^2 - 2 h k sin t + k^2) / (2 cos^2 t)) dt

by an n-node Gauss-Legendre rule in t, n = 16 where |rho| <= ``bvn._FP_RHO_SMALL`` (0.7) and the
exponent's range <= ``bvn._FP_DF_SMALL`` (5), else 24: counts calibrated for ``bvn_cdf``'s RELATIVE
accuracy.  The pass needs only an ABSOLUTE error of a few eps per pair (its contract, 64 eps normwise),
so this asks whether an absolute-accuracy tier with fewer nodes is worth building:

  (a) the rule's absolute error, max over h, k on a grid (``--grid`` points per axis over [-9, 9]: the
      rule serves max(|h|, |k|) <= 10, and beyond 9 the integral itself is below (asin 0.9/2pi)
      e^{-81/2} < 1e-18, so its error is too) for each |rho| of 0.05, 0.10, ..., 0.90 (the error at
      (h, k, -rho) is the error at (h, -k, rho), and the grid is symmetric in k) and n in ``--nodes``:
      scanned in float64 against a 200-node rule (converged to rounding: the integrand is analytic on
      the interval), and the largest error per (|rho|, n) recomputed at its argmax against the
      raw-definition mpmath reference (``numerics.core.reference.bvn_cdf`` minus Phi(h) Phi(k) in
      mpmath): that column is the witness, the scan only finds where to look (where the scan's maximum
      is the rounding of float64, ~0.1-0.9 eps, its argmax is any point and both columns only say that
      the error is far below the budget; where it is the rule's truncation, the argmax is the worst
      point).  From it the largest |rho| up to which n nodes keep the error within ``--budget`` eps
      (default 4 = ``network.CONTRACT`` 2^-4);
  (b) the pass at n = 500, d = 20, m = 100 on a random W (unit-norm x, w ~ N(0, I), y ~ N(0, 1), seed 0)
      for each kappa of ``--kappas``, on one thread, CPU seconds (best of ``--repeat``, the three
      configurations interleaved), with the kernel's own tables (``bvn._compiled_rules()``, which the
      kernel takes as data at each call) and with two substitutes: an emulated tier (8 nodes where
      |rho| <= the 8-node edge of (a), any range, 16 up to 0.9 -- optimistic: where (a) says 16 nodes
      miss the budget below 0.9 a real tier would need a third band) and 1-node rules (the node
      loop's cost all but removed: the bound on what any tier could save).  ``bvn``'s thresholds are
      set for the call and restored.

The node counts worth trying are multiples of 8: on this machine (AVX-512) the node loop runs 8 lanes
at a time, and a remainder runs as scalar code (12 nodes measured slower than 16).
Run ``python bench/bench_pair_rules.py --help``.
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import time

import mpmath as mp
import numpy as np
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "bench"))

from numerics.core import bvn, reference  # noqa: E402
from numerics.masking import network, pair_kernel  # noqa: E402
import workload_bvn  # noqa: E402

#: the scan's reference rule (float64; converged to rounding for |rho| <= 0.9 on the grid)
_REF_NODES = 200
#: the scan's half-width in h and k (module docstring, (a))
_HMAX = 9.0
_RHOS = tuple(round(0.05 * j, 2) for j in range(1, 19))


def plackett_rule(h, k, rho, n):
    """(1/2pi) int_0^{asin rho} exp(-(h^2 - 2 h k sin t + k^2)/(2 cos^2 t)) dt by n-node Gauss-Legendre
    in t (numpy arrays h, k; scalar rho)."""
    x, w = np.polynomial.legendre.leggauss(n)
    half = 0.5 * math.asin(rho)
    r = np.sin(half * (1.0 + x))
    e = (h[:, None] ** 2 - 2.0 * r * h[:, None] * k[:, None] + k[:, None] ** 2) / (2.0 * (1.0 - r * r))
    return half / (2.0 * math.pi) * (np.exp(-e) @ w)


def rule_errors(grid: int, nodes, dps: int = 30, chunk: int = 8192):
    """{(rho, n): (scan max |error| in eps, its (h, k), error there against mpmath in eps)} (module
    docstring, (a)); the grid is scanned ``chunk`` points at a time."""
    eps = 2.0**-52
    ax = np.linspace(-_HMAX, _HMAX, grid)
    h, k = (z.ravel() for z in np.meshgrid(ax, ax, indexing="ij"))
    out = {}
    for rho in _RHOS:
        err = {n: np.empty(h.size) for n in nodes}
        vals = {n: np.empty(h.size) for n in nodes}
        for lo in range(0, h.size, chunk):
            sl = slice(lo, lo + chunk)
            ref = plackett_rule(h[sl], k[sl], rho, _REF_NODES)
            for n in nodes:
                vals[n][sl] = plackett_rule(h[sl], k[sl], rho, n)
                err[n][sl] = np.abs(vals[n][sl] - ref)
        for n in nodes:
            j = int(np.argmax(err[n]))
            with mp.workdps(dps):
                exact = reference.bvn_cdf(h[j], k[j], rho, dps=dps) - mp.ncdf(h[j]) * mp.ncdf(k[j])
                witness = float(abs(mp.mpf(float(vals[n][j])) - exact)) / eps
            out[rho, n] = (float(err[n][j]) / eps, (float(h[j]), float(k[j])), witness)
    return out


def edges(errors, nodes, budget):
    """{n: the largest |rho| of the scan up to which every |rho| keeps n nodes' witnessed error <= budget
    eps (0 if none)}."""
    out = {}
    for n in nodes:
        top = 0.0
        for rho in _RHOS:
            if errors[rho, n][2] > budget:
                break
            top = rho
        out[n] = top
    return out


def pass_times(kappas, repeat, edge8):
    """{kappa: {configuration: best CPU seconds}} (module docstring, (b))."""
    names = ("_FP_N_SMALL", "_FP_RHO_SMALL", "_FP_DF_SMALL", "_FP_N")
    configs = {"kernel's tables (16/24)": None,
               f"tier (8 for |rho| <= {edge8:g}, 16 to 0.9)": (8, edge8, math.inf, 16),
               "1-node rules (node loop ~free)": (1, bvn._FP_RHO_SMALL, bvn._FP_DF_SMALL, 1)}
    torch.set_num_threads(1)
    W, a, X, y = workload_bvn.random_network()
    out = {}
    for kappa in kappas:
        def run():
            pair_kernel.moments(W, a, X, y, kappa, want_grad=True, threads=1, p_atol=network._P_ATOL,
                                rho_refine=network._RHO_REFINE, a_clamp=network._A_CLAMP)
        run()  # compile / load the cache
        best = {}
        for _ in range(repeat):
            for name, values in configs.items():
                saved = [getattr(bvn, z) for z in names]
                try:
                    if values:
                        for z, v in zip(names, values):
                            setattr(bvn, z, v)
                    t0 = time.process_time()
                    run()
                    t = time.process_time() - t0
                finally:
                    for z, v in zip(names, saved):
                        setattr(bvn, z, v)
                best[name] = min(best.get(name, math.inf), t)
        out[kappa] = best
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--grid", type=int, default=361, help="grid points per axis of (h, k) over [-9, 9]")
    ap.add_argument("--nodes", default="8,16,24", help="node counts to scan (comma separated)")
    ap.add_argument("--budget", type=float, default=network.CONTRACT * 2.0**-4 / 2.0**-52,
                    help="absolute error budget per pair, in eps (default CONTRACT 2^-4)")
    ap.add_argument("--kappas", default="0.05,0.2,0.4,1,2", help="kappas to time (comma separated)")
    ap.add_argument("--repeat", type=int, default=5, help="timing repeats (best of)")
    args = ap.parse_args(argv)
    nodes = tuple(int(z) for z in args.nodes.split(","))
    errors = rule_errors(args.grid, nodes)
    print(f"(a) max |error| of the n-node rule over h, k in [-{_HMAX:g}, {_HMAX:g}] ({args.grid}^2 grid), in eps: "
          f"scan vs the {_REF_NODES}-node rule / at its argmax (h, k) vs the mpmath reference")
    print("  |rho| " + "".join(f"{f'n = {n}':>36}" for n in nodes))
    for rho in _RHOS:
        cells = (f"{e:.3g} / {w:.3g} ({hk[0]:.2f}, {hk[1]:.2f})" for e, hk, w in (errors[rho, n] for n in nodes))
        print(f"  {rho:5.2f} " + "".join(f"{c:>36}" for c in cells))
    top = edges(errors, nodes, args.budget)
    print(f"  within {args.budget:g} eps up to |rho| = " + ", ".join(f"{top[n]:g} ({n} nodes)" for n in nodes))
    edge8 = top.get(8, 0.0)
    times = pass_times([float(z) for z in args.kappas.split(",")], args.repeat, edge8)
    print(f"(b) the pass, n = 500, d = 20, m = 100, 1 thread: CPU s, best of {args.repeat} "
          "(ratio to the kernel's tables)")
    for kappa, best in times.items():
        base = next(iter(best.values()))
        print(f"  kappa = {kappa:g}: " + "; ".join(f"{name} {t:.3f} ({t / base:.3f})" for name, t in best.items()))


if __name__ == "__main__":
    main()
