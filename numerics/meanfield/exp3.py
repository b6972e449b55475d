"""Experiment 3 (Section 4.3, Appendix I.3; Figs. 3, 4, 7, 8): feature learning against lazy training in
the partially trained 3-layer net (4)-(5) under the three scalings of Table 1.

Model: sigma = ReLU, d = 50, D = m, first-layer z_j ~ N(0, I_d) fixed, W^0_ij ~ N(0, 1), c_i = +-1;
scalings ``dynamics.SCALINGS`` (ours: f = (1/m) sum, h = W phi/sqrt m, step m delta; NTK: 1/sqrt m,
1/sqrt m, step delta, symmetrised at initialisation; MF: 1/m, 1/m, step m^2 delta).  GD is simulated
exactly in feature space (``dynamics.gradient_descent_run``; the features at the test points through
the cross kernel G(x, x_a) = phi(x)^T phi(x_a)/D of the same z, W^0).
Data (93)-(96): (x_1, x_2, y) = (+-1, 0, 1) or (0, +-1, -1), each with probability 1/4, x_3..x_d
~ U[-1, 1]; 500 test points from the same law.

Chosen here (the text does not fix them): the loss normalisation (``runs``: default the mean
squared error, with which delta = 1 is stable; (6) as printed with ``--loss sum``), the n grid
(Fig. 3), the widths of Fig. 4's "different m", the test error (both the test mean squared error
and the test classification error sign f != y are recorded; plots show the MSE).  Seeds: seed s
draws the training set (with n), the test set, z and W^0 (with m); the three scalings of one (s, n,
m) share data, z and W^0 (paired comparisons; the NTK model uses the first m/2 rows of its own W^0
draw twice).
Paper: m = 8192, n = 600 (400, 800), 50,000 steps of delta = 1.  Defaults here (2 CPU cores, a few
minutes): m in {64, 128}, n in {200, 400, 600}, 2 seeds, 2,500 steps of delta = 20 on the mean loss
-- the same gradient-flow time as 50,000 steps of delta = 1 (and still stable:
2 delta lambda_max/n ~ 0.6 < 2 at n = 600).  ``--full``: m in {2048, 8192}, n in {200, 400, 600,
800}, 50,000 steps of delta = 1, 5 seeds (a GPU).
"""
from __future__ import annotations

import argparse
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np

from numerics.core.cliargs import UsageError, count
from theory.core.io import write_json

from . import dynamics as dy
from . import runs
from .embeddings import embedded_problem, random_features


@dataclass(frozen=True)
class Config:
    d: int = 50
    ns: tuple[int, ...] = (200, 400, 600)
    ms: tuple[int, ...] = (64, 128)
    scalings: tuple[str, ...] = ("ours", "ntk", "mf")
    n_test: int = 500
    steps: int = 2500
    every: int = 50
    delta: float = 20.0
    loss: str = "mean"
    seeds: int = 2
    seed: int = 0


FULL = Config(ns=(200, 400, 600, 800), ms=(2048, 8192), steps=50000, every=500, delta=1.0, seeds=5)
#: ``produce(quick=True)``: what ``maskverify report`` runs (seconds)
QUICK = Config(ns=(100, 200), ms=(32,), steps=400, every=20, seeds=1)


def data(n: int, d: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """n draws of (93)-(96): X (n, d), y (n,) in {-1, 1}."""
    if d < 2:
        raise ValueError(f"the data (93)-(96) need d >= 2, got {d}")
    k = rng.integers(0, 4, n)
    X = np.zeros((n, d))
    X[np.arange(n), np.where(k < 2, 0, 1)] = np.where(k % 2 == 0, 1.0, -1.0)
    X[:, 2:] = rng.uniform(-1.0, 1.0, (n, d - 2))
    return X, np.where(k < 2, 1.0, -1.0)


def key(scaling: str, n: int, m: int, seed: int) -> str:
    return f"{scaling}/n={n}/m={m}/seed={seed}"


def one_run(cfg: Config, scaling: str, n: int, m: int, seed: int, dev, progress=None) -> dict:
    """One GD run of the P-3L net (module docstring); the measurements of ``runs.measure``."""
    X, y = data(n, cfg.d, np.random.default_rng([seed, n, 0]))
    Xt, yt = data(cfg.n_test, cfg.d, np.random.default_rng([seed, 0, 1]))
    Z = np.random.default_rng([seed, m, 2]).standard_normal((m, cfg.d))
    emb = embedded_problem(random_features(X, Z, "relu"), random_features(Xt, Z, "relu"), y, m,
                           dy.SCALINGS[scaling], "relu", seed=7919 * seed + m)
    return runs.measure(emb, yt, runs.effective_delta(cfg.loss, cfg.delta, n), cfg.steps, cfg.every, dev, progress,
                        scatter=(seed == cfg.seed))


def task(params: dict, progress=None) -> dict:
    """``one_run`` from JSON parameters (config, scaling, n, m, seed, device): a task of ``run``."""
    return one_run(runs.config(Config, params["config"]), params["scaling"], params["n"], params["m"],
                   params["seed"], params["device"], progress)


def run(cfg: Config, *, dev="cpu", store: runs.RunStore | None = None, progress: bool = False,
        tasks: runs.Tasks | None = None) -> dict:
    """Every (scaling, n, m, seed) of ``cfg``: {"config", "steps", "runs": {key: measurements}, "summary"};
    with ``tasks``, each a task on its engine."""
    store = store if store is not None else runs.RunStore(None, {}, resume=False)
    base = {"config": asdict(cfg), "device": str(dev)}
    jobs = {key(s, n, m, seed): (task, dict(base, scaling=s, n=n, m=m, seed=seed))
            for m in cfg.ms for n in cfg.ns for seed in range(cfg.seed, cfg.seed + cfg.seeds) for s in cfg.scalings}
    result = {"config": asdict(cfg), "steps": list(range(0, cfg.steps + 1, cfg.every)),
              "runs": runs.execute(store, jobs, cfg.steps, progress=progress, desc="Exp. 3", tasks=tasks)}
    result["summary"] = summary(result)
    return result


def _finals(result: dict, scaling: str, n: int, m: int, field: str) -> np.ndarray:
    cfg = result["config"]
    out = [result["runs"][key(scaling, n, m, s)] for s in range(cfg["seed"], cfg["seed"] + cfg["seeds"])]
    return np.array([r[field][-1] if isinstance(r[field], list) else r[field] for r in out if "diverged" not in r])


def _curve(result: dict, scaling: str, n: int, m: int, field: str) -> np.ndarray:
    cfg = result["config"]
    out = [result["runs"][key(scaling, n, m, s)] for s in range(cfg["seed"], cfg["seed"] + cfg["seeds"])]
    return np.array([r[field] for r in out if "diverged" not in r])


def decay_rates(losses: np.ndarray) -> tuple[float, float]:
    """The mean decay rates of log L per step over the first and the second half of the run
    (a linear rate, L_k ~ rho^k, makes them equal; a slowing one makes the second smaller)."""
    logs = np.log(np.asarray(losses))
    half = (len(logs) - 1) // 2
    return (logs[0] - logs[half]) / half, (logs[half] - logs[-1]) / (len(logs) - 1 - half)


def summary(result: dict) -> dict:
    """Per (scaling, n, m): the final test MSE, test classification error, training MSE and the
    feature movement (means and standard deviations over seeds), the early and late decay rates of
    the mean training loss, and the runs that diverged or whose training error grew."""
    cfg = result["config"]
    rows = []
    for s in cfg["scalings"]:
        for n in cfg["ns"]:
            for m in cfg["ms"]:
                row = {"scaling": s, "n": n, "m": m}
                for field in ("test_mse", "test_cls", "train_mse", "move_rel", "move_abs"):
                    v = _finals(result, s, n, m, field)
                    row[field] = float(v.mean()) if len(v) else None
                    row[field + "_sd"] = float(v.std(ddof=1)) if len(v) > 1 else None
                c = _curve(result, s, n, m, "train_mse")
                row["rate_early"], row["rate_late"] = map(float, decay_rates(c.mean(0))) if len(c) else (None, None)
                row["diverged"] = cfg["seeds"] - len(c)
                row["grew"] = sum(runs.grew(result["runs"][key(s, n, m, sd)])
                                  for sd in range(cfg["seed"], cfg["seed"] + cfg["seeds"]))
                rows.append(row)
    return {"rows": rows}


def row(result: dict, scaling: str, n: int, m: int) -> dict:
    for r in result["summary"]["rows"]:
        if (r["scaling"], r["n"], r["m"]) == (scaling, n, m):
            return r
    raise KeyError((scaling, n, m))


def decay_shape(losses) -> dict:
    """The shape of log L_k over the second half of the records: the local decay rates per step over
    the third and the last quarter, and the residual sums of squares of log L affine in k
    (exponential, a linear rate) and affine in log k (a power law)."""
    logs = np.log(np.asarray(losses, dtype=float))
    K = len(logs) - 1
    q2, q3 = K // 2, (3 * K) // 4
    k = np.arange(q2, K + 1, dtype=float)
    rss = lambda t: float(np.linalg.lstsq(np.stack([np.ones_like(t), t], 1), logs[q2:], rcond=None)[1].sum())
    return {"rate_q3": float((logs[q2] - logs[q3]) / (q3 - q2)), "rate_q4": float((logs[q3] - logs[K]) / (K - q3)),
            "rss_exponential": rss(k), "rss_power": rss(np.log(k))}


def verdicts(result: dict, n_fig: int | None = None) -> dict:
    """The decisions of ``theory.meanfield.experiments``' Exp. 3 statements (rules in their notes) with
    the numbers behind them; ``n_fig``: the n of Fig. 4 (default: 600 if in the grid, else the largest)."""
    cfg = result["config"]
    ns, ms = sorted(cfg["ns"]), sorted(cfg["ms"])
    n_fig = n_fig or (600 if 600 in ns else ns[-1])
    m_top = ms[-1]
    te = {s: [row(result, s, n, m_top)["test_mse"] for n in ns] for s in cfg["scalings"]}
    out = {}
    if "ours" in cfg["scalings"]:
        shapes = {m: decay_shape(_curve(result, "ours", n_fig, m, "train_mse").mean(0)) for m in ms}
        ok = all(v["rate_q4"] >= 0.5 * v["rate_q3"] and v["rss_exponential"] < v["rss_power"] for v in shapes.values())
        out["exp.3.linear-decay"] = {"supported": ok, "n": n_fig, "per_m": shapes}
    if set(cfg["scalings"]) >= {"ours", "ntk", "mf"}:
        mv = {s: [row(result, s, n_fig, m)["move_rel"] for m in ms] for s in cfg["scalings"]}
        slope = (float(np.polyfit(np.log(ms), np.log(mv["ntk"]), 1)[0]) if len(ms) > 1 else None)
        ok = (mv["ours"][-1] >= 1 and mv["mf"][-1] >= 1 and mv["ntk"][-1] < mv["ours"][-1] / 10
              and (slope is None or slope < 0))
        out["exp.3.features-move"] = {"supported": ok, "n": n_fig, "ms": ms, "move_rel": mv, "ntk_exponent_in_m": slope}
        ok = all(te["ours"][i] <= min(te["mf"][i], te["ntk"][i]) for i in range(len(ns)))
        out["exp.3.test-error-order"] = {"supported": ok, "m": m_top, "ns": ns, "test_mse": te,
                                         "test_cls": {s: [row(result, s, n, m_top)["test_cls"] for n in ns]
                                                      for s in cfg["scalings"]}}
        falls = all(np.all(np.diff(te[s]) < 0) for s in te)
        drop = {s: te[s][0] - te[s][-1] for s in te}
        out["exp.3.mf-improves-with-n"] = {"supported": bool(falls and drop["mf"] > drop["ntk"]), "falls": bool(falls),
                                           "drop": drop, "m": m_top, "ns": ns}
    return out


def csv_rows(result: dict):
    steps = result["steps"]
    for k, r in result["runs"].items():
        if "diverged" in r:
            continue
        s, n, m, seed = (part.split("=")[-1] for part in k.split("/"))
        for j, step in enumerate(steps):
            yield [s, n, m, seed, step, r["train_mse"][j], r["test_mse"][j], r["test_cls"][j]]


def plot_fig3(result: dict, path: Path, pdf: bool = False) -> list[Path]:
    """Fig. 3: final test MSE and test classification error against n, per scaling (largest m)."""
    from matplotlib.figure import Figure

    cfg = result["config"]
    m = max(cfg["ms"])
    fig = Figure(figsize=(9, 3.6))
    axes = fig.subplots(1, 2)
    for s in cfg["scalings"]:
        for ax, field in zip(axes, ("test_mse", "test_cls")):
            rs = [row(result, s, n, m) for n in cfg["ns"]]
            ok = [r for r in rs if r[field] is not None]
            ax.errorbar([r["n"] for r in ok], [r[field] for r in ok], yerr=[r[field + "_sd"] or 0.0 for r in ok],
                        marker="o", capsize=3, label=s)
    for ax, lab in zip(axes, ("test MSE", "test classification error")):
        ax.set_xlabel("n")
        ax.set_ylabel(lab)
        ax.legend()
    fig.suptitle(f"Exp. 3 (Fig. 3): P-3L ReLU, d = {cfg['d']}, m = D = {m}, {cfg['steps']} steps of delta = "
                 f"{cfg['delta']:g} ({cfg['loss']} loss), {cfg['seeds']} seeds", fontsize=9)
    fig.tight_layout()
    return runs.save_figure(fig, path, pdf)


def plot_fig4(result: dict, n: int, path: Path, pdf: bool = False) -> list[Path]:
    """Figs. 4, 7, 8 at this n: per scaling, training MSE (solid) and test MSE (dashed) against steps
    for every m (mean over seeds); below, h_i(x_1) against h_i(x'_1) at the start and the end
    (largest m, first seed)."""
    from matplotlib.figure import Figure

    cfg = result["config"]
    steps = np.array(result["steps"])
    fig = Figure(figsize=(4 * len(cfg["scalings"]), 7))
    axes = fig.subplots(2, len(cfg["scalings"]), squeeze=False)
    for j, s in enumerate(cfg["scalings"]):
        ax = axes[0, j]
        for m in cfg["ms"]:
            tr, te = _curve(result, s, n, m, "train_mse"), _curve(result, s, n, m, "test_mse")
            if len(tr):
                line, = ax.semilogy(steps, tr.mean(0), label=f"m = {m} train")
                ax.semilogy(steps, te.mean(0), "--", color=line.get_color(), label=f"m = {m} test")
        ax.set_title(s)
        ax.set_xlabel("GD steps")
        ax.legend(fontsize=7)
        sc = result["runs"][key(s, n, max(cfg["ms"]), cfg["seed"])].get("scatter")
        ax = axes[1, j]
        if sc:
            ax.scatter(sc["train"][0], sc["test"][0], s=4, color="0.6", label="initial")
            ax.scatter(sc["train"][1], sc["test"][1], s=4, label="final")
            ax.legend(fontsize=7)
        ax.set_xlabel("h_i(x_1), training point")
        ax.set_ylabel("h_i(x_2), test point")
    axes[0, 0].set_ylabel("MSE")
    fig.suptitle(f"Exp. 3 (Figs. 4, 7, 8): n = {n}, d = {cfg['d']}, {cfg['steps']} steps of delta = {cfg['delta']:g} "
                 f"({cfg['loss']} loss), {cfg['seeds']} seeds", fontsize=9)
    fig.tight_layout()
    return runs.save_figure(fig, path, pdf)


def write(result: dict, out: Path, pdf: bool = False) -> list[Path]:
    """exp3.json, exp3.csv, exp3.png (Fig. 3) and exp3_fig4_n{N}.png (Figs. 4, 7, 8) for every n."""
    out = Path(out)
    paths = [write_json(out / "exp3.json", result),
             runs.write_csv(out / "exp3.csv", ["scaling", "n", "m", "seed", "step", "train_mse", "test_mse",
                                               "test_cls"], csv_rows(result))]
    paths += plot_fig3(result, out / "exp3.png", pdf)
    for n in result["config"]["ns"]:
        paths += plot_fig4(result, n, out / f"exp3_fig4_n{n}.png", pdf)
    return paths


def produce(out_dir: Path, quick: bool, progress: bool, seed: int = 0) -> list[Path]:
    """The report's figures (``quick``: ``QUICK``, seconds)."""
    return runs.produce(replace(QUICK if quick else Config(), seed=seed), run, write, out_dir, progress)


def print_summary(result: dict) -> None:
    print(f"{'scaling':>7} {'n':>5} {'m':>6} {'test MSE':>10} {'test cls':>9} {'train MSE':>10} {'move rel':>9} "
          f"{'rate early':>11} {'rate late':>10}")
    fmt = runs.cell
    for r in result["summary"]["rows"]:
        print(f"{r['scaling']:>7} {r['n']:>5} {r['m']:>6} {fmt(r['test_mse'], 10, '.4f')} {fmt(r['test_cls'], 9, '.3f')} "
              f"{fmt(r['train_mse'], 10, '.3e')} {fmt(r['move_rel'], 9, '.3g')} {fmt(r['rate_early'], 11, '.3e')} "
              f"{fmt(r['rate_late'], 10, '.3e')}" + (f"  ({r['diverged']} diverged)" if r["diverged"] else "")
              + (f"  ({r['grew']} ended above their initial training error: GD unstable)" if r["grew"] else ""))


def _check(cfg: Config) -> None:
    if "ntk" in cfg.scalings and any(m % 2 for m in cfg.ms):
        raise UsageError("the NTK model is symmetrised at initialisation: every --m must be even")


def _main(args) -> int:
    return runs.command(args, FULL if args.full else Config(), (
        ("ns", args.n), ("ms", args.m), ("scalings", args.scaling), ("steps", args.steps), ("every", args.every),
        ("delta", args.delta), ("loss", args.loss), ("seeds", args.seeds), ("d", args.d)), name="exp3", run=run, write=write, summary=print_summary, check=_check,
        keyed=("ns", "ms", "scalings"))


def add_subcommand(sub) -> argparse.ArgumentParser:
    """Register ``maskverify meanfield-exp3``."""
    d = Config()
    p = sub.add_parser("meanfield-exp3", help="Exp. 3 of the meanfield paper: P-3L net under the scalings of Table 1",
                       description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 1)[1],
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--full", action="store_true", help="the paper's sizes (see below; for a GPU)")
    p.add_argument("--n", type=count(1), nargs="+", default=None, help=f"training-set sizes (default {d.ns})")
    p.add_argument("--m", type=count(2), nargs="+", default=None, help=f"widths m = D (default {d.ms})")
    p.add_argument("--scaling", choices=tuple(dy.SCALINGS), nargs="+", default=None,
                   help="scalings of Table 1 (default all three)")
    p.add_argument("--d", type=count(2), default=None, help=f"input dimension (default {d.d})")
    runs.add_common_options(p, d, name="exp3")
    p.set_defaults(func=_main)
    return p
