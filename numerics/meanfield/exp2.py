"""Experiment 2 (Section 4.2, Appendix I.2; Figs. 2 and 6): the benefit of an input embedding -- a
shallow ReLU net (1) against the same net on the quadratic embedding Phi(x) = vec(x x^T).

Models (2)-(3) with sigma = ReLU, d = 30, c_i = +-1, W^0_ij ~ N(0, 1), GD (9): "plain" (Phi(x) = x,
D = d, G = x^T x'/d, eq. (20)) and "quadratic" (D = d^2, G = (x^T x')^2/d^2 by (12)).  The target is
a quadratic-embedding net with m = 5: y(x) = (1/5) sum_i c*_i relu(x^T W*_i x / d) with c*_i = +-1 and
W*_i (d x d) of N(0, 1) entries -- the models' own initial law.  GD is simulated exactly in feature
space (``dynamics.gradient_descent_run``, test points through the cross kernel); test error =
test mean squared error on 500 points, also divided by the test labels' mean square (``test_rel``).

Chosen here (the text does not fix them): the input law (default x ~ N(0, I_d); ``--inputs sphere``:
uniform on the sphere of radius sqrt d), the teacher's law (above; drawn per seed), the n grid, the
loss normalisation (``runs``: default mean squared error; ``--loss sum``: (6) as printed).  Seed s
draws the teacher, the training set (with n), the test set and W^0 (with the model); both models of
one (s, n) see the same data (paired).  Paper: m = 8192 (Fig. 6: 2048 too), 50,000 steps of
delta = 1, 5 seeds.  Defaults here (2 CPU cores, a few minutes): m = 64, n in {100, 200, 400, 800},
2 seeds, 2,500 steps of delta = 20 on the mean loss (the gradient-flow time of 50,000 steps of
delta = 1).  ``--full``: m = 8192, n in {50, 100, 200, 400, 800, 1600}, 50,000 steps of delta = 1,
5 seeds.
"""
from __future__ import annotations

import argparse
import math
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np

from numerics.core.cliargs import count
from theory.core.io import write_json

from . import dynamics as dy
from . import runs
from .embeddings import embedded_problem, linear, quadratic

MODELS = {"quadratic": quadratic, "plain": linear}
INPUTS = ("gaussian", "sphere")


@dataclass(frozen=True)
class Config:
    d: int = 30
    ns: tuple[int, ...] = (100, 200, 400, 800)
    m: int = 64
    teacher_m: int = 5
    inputs: str = "gaussian"
    n_test: int = 500
    steps: int = 2500
    every: int = 50
    delta: float = 20.0
    loss: str = "mean"
    seeds: int = 2
    seed: int = 0


FULL = Config(ns=(50, 100, 200, 400, 800, 1600), m=8192, steps=50000, every=500, delta=1.0, seeds=5)
#: ``produce(quick=True)``: what ``maskverify report`` runs (seconds)
QUICK = Config(ns=(25, 50, 100), m=32, steps=400, every=20, seeds=1)


def inputs(n: int, d: int, law: str, rng: np.random.Generator) -> np.ndarray:
    """n inputs: x ~ N(0, I_d) ("gaussian") or uniform on the sphere of radius sqrt d ("sphere")."""
    X = rng.standard_normal((n, d))
    if law == "sphere":
        return math.sqrt(d) * X / np.linalg.norm(X, axis=1, keepdims=True)
    if law != "gaussian":
        raise ValueError(f"inputs must be one of {INPUTS}, got {law!r}")
    return X


def teacher(X, c_star: np.ndarray, W_star: np.ndarray) -> np.ndarray:
    """y(x) = (1/m*) sum_i c*_i relu(W*_i . vec(x x^T) / d), W* (m*, d^2): (2)-(3) on the quadratic embedding."""
    phi = quadratic(X).numpy()
    return c_star @ np.maximum(W_star @ phi.T / math.sqrt(phi.shape[1]), 0.0) / len(c_star)


def key(model: str, n: int, seed: int) -> str:
    return f"{model}/n={n}/seed={seed}"


def one_run(cfg: Config, model: str, n: int, seed: int, dev, progress=None) -> dict:
    """One GD run of ``model`` on n training points of seed ``seed``; ``runs.measure``'s measurements
    with ``test_rel`` = test MSE / mean(y_test^2)."""
    rng = np.random.default_rng([seed, 0, 3])
    c_star = rng.choice([-1.0, 1.0], cfg.teacher_m)
    W_star = rng.standard_normal((cfg.teacher_m, cfg.d ** 2))
    X = inputs(n, cfg.d, cfg.inputs, np.random.default_rng([seed, n, 0]))
    Xt = inputs(cfg.n_test, cfg.d, cfg.inputs, np.random.default_rng([seed, 0, 1]))
    y, yt = teacher(X, c_star, W_star), teacher(Xt, c_star, W_star)
    emb = embedded_problem(MODELS[model](X), MODELS[model](Xt), y, cfg.m, dy.SCALINGS["ours"], "relu",
                           seed=7919 * seed + len(model))
    out = runs.measure(emb, yt, runs.effective_delta(cfg.loss, cfg.delta, n), cfg.steps, cfg.every, dev, progress,
                       scatter=False)
    if "diverged" not in out:
        out["test_rel"] = [e / float(np.mean(yt ** 2)) for e in out["test_mse"]]
    return out


def task(params: dict, progress=None) -> dict:
    """``one_run`` from JSON parameters (config, model, n, seed, device): a task of ``run``."""
    return one_run(runs.config(Config, params["config"]), params["model"], params["n"], params["seed"],
                   params["device"], progress)


def run(cfg: Config, *, dev="cpu", store: runs.RunStore | None = None, progress: bool = False,
        tasks: runs.Tasks | None = None) -> dict:
    """Every (model, n, seed): {"config", "steps", "runs": {key: measurements}, "summary"}; with
    ``tasks``, each (model, n, seed) a task on its engine."""
    store = store if store is not None else runs.RunStore(None, {}, resume=False)
    base = {"config": asdict(cfg), "device": str(dev)}
    jobs = {key(mo, n, s): (task, dict(base, model=mo, n=n, seed=s))
            for n in cfg.ns for s in range(cfg.seed, cfg.seed + cfg.seeds) for mo in MODELS}
    result = {"config": asdict(cfg), "steps": list(range(0, cfg.steps + 1, cfg.every)),
              "runs": runs.execute(store, jobs, cfg.steps, progress=progress, desc="Exp. 2", tasks=tasks)}
    result["summary"] = summary(result)
    return result


def _curves(result: dict, model: str, n: int, field: str) -> np.ndarray:
    cfg = result["config"]
    rs = [result["runs"][key(model, n, s)] for s in range(cfg["seed"], cfg["seed"] + cfg["seeds"])]
    return np.array([r[field] for r in rs if "diverged" not in r])


def summary(result: dict) -> dict:
    """Per (model, n): final test MSE, relative test error, training MSE, feature movement (means and
    standard deviations over seeds), the runs that diverged or whose training error grew, and per n
    the paired differences plain - quadratic of the test MSE."""
    cfg = result["config"]
    rows = []
    for model in MODELS:
        for n in cfg["ns"]:
            row = {"model": model, "n": n}
            for field in ("test_mse", "test_rel", "train_mse", "move_rel"):
                c = _curves(result, model, n, field)
                v = c[:, -1] if c.ndim == 2 else c
                row[field] = float(v.mean()) if len(v) else None
                row[field + "_sd"] = float(v.std(ddof=1)) if len(v) > 1 else None
            row["diverged"] = cfg["seeds"] - len(_curves(result, model, n, "move_rel"))
            row["grew"] = sum(runs.grew(result["runs"][key(model, n, s)])
                              for s in range(cfg["seed"], cfg["seed"] + cfg["seeds"]))
            rows.append(row)
    diffs = []
    for n in cfg["ns"]:
        q, p = _curves(result, "quadratic", n, "test_mse"), _curves(result, "plain", n, "test_mse")
        if len(q) == len(p) == cfg["seeds"]:
            diffs.append({"n": n, "plain_minus_quadratic": (p[:, -1] - q[:, -1]).tolist()})
    return {"rows": rows, "paired": diffs}


def verdicts(result: dict) -> dict:
    """The decision of ``exp.2.embedding-helps`` (its notes): the mean final test MSE of the quadratic
    model below the plain model's at every n."""
    rows = {(r["model"], r["n"]): r for r in result["summary"]["rows"]}
    ns = sorted(result["config"]["ns"])
    te = {mo: [rows[mo, n]["test_mse"] for n in ns] for mo in MODELS}
    ok = all(q is not None and p is not None and q < p for q, p in zip(te["quadratic"], te["plain"]))
    return {"exp.2.embedding-helps": {"supported": ok, "ns": ns, "test_mse": te,
                                      "test_rel": {mo: [rows[mo, n]["test_rel"] for n in ns] for mo in MODELS},
                                      "paired": result["summary"]["paired"]}}


def csv_rows(result: dict):
    for k, r in result["runs"].items():
        if "diverged" in r:
            continue
        model, n, seed = (part.split("=")[-1] for part in k.split("/"))
        for j, step in enumerate(result["steps"]):
            yield [model, n, seed, step, r["train_mse"][j], r["test_mse"][j], r["test_rel"][j]]


def plot(result: dict, out: Path, pdf: bool = False) -> list[Path]:
    """exp2.png (Fig. 2: final test MSE against n, mean +- sd over seeds) and exp2_fig6.png (Fig. 6:
    test MSE against GD steps per model and n, mean over seeds)."""
    from matplotlib.figure import Figure

    cfg = result["config"]
    head = (f"d = {cfg['d']}, m = {cfg['m']}, {cfg['inputs']} inputs,\n{cfg['steps']} steps of delta = {cfg['delta']:g} "
            f"({cfg['loss']} loss), {cfg['seeds']} seeds")
    fig = Figure(figsize=(5.5, 3.8))
    ax = fig.add_subplot()
    for model in MODELS:
        rs = [r for r in result["summary"]["rows"] if r["model"] == model and r["test_mse"] is not None]
        ax.errorbar([r["n"] for r in rs], [r["test_mse"] for r in rs], yerr=[r["test_mse_sd"] or 0.0 for r in rs],
                    marker="o", capsize=3, label=model)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("n")
    ax.set_ylabel("test MSE")
    ax.set_title("Exp. 2 (Fig. 2): " + head, fontsize=8)
    ax.legend()
    fig.tight_layout()
    paths = runs.save_figure(fig, out / "exp2.png", pdf)
    fig = Figure(figsize=(9, 3.8))
    axes = fig.subplots(1, len(MODELS), sharey=True)
    steps = np.array(result["steps"])
    for ax, model in zip(axes, MODELS):
        for n in cfg["ns"]:
            c = _curves(result, model, n, "test_mse")
            if len(c):
                ax.semilogy(steps, c.mean(0), label=f"n = {n}")
        ax.set_title(model)
        ax.set_xlabel("GD steps")
        ax.legend(fontsize=7)
    axes[0].set_ylabel("test MSE")
    fig.suptitle("Exp. 2 (Fig. 6): " + head, fontsize=8)
    fig.tight_layout()
    return paths + runs.save_figure(fig, out / "exp2_fig6.png", pdf)


def write(result: dict, out: Path, pdf: bool = False) -> list[Path]:
    out = Path(out)
    return [write_json(out / "exp2.json", result),
            runs.write_csv(out / "exp2.csv", ["model", "n", "seed", "step", "train_mse", "test_mse", "test_rel"],
                           csv_rows(result))] + plot(result, out, pdf)


def produce(out_dir: Path, quick: bool, progress: bool, seed: int = 0) -> list[Path]:
    """The report's figures (``quick``: ``QUICK``, seconds)."""
    return runs.produce(replace(QUICK if quick else Config(), seed=seed), run, write, out_dir, progress)


def print_summary(result: dict) -> None:
    print(f"{'model':>10} {'n':>5} {'test MSE':>10} {'+-sd':>8} {'test/E y^2':>10} {'train MSE':>10} {'move rel':>9}")
    fmt = runs.cell
    for r in result["summary"]["rows"]:
        print(f"{r['model']:>10} {r['n']:>5} {fmt(r['test_mse'], 10, '.4g')} {fmt(r['test_mse_sd'], 8, '.2g')} "
              f"{fmt(r['test_rel'], 10, '.4f')} {fmt(r['train_mse'], 10, '.3e')} {fmt(r['move_rel'], 9, '.3g')}"
              + (f"  ({r['diverged']} diverged)" if r["diverged"] else "")
              + (f"  ({r['grew']} ended above their initial training error: GD unstable)" if r["grew"] else ""))


def _main(args) -> int:
    return runs.command(args, FULL if args.full else Config(), (
        ("ns", args.n), ("m", args.m), ("inputs", args.inputs), ("steps", args.steps), ("every", args.every),
        ("delta", args.delta), ("loss", args.loss), ("seeds", args.seeds), ("d", args.d)), name="exp2", run=run, write=write, summary=print_summary, keyed=("ns",))


def add_subcommand(sub) -> argparse.ArgumentParser:
    """Register ``maskverify meanfield-exp2``."""
    d = Config()
    p = sub.add_parser("meanfield-exp2", help="Exp. 2 of the meanfield paper: shallow ReLU net with and without "
                                              "the quadratic embedding", description=__doc__.split("\n\n")[0],
                       epilog=__doc__.split("\n\n", 1)[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--full", action="store_true", help="the paper's sizes (see below; for a GPU)")
    p.add_argument("--n", type=count(1), nargs="+", default=None, help=f"training-set sizes (default {d.ns})")
    p.add_argument("--m", type=count(1), default=None, help=f"width (default {d.m}; the paper 8192)")
    p.add_argument("--d", type=count(1), default=None, help=f"input dimension (default {d.d})")
    p.add_argument("--inputs", choices=INPUTS, default=None, help=f"input law (default {d.inputs})")
    runs.add_common_options(p, d, name="exp2")
    p.set_defaults(func=_main)
    return p
