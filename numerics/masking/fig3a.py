"""The paper's Fig. 3(a): clean loss L(W_k) of masked gradient descent per kappa, read
against Theorems 5.2/5.6 (``numerics.masking.training`` runs it, ``numerics.core.floors`` reads it).

``summarise`` turns trajectories into the numbers a reader wants: per kappa the final
loss, the convergence verdict, the floor, the paired excess floor(kappa) - floor(0) with
its interval, the monotonicity of the floor in kappa, the fitted exponent of the excess,
lambda_0 of the data (eq. (11)) and the rate (1 - eta lambda_0/2)^k; with expected
dynamics, the split of the excess into bias (expected dynamics minus kappa = 0) and
variance (masked minus expected).  ``save`` writes fig3a.{png,pdf,json,csv}.
"""
from __future__ import annotations

from theory.core.io import atomic_write

import csv
import io
import json
import math
from dataclasses import replace
from pathlib import Path

import matplotlib
import numpy as np

from numerics.core import floors as fl
from . import network as nw
from . import training as tr

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

#: a small instance of the same experiment, seconds on two cores, with the expected dynamics
QUICK = dict(n=60, d=10, m=20, lr=0.005, steps=300, seeds=3, kappas=(0.0, 0.2, 0.6, 1.0))


def _num(x):
    return float(x) if x is not None and math.isfinite(x) else None


def summarise(traj: tr.Trajectories, lambda0: float, expected: dict | None = None,
              window: int | None = None) -> dict:
    """Every number of the Fig. 3(a) analysis as plain JSON-able data (see the module docstring)."""
    cfg = traj.config
    kappas = list(cfg.kappas)
    window = fl.default_window(traj.steps) if window is None else window
    alive = traj.diverged_at < 0                                           # (S, K)
    per = []
    for j, k in enumerate(kappas):
        ok = alive[:, j]
        conv = fl.convergence(traj.loss[ok, j], window) if ok.any() else None
        fj = fl.floors(traj.loss[ok, j], window)
        mean, se, _ = fl._interval(fj) if ok.any() else (math.nan, math.nan, math.nan)
        per.append(dict(kappa=k, runs=int(ok.sum()), diverged=int((~ok).sum()),
                        diverged_at=[int(v) for v in traj.diverged_at[~ok, j]],
                        final_loss=_num(np.mean(traj.loss[ok, j, -1])) if ok.any() else None,
                        floor=_num(mean), floor_se=_num(se),
                        drift=_num(conv.drift) if conv else None,
                        drift_half_width=_num(conv.half_width) if conv else None,
                        converged=bool(conv.converged) if conv else False,
                        verdict=conv.describe() if conv else "every run diverged"))
    out = dict(config=cfg.as_dict(), steps=traj.steps, window=window, seconds=traj.seconds,
               lambda0=float(lambda0), rate=1 - cfg.lr * lambda0 / 2, per_kappa=per)
    every = alive.all(1)
    if 0.0 in kappas and every.sum() >= 2:
        order = [kappas.index(0.0)] + [j for j, k in enumerate(kappas) if k != 0.0]
        F = fl.floors(traj.loss[every][:, order], window)
        ks = [kappas[j] for j in order]
        excess = fl.paired_excess(F, ks)
        out["excess"] = [dict(kappa=e.kappa, mean=e.mean, se=e.se, half_width=e.half_width,
                              positive=e.positive, negative=e.negative) for e in excess]
        ex = fl.fit_exponent(excess)
        out["exponent"] = dict(p=_num(ex.p), se=_num(ex.se), kappas=list(ex.kappas),
                               local=[list(t) for t in ex.local], chi2_dof=_num(ex.chi2_dof),
                               text=ex.describe())
        out["monotonicity"] = [dict(kappa_from=s.kappa_from, kappa_to=s.kappa_to, mean=s.mean,
                                    half_width=s.half_width, verdict=s.verdict)
                               for s in fl.monotonicity(F, ks)]
    if expected:
        steps_e = min(len(v) for v in expected.values()) - 1
        rows = []
        base = traj.loss[:, kappas.index(0.0)] if 0.0 in kappas else None
        for k, L in expected.items():
            j = kappas.index(k)
            ok = alive[:, j]
            masked = traj.loss[ok, j, : steps_e + 1]
            row = dict(kappa=k, steps=steps_e, expected_final=_num(L[steps_e]),
                       masked_final=_num(masked[:, -1].mean()),
                       masked_final_se=_num(masked[:, -1].std(ddof=1) / math.sqrt(len(masked)))
                       if len(masked) > 1 else None)
            if base is not None and steps_e == traj.steps and not cfg.vary_init:
                w = min(window, steps_e)
                fE = float(L[-w:].mean())
                f0 = float(fl.floors(base[:1], w)[0])          # kappa = 0 is deterministic
                fM = fl.floors(masked, w)
                mean, se, hw = fl._interval(fM - fE)
                row.update(bias=fE - f0, variance=_num(mean), variance_half_width=_num(hw))
            rows.append(row)
        out["expected"] = rows
    return out


def figure(traj: tr.Trajectories, summary: dict, expected: dict | None = None):
    """Left: L(W_k) per kappa (mean over seeds, band min..max), expected dynamics dashed,
    the rate (1 - eta lambda_0/2)^k L(W_0) dotted.  Right: the paired excess floor vs kappa."""
    cfg = traj.config
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(12, 4.6), gridspec_kw=dict(width_ratios=[1.6, 1]))
    k = np.arange(traj.steps + 1)
    colours = plt.cm.viridis(np.linspace(0, 0.92, len(cfg.kappas)))
    for j, (kappa, col) in enumerate(zip(cfg.kappas, colours)):
        L = traj.loss[:, j]
        # the mean over the seeds still running at each step (NaN where every run has diverged),
        # without numpy's "mean of empty slice" warning for those steps
        alive = np.isfinite(L)
        mean = np.where(alive.any(0), np.where(alive, L, 0.0).sum(0) / np.maximum(alive.sum(0), 1), np.nan)
        ax.plot(k, mean, color=col, lw=1.4, label=f"$\\kappa={kappa:g}$")
        if L.shape[0] > 1:
            lo = np.where(alive.any(0), np.where(alive, L, np.inf).min(0), np.nan)
            hi = np.where(alive.any(0), np.where(alive, L, -np.inf).max(0), np.nan)
            ax.fill_between(k, lo, hi, color=col, alpha=0.18, lw=0)
        if expected and kappa in expected:
            E = expected[kappa]
            ax.plot(np.arange(len(E)), E, color=col, ls="--", lw=1.1)
    L0 = float(np.nanmean(traj.loss[:, 0, 0]))
    ax.plot(k, L0 * summary["rate"] ** k, color="k", ls=":", lw=1.2,
            label=f"$(1-\\eta\\lambda_0/2)^k L(W_0)$, $\\lambda_0={summary['lambda0']:.3g}$")
    if expected:
        ax.plot([], [], color="grey", ls="--", label="expected dynamics $E_C[\\nabla L_C]$")
    ax.set_yscale("log")
    ax.set_xlabel("iteration $k$")
    ax.set_ylabel("clean loss $L(W_k)$")
    ax.set_title(f"Fig. 3(a): n={cfg.n}, d={cfg.d}, m={cfg.m}, $\\eta$={cfg.lr:g}, {cfg.labels} labels, "
                 f"$\\tau$={cfg.tau:g}, {cfg.seeds} seeds", fontsize=9)
    ax.legend(fontsize=7, ncol=2)
    ex = summary.get("excess", [])
    pos = [e for e in ex if e["kappa"] > 0]
    if pos:
        ks = np.array([e["kappa"] for e in pos])
        mean = np.array([e["mean"] for e in pos])
        hw = np.nan_to_num(np.array([e["half_width"] for e in pos]))
        good = mean > 0
        bx.errorbar(ks[good], mean[good], yerr=hw[good], fmt="o", color="C0", capsize=3,
                    label="floor($\\kappa$) - floor(0), 95% CI")
        if (~good).any():
            bx.errorbar(ks[~good], -mean[~good], yerr=hw[~good], fmt="v", color="C3", capsize=3,
                        label="negative excess (plotted as |.|)")
        e = summary.get("exponent", {})
        if e.get("p") is not None:
            fit = np.array(e["kappas"])
            sel = np.isin(ks, fit)
            A = math.exp(np.mean(np.log(mean[sel]) - e["p"] * np.log(ks[sel])))
            xs = np.geomspace(fit.min(), fit.max(), 50)
            bx.plot(xs, A * xs ** e["p"], "k--", lw=1, label=f"fit $\\kappa^{{{e['p']:.2f}\\pm{e['se']:.2f}}}$")
        for r in summary.get("expected", []):
            if r.get("bias") is not None and r["bias"] > 0:
                bx.plot(r["kappa"], r["bias"], "s", color="C2", mfc="none")
        if any(r.get("bias") is not None for r in summary.get("expected", [])):
            bx.plot([], [], "s", color="C2", mfc="none", label="bias (expected dynamics)")
        bx.set_xscale("log")
        bx.set_yscale("log")
        bx.legend(fontsize=7)
    else:
        bx.text(0.5, 0.5, "needs kappa = 0 and >= 2 seeds", ha="center", transform=bx.transAxes)
    bx.set_xlabel("$\\kappa$")
    bx.set_ylabel("excess floor (last %d steps)" % summary["window"])
    conv = [p for p in summary["per_kappa"] if not p["converged"]]
    if conv:
        bx.set_title("not converged: kappa = " + ", ".join(f"{p['kappa']:g}" for p in conv), fontsize=8,
                     color="C3")
    fig.tight_layout()
    return fig


def save(traj: tr.Trajectories, summary: dict, out, expected: dict | None = None, name: str = "fig3a") -> list[Path]:
    """Write NAME.png, NAME.pdf (the figure), NAME.json (the summary) and NAME.csv (every
    clean loss: seed, kappa, step, loss, with the expected dynamics as seed 'expected')."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    fig = figure(traj, summary, expected)
    paths = []
    for fmt in ("png", "pdf"):
        atomic_write(out / f"{name}.{fmt}", lambda tmp, fmt=fmt: fig.savefig(tmp, format=fmt, dpi=150))
        paths.append(out / f"{name}.{fmt}")
    plt.close(fig)
    atomic_write(out / f"{name}.json", json.dumps(summary, indent=1))
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["seed", "kappa", "step", "loss"])
    for s in range(traj.loss.shape[0]):
        for j, kappa in enumerate(traj.config.kappas):
            w.writerows((s, kappa, k, "" if math.isnan(v) else repr(float(v))) for k, v in enumerate(traj.loss[s, j]))
    for kappa, L in (expected or {}).items():
        w.writerows(("expected", kappa, k, "" if math.isnan(v) else repr(float(v))) for k, v in enumerate(L))
    atomic_write(out / f"{name}.csv", buf.getvalue())
    return paths + [out / f"{name}.json", out / f"{name}.csv"]


def reproduce_fig3a(out_dir, *, quick: bool = False, device="cpu", progress: bool = True) -> list[Path]:
    """Run Fig. 3(a) (the paper's settings, 4 seeds; ``quick``: ``QUICK`` with the expected
    dynamics) and write its files into ``out_dir``; returns the paths."""
    from tqdm import tqdm

    cfg = tr.Config(**QUICK) if quick else tr.Config()
    with tqdm(total=cfg.steps, desc="Fig. 3(a) masked GD", disable=not progress) as bar:
        traj = tr.train(cfg, device=device, progress=bar)
    expected = None
    if quick:
        ks = [k for k in cfg.kappas if k > 0]
        run = tr.ExpectedGD(cfg, ks)
        with tqdm(total=cfg.steps * len(ks), desc="expected dynamics", disable=not progress) as bar:
            run.advance(cfg.steps, bar)
        expected = run.result()
    lam = float(nw.lambda0(tr.problem(replace(cfg, dtype="float64")).X.numpy()))
    return save(traj, summarise(traj, lam, expected), out_dir, expected)
