"""Design (b) of issue 24 measured: torch's Inductor (``torch.compile``) on the fixed theta rule of
``bvn_cdf`` against the numba twin with SIMD node loops (design (a), the default) and the eager
tensor path, in one run (not a test).

The rows are Fig. 3(a)'s own: every Phi_2 argument of the exact pass at W_0 for one kappa
(``bench/workload_bvn.py``, default kappa 2, where 97.5 % of the pairs take the 16-node theta rule),
subsampled to ``--n`` by the seed.  Each variant evaluates ``bvn_cdf(h, k, rho, relative=False)`` on
them, one torch thread, best of ``--repeat``:

* ``numba twin``: the default (``bvn._COMPILED``: ``numerics.core.bvn_compiled``);
* ``tensor, eager``: ``bvn._COMPILED = False``, the formulation a device runs;
* ``tensor, Inductor``: the same with the rule's (rows x nodes) block function
  ``bvn._fast_p_rule`` replaced by ``torch.compile(..., dynamic=True)`` of it.

The compile cost is measured in fresh processes sharing one Inductor cache directory: ``cold`` is
the first process on a machine (empty cache: tracing, code generation and the C++ build), ``warm``
a later one (the FX graph and the built kernels read from the cache); each prints the seconds to its
first result and its steady time.  The values of the Inductor variant are compared with the eager
ones (the eager path is the one the accuracy tests hold to mpmath).

    python bench/bench_compile.py [--n 200000] [--kappa 2] [--repeat 3] [--seed 0]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "bench"))

from numerics.core import bvn  # noqa: E402
import workload_bvn  # noqa: E402


def rows(kappa: float, n: int, seed: int) -> tuple[torch.Tensor, ...]:
    """n Phi_2 arguments (h, k, rho) of the exact pass at W_0 for this kappa, drawn by the seed."""
    calls = workload_bvn.harvest(kappa)
    h, k, rho = (torch.as_tensor(calls[c], dtype=torch.float64) for c in ("h", "k", "rho"))
    pick = torch.as_tensor(np.random.default_rng(seed).choice(h.numel(), size=min(n, h.numel()), replace=False))
    return h[pick], k[pick], rho[pick]


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def child(args) -> None:
    """One process of the Inductor variant: seconds to the first result, then the steady time."""
    torch.set_num_threads(1)
    h, k, rho = rows(args.kappa, args.n, args.seed)
    bvn._COMPILED = False
    bvn._fast_p_rule = torch.compile(bvn._fast_p_rule, dynamic=True)
    t0 = time.perf_counter()
    got = bvn.bvn_cdf(h, k, rho, relative=False)
    first = time.perf_counter() - t0
    steady = best(lambda: bvn.bvn_cdf(h, k, rho, relative=False), args.repeat)
    bvn._fast_p_rule = bvn._fast_p_rule._torchdynamo_orig_callable
    want = bvn.bvn_cdf(h, k, rho, relative=False)
    rel = float(((got - want).abs() / want.abs().clamp_min(1e-300)).max())
    print(json.dumps({"first_s": first, "steady_s": steady, "max_rel_vs_eager": rel}))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", type=int, default=200_000, help="rows (default 200000)")
    p.add_argument("--kappa", type=float, default=2.0, help="Fig. 3(a)'s kappa of the workload set (default 2)")
    p.add_argument("--repeat", type=int, default=3, help="timed repeats, best taken (default 3)")
    p.add_argument("--seed", type=int, default=0, help="subsample seed (default 0)")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.n < 1 or args.repeat < 1:
        p.exit(2, "bench_compile: --n and --repeat must be positive\n")
    if args.child:
        child(args)
        return 0
    torch.set_num_threads(1)
    h, k, rho = rows(args.kappa, args.n, args.seed)
    twin = best(lambda: bvn.bvn_cdf(h, k, rho, relative=False), args.repeat)
    bvn._COMPILED = False
    eager = best(lambda: bvn.bvn_cdf(h, k, rho, relative=False), args.repeat)
    bvn._COMPILED = True
    cmd = [sys.executable, os.path.abspath(__file__), "--child", "--n", str(args.n), "--kappa", str(args.kappa),
           "--repeat", str(args.repeat), "--seed", str(args.seed)]
    out = {}
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=cache, TORCHINDUCTOR_FX_GRAPH_CACHE="1")
        for name in ("cold", "warm"):
            res = subprocess.run(cmd, env=env, capture_output=True, text=True)
            if res.returncode:
                print(res.stderr[-3000:], file=sys.stderr)
                return 1
            out[name] = json.loads(res.stdout.strip().splitlines()[-1])
    print(f"Phi_2 at Fig. 3(a)'s W_0, kappa = {args.kappa:g}: {h.numel()} rows, one thread, best of {args.repeat}; "
          f"load average {os.getloadavg()[0]:.1f}")
    print(f"{'variant':<28}{'seconds':>10}{'vs numba twin':>15}")
    print(f"{'numba twin (SIMD nodes)':<28}{twin:>10.3f}{1.0:>14.2f}x")
    print(f"{'tensor, eager':<28}{eager:>10.3f}{twin / eager:>14.2f}x")
    print(f"{'tensor, Inductor (warm)':<28}{out['warm']['steady_s']:>10.3f}{twin / out['warm']['steady_s']:>14.2f}x")
    for name in ("cold", "warm"):
        o = out[name]
        print(f"Inductor, {name} process: first result after {o['first_s']:.1f} s, steady {o['steady_s']:.3f} s, "
              f"max relative difference from eager {o['max_rel_vs_eager']:.2g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
