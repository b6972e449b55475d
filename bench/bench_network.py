"""Benchmark of the exact masked-network loss and gradient against Monte Carlo (not a test).

At the paper's Fig. 3 size (n = 500 samples, d = 20, m = 100 neurons, kappa = 0.2 by
default; unit-norm inputs as in Assumption 3.1, W ~ N(0, I), a uniform +-1, y ~ N(0, 1),
all seeded) it measures

  (a) exact E_C[L_C] and E_C[grad_W L_C] in one pass:
      ``numerics.masking.network.expected_loss_and_grad`` (best of ``--repeat``); on the CPU
      also with ``bvn_cdf``'s fast paths as tensors instead of compiled (``bvn._COMPILED =
      False``: the baseline of the compiled twin, in the same run),
  (b) the baseline: ``numerics.masking.network.monte_carlo`` with ``--masks`` raw mask draws and
      torch autograd, at several batch sizes (``--mc-batches``); its BEST time is the
      baseline (best of ``--repeat`` each),
  (c) with ``--big-m`` (default 1000; 0 skips) the exact (a) at m = big-m, run once, as
      blocks of samples with progress lines (loss and gradient are sums over samples and
      the function chunks over samples anyway, so this is the same computation),

each in a fresh process, and reports the time ratio exact / best Monte Carlo, the Monte
Carlo estimate's distance from the exact values (relative error of the loss, normwise
relative error of the gradient, and the relative standard errors), and the peak memory
of each phase: the process's peak RSS on the CPU (``+phase`` is its increase over the
state after setup; torch itself is ~0.2 GiB of the peak) and
``torch.cuda.max_memory_allocated`` on CUDA, and, for the exact pass, the fraction of its
exponential bound it reaches (``exp_bound``: the exponentials it evaluates, counted in an
untimed run of the tensor formulation, times the ns per ``torch.exp`` element measured in
the same process).

Target (issue): exact no slower than the 1000-mask Monte Carlo (ratio <= 1), peak memory
<= 2 GiB, and m = 1000 within that memory.  Nothing is asserted; the numbers are printed
(and written atomically with ``--json``).  Run ``python bench/bench_network.py --help``.
"""
from __future__ import annotations

import argparse
import math
import multiprocessing as mp
import os
import resource
import sys
import time

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "bench"))

from numerics.core import bvn  # noqa: E402
from numerics.masking import network  # noqa: E402
import exp_bound  # noqa: E402
from theory.core.io import write_json  # noqa: E402

GIB = 2.0**30
TARGET_GIB = 2.0


def make_data(n, d, m, seed, device):
    """X (n, d) with unit rows, y ~ N(0, 1), then W ~ N(0, I) (m, d) and a uniform +-1
    from one seeded stream (so X and y do not depend on m); float64 on ``device``."""
    g = torch.Generator().manual_seed(seed)
    X = torch.randn(n, d, generator=g, dtype=torch.float64)
    X /= torch.linalg.vector_norm(X, dim=1, keepdim=True)
    y = torch.randn(n, generator=g, dtype=torch.float64)
    W = torch.randn(m, d, generator=g, dtype=torch.float64)
    a = torch.randint(0, 2, (m,), generator=g).to(torch.float64) * 2 - 1
    return [t.to(device) for t in (W, a, X, y)]


def rss_gib():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / GIB


def peak_rss_gib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / GIB  # KiB on Linux


def phase(spec):
    """Run one phase in this (fresh) process; returns times, memory and values."""
    if spec["threads"]:
        torch.set_num_threads(spec["threads"])
    dev = torch.device(spec["device"])
    cuda = dev.type == "cuda"
    bvn._COMPILED = not spec.get("tensor", False)
    W, a, X, y = make_data(spec["n"], spec["d"], spec["m"], spec["seed"], dev)
    kappa = spec["kappa"]

    def sync():
        if cuda:
            torch.cuda.synchronize()

    if spec["kind"] == "mc":
        def run():
            loss, grad = network.monte_carlo(W, a, X, y, kappa, spec["masks"], seed=spec["seed"] + 1,
                                             batch=spec["batch"])
            return loss.mean, grad.mean, loss.stderr, grad.stderr
        network.monte_carlo(W, a, X[:10], y[:10], kappa, 2, seed=0, batch=2)  # warm-up
    else:
        blocks = spec["blocks"]
        bounds = [round(i * spec["n"] / blocks) for i in range(blocks + 1)]

        def run():
            loss, grad, t0 = 0.0, torch.zeros_like(W), time.perf_counter()
            for j, (lo, hi) in enumerate(zip(bounds, bounds[1:])):
                l_, g_ = network.expected_loss_and_grad(W, a, X[lo:hi], y[lo:hi], kappa)
                loss, grad = loss + l_, grad + g_
                if blocks > 1:
                    sync()
                    el = time.perf_counter() - t0
                    print(f"  [m = {spec['m']}] samples {hi}/{spec['n']}: {el:.0f} s, "
                          f"~{el * (spec['n'] / hi - 1):.0f} s left, peak RSS {peak_rss_gib():.2f} GiB",
                          flush=True)
            return loss, grad, None, None
        network.expected_loss_and_grad(W[:10], a[:10], X[:10], y[:10], kappa)  # warm-up (rules)
    sync()
    base = rss_gib()
    if cuda:
        torch.cuda.reset_peak_memory_stats()
    times = []
    for _ in range(spec["repeat"]):
        sync()
        t0 = time.perf_counter()
        loss, grad, loss_se, grad_se = run()
        sync()
        times.append(time.perf_counter() - t0)
    peak = peak_rss_gib()
    exps = ns_exp = None
    if spec["kind"] == "exact" and spec["blocks"] == 1:
        # counted on the tensor fast paths: the compiled twin evaluates the same nodes unseen
        compiled, bvn._COMPILED = bvn._COMPILED, False
        with exp_bound.count_exps() as cnt:
            run()
        bvn._COMPILED = compiled
        sync()
        exps, ns_exp = cnt["n"], exp_bound.ns_per_exp(dev, n=(1 << 24) if cuda else None)
    out = {
        "exps": exps, "ns_per_exp": ns_exp,
        "time_s": min(times), "times_s": times,
        "peak_rss_gib": peak, "phase_rss_gib": peak - base,
        "cuda_peak_gib": torch.cuda.max_memory_allocated() / GIB if cuda else None,
        "loss": float(loss), "grad": grad.cpu().numpy(),
        "loss_se": None if loss_se is None else float(loss_se),
        "grad_se": None if grad_se is None else grad_se.cpu().numpy(),
    }
    return out


def in_fresh_process(spec):
    with mp.get_context("spawn").Pool(1) as pool:
        return pool.apply(phase, (spec,))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=500, help="samples")
    ap.add_argument("--d", type=int, default=20, help="input dimension")
    ap.add_argument("--m", type=int, default=100, help="neurons (timing comparison)")
    ap.add_argument("--kappa", type=float, default=0.2, help="mask standard deviation")
    ap.add_argument("--masks", type=int, default=1000, help="Monte Carlo mask draws")
    ap.add_argument("--mc-batches", default="50,100,250", help="Monte Carlo batch sizes (comma separated)")
    ap.add_argument("--seed", type=int, default=0, help="data seed (masks use seed + 1)")
    ap.add_argument("--repeat", type=int, default=3, help="timing repeats (best of)")
    ap.add_argument("--threads", type=int, default=0, help="torch CPU threads (0: torch default)")
    ap.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto")
    ap.add_argument("--big-m", type=int, default=1000, help="m for the memory run (0: skip)")
    ap.add_argument("--big-blocks", type=int, default=10, help="progress blocks of the big-m run")
    ap.add_argument("--json", metavar="FILE", help="write the numbers here (atomically)")
    args = ap.parse_args(argv)
    if args.device == "auto":
        args.device = "cuda" if torch.cuda.is_available() else "cpu"
    if args.device == "cuda" and not torch.cuda.is_available():
        ap.error("--device cuda: no CUDA device")
    cuda = args.device == "cuda"
    batches = [int(b) for b in args.mc_batches.split(",") if b]
    threads = args.threads or torch.get_num_threads()
    where = torch.cuda.get_device_name() if cuda else f"CPU, {threads} threads"
    print(f"n = {args.n}, d = {args.d}, m = {args.m}, kappa = {args.kappa}, {args.masks} masks, "
          f"seed {args.seed}; torch {torch.__version__}, {where}; each phase in a fresh process",
          flush=True)
    common = dict(n=args.n, d=args.d, kappa=args.kappa, seed=args.seed, threads=args.threads,
                  device=args.device)

    t_all = time.perf_counter()
    rows = {}
    ex = rows["exact"] = in_fresh_process({**common, "kind": "exact", "m": args.m, "blocks": 1,
                                           "repeat": args.repeat})
    print(f"exact expected_loss_and_grad: {ex['time_s']:.3f} s (best of {args.repeat})", flush=True)
    pairs = args.n * args.m * (args.m - 1) // 2
    bound = exp_bound.bound_line("exact pass", ex["exps"], pairs, ex["time_s"], ex["ns_per_exp"])
    print(bound.replace("/point", "/pair"), flush=True)
    if not cuda:  # the baseline of the compiled fast paths, in the same run
        tx = rows["exact, tensor"] = in_fresh_process({**common, "kind": "exact", "m": args.m, "blocks": 1,
                                                       "repeat": args.repeat, "tensor": True})
        print(f"exact, bvn_cdf's fast paths as tensors (baseline): {tx['time_s']:.3f} s = "
              f"{tx['time_s'] / ex['time_s']:.2f}x the compiled pass", flush=True)
    for b in batches:
        r = rows[f"mc b={b}"] = in_fresh_process({**common, "kind": "mc", "m": args.m, "masks": args.masks,
                                                 "batch": b, "repeat": args.repeat})
        print(f"Monte Carlo, {args.masks} masks, batch {b}: {r['time_s']:.3f} s (best of {args.repeat})",
              flush=True)
    if args.big_m:
        print(f"exact at m = {args.big_m} (once, {args.big_blocks} blocks of samples):", flush=True)
        rows[f"exact m={args.big_m}"] = in_fresh_process(
            {**common, "kind": "exact", "m": args.big_m, "blocks": args.big_blocks, "repeat": 1})

    t_mc = min(rows[f"mc b={b}"]["time_s"] for b in batches) if batches else math.nan
    gnorm = float((ex["grad"] ** 2).sum() ** 0.5)
    for name, r in rows.items():
        r["vs_mc"] = r["time_s"] / t_mc
        r["mem_gib"] = r["cuda_peak_gib"] if cuda else r["peak_rss_gib"]
        r["within_target"] = r["mem_gib"] <= TARGET_GIB
        if name.startswith("mc"):
            r["loss_rel_err"] = abs(r["loss"] - ex["loss"]) / abs(ex["loss"])
            r["loss_rel_se"] = r["loss_se"] / abs(ex["loss"])
            r["loss_z"] = (r["loss"] - ex["loss"]) / r["loss_se"]
            r["grad_rel_err"] = float(((r["grad"] - ex["grad"]) ** 2).sum() ** 0.5) / gnorm
            r["grad_rel_se"] = float((r["grad_se"] ** 2).sum() ** 0.5) / gnorm

    mem = "CUDA peak" if cuda else "peak RSS"
    hdr = (f"{'phase':<15}{'time (s)':>10}{'/ MC best':>10}{'RSS GiB':>9}{'+phase':>8}"
           f"{'CUDA GiB' if cuda else '':>9}{'<=2GiB':>7}"
           f"{'loss err':>10}{'loss se':>9}{'grad err':>10}{'grad se':>9}")
    print("\n" + hdr + "\n" + "-" * len(hdr))
    for name, r in rows.items():
        acc = ("".join(f"{r[k]:>{w}.1e}" for k, w in (("loss_rel_err", 10), ("loss_rel_se", 9),
                                                       ("grad_rel_err", 10), ("grad_rel_se", 9)))
               if name.startswith("mc") else "")
        dev_mem = f"{r['cuda_peak_gib']:>9.3f}" if cuda else f"{'':>9}"
        print(f"{name:<15}{r['time_s']:>10.3f}{r['vs_mc']:>10.2f}{r['peak_rss_gib']:>9.3f}"
              f"{r['phase_rss_gib']:>8.3f}{dev_mem}{'yes' if r['within_target'] else 'NO':>7}{acc}")
    print(f"\nexact loss {ex['loss']:.15g}, ||grad||_F {gnorm:.15g}.  'err': Monte Carlo vs exact, relative "
          "(gradient: Frobenius norm); 'se': its standard error, relative.")
    for b in batches:
        r = rows[f"mc b={b}"]
        print(f"  batch {b}: MC loss {r['loss']:.10g} +- {r['loss_se']:.2g} (z = {r['loss_z']:+.2f})")
    if batches:
        best = min(batches, key=lambda b: rows[f"mc b={b}"]["time_s"])
        r = rows[f"mc b={best}"]
        k = (r["grad_rel_se"] / 1e-6) ** 2
        print(f"Monte Carlo needs ~{k * args.masks:.1e} masks (~{k * r['time_s']:.1e} s) for a 1e-6 relative "
              "gradient standard error; the exact values cost one pass.")
        verdict = "meets" if ex["vs_mc"] <= 1 else "misses"
        mem_ok = "met" if all(r["within_target"] for r in rows.values()) else "MISSED"
        print(f"time target: exact / best Monte Carlo = {ex['vs_mc']:.2f} ({verdict} <= 1); memory target "
              f"<= {TARGET_GIB:g} GiB: {mem_ok} ({mem}{'; host RSS not counted' if cuda else ', torch included'}).")
    print(f"exponential bound of the exact pass ({pairs:,} neuron pairs): {bound.split(': ', 1)[1].replace('/point', '/pair')}")
    wall = time.perf_counter() - t_all
    print(f"wall time {wall:.0f} s")

    if args.json:
        out = {"args": vars(args), "torch": torch.__version__, "where": where, "wall_s": wall,
               "target_gib": TARGET_GIB,
               "phases": {name: {k: v for k, v in r.items() if k not in ("grad", "grad_se")}
                          for name, r in rows.items()}}
        write_json(args.json, out, indent=2)
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
