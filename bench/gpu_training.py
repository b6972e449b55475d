"""GPU benchmark of masked gradient descent, eq. (1), at scale (not a test).

A large sweep (default n = 10^4 samples, d = 20, m = 10^4 neurons, 16 seeds x 7 kappas =
112 runs, float32) of ``numerics.masking.training.MaskedGD`` on one device, the runs split into
groups of seeds that fit in memory (each run holds about 2 n m + 3 n d + m d numbers in its
buffers).  After ``--warmup`` steps, ``--steps`` steps of every group are timed with the
device synchronised, and reported: steps per second (of the whole sweep), achieved FLOP/s
by ``training.model_flops`` (the three n x d by d x m products per run and step) and its
fraction of the chip's peak (``--peak``; default: NVIDIA's H200 datasheet, 67 TFLOPS for
FP32 and for FP64 Tensor Core).  Also the peak device memory.  Runs on the CPU too (small
sizes) to check the script.  ``python bench/gpu_training.py --help``.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import replace

import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from numerics.masking import training as tr  # noqa: E402
from theory.core.io import write_json

PEAK = {"float32": 67e12, "float64": 67e12}


def _group_size(cfg: tr.Config, device: torch.device, fraction: float = 0.6) -> int:
    """Seeds per group so that the group's buffers take at most ``fraction`` of free memory."""
    if device.type != "cuda":
        return cfg.seeds
    free, _ = torch.cuda.mem_get_info(device)
    per_run = (2 * cfg.n * cfg.m + 3 * cfg.n * cfg.d + 3 * cfg.m * cfg.d) * torch.finfo(tr.DTYPES[cfg.dtype]).bits // 8
    return max(1, min(cfg.seeds, int(fraction * free // (per_run * len(cfg.kappas)))))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--n", type=int, default=10_000)
    p.add_argument("--d", type=int, default=20)
    p.add_argument("--m", type=int, default=10_000)
    p.add_argument("--seeds", type=int, default=16)
    p.add_argument("--steps", type=int, default=20, help="timed steps per group (default 20)")
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--dtype", choices=tuple(tr.DTYPES), default="float32")
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--peak", type=float, help="the chip's peak FLOP/s for --dtype (default: H200 datasheet)")
    p.add_argument("--json", metavar="FILE")
    args = p.parse_args(argv)
    device = torch.device(args.device)
    cfg = tr.Config(n=args.n, d=args.d, m=args.m, seeds=args.seeds, steps=0, dtype=args.dtype,
                    lr=0.005 / max(1.0, args.n / 500))
    per_group = _group_size(cfg, device)
    groups = [list(range(s, min(s + per_group, cfg.seeds))) for s in range(0, cfg.seeds, per_group)]
    name = torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu"
    print(f"{name}: n={cfg.n} d={cfg.d} m={cfg.m}, {cfg.seeds} seeds x {len(cfg.kappas)} kappas = "
          f"{cfg.seeds * len(cfg.kappas)} runs in {len(groups)} group(s) of <= {per_group} seeds, {cfg.dtype}",
          flush=True)
    seconds = 0.0
    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats(device)
    for seeds in groups:
        run = tr.MaskedGD(cfg, device=device, seeds=seeds)
        run.advance(args.warmup)
        if device.type == "cuda":
            torch.cuda.synchronize(device)
        t0 = time.perf_counter()
        run.advance(args.steps)            # synchronises at its end on CUDA
        seconds += time.perf_counter() - t0
        finite = bool(torch.isfinite(run.W).all())
        del run
        if not finite:
            print("warning: a run diverged (its W was reset); timings still count its arithmetic")
    flops = tr.model_flops(replace(cfg)) * args.steps
    peak = args.peak or PEAK[cfg.dtype]
    mem = torch.cuda.max_memory_allocated(device) / 2**30 if device.type == "cuda" else float("nan")
    result = dict(device=name, n=cfg.n, d=cfg.d, m=cfg.m, runs=cfg.seeds * len(cfg.kappas), dtype=cfg.dtype,
                  groups=len(groups), steps=args.steps, seconds=seconds, sweep_steps_per_s=args.steps / seconds,
                  flops_per_s=flops / seconds, peak=peak, fraction_of_peak=flops / seconds / peak, peak_mem_gib=mem)
    print(f"{args.steps} steps of the whole sweep in {seconds:.2f} s: {result['sweep_steps_per_s']:.2f} sweep steps/s, "
          f"{result['flops_per_s'] / 1e12:.2f} TFLOP/s = {100 * result['fraction_of_peak']:.1f}% of "
          f"{peak / 1e12:.0f} TFLOP/s peak; peak memory {mem:.1f} GiB")
    if args.json:
        write_json(args.json, result, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
