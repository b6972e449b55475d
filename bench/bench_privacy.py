"""Per-epoch training time of Section 6's networks on one CPU thread (how a task of
``maskverify privacy`` trains on the execution layer), and the wall time of Section 6 at the
paper's scale projected from it with the formula of ``notes/execution.md``:

    wall(W) ~ T_start + T_import + max( sum(t_i) / W ,  max(t_i) ) + N * o / min(W, N)

An epoch is timed with ``training.train`` itself (mask kappa = 0.5 drawn, Adam, the recipes of
Fig. 4 and of the attacks), one thread (``execution.single_threaded``), one untimed warm-up run
first, and the best of ``--repeat``:

- on digits (the data the tests and the default command use), a whole epoch of the training
  split (Fig. 4) and of the target's part (attacks);
- at CIFAR-10's shape (3x32x32, 50,000 training images for Fig. 4, parts of 10,520 for the
  attacks): CIFAR-10 is not on this machine and cannot be downloaded here, and an epoch's cost
  depends on the shapes (images, batch, network), not on the pixel values, so ``--batches``
  batches of random pixels are timed and scaled to the epoch's number of batches.

The projection (``--epochs`` 120, ``--kappas`` 4, ``--seeds`` 3, the three networks: the
paper's scale) counts one task per (model, kappa, seed) for Fig. 4 (t = epochs x epoch time) and
for the attack (t = 2 x epochs x epoch time: target and shadow); it leaves out the attack's
posteriors and logistic regression (forward passes over the four parts: well under one epoch's
training) and DP-SGD's runs.  T_start, T_import and o default to the note's measurements.

    python bench/bench_privacy.py
    python bench/bench_privacy.py --batches 20 --workers 1 8 36 64
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from numerics.core import execution
from numerics.masking.privacy import data, models, training

CIFAR_SHAPE, CIFAR_TRAIN, CIFAR_PART = (3, 32, 32), 50_000, data.CIFAR_PART
RECIPES = {"fig4": training.fig4_recipe, "attack": lambda model, epochs: training.attack_recipe(epochs)}


def _epoch(model: str, images: data.Images, recipe: str, repeat: int) -> float:
    """Seconds of one epoch of ``model`` on ``images`` with the recipe ``recipe`` (best of ``repeat``)."""
    r = RECIPES[recipe](model, 1)
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        training.train(model, images, 0.5, 0, "target", r)
        times.append(time.perf_counter() - t0)
    return min(times)


def _random(n: int, rng: np.random.Generator) -> data.Images:
    return data.Images(rng.standard_normal((n, *CIFAR_SHAPE), dtype=np.float32),
                       rng.integers(0, data.CLASSES, n).astype(np.int64))


def wall(t: list[float], workers: int, t_start: float, t_import: float, overhead: float) -> float:
    """The note's projection of the wall time of tasks of times ``t`` on ``workers`` workers."""
    return t_start + t_import + max(sum(t) / workers, max(t)) + len(t) * overhead / min(workers, len(t))


def _hours(s: float) -> str:
    return f"{s / 3600:.1f} h" if s >= 3600 else f"{s / 60:.1f} min"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--batches", type=int, default=10, help="batches timed per CIFAR-shaped epoch (default 10)")
    ap.add_argument("--repeat", type=int, default=2, help="timings of each epoch, the best kept (default 2)")
    ap.add_argument("--epochs", type=int, default=120, help="epochs of the projected job (default 120, the paper's)")
    ap.add_argument("--kappas", type=int, default=4, help="kappas of the projected job (default 4)")
    ap.add_argument("--seeds", type=int, default=3, help="seeds of the projected job (default 3)")
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 8, 36, 64], help="W of the projection")
    ap.add_argument("--t-start", type=float, default=7.9, help="cluster start, s (default: the note's 7.9)")
    ap.add_argument("--t-import", type=float, default=22.8, help="first import in a worker, s (default 22.8)")
    ap.add_argument("--overhead", type=float, default=0.0136, help="engine overhead per task, s (default 0.0136)")
    args = ap.parse_args(argv)

    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the start; one torch thread")
    digits = data.load(None)
    fig4_train, _ = data.train_test(digits)
    target = data.four_parts(digits).target_train
    rng = np.random.default_rng(0)
    epoch: dict[tuple[str, str], float] = {}
    with execution.single_threaded():
        training.train("mlp", target, 0.5, 0, "target", training.attack_recipe(1))  # warm-up, untimed
        print(f"{'model':>9} {'digits fig4':>12} {'digits attack':>14} {'CIFAR fig4':>11} {'CIFAR attack':>13}"
              "   (seconds per epoch)")
        for model in models.MODELS:
            row = [_epoch(model, fig4_train, "fig4", args.repeat), _epoch(model, target, "attack", args.repeat)]
            for recipe, n in (("fig4", CIFAR_TRAIN), ("attack", CIFAR_PART)):
                batch = RECIPES[recipe](model, 1).batch
                part = _epoch(model, _random(args.batches * batch, rng), recipe, args.repeat)
                epoch[model, recipe] = part * math.ceil(n / batch) / args.batches
                row.append(epoch[model, recipe])
            print(f"{model:>9} {row[0]:>12.3f} {row[1]:>14.3f} {row[2]:>11.1f} {row[3]:>13.1f}")
    grid = args.kappas * args.seeds
    jobs = {"fig4": [args.epochs * epoch[m, "fig4"] for m in models.MODELS for _ in range(grid)],
            "attack": [2 * args.epochs * epoch[m, "attack"] for m in models.MODELS for _ in range(grid)]}
    jobs["both"] = jobs["fig4"] + jobs["attack"]
    print(f"Section 6 at CIFAR-10 scale: {args.epochs} epochs, {args.kappas} kappas, {args.seeds} seeds, "
          f"{len(models.MODELS)} models; T_start {args.t_start:g} s, T_import {args.t_import:g} s, "
          f"o {1e3 * args.overhead:g} ms")
    for name, t in jobs.items():
        cols = ", ".join(f"W={w}: {_hours(wall(t, w, args.t_start, args.t_import, args.overhead))}"
                         for w in args.workers)
        print(f"  {name:>6}: {len(t)} tasks, sum {_hours(sum(t))}, longest {_hours(max(t))}; {cols}")
    print(f"load average {os.getloadavg()[0]:.1f} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
