"""Drawing and writing the Section 6 results: Fig. 4 (accuracy vs kappa), Figs. 5-7
(attack AUC, precision, recall vs kappa), Figs. 9-10 (privacy-utility, mask vs DP-SGD).

Each sub-experiment writes NAME.json (settings, curves, claims with their verdicts and
intervals), NAME.csv (one row per run) and its figures as PNG and PDF, every file through
``theory.core.io.atomic_write``.  Curves show the mean over seeds with 95 % t intervals.
"""
from __future__ import annotations

import csv
import io
from pathlib import Path

from matplotlib.figure import Figure

from theory.core.io import atomic_write, write_json

from . import experiment as ex

LABEL = {"mlp": "MLP", "cnn": "standard CNN", "improved": "improved CNN"}


def _save(fig: Figure, out: Path, name: str) -> list[Path]:
    fig.tight_layout()
    return [atomic_write(out / f"{name}.{ext}", lambda tmp, e=ext: fig.savefig(tmp, format=e, dpi=120))
            for ext in ("png", "pdf")]


def _errorbar(ax, curve: list[dict], x=None, **kw):
    xs = [c["x"] for c in curve] if x is None else x
    ax.errorbar(xs, [c["mean"] for c in curve], yerr=[c["half_width"] for c in curve], capsize=3, marker="o",
                ms=4, **kw)


def _verdicts(claims: list[dict], prefix: str) -> str:
    return "\n".join(f"{c['id']}: {c['verdict']}" for c in claims if c["id"].startswith(prefix))


def fig4(cfg: ex.Settings, summary: dict, out: Path) -> list[Path]:
    fig = Figure(figsize=(5 * len(cfg.models), 4))
    for ax, m in zip(fig.subplots(1, len(cfg.models), squeeze=False)[0], cfg.models):
        _errorbar(ax, summary["curves"][m], color="C0")
        ax.set_xlabel(r"$\kappa$")
        ax.set_ylabel("test accuracy")
        ax.set_title(f"Fig. 4: {LABEL[m]} ({cfg.data and 'CIFAR-10' or 'digits'}, {cfg.seeds} seeds)", fontsize=9)
        ax.text(0.02, 0.02, _verdicts(summary["claims"], f"emp.fig4.{m}") + "\n"
                + _verdicts(summary["claims"], f"emp.fig4.falls.{m}"), transform=ax.transAxes, fontsize=7)
        ax.grid(alpha=0.3)
    return _save(fig, out, "fig4")


def figs5to7(cfg: ex.Settings, summary: dict, out: Path) -> list[Path]:
    paths = []
    for name, metrics in (("fig5", ("auc", "loss_auc")), ("fig6_7", ("precision", "recall"))):
        fig = Figure(figsize=(5 * len(cfg.models), 4))
        for ax, m in zip(fig.subplots(1, len(cfg.models), squeeze=False)[0], cfg.models):
            for i, metric in enumerate(metrics):
                label = {"auc": "ML-Leaks AUC", "loss_auc": "loss-threshold AUC"}.get(metric, f"ML-Leaks {metric}")
                _errorbar(ax, summary["curves"][m][metric], color=f"C{i}", label=label)
            if name == "fig5" and m == "cnn" and summary.get("paper_cnn_auc"):
                ref = summary["paper_cnn_auc"]
                ax.plot([r["kappa"] for r in ref], [r["paper"] for r in ref], "k--x", lw=1,
                        label="paper (CIFAR-10, 120 epochs)")
            ax.axhline(0.5, color="gray", lw=0.5)
            ax.set_xlabel(r"$\kappa$")
            ax.set_title(f"{'Fig. 5' if name == 'fig5' else 'Figs. 6-7'}: {LABEL[m]} target", fontsize=9)
            ax.text(0.02, 0.02, "\n".join(f"{c['id']}: {c['verdict']}" for c in summary["claims"]
                                          if c["id"].endswith("." + m) and any(f".{x}." in c["id"] for x in metrics)),
                    transform=ax.transAxes, fontsize=7)
            ax.legend(fontsize=7, loc="upper right")
            ax.grid(alpha=0.3)
        paths += _save(fig, out, name)
    return paths


def figs9to10(cfg: ex.Settings, summary: dict, out: Path) -> list[Path]:
    paths = []
    for m in cfg.models:
        fig = Figure(figsize=(10, 4))
        for ax, metric in zip(fig.subplots(1, 2), ("precision", "recall")):
            for kind, grid, label, color in (("kappa", cfg.kappas, "Gaussian mask", "C0"),
                                             ("dp", cfg.noise, "DP-SGD", "C3")):
                c = summary["curves"][m][kind]
                acc = [p["mean"] for p in c["accuracy"]]
                ax.errorbar(acc, [p["mean"] for p in c[metric]], xerr=[p["half_width"] for p in c["accuracy"]],
                            yerr=[p["half_width"] for p in c[metric]], marker="o", ms=4, capsize=3, color=color,
                            label=label)
                sym = r"\kappa" if kind == "kappa" else r"\sigma"
                for a, p, g in zip(acc, c[metric], grid):
                    ax.annotate(f"${sym}={g:g}$", (a, p["mean"]), fontsize=6, color=color)
            g = summary["gaps"][m][metric]
            gap = "no matched points" if g["mean"] is None else (
                f"gap mask - DP at matched accuracy {g['mean']:+.3f}"
                + (f" [{g['lo']:+.3f}, {g['hi']:+.3f}]" if g["lo"] is not None else ""))
            ax.set_title(f"{'Fig. 10' if m == 'improved' else 'Fig. 9'}: {LABEL[m]}, attack {metric}\n{gap}",
                         fontsize=8)
            ax.set_xlabel("target test accuracy")
            ax.set_ylabel(f"attack {metric}")
            ax.legend(fontsize=7)
            ax.grid(alpha=0.3)
        paths += _save(fig, out, "fig9" if m == "cnn" else "fig10" if m == "improved" else f"fig9_{m}")
    return paths


def _csv(cfg: ex.Settings, runs: dict) -> str:
    rows = []
    for k, kind, model, kappa, noise, seed, _ in ex.plan(cfg):
        rows.append(dict(model=model, kappa=kappa, noise_multiplier="" if noise is None else noise, seed=seed,
                         epochs=cfg.epochs, **{m: ("" if v is None else v) for m, v in runs[k].items()}))
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(rows[0]))
    w.writeheader()
    w.writerows(rows)
    return buf.getvalue()


SUMMARIES = {"accuracy": ex.summarise_accuracy, "attack": ex.summarise_attack, "dp": ex.summarise_dp}
DRAW = {"accuracy": fig4, "attack": figs5to7, "dp": figs9to10}


def save(cfg: ex.Settings, runs: dict, out: Path) -> tuple[dict, list[Path]]:
    """Summarise ``runs`` and write NAME.json, NAME.csv and the figures (PNG first) into ``out``."""
    out = Path(out)
    summary = SUMMARIES[cfg.experiment](cfg, runs)
    name = cfg.experiment
    figs = DRAW[cfg.experiment](cfg, summary, out)
    paths = [*figs, write_json(out / f"{name}.json", dict(settings=cfg.as_dict(), **summary)),
             atomic_write(out / f"{name}.csv", _csv(cfg, runs))]
    return summary, paths
