"""The three Section 6 sub-experiments, their resumable run store, their summaries and claims.

- ``accuracy`` (Fig. 4): test accuracy vs kappa of each model, trained on the training split.
- ``attack`` (Figs. 5-7): for each model, kappa and seed, a target and a shadow model trained
  with the same mask on the four-way split; ML-Leaks adversary 1 and the loss-threshold
  attack on the target (``attacks``); also the target's test accuracy.
- ``dp`` (Figs. 9-10): the same attack pipeline for the standard and improved CNN, once
  under the mask (kappas) and once under DP-SGD (noise multipliers, no mask), and the
  privacy-utility comparison at matched accuracy.

A run (``tasks``) is one (model, kappa or noise multiplier, seed) of a sub-pipeline: a model
for ``accuracy``, a target and its shadow for the attacks.  Every finished run is stored under a
key naming what it is (sub-pipeline, model, kappa or noise multiplier, seed, epochs) in
``runs.json`` of the output folder, written atomically after each run; ``--resume`` skips the
runs already there (so an interrupted experiment continues, and ``dp`` reuses ``attack``'s mask
runs of the same settings).  Run as tasks on an execution engine (``--workers``,
``--scheduler``), each finished run is also recorded at once in the engine's task store, and
``--resume`` skips the tasks stored there, including those a killed run finished.

Matched accuracy (``matched_gaps``): per seed, the mask's attack metric is interpolated
linearly, as a function of the target's test accuracy, between the mask's kappas, at each
DP-SGD point's accuracy that lies inside the mask curve's accuracy range; the gap is
mask minus DP there, averaged over those DP points.  A seed with no DP point inside the
range has no gap (NaN) and is left out of the interval; the claim's detail counts the seeds used.
"""
from __future__ import annotations

import json
import math
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
from scipy import stats as sst

from numerics.core import execution
from numerics.core import floors as fl
from theory.core.io import write_json

from . import stats, tasks

EXPERIMENTS = ("accuracy", "attack", "dp")
#: the authors' kappa grid of Fig. 4, and the kappas of the published CNN AUCs (Figs. 5-7)
FIG4_KAPPAS = (0.0, 0.2, 0.5, 0.7, 1.0, 1.25)
ATTACK_KAPPAS = (0.0, 0.5, 1.2, 1.8)
#: dp: the mask's curve continues to larger kappas, down to DP-SGD's accuracies (ours)
DP_KAPPAS = ATTACK_KAPPAS + (3.0, 5.0)
#: the published AUCs of ML-Leaks on the CNN target, CIFAR-10, 120 epochs (STATEMENTS.md, Section 6)
PAPER_CNN_AUC = {0.0: 0.782, 0.5: 0.692, 1.2: 0.585, 1.8: 0.543}
DP_NOISE = (0.5, 1.0, 2.0)
#: Fig. 4's caption: "small noise levels (kappa ~ 0.2)", and "beyond this point"
SMALL_KAPPA = 0.2
STORE = "runs.json"


@dataclass(frozen=True)
class Settings:
    """One sub-experiment: models, kappas, seeds, epochs, DP noise multipliers, the data
    (None: digits; else a CIFAR-10 folder) and the seed of the data split."""

    experiment: str
    models: tuple
    kappas: tuple
    seeds: int
    epochs: int
    noise: tuple = ()
    data: str | None = None
    data_seed: int = 0

    def __post_init__(self):
        from .models import MODELS

        object.__setattr__(self, "kappas", tuple(sorted(float(k) for k in self.kappas)))
        object.__setattr__(self, "noise", tuple(sorted(float(s) for s in self.noise)))
        object.__setattr__(self, "models", tuple(self.models))
        if self.experiment not in EXPERIMENTS:
            raise ValueError(f"experiment must be one of {EXPERIMENTS}, got {self.experiment!r}")
        if not self.models or any(m not in MODELS for m in self.models):
            raise ValueError(f"models must be among {MODELS}, got {self.models}")
        ks = self.kappas
        if not ks or ks[0] != 0.0 or len(set(ks)) != len(ks) or any(not math.isfinite(k) for k in ks):
            raise ValueError(f"kappas must be distinct, finite, and include 0 (the baseline), got {ks}")
        if len(ks) < 3:
            raise ValueError(f"the trend tests need at least 3 kappas, got {ks}")
        if self.seeds < 2:
            raise ValueError(f"the tests over seeds need at least 2 seeds, got {self.seeds}")
        if self.epochs < 1:
            raise ValueError(f"epochs must be >= 1, got {self.epochs}")
        if self.experiment == "dp" and (not self.noise or any(not (s > 0 and math.isfinite(s)) for s in self.noise)):
            raise ValueError(f"dp needs positive finite noise multipliers, got {self.noise}")

    def as_dict(self) -> dict:
        return asdict(self)


def defaults(experiment: str, cifar: bool) -> dict:
    """Default settings: the authors' on CIFAR-10 (three seeds instead of their one, for the
    tests); on digits, shorter training that fits the default run on two cores."""
    models = ("cnn", "improved") if experiment == "dp" else ("mlp", "cnn")
    kappas = {"accuracy": FIG4_KAPPAS, "attack": ATTACK_KAPPAS, "dp": DP_KAPPAS}[experiment]
    epochs = ({"accuracy": 80, "attack": 50, "dp": 50} if cifar else {"accuracy": 20, "attack": 30, "dp": 15})[experiment]
    return dict(models=models, kappas=kappas, seeds=3, epochs=epochs, noise=DP_NOISE if experiment == "dp" else ())


class Store:
    """Finished runs by key, in ``runs.json`` of a folder, with the data they were run on."""

    def __init__(self, folder: Path, data_id: dict, resume: bool):
        self.path = Path(folder) / STORE
        self.data_id = data_id
        self.runs: dict = {}
        if self.path.exists():
            if not resume:
                raise ValueError(f"{self.path.parent} already holds runs ({STORE}); pass --resume to continue "
                                 "them, or choose another --out")
            try:
                saved = json.loads(self.path.read_text(encoding="utf-8"))
                runs, saved_id = dict(saved["runs"]), saved["data"]
            except (OSError, ValueError, KeyError, TypeError):
                # cut short or foreign: set aside (nothing is deleted) and every run runs again
                where = execution.set_aside(self.path, self.path.parent / "unreadable")
                print(f"--resume: {self.path} is not a run store; set aside as {where}, its runs run again",
                      file=sys.stderr)
                return
            if saved_id != data_id:
                raise ValueError(f"cannot resume: {self.path} holds runs on {saved_id}, not {data_id}")
            self.runs = runs

    def get(self, key: str):
        return self.runs.get(key)

    def put(self, key: str, result: dict) -> None:
        self.runs[key] = result
        write_json(self.path, {"data": self.data_id, "runs": self.runs})


def key(*parts) -> str:
    return "/".join(f"{p:g}" if isinstance(p, float) else str(p) for p in parts)


def plan(cfg: Settings) -> list[tuple]:
    """(key, kind, model, kappa, noise, seed, epochs to train) of every run ``cfg`` needs."""
    out = []
    for seed in range(cfg.seeds):
        for model in cfg.models:
            if cfg.experiment == "accuracy":
                out += [(key("fig4", model, "kappa", k, seed, cfg.epochs), "fig4", model, k, None, seed, cfg.epochs)
                        for k in cfg.kappas]
                continue
            out += [(key("attack", model, "kappa", k, seed, cfg.epochs), "attack", model, k, None, seed,
                     2 * cfg.epochs) for k in cfg.kappas]
            out += [(key("attack", model, "dp", s, seed, cfg.epochs), "attack", model, 0.0, s, seed, 2 * cfg.epochs)
                    for s in cfg.noise]
    return out


def data_id(cfg: Settings) -> dict:
    return dict(data=cfg.data or "digits", data_seed=cfg.data_seed)


def run(cfg: Settings, out: Path, *, resume: bool = False, device="cpu", progress: bool = True,
        engine: execution.Engine | None = None, task_store: execution.Store | None = None,
        task_resume: bool = False) -> dict:
    """Run what is not yet in ``out``'s store (``resume``: keep the runs it holds), then summarise;
    returns {run key: result}.  The runs are ``tasks.run``: here, one after another under a bar
    counting epochs (torch's threads as set); with ``engine``, as tasks of the execution layer,
    each also recorded in ``task_store`` as it finishes (``task_resume``: the tasks stored there
    are taken, not rerun)."""
    from tqdm import tqdm

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    store = Store(out, data_id(cfg), resume)
    todo = [p for p in plan(cfg) if store.get(p[0]) is None]
    jobs = [tasks.params(kind, model, kappa, noise, seed, cfg.epochs, cfg.data, cfg.data_seed, device)
            for _, kind, model, kappa, noise, seed, _ in todo]
    if engine is not None and todo:
        results = execution.run(tasks.run, jobs, engine, store=task_store, resume=task_resume, progress=progress,
                                desc=f"privacy {cfg.experiment} (runs)")
        for p, result in zip(todo, results):
            store.put(p[0], result)
    elif todo:
        with tqdm(total=sum(p[-1] for p in todo), unit="epoch", desc=f"privacy {cfg.experiment}",
                  disable=not progress) as bar:
            for (k, _, model, kappa, noise, seed, _), job in zip(todo, jobs):
                bar.set_postfix_str(f"{model} {'sigma=%g' % noise if noise else 'kappa=%g' % kappa} seed {seed}")
                store.put(k, tasks.run(job, bar))
    return {p[0]: store.get(p[0]) for p in plan(cfg)}


def table(cfg: Settings, runs: dict, model: str, metric: str, kind: str = "kappa") -> np.ndarray:
    """metric[seed, j] over the kappas (kind 'kappa') or noise multipliers (kind 'dp')."""
    grid = cfg.kappas if kind == "kappa" else cfg.noise
    prefix = "fig4" if cfg.experiment == "accuracy" else "attack"
    return np.array([[runs[key(prefix, model, kind, v, s, cfg.epochs)][metric] for v in grid]
                     for s in range(cfg.seeds)], dtype=float)


def _claim(cid: str, text: str, verdict: str, detail: str, **numbers) -> dict:
    return dict(id=cid, claim=text, verdict=verdict, detail=detail, **numbers)


def _curve(values: np.ndarray, grid) -> list[dict]:
    mean = values.mean(0)
    hw = sst.t.ppf(0.5 + fl.LEVEL / 2, values.shape[0] - 1) * values.std(0, ddof=1) / math.sqrt(values.shape[0])
    return [dict(x=float(x), mean=float(m), half_width=float(h)) for x, m, h in zip(grid, mean, hw)]


def summarise_accuracy(cfg: Settings, runs: dict) -> dict:
    """Fig. 4's curves and claims (``theory.masking.empirical``: emp.fig4.*)."""
    acc = {m: table(cfg, runs, m, "test_accuracy") for m in cfg.models}
    curves = {m: _curve(acc[m], cfg.kappas) for m in cfg.models}
    claims = []
    small = SMALL_KAPPA if SMALL_KAPPA in cfg.kappas else None      # the small-kappa claims need kappa = 0.2 run
    if "mlp" in acc and small is not None:
        d = stats.difference(acc["mlp"], cfg.kappas, small)
        claims.append(_claim("emp.fig4.mlp_small_kappa", f"MLP: accuracy(kappa={small:g}) > accuracy(0)",
                             stats.improves(d), d.text, **d.as_dict()))
    for m in [m for m in ("cnn", "improved") if m in acc and small is not None]:
        diffs = [stats.difference(acc[m], cfg.kappas, k) for k in cfg.kappas[1:]]
        kept = [d.kappa for d in diffs if stats.keeps_baseline(d) == stats.SUPPORTED]
        upto = 0.0
        for d in diffs:
            if d.kappa not in kept:
                break
            upto = d.kappa
        d = diffs[cfg.kappas.index(small) - 1]
        claims.append(_claim(f"emp.fig4.{m}_baseline",
                             f"{m}: accuracy(kappa={small:g}) >= accuracy(0) - {stats.MARGIN:g} (baseline kept)",
                             stats.keeps_baseline(d), d.text + f"; baseline kept (margin {stats.MARGIN:g}) up to "
                             f"kappa = {upto:g}", kept_up_to=upto, **d.as_dict()))
    beyond = [k for k in cfg.kappas if k >= SMALL_KAPPA]
    for m in cfg.models:
        if len(beyond) >= 3:
            t = stats.trend(acc[m][:, [cfg.kappas.index(k) for k in beyond]], beyond)
            claims.append(_claim(f"emp.fig4.falls.{m}", f"{m}: accuracy falls monotonically for kappa >= {SMALL_KAPPA:g}",
                                 t.verdict(monotone=True), t.text, **t.as_dict()))
    return dict(curves=curves, claims=claims)


def summarise_attack(cfg: Settings, runs: dict) -> dict:
    """Figs. 5-7's curves and claims (emp.fig5.auc.*, emp.fig6_7.*), and the published CNN AUCs."""
    curves, claims = {}, []
    for m in cfg.models:
        curves[m] = {}
        for metric, monotone, cid in (("auc", True, "emp.fig5.auc"), ("precision", False, "emp.fig6_7.precision"),
                                      ("recall", False, "emp.fig6_7.recall"), ("loss_auc", True, "emp.fig5.loss_auc"),
                                      ("accuracy", None, None)):
            v = table(cfg, runs, m, metric)
            curves[m][metric] = _curve(v, cfg.kappas)
            if cid:
                t = stats.trend(v, cfg.kappas)
                word = "falls monotonically" if monotone else "falls"
                claims.append(_claim(f"{cid}.{m}", f"{m} target: attack {metric} {word} as kappa grows",
                                     t.verdict(monotone), t.text, **t.as_dict()))
    ref = None
    if "cnn" in curves:
        ours = {c["x"]: c["mean"] for c in curves["cnn"]["auc"]}
        ref = [dict(kappa=k, paper=v, ours=ours.get(k)) for k, v in PAPER_CNN_AUC.items()]
    return dict(curves=curves, claims=claims, paper_cnn_auc=ref,
                paper_reference_note="the published AUCs are CIFAR-10 at 120 epochs; comparable only with --data")


def matched_gaps(acc_mask, met_mask, acc_dp, met_dp) -> np.ndarray:
    """Per seed (rows), the mean over the DP points inside the mask curve's accuracy range of
    metric_mask(acc_dp) - metric_dp (linear interpolation along the mask curve); NaN for a
    seed without such a point."""
    gaps = []
    for am, mm, ad, md in zip(acc_mask, met_mask, acc_dp, met_dp):
        order = np.argsort(am, kind="stable")
        am, mm = am[order], mm[order]
        inside = (ad >= am[0]) & (ad <= am[-1])
        gaps.append(float(np.mean(np.interp(ad[inside], am, mm) - md[inside])) if inside.any() else math.nan)
    return np.array(gaps)


def _interval(x: np.ndarray) -> tuple[float, float, float]:
    if x.size < 2:
        return (float(x.mean()) if x.size else math.nan), math.nan, math.nan
    if np.all(x == x[0]):
        return float(x[0]), float(x[0]), float(x[0])
    lo, hi = sst.ttest_1samp(x, 0.0).confidence_interval(fl.LEVEL)
    return float(x.mean()), float(lo), float(hi)


def summarise_dp(cfg: Settings, runs: dict) -> dict:
    """Figs. 9-10: the mask's and DP-SGD's (accuracy, attack) curves per model, the gaps at
    matched accuracy, and the claim that the improved CNN's gap is smaller than the standard CNN's."""
    curves, gaps, claims = {}, {}, []
    for m in cfg.models:
        curves[m] = {}
        for kind, grid in (("kappa", cfg.kappas), ("dp", cfg.noise)):
            curves[m][kind] = {metric: _curve(table(cfg, runs, m, metric, kind), grid)
                               for metric in ("accuracy", "auc", "precision", "recall")}
        curves[m]["epsilon"] = [dict(noise=s, epsilon=runs[key("attack", m, "dp", s, 0, cfg.epochs)]["epsilon"])
                                for s in cfg.noise]
        gaps[m] = {}
        for metric in ("precision", "recall", "auc"):
            g = matched_gaps(table(cfg, runs, m, "accuracy"), table(cfg, runs, m, metric),
                             table(cfg, runs, m, "accuracy", "dp"), table(cfg, runs, m, metric, "dp"))
            mean, lo, hi = _interval(g[np.isfinite(g)])
            gaps[m][metric] = dict(per_seed=[stats.finite(x) for x in g], mean=stats.finite(mean),
                                   lo=stats.finite(lo), hi=stats.finite(hi), array=g)
    if {"cnn", "improved"} <= set(cfg.models):
        for metric in ("precision", "recall"):
            d = np.abs(gaps["cnn"][metric]["array"]) - np.abs(gaps["improved"][metric]["array"])
            d = d[np.isfinite(d)]
            mean, lo, hi = _interval(d)
            verdict = stats.NOT_SUPPORTED if d.size < 2 else stats.above(lo, hi)   # one seed: no interval
            claims.append(_claim(f"emp.fig10.closer.{metric}",
                                 f"at matched accuracy the mask's attack {metric} is closer to DP-SGD's for the "
                                 "improved CNN than for the standard CNN (|gap_cnn| - |gap_improved| > 0)", verdict,
                                 f"|gap_cnn| - |gap_improved| = {mean:+.4f} [{lo:+.4f}, {hi:+.4f}] (95%, "
                                 f"{d.size} of {cfg.seeds} seeds have matched points for both)",
                                 mean=stats.finite(mean), lo=stats.finite(lo), hi=stats.finite(hi), seeds=int(d.size)))
    for m in gaps:
        for metric in gaps[m]:
            del gaps[m][metric]["array"]
    return dict(curves=curves, gaps=gaps, claims=claims)
