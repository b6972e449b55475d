"""Experiment 1 (Section 4.1, Appendix I.1; Figs. 1 and 5): a shallow tanh network (1) fitted to
random labels by full-batch gradient descent (9).

Data: x_a ~ N(0, I_d), y_a ~ U[-1/2, 1/2] independently; c_i Rademacher (c_hat = 1), W^0 ~ N(0, 1);
GD (9) with step delta, which moves the pre-activations at the data by exactly delta times the
velocity of (11) with G = G^(0) = X X^T / d (``numerics.meanfield.dynamics``: m n^2 per step,
memory m n).  The paper: d = 20, n in {20, 40, ...}, m = 8192 (Fig. 5: 4096), delta = 1, 50,000
steps, 5 seeds; the defaults here are a small CPU run (m = 512, 2,000 steps, 3 seeds).  Output:
the training loss per recorded step, per n (mean and range over seeds), as JSON and a PNG.
"""
from __future__ import annotations

import argparse
import math
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from numerics.core.cliargs import UsageError, check_memory, count, output, real
from theory.core.io import atomic_write, write_json

from . import dynamics as dy
from .kernels import gram_shallow


@dataclass(frozen=True)
class Config:
    d: int = 20
    ns: tuple[int, ...] = (10, 20, 40)
    m: int = 512
    steps: int = 2000
    delta: float = 1.0
    seeds: int = 3
    every: int = 20


def run(cfg: Config, progress=None) -> dict:
    """Losses of GD (9) per n and seed: {"config", "steps", "runs": {n: [[loss per record] per seed]}}."""
    runs = {}
    for n in cfg.ns:
        per_seed = []
        for seed in range(cfg.seeds):
            rng = np.random.default_rng([seed, n])
            X = rng.standard_normal((n, cfg.d))
            y = rng.uniform(-0.5, 0.5, n)
            p = dy.make_problem(gram_shallow(X), y, cfg.m, 1.0, "tanh", seed=seed)
            per_seed.append(dy.gradient_descent(p, cfg.delta, cfg.steps, every=cfg.every))
            if progress:
                progress(n, seed)
        runs[str(n)] = per_seed
    return {"config": asdict(cfg), "steps": list(range(0, cfg.steps + 1, cfg.every)), "runs": runs}


def plot(result: dict, path: Path) -> Path:
    """Fig. 1: training loss against GD steps, one curve per n (mean over seeds, band min-max)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(5.5, 3.8))
    ax = fig.add_subplot()
    steps = np.array(result["steps"])
    for n, curves in result["runs"].items():
        c = np.array(curves)
        line, = ax.semilogy(steps, c.mean(0), label=f"n = {n}")
        ax.fill_between(steps, c.min(0), c.max(0), color=line.get_color(), alpha=0.2)
    cfg = result["config"]
    ax.set_xlabel("GD steps")
    ax.set_ylabel("training loss (6)")
    ax.set_title(f"Exp. 1: tanh, d = {cfg['d']}, m = {cfg['m']}, delta = {cfg['delta']:g}, {cfg['seeds']} seeds",
                 fontsize=9)
    ax.legend()
    fig.tight_layout()
    return atomic_write(path, lambda tmp: fig.savefig(tmp, format="png", dpi=120))


def produce(out_dir: Path, quick: bool, progress: bool, seed: int = 0) -> list[Path]:
    """The report's figure: ``quick`` is a 300-step run at m = 256."""
    cfg = Config(m=256, steps=300, seeds=2, every=10) if quick else Config()
    result = run(cfg)
    out_dir = Path(out_dir)
    return [plot(result, out_dir / "exp1.png"), write_json(out_dir / "exp1.json", result)]


def _main(args) -> int:
    out = Path(args.out)
    cfg = Config(d=args.d, ns=tuple(args.n), m=args.m, steps=args.steps, delta=args.delta, seeds=args.seeds,
                 every=args.every)
    if cfg.steps % cfg.every:
        raise UsageError(f"--steps ({cfg.steps}) must be a multiple of --every ({cfg.every})")
    # the largest n's run holds X (n, d), the features h (m, n) with their flow's RK4 stages and the
    # (n, n) Gram: an estimate from the shapes, generous by design
    n = max(cfg.ns)
    check_memory(8.0 * (2 * n * cfg.d + 12 * cfg.m * n + 4 * n * n), "maskverify meanfield-train at these sizes")
    result = run(cfg)
    out.mkdir(parents=True, exist_ok=True)
    write_json(out / "exp1.json", result)
    plot(result, out / "exp1.png")
    for n, curves in result["runs"].items():
        final = np.array(curves)[:, -1]
        print(f"n = {n}: final training loss {final.mean():.3e} (min {final.min():.3e}, max {final.max():.3e})")
    return 0


def add_subcommand(sub) -> argparse.ArgumentParser:
    """Register ``maskverify meanfield-train`` (Experiment 1)."""
    d = Config()
    p = sub.add_parser("meanfield-train", help="Exp. 1 of the meanfield paper: shallow tanh net on random labels",
                       description=__doc__.splitlines()[0])
    p.add_argument("--d", type=count(1), default=d.d, help=f"input dimension (default {d.d})")
    p.add_argument("--n", type=count(1), nargs="+", default=list(d.ns), help="training-set sizes")
    p.add_argument("--m", type=count(1), default=d.m, help=f"width (default {d.m}; the paper 8192)")
    p.add_argument("--steps", type=count(1), default=d.steps, help=f"GD steps (default {d.steps}; the paper 50000)")
    p.add_argument("--delta", type=real(0.0, open_lo=True), default=d.delta, help="GD step size delta of (9)")
    p.add_argument("--seeds", type=count(1), default=d.seeds, help=f"seeds per n (default {d.seeds}; the paper 5)")
    p.add_argument("--every", type=count(1), default=d.every, help="record the loss every this many steps")
    p.add_argument("--out", default=".", type=output("dir"), help="directory for exp1.json and exp1.png (created if missing)")
    p.set_defaults(func=_main)
    return p


#: records below this training loss are at float64's floor for these labels (|y_a| <= 1/2: the residuals'
#: rounding leaves L ~ n eps^2 ~ 1e-31), where log L no longer measures a rate
FLOOR = 1e-24


def verdict(result: dict, linear_ns=(20, 40)) -> dict:
    """The decision of ``exp.1.linear-and-slower`` (rule in its notes): per n the mean loss over seeds,
    cut at the last record before any seed reaches ``FLOOR``; for n in ``linear_ns`` the shape test of
    Exp. 3 (``exp3.decay_shape``: late local rate >= half the third quarter's, log L closer to affine in k
    than in log k, over the second half of the window); and the mean decay rate of log L per step over
    the window common to all n, strictly decreasing in n."""
    from .exp3 import decay_shape

    steps = np.asarray(result["steps"], dtype=float)
    curves, ends = {}, {}
    for n, per_seed in result["runs"].items():
        c = np.asarray(per_seed, dtype=float)
        above = np.all(c >= FLOOR, axis=0)
        end = int(np.argmin(above)) - 1 if not above.all() else len(above) - 1
        curves[int(n)], ends[int(n)] = c.mean(0), end
    ns = sorted(curves)
    linear = {}
    for n in linear_ns:
        if n in curves:
            shape = decay_shape(curves[n][:ends[n] + 1]) if ends[n] >= 8 else None
            ok = shape is not None and shape["rate_q4"] >= 0.5 * shape["rate_q3"] and shape["rss_exponential"] < shape["rss_power"]
            linear[n] = {"supported": bool(ok), "records": ends[n], "shape": shape}
    k = min(ends.values())
    rates = {n: float((math.log(curves[n][0]) - math.log(curves[n][k])) / steps[k]) for n in ns} if k > 0 else {}
    slower = bool(rates) and all(rates[a] > rates[b] for a, b in zip(ns, ns[1:]))
    return {"supported": bool(linear and all(v["supported"] for v in linear.values()) and slower),
            "linear": linear, "rates": rates, "window_steps": float(steps[k]) if k > 0 else 0.0, "slower": slower}
