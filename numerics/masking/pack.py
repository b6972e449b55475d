"""The masking pack's record (``PACK``, registered under ``maskverify.papers`` as ``masking``):
the paper, its witnesses (``verify/masking/``), its errata data (``notes/masking/errata.toml``),
its fuzz campaigns, its figures (Figs. 1(a), 1(b), 2, 3(a), 3(b), and Section 6's Figs. 4, 5, 6-7,
9, 10), the experiments' settings and the subcommands it adds (``maskverify bounds``,
``maskverify train``, ``maskverify privacy``)."""
from __future__ import annotations

from pathlib import Path

from numerics.core.pack import Command, Figure, PaperPack
from theory.masking.paper import PAPER

from . import bounds, campaigns, train_cmd
from .privacy import cli as privacy_cli
from .fedavg import FIG3B
from .training import Config

ROOT = Path(__file__).resolve().parents[2]

#: Figs. 1-2: (Monte Carlo masks per point, points of z) for a quick run and the paper's sizes
FIGS12_QUICK = (20_000, 161)
FIGS12_FULL = (200_000, 400)


def _figs12(which: str, out_dir: Path, quick: bool, progress: bool, seed: int = 0) -> list[Path]:
    """Draw Fig. 1(a), 1(b) or 2 (both panels, one Monte Carlo) of ``numerics.masking.figures``."""
    from tqdm import tqdm

    from . import figures

    samples, points = FIGS12_QUICK if quick else FIGS12_FULL
    work = {"fig1a": 0, "fig1b": samples * len(figures.KAPPAS_1B), "fig2": samples * points}[which]
    with tqdm(total=work, unit="relu", unit_scale=True, disable=not progress or work == 0, leave=False,
              desc=f"{which} Monte Carlo") as bar:
        if which == "fig1a":
            panels = [figures.fig1a(points)]
        elif which == "fig1b":
            panels = [figures.fig1b(samples, seed, bar)]
        else:
            panels = list(figures.fig2(samples, seed, points, bar))
    return [p for panel in panels for p in figures.save(panel, out_dir)]


def _fig3(which: str, out_dir: Path, quick: bool, progress: bool, seed: int = 0) -> list[Path]:
    """Fig. 3(a) (``fig3a.reproduce_fig3a``) or 3(b) (``fedavg.reproduce_fig3b``); their seeds
    are the experiments' own."""
    if which == "fig3a":
        from .fig3a import reproduce_fig3a as produce
    else:
        from .fedavg import reproduce_fig3b as produce
    return [Path(p) for p in produce(out_dir, quick=quick, progress=progress)]


def _figure(name, caption, fn, which):
    return Figure(name, caption, lambda out, quick, progress, seed=0: fn(which, out, quick, progress, seed))


def _fig3a_tasks(out_dir: Path, quick: bool, progress: bool, seed: int = 0, records=None) -> list[Path]:
    """Fig. 3(a) as a report draws it: with ``records`` (``execution.Records``) its runs are the
    tasks of ``maskverify train --cluster-workers`` (``sweep.run``: one per (kappa, seed), the
    expected dynamics one per kappa), taken from the stored records where they hold them; without,
    ``fig3a.reproduce_fig3a`` in this process."""
    if records is None:
        return _fig3("fig3a", out_dir, quick, progress, seed)
    from . import fig3a, network, sweep, train_cmd
    from . import training as tr

    cfg = tr.Config(**fig3a.QUICK) if quick else tr.Config()
    traj, expected = sweep.run(cfg, records.engine, store=records.store, resume=records.resume, device="cpu",
                               expected_steps=cfg.steps if quick else 0, progress=progress)
    summary = fig3a.summarise(traj, float(network.lambda0(train_cmd.traj_data(cfg))), expected)
    return [Path(p) for p in fig3a.save(traj, summary, out_dir, expected)]


FIGURES = (
    _figure("fig1a", "Fig. 1(a): the paper's proxy σ̂ = z Φ(z/κ) (solid) and the exact smoothed ReLU "
                     "σ̃ = E_c[ReLU] (dashed) at ‖w⊙x‖ = 1 for κ ∈ {0.01, 0.1, 0.2, 0.5, 1}; ReLU "
                     "dotted (no Monte Carlo).", _figs12, "fig1a"),
    _figure("fig1b", "Fig. 1(b): σ̂, σ̃ and a Monte Carlo over raw masks as κ varies at wᵀx = 0.77, "
                     "‖w⊙x‖ = 1; lower panel MC − theory with its z-test. The Monte Carlo matches σ̃; "
                     "the proxy σ̂ is rejected once κ is not small (erratum masking:E6).", _figs12, "fig1b"),
    _figure("fig2", "Fig. 2(a), 2(b): at κ = 0.2 the exact σ̃ (a) and the proxy σ̂ (b) against one "
                    "Monte Carlo over z; the proxy misses s φ(z/s), 0.0798 at z = 0 (Remark 4.4).",
            _figs12, "fig2"),
    Figure("fig3a", "Fig. 3(a): clean loss L(W_k) of masked gradient descent, eq. (1), per κ "
                     "(mean over mask seeds, band min–max), the expected dynamics on the exact "
                     "E_C[∇L_C] dashed (quick run only), the rate (1 − ηλ₀/2)^k L(W₀) of Theorems "
                     "5.2/5.6 dotted; right: the paired excess floor(κ) − floor(0) with 95% intervals "
                     "and its fitted power of κ (maskverify train; quick: n = 60, d = 10, m = 20, "
                     "300 steps; full: the paper's n = 500, d = 20, m = 100, 2000 steps).", _fig3a_tasks, records=True),
    _figure("fig3b", "Fig. 3(b): FedAvg over a fading channel (each worker's inputs masked by "
                     "c ~ N(1, κ²I) per step): clean loss against rounds and against total gradient "
                     "steps, per κ and number of local steps (maskverify train --workers; our "
                     "settings, the paper gives none).", _fig3, "fig3b"),
)

PACK = PaperPack(
    paper=PAPER,
    verify_dir=ROOT / "verify" / "masking",
    errata=ROOT / "notes" / "masking" / "errata.toml",
    sources=ROOT / "notes" / "masking" / "sources.toml",
    records=ROOT / "notes" / "masking" / "records",
    campaigns=tuple(campaigns.CAMPAIGNS.values()),
    figures=FIGURES + privacy_cli.FIGURES,
    experiments=(("fig3a", Config()), ("fig3b", FIG3B)),
    commands=(Command("bounds", bounds.add_subcommand), Command("train", train_cmd.add_subcommand),
              Command("privacy", privacy_cli.add_subcommand)),
)
