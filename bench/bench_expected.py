"""Fig. 3(a)'s expected dynamics timed per kappa at the paper's size (not a test).

The expected dynamics (``numerics.masking.training.ExpectedGD``, what ``maskverify train
--expected-steps`` runs) take one exact pass (``network.expected_loss_and_grad``) per step and
kappa; its cost depends on how many neuron pairs take ``bvn_cdf``'s general path, which changes
along the trajectory.  For every kappa > 0 of Fig. 3(a) (the default ``Config``: n = 500, d = 20,
m = 100, eta = 0.005) and each W of ``--at`` (W_0 and W after 500 and 2000 steps of seed 0's masked
gradient descent, ``bench/workload_bvn.py``'s ``trajectory``), on ``--threads`` torch threads
(default 1), it

  (a) times ``--steps`` steps of ``ExpectedGD`` started at that W (``ExpectedGD.from_state``; the
      step with the least CPU time counts),
  (b) harvests that W's ``bvn_cdf`` calls (``workload_bvn.record_pass``) and prints the fraction of
      the pairs on the general path: the rows of the pass's first call (``relative=False``) that
      ``bvn_cdf`` routes there (``bench_bvn.path_split``) plus the refined pairs of the second call,
      which passes q and so never takes a fast path (``bvn._evaluate_chunk``),
  (c) times ``bvn_cdf`` on those general rows alone, in their call's mode, and on the whole pass's
      calls, and prints each as a share of the step's time (a) (measured in the same run);
  (d) times the same steps with ``bvn_cdf``'s ``atol`` route off (``network._P_ATOL = 0``: the pairs
      it takes go back to the general path), the baseline of the route's speed-up, in the same run;
  (e) times ``--masks`` raw mask draws of ``network.monte_carlo`` (autograd, batches of 100) at the
      same W, the baseline of issue 24's target "exact pass <= 0.5x a 1000-mask Monte Carlo";

Each step is timed twice in the same run: by the compiled pair kernel (``numerics.masking.pair_kernel``,
the default CPU pass) and by the tensor formulation (``network._PAIR_KERNEL = False``: the pass before
issue 33, ``old``), both on one thread.  ``--random`` instead compares, at n = 500, d = 20, m = 100,
kappa = 0.2 on a random W (w ~ N(0, I), unit-norm x, y ~ N(0, 1)), the old pass, the new pass on one
thread and on ``--pass-threads`` threads, and the 1000-mask Monte Carlo with autograd on as many torch
threads (wall seconds, best of ``--repeat``), with the ratios, the kernel's phases, and the fraction of
issue 33's bound (``BOUND_NS_PER_PAIR`` per pair per core) the new pass reaches.

Then it projects the 2000-step run per kappa from the steps' CPU times at steps 0, 500 and 2000 (the
process's CPU time, which on one thread is the work even on a shared machine; wall times are
printed too) by linear interpolation between them (a constant beyond the last measured W), and in
total on 1 worker and with one task per kappa on ``--workers`` workers (7: Fig. 3(a)'s kappas; the
longest task decides, each worker on a core of its own at this speed).  Run ``python bench/bench_expected.py --help``.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import replace

import numpy as np
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "bench"))

from numerics.core import bvn  # noqa: E402
from numerics.masking import network, training  # noqa: E402
import bench_bvn  # noqa: E402
import workload_bvn  # noqa: E402

#: the length of Fig. 3(a)'s run
RUN_STEPS = training.FIG3A["steps"]
#: issue 33's bound on the exact pass: ~30-50 ns per neuron pair per core (Phi_2 by a fixed rule of
#: ~10 vectorised exponentials, a few Gaussian factors, ~30 flops); the middle of that range
BOUND_NS_PER_PAIR = 40.0


def wall_cpu(fn, repeat):
    """(wall, CPU) seconds of ``fn()``, the repeat with the least wall time."""
    best = None
    for _ in range(repeat):
        t0 = clock()
        fn()
        t = clock() - t0
        best = t if best is None or t[0] < best[0] else best
    return best


def random_comparison(threads: int, masks: int, repeat: int, kappa: float = 0.2):
    """Old pass vs new pass (1 and ``threads`` threads) vs ``masks``-mask Monte Carlo at
    n = 500, d = 20, m = 100 on a random W (module docstring); prints a table."""
    from numerics.masking import pair_kernel

    n, d, m = 500, 20, 100
    W, a, X, y = workload_bvn.random_network(n, d, m)
    pairs = n * m * (m - 1) // 2
    torch.set_num_threads(1)
    network.expected_loss_and_grad(W[:10], a[:10], X[:10], y[:10], kappa)  # compile / load the cache
    new = network.expected_loss_and_grad(W, a, X, y, kappa, threads=1)
    network._PAIR_KERNEL, band = False, bvn._FP_HMAX_ATOL
    try:
        tensor_t = wall_cpu(lambda: network.expected_loss_and_grad(W, a, X, y, kappa), repeat)
        bvn._FP_HMAX_ATOL = bvn._FP_HMAX2  # the rule's band off too: the pass before issue 33
        old_t = wall_cpu(lambda: network.expected_loss_and_grad(W, a, X, y, kappa), repeat)
        old = network.expected_loss_and_grad(W, a, X, y, kappa)
    finally:
        network._PAIR_KERNEL, bvn._FP_HMAX_ATOL = True, band
    new1 = wall_cpu(lambda: network.expected_loss_and_grad(W, a, X, y, kappa, threads=1), repeat)
    newT = wall_cpu(lambda: network.expected_loss_and_grad(W, a, X, y, kappa, threads=threads), repeat)
    st = {}
    pair_kernel.moments(W, a, X, y, kappa, want_grad=True, threads=threads, p_atol=network._P_ATOL,
                        rho_refine=network._RHO_REFINE, a_clamp=network._A_CLAMP, stats=st)
    torch.set_num_threads(threads)
    mc = wall_cpu(lambda: network.monte_carlo(W, a, X, y, kappa, masks, seed=1, batch=100), 1)
    torch.set_num_threads(1)
    ls, gs = network.term_sizes(W, X, y, kappa)
    agree = max(abs(float(new[0] - old[0])) / ls, float((new[1] - old[1]).abs().max()) / gs)
    bound = pairs * BOUND_NS_PER_PAIR * 1e-9 / threads
    print(f"\nexact E[L_C] + E[grad L_C], n = {n}, d = {d}, m = {m}, kappa = {kappa:g}, random W "
          f"({pairs:.3g} pairs): wall s (CPU s), best of {repeat}")
    rows = [("old pass (tensor formulation, no band, 1 thread)", old_t),
            ("tensor formulation with the band (1 thread)", tensor_t), ("new pass (pair kernel, 1 thread)", new1),
            (f"new pass (pair kernel, {threads} threads)", newT),
            (f"{masks}-mask Monte Carlo with autograd ({threads} torch threads)", mc)]
    for name, (w, c) in rows:
        print(f"  {name:<62}{w:>8.3f} s ({c:.3f} s)")
    print(f"  old / new (1 thread): {old_t[0] / new1[0]:.2f}x; old / new ({threads} threads): {old_t[0] / newT[0]:.2f}x; "
          f"new ({threads} threads) / MC: {newT[0] / mc[0]:.3f} (target <= 0.5); thread speed-up {new1[0] / newT[0]:.2f}x")
    print(f"  issue 33's bound ({BOUND_NS_PER_PAIR:g} ns per pair per core, {threads} cores): {bound:.3f} s; the new pass "
          f"reaches {bound / newT[0]:.1%} of it ({newT[0] * 1e9 * threads / pairs:.0f} ns per pair per core)")
    print(f"  kernel vs tensor formulation, normwise: {agree / 2**-52:.2f} eps; pairs deferred {st['deferred']} "
          f"(refined {st['refined']}, general path {st['general']}), tail route {st['atol']}, band {st['band']}")
    print("  phases of one new pass (wall s): " + ", ".join(f"{k} {v:.3f}" for k, v in st["seconds"].items()))


def clock():
    """(wall, CPU) seconds now: on one thread the process's CPU time is the step's work even when
    other jobs share the cores (its wall time then also counts the waits)."""
    return np.array([time.perf_counter(), time.process_time()])


def step_times(W, kappa, steps):
    """(wall, CPU) seconds of each of ``steps`` steps of ``ExpectedGD`` (the default ``Config``'s
    data and a) at ``kappa`` started from W."""
    cfg = replace(training.Config(), kappas=(kappa,))
    run = training.ExpectedGD.from_state(dict(kappas=[kappa], seed=0, step=0, W=[W.clone()], losses=[[0.0]]), cfg)
    out = []
    for _ in range(steps):
        t0 = clock()
        run.advance(1)
        out.append(clock() - t0)
    return out


def general_rows(calls: dict):
    """The harvested points of a pass on ``bvn_cdf``'s general path, as the two argument sets of
    the pass's two kinds of call: (h, k, rho) of the ``relative=False`` rows routed there, and
    (h, k, rho, q) of the refined rows (q given: no fast path); and the fraction of all pairs."""
    t = {key: torch.from_numpy(np.ascontiguousarray(calls[key])) for key in ("h", "k", "rho", "q")}
    first = torch.from_numpy(~calls["relative"])
    atol = float(calls["atol"][first.numpy()].max()) if bool(first.any()) else 0.0
    _, general = bench_bvn.path_split(t["h"][first], t["k"][first], t["rho"][first], False, atol)
    main = tuple(t[key][first][general] for key in ("h", "k", "rho"))
    refined = tuple(t[key][~first] for key in ("h", "k", "rho", "q"))
    pairs = int(first.sum())
    return main, refined, (int(general.sum()) + refined[0].numel()) / pairs


def bvn_time(main, refined, repeat=1):
    """(wall, CPU) seconds of ``bvn_cdf`` on the (h, k, rho) rows with ``relative=False`` plus the
    (h, k, rho, q) rows with q, the repeat with the least CPU time."""
    best = None
    for _ in range(repeat):
        t0 = clock()
        if main[0].numel():
            bvn.bvn_cdf(*main, relative=False, atol=network._P_ATOL)
        if refined[0].numel():
            bvn.bvn_cdf(*refined[:3], q=refined[3])
        t = clock() - t0
        best = t if best is None or t[1] < best[1] else best
    return best


def project(times: dict, total: int = RUN_STEPS) -> float:
    """Seconds of ``total`` steps from per-step seconds {step: s}: linear interpolation between
    the measured steps, constant before the first and after the last."""
    ks = sorted(times)
    grid = np.arange(total)
    return float(np.interp(grid, ks, [times[k] for k in ks]).sum())


def makespan(tasks, workers: int) -> float:
    """The finishing time of ``tasks`` (seconds) on ``workers`` workers, longest first to the
    least loaded (a single task per worker when there are no more tasks than workers)."""
    load = [0.0] * max(1, workers)
    for t in sorted(tasks, reverse=True):
        load[load.index(min(load))] += t
    return max(load)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kappa", type=float, nargs="+", default=list(workload_bvn.FIG3A_KAPPAS),
                    help="kappas (default Fig. 3(a)'s: %s)" % " ".join(f"{k:g}" for k in workload_bvn.FIG3A_KAPPAS))
    ap.add_argument("--at", type=int, nargs="+", default=list(workload_bvn.FIG3A_STEPS),
                    help="masked GD steps at which to start the timed steps (default 0 500 2000)")
    ap.add_argument("--steps", type=int, default=2, help="expected-dynamics steps timed at each W (default 2)")
    ap.add_argument("--threads", type=int, default=1, help="torch CPU threads (default 1)")
    ap.add_argument("--workers", type=int, default=7, help="workers of the parallel projection (default 7)")
    ap.add_argument("--masks", type=int, default=1000, help="Monte Carlo mask draws of the baseline (default 1000)")
    ap.add_argument("--random", action="store_true", help="only the random-W comparison of old pass, new pass and "
                    "Monte Carlo (module docstring)")
    ap.add_argument("--pass-threads", type=int, default=os.cpu_count() or 1,
                    help="threads of the new pass and of the Monte Carlo in --random (default: the machine's cores)")
    ap.add_argument("--repeat", type=int, default=2, help="repeats of each --random timing (best of; default 2)")
    args = ap.parse_args(argv)
    if args.random:
        with open("/proc/loadavg") as f:
            print(f"torch {torch.__version__}; load average {' '.join(f.read().split()[:3])} at the start", flush=True)
        random_comparison(max(1, args.pass_threads), args.masks, max(1, args.repeat))
        with open("/proc/loadavg") as f:
            print(f"load average at the end: {' '.join(f.read().split()[:3])}")
        return
    if min(args.kappa) <= 0 or min(args.at) < 0 or min(args.steps, args.threads, args.workers) < 1 or args.masks < 2:
        ap.error("kappas must be > 0, --at >= 0, --steps, --threads and --workers >= 1, --masks >= 2")
    torch.set_num_threads(args.threads)
    with open("/proc/loadavg") as f:
        load = f.read().split()[:3]
    print(f"Fig. 3(a) expected dynamics, n = 500, d = 20, m = 100; torch {torch.__version__}, "
          f"{torch.get_num_threads()} thread(s); load average {' '.join(load)} at the start", flush=True)
    pb = training.problem(training.Config())
    network.expected_loss_and_grad(pb.W0[0, 0][:10], pb.a[0, 0][:10], pb.X[:10], pb.y[:10], 0.2)  # warm-up
    hdr = (f"{'set':<11}{'kappa':>6}{'W at':>6}{'wall s':>8}{'CPU s':>8}{'old CPU':>9}{'old/new':>8}{'no atol':>9}"
           f"{'atol x':>8}{'MC CPU':>8}"
           f"{'vs MC':>7}{'general':>9}{'gen CPU':>9}{'bvn CPU':>9}{'gen/step':>10}{'bvn/step':>10}")
    print("\nset: the workload set of W (bench_bvn.py --sets); 'wall s', 'CPU s': one step (the step with the "
          "least CPU time of --steps), by the pair kernel; 'old CPU': the same step by the tensor formulation without "
          "the rule's band (the pass before issue 33), 'old/new' the speed-up (same run); 'no atol': CPU s of the same "
          "step with bvn_cdf's atol routes off (tails and band), "
          "'atol x' the speed-up (same run); 'MC CPU': CPU s of --masks raw-mask Monte Carlo draws with autograd at "
          "the same W, 'vs MC' the step's CPU s over it (target <= 0.5); 'general': the fraction of pairs on bvn_cdf's general path, 'gen CPU' "
          "their CPU seconds; 'bvn CPU': the CPU seconds of bvn_cdf (vectorised entry) on every Phi_2 argument of the "
          "pass (the tensor formulation's calls, which the kernel evaluates row by row in its sweep); '/step': as a share "
          "of the new step's CPU seconds\n")
    print(hdr + "\n" + "-" * len(hdr), flush=True)
    runs = {}
    for kappa in args.kappa:
        Ws, (X, y, a) = workload_bvn.trajectory(kappa, args.at)
        per = {}
        for at, W in Ws.items():
            wall, cpu = min(step_times(W, kappa, args.steps), key=lambda t: t[1])
            network._PAIR_KERNEL, band = False, bvn._FP_HMAX_ATOL
            bvn._FP_HMAX_ATOL = bvn._FP_HMAX2  # and the rule's band off: the pass before issue 33
            try:
                cpu_old = min(step_times(W, kappa, args.steps), key=lambda t: t[1])[1]
            finally:
                network._PAIR_KERNEL, bvn._FP_HMAX_ATOL = True, band
            atol, network._P_ATOL = network._P_ATOL, 0.0
            try:
                cpu_off = min(step_times(W, kappa, args.steps), key=lambda t: t[1])[1]
            finally:
                network._P_ATOL = atol
            calls = workload_bvn.record_pass(W, a, X, y, kappa)
            main, refined, frac = general_rows(calls)
            everything = (tuple(torch.from_numpy(calls[key][~calls["relative"]]) for key in ("h", "k", "rho")),
                          tuple(torch.from_numpy(calls[key][calls["relative"]]) for key in ("h", "k", "rho", "q")))
            t_all = bvn_time(*everything, repeat=2)[1]
            t_gen = bvn_time(main, refined, repeat=2)[1]
            t0 = clock()
            network.monte_carlo(W, a, X, y, kappa, args.masks, seed=1, batch=100)
            mc = (clock() - t0)[1]
            per[at] = cpu
            print(f"{workload_bvn.set_name(at, kappa):<11}{kappa:>6g}{at:>6}{wall:>8.3f}{cpu:>8.3f}{cpu_old:>9.3f}"
                  f"{cpu_old / cpu:>7.2f}x{cpu_off:>9.3f}"
                  f"{cpu_off / cpu:>7.2f}x{mc:>8.3f}{cpu / mc:>7.2f}{frac:>9.2%}"
                  f"{t_gen:>9.3f}{t_all:>9.3f}{t_gen / cpu:>10.1%}{t_all / cpu:>10.1%}", flush=True)
        runs[kappa] = project(per)
    print(f"\nprojected {RUN_STEPS}-step expected dynamics from the CPU seconds (one thread per run, on a "
          "core of its own):")
    for kappa, t in runs.items():
        print(f"  kappa = {kappa:g}: {t / 60:.1f} min")
    serial = sum(runs.values())
    parallel = makespan(runs.values(), args.workers)
    print(f"  all {len(runs)} kappas on 1 worker: {serial / 60:.1f} min; one task per kappa on "
          f"{args.workers} workers: {parallel / 60:.1f} min")
    with open("/proc/loadavg") as f:
        print(f"load average at the end: {' '.join(f.read().split()[:3])}")


if __name__ == "__main__":
    main()
