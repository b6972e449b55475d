"""Figs. 1 and 2 of the amplification paper and the command ``maskverify amplification-train``.

Appendix E (the experiments' settings) is lost; the settings here are ours and stated in each
figure.  Both train the network of Section 2 (``numerics.amplification.gd``: ReLU, fixed second
layer +-1/sqrt(m), small Gaussian initialisation, full-batch GD on the logistic loss) on the XOR
clusters with 15 % of the labels flipped (``data.sample``):

- Fig. 1: the decision boundary in the plane of mu_1, mu_2 (inputs s_1 mu_1 + s_2 mu_2) after
  T = 1 + 1/(4 alpha) steps, with the training points projected on that plane, noisy ones marked;
- Fig. 2: train and test accuracy (against the observed, noisy labels) over training, in a
  low-dimensional (n >> d) and a high-dimensional (d >> n) setting.  The optimal test accuracy is
  1 - eta = 85 % up to the clusters' overlap.
"""
from __future__ import annotations

import argparse
import math
import sys
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np
import torch

from numerics.core import execution
from numerics.core.cliargs import UsageError, check_memory, count, output, real
from theory.core.io import atomic_write, write_json

from . import data, gd


@dataclass(frozen=True)
class Config:
    """One Fig. 2 panel (or Fig. 1's run): the data, the network and GD."""

    d: int
    n: int
    m: int = 200
    sigma: float = 0.1
    eta: float = 0.15
    alpha: float = 0.5
    omega: float = 1e-6
    steps: int = 400
    every: int = 5
    n_test: int = 2000
    seeds: int = 2


#: Fig. 2's two settings: low-dimensional (n >> d: sigma = 0.45, the clusters overlap) and
#: high-dimensional (d >> n: sigma sqrt(d) = 3, each sample's noise nearly orthogonal to the others')
LOW = Config(d=20, n=1000, sigma=0.45, steps=2000, every=20)
HIGH = Config(d=2000, n=100, sigma=3 / math.sqrt(2000), steps=2000, every=20)
#: Fig. 1: d = 100, sigma = 0.15 (in-plane spread visible), T = 1 + 1/(4 alpha) = 11 steps at alpha = 1/40
FIG1 = Config(d=100, n=200, m=400, sigma=0.15, alpha=1 / 40, steps=11, every=1, seeds=1)


def curves(cfg: Config, seed: int = 0, progress=None) -> dict:
    """Train/test accuracy against the noisy labels every ``every`` steps, per seed (seeds
    seed..seed+seeds-1), and the clean-train accuracy."""
    a = gd.second_layer(cfg.m)
    out = {"config": asdict(cfg), "steps": list(range(0, cfg.steps + 1, cfg.every)), "train": [], "test": [], "clean": []}
    for q in range(seed, seed + cfg.seeds):
        tr = data.sample(cfg.n, cfg.d, cfg.sigma, cfg.eta, seed=3 * q + gd.DATA)
        te = data.sample(cfg.n_test, cfg.d, cfg.sigma, cfg.eta, seed=3 * q + gd.TEST)
        s = gd.Setting(d=cfg.d, n=cfg.n, m=cfg.m, sigma=cfg.sigma, eta=cfg.eta, alpha=cfg.alpha, omega=cfg.omega,
                       steps=cfg.steps)
        W = gd.initial_weights(s, q)[None]
        rows = {"train": [], "test": [], "clean": []}
        for t in range(cfg.steps + 1):
            if t % cfg.every == 0:
                ftr, _ = gd.network(W, tr.x[None], a)
                fte, _ = gd.network(W, te.x[None], a)
                rows["train"].append(float((tr.y * ftr[0] > 0).double().mean()))
                rows["test"].append(float((te.y * fte[0] > 0).double().mean()))
                rows["clean"].append(float((tr.clean * ftr[0] > 0).double().mean()))
            if t < cfg.steps:
                W = W - cfg.alpha * gd.gradient(W, tr.x[None], tr.y[None], a)
            if progress is not None:
                progress(1)
        for k, v in rows.items():
            out[k].append(v)
    return out


def boundary(cfg: Config, seed: int = 0, grid: int = 161) -> dict:
    """Fig. 1: sign of f on the plane of mu_1, mu_2 after ``cfg.steps`` steps, the projected training
    points, and which noisy / clean points the network gets wrong."""
    q = seed
    tr = data.sample(cfg.n, cfg.d, cfg.sigma, cfg.eta, seed=3 * q + gd.DATA)
    s = gd.Setting(d=cfg.d, n=cfg.n, m=cfg.m, sigma=cfg.sigma, eta=cfg.eta, alpha=cfg.alpha, omega=cfg.omega,
                   steps=cfg.steps)
    a = gd.second_layer(cfg.m)
    W = gd.initial_weights(s, q)[None]
    for _ in range(cfg.steps):
        W = W - cfg.alpha * gd.gradient(W, tr.x[None], tr.y[None], a)
    ticks = torch.linspace(-2, 2, grid, dtype=torch.float64)
    g1, g2 = torch.meshgrid(ticks, ticks, indexing="xy")
    plane = torch.zeros(grid * grid, cfg.d, dtype=torch.float64)
    plane[:, 0], plane[:, 1] = g1.reshape(-1), g2.reshape(-1)
    fplane, _ = gd.network(W, plane[None], a)
    f, _ = gd.network(W, tr.x[None], a)
    right = (tr.y * f[0] > 0)
    return {"config": asdict(cfg), "ticks": ticks.tolist(), "sign": torch.sign(fplane[0]).reshape(grid, grid).tolist(),
            "points": tr.x[:, :2].tolist(), "y": tr.y.tolist(), "noisy": tr.noisy.tolist(),
            "clean_right": float(right[~tr.noisy].double().mean()),
            "noisy_wrong": float((~right[tr.noisy]).double().mean()) if bool(tr.noisy.any()) else 1.0}


def plot_boundary(result: dict, path: Path) -> Path:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(4.8, 4.6))
    ax = fig.add_subplot()
    t = np.array(result["ticks"])
    ax.contourf(t, t, np.array(result["sign"]), levels=[-1.5, 0, 1.5], colors=["#f4c7c3", "#c6dbef"], alpha=0.8)
    p, y, noisy = np.array(result["points"]), np.array(result["y"]), np.array(result["noisy"], dtype=bool)
    for lab, col in ((1, "tab:blue"), (-1, "tab:red")):
        sel = (y == lab) & ~noisy
        ax.scatter(p[sel, 0], p[sel, 1], s=9, c=col, label=f"y = {lab:+d}")
        sel = (y == lab) & noisy
        ax.scatter(p[sel, 0], p[sel, 1], s=40, c=col, marker="x", label=f"y = {lab:+d}, flipped")
    c = result["config"]
    ax.set_xlabel(r"$\langle\mu_1,x\rangle$")
    ax.set_ylabel(r"$\langle\mu_2,x\rangle$")
    ax.set_title(f"d={c['d']}, n={c['n']}, m={c['m']}, sigma={c['sigma']:g}, eta={c['eta']:g}, {c['steps']} steps\n"
                 f"clean right {result['clean_right']:.3f}, noisy wrong {result['noisy_wrong']:.3f}", fontsize=8)
    ax.legend(fontsize=6, loc="upper right")
    fig.tight_layout()
    return atomic_write(path, lambda tmp: fig.savefig(tmp, format="png", dpi=120))


def plot_curves(results: dict, path: Path) -> Path:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(8.5, 3.4))
    for k, (name, res) in enumerate(results.items()):
        ax = fig.add_subplot(1, len(results), k + 1)
        steps = np.array(res["steps"])
        for key, lab in (("train", "train (noisy labels)"), ("test", "test (noisy labels)"), ("clean", "train, clean labels")):
            c = np.array(res[key])
            line, = ax.plot(steps, c.mean(0), label=lab)
            ax.fill_between(steps, c.min(0), c.max(0), color=line.get_color(), alpha=0.2)
        c = res["config"]
        ax.axhline(1 - c["eta"], color="grey", ls=":", lw=1)
        ax.set_title(f"{name}: d={c['d']}, n={c['n']}, m={c['m']}, alpha={c['alpha']:g}", fontsize=8)
        ax.set_xlabel("GD steps")
        ax.set_xscale("symlog", linthresh=10)
        ax.set_xlim(0, steps[-1])
        ax.set_ylim(0.4, 1.02)
    fig.axes[0].set_ylabel("accuracy")
    fig.axes[0].legend(fontsize=7)
    fig.tight_layout()
    return atomic_write(path, lambda tmp: fig.savefig(tmp, format="png", dpi=120))


def _bar(total, progress):
    if not progress:
        return None, None
    from tqdm import tqdm

    bar = tqdm(total=total, leave=False)
    return bar, bar.update


def produce_fig1(out_dir: Path, quick: bool, progress: bool, seed: int = 0) -> list[Path]:
    """Fig. 1 (the report's figure); ``quick`` halves the grid."""
    res = boundary(FIG1, seed, grid=81 if quick else 161)
    out_dir = Path(out_dir)
    return [plot_boundary(res, out_dir / "fig1.png"), write_json(out_dir / "fig1.json", res)]


def produce_fig2(out_dir: Path, quick: bool, progress: bool, seed: int = 0) -> list[Path]:
    """Fig. 2; ``quick``: 100 steps (recorded every 5), one seed, m = 100."""
    cfgs = {"n >> d": LOW, "d >> n": HIGH}
    if quick:
        cfgs = {k: replace(c, steps=100, every=5, seeds=1, m=100, n_test=1000) for k, c in cfgs.items()}
    bar, tick = _bar(sum((c.steps + 1) * c.seeds for c in cfgs.values()), progress)
    try:
        res = {k: curves(c, seed, tick) for k, c in cfgs.items()}
    finally:
        if bar is not None:
            bar.close()
    out_dir = Path(out_dir)
    return [plot_curves(res, out_dir / "fig2.png"), write_json(out_dir / "fig2.json", res)]


def seed_task(params: dict) -> dict:
    """``curves`` of one seed (``params["seed"]``) of the config ``params["config"]``: a task of
    the execution layer."""
    return curves(replace(Config(**params["config"]), seeds=1), params["seed"])


def _curves_as_tasks(cfg: Config, args) -> dict:
    """``curves(cfg, args.seed)`` with one task per seed on the engine the options ask for."""
    params = [{"config": asdict(cfg), "seed": q} for q in range(args.seed, args.seed + cfg.seeds)]
    with execution.engine_from_args(args) as engine:
        parts = execution.run(seed_task, params, engine, store=execution.Store(args.exec_store),
                              resume=args.exec_resume, desc="amplification-train (seed)", progress=not args.no_progress)
    out = {"config": asdict(cfg), "steps": parts[0]["steps"]}
    return {**out, **{k: [p[k][0] for p in parts] for k in ("train", "test", "clean")}}


def _main(args) -> int:
    out = Path(args.out)
    if args.steps % args.every:
        raise UsageError(f"--steps ({args.steps}) must be a multiple of --every ({args.every})")
    if args.m % 2:
        raise UsageError(f"--m must be even (half the second layer is +1/sqrt(m)), got {args.m}")
    sigma = args.sigma if args.sigma is not None else 3 / math.sqrt(args.d)
    cfg = Config(d=args.d, n=args.n, m=args.m, sigma=sigma, eta=args.eta, alpha=args.alpha, omega=args.omega,
                 steps=args.steps, every=args.every, n_test=args.n_test, seeds=args.seeds)
    # one run at a time holds the data (n + n_test, d), W (m, d) with its gradient and the (n, m)
    # activations, a few copies each: an estimate from the shapes, generous by design
    check_memory(8.0 * (2 * (cfg.n + cfg.n_test) * cfg.d + 6 * cfg.m * cfg.d + 6 * (cfg.n + cfg.n_test) * cfg.m),
                 "maskverify amplification-train at these sizes")
    if execution.chosen(args):
        try:
            res = _curves_as_tasks(cfg, args)
        except execution.TasksFailed as exc:
            print(f"maskverify amplification-train: {exc}", file=sys.stderr)
            return 1
    else:
        bar, tick = _bar((cfg.steps + 1) * cfg.seeds, not args.no_progress)
        try:
            res = curves(cfg, args.seed, tick)
        finally:
            if bar is not None:
                bar.close()
    out.mkdir(parents=True, exist_ok=True)
    write_json(out / "amplification_train.json", res)
    rows = ["seed,step,train,test,clean"] + [f"{args.seed + k},{t},{res['train'][k][i]},{res['test'][k][i]},{res['clean'][k][i]}"
                                             for k in range(cfg.seeds) for i, t in enumerate(res["steps"])]
    atomic_write(out / "amplification_train.csv", "\n".join(rows) + "\n")
    plot_curves({"run": res}, out / "amplification_train.png")
    test = np.array(res["test"])[:, -1]
    train = np.array(res["train"])[:, -1]
    print(f"after {cfg.steps} steps: train accuracy {train.mean():.4f}, test accuracy {test.mean():.4f} "
          f"(1 - eta = {1 - cfg.eta:.4f}), {cfg.seeds} seed(s)")
    return 0


def add_subcommand(sub) -> argparse.ArgumentParser:
    """Register ``maskverify amplification-train`` (one Fig. 2 panel at chosen settings)."""
    d = HIGH
    p = sub.add_parser("amplification-train", help="the amplification paper: GD on the noisy XOR clusters (Fig. 2)",
                       description=__doc__.splitlines()[0])
    p.add_argument("--d", type=count(2), default=d.d, help=f"input dimension (default {d.d})")
    p.add_argument("--n", type=count(1), default=d.n, help=f"training-set size (default {d.n})")
    p.add_argument("--m", type=count(2), default=d.m, help=f"width, even (default {d.m})")
    p.add_argument("--sigma", type=real(0.0, open_lo=True), default=None, help="in-cluster standard deviation "
                   "(default 3/sqrt(d), Fig. 2's d >> n setting)")
    p.add_argument("--eta", type=real(0.0, 0.5, open_hi=True), default=d.eta, help=f"label-flip rate (default {d.eta})")
    p.add_argument("--alpha", type=real(0.0, open_lo=True), default=d.alpha, help=f"GD step size (default {d.alpha})")
    p.add_argument("--omega", type=real(0.0, open_lo=True), default=d.omega, help=f"initialisation scale (default {d.omega:g})")
    p.add_argument("--steps", type=count(1), default=d.steps, help=f"GD steps (default {d.steps})")
    p.add_argument("--every", type=count(1), default=d.every, help="record the accuracies every this many steps")
    p.add_argument("--n-test", type=count(1), default=d.n_test, help=f"test-set size (default {d.n_test})")
    p.add_argument("--seeds", type=count(1), default=d.seeds, help=f"number of seeds (default {d.seeds})")
    p.add_argument("--seed", type=count(0), default=0, help="first seed (default 0)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--out", default=".", type=output("dir"), help="directory for amplification_train.{json,csv,png} (created if missing)")
    execution.add_arguments(p, store="results/tasks/amplification-train")
    p.set_defaults(func=_main)
    return p
