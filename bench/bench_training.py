"""Benchmark: the Fig. 3(a) sweep batched against the same runs one by one (not a test).

The sweep is the paper's Fig. 3(a) (n = 500, d = 20, m = 100, eta = 0.005, 2000 steps,
kappa in {0, 0.05, 0.2, 0.4, 0.6, 1, 2}) over ``--seeds`` mask seeds, float64 on the CPU:

  (a) batched: ``numerics.masking.training.train``, every (seed, kappa) a slice of one tensor
      program (W of shape (seeds, 7, m, d));
  (b) baseline, in the same run: ``numerics.masking.training.train_one_by_one``, the same runs in
      a Python loop, one (seed, kappa) at a time.

Both produce the same trajectories (checked here: max relative difference of the losses).
Reported: wall seconds of each, the ratio baseline / batched, steps per second and model
FLOP/s (``training.model_flops``).  Targets (issue): ratio >= 3 and the batched sweep <= 60 s
on the 2-core machine.  ``--baseline-steps K`` times the loop on K steps only and scales
it by steps / K (said so in the output) when the full loop would take too long.
Nothing is asserted.  Run ``python bench/bench_training.py --help``.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import replace

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from numerics.masking import training as tr  # noqa: E402
from theory.core.io import write_json


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                epilog="See the module docstring for what is measured.")
    p.add_argument("--steps", type=int, default=2000)
    p.add_argument("--seeds", type=int, default=4)
    p.add_argument("--threads", type=int, default=0, help="torch CPU threads (default: torch's choice)")
    p.add_argument("--baseline-steps", type=int, default=0, metavar="K",
                   help="time the one-by-one loop on K steps and scale (default: all steps)")
    p.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    args = p.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    cfg = tr.Config(steps=args.steps, seeds=args.seeds)
    runs = cfg.seeds * len(cfg.kappas)
    print(f"Fig. 3(a) sweep: {runs} runs x {cfg.steps} steps (n={cfg.n}, d={cfg.d}, m={cfg.m}), "
          f"float64, {torch.get_num_threads()} threads", flush=True)
    t0 = time.perf_counter()
    batched = tr.train(cfg)
    tb = time.perf_counter() - t0
    print(f"batched:    {tb:8.1f} s  ({cfg.steps / tb:.1f} steps/s, "
          f"{tr.model_flops(cfg) * cfg.steps / tb / 1e9:.2f} GFLOP/s)", flush=True)
    k = args.baseline_steps or cfg.steps
    t0 = time.perf_counter()
    loop = tr.train_one_by_one(replace(cfg, steps=k))
    tl = (time.perf_counter() - t0) * cfg.steps / k
    scaled = f" (measured on {k} steps, scaled by {cfg.steps / k:g})" if k != cfg.steps else ""
    diff = float(np.nanmax(np.abs(loop.loss - batched.loss[..., : k + 1]) / np.abs(batched.loss[..., : k + 1])))
    print(f"one by one: {tl:8.1f} s{scaled}")
    print(f"ratio one-by-one / batched: {tl / tb:.2f}x (target >= 3); batched sweep {tb:.1f} s "
          f"(target <= 60 s); trajectories agree to {diff:.1e} (relative)")
    if args.json:
        out = dict(runs=runs, steps=cfg.steps, threads=torch.get_num_threads(), batched_s=tb,
                   one_by_one_s=tl, one_by_one_measured_steps=k, ratio=tl / tb, max_rel_diff=diff)
        write_json(args.json, out, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
