"""The amplification pack's record (``PACK``, registered under ``maskverify.papers`` as
``amplification``): the paper (``theory.amplification.paper``), its witnesses
(``verify/amplification/``), its errata data (``notes/amplification/errata.toml``), Figs. 1-2 and
the command ``maskverify amplification-train`` (``numerics.amplification.figures``)."""
from __future__ import annotations

from pathlib import Path

from numerics.core.pack import Command, Figure, PaperPack
from theory.amplification.paper import PAPER

from . import campaigns, figures

ROOT = Path(__file__).resolve().parents[2]

PACK = PaperPack(
    paper=PAPER,
    verify_dir=ROOT / "verify" / "amplification",
    errata=ROOT / "notes" / "amplification" / "errata.toml",
    sources=ROOT / "notes" / "amplification" / "sources.toml",
    campaigns=tuple(campaigns.CAMPAIGNS.values()),
    figures=(Figure("fig1", "Fig. 1: decision boundary in the plane of mu_1, mu_2 after T = 1 + 1/(4 alpha) = 11 GD steps "
                            "(alpha = 1/40), 15 % flipped labels (crosses); d = 100, n = 200, m = 400, sigma = 0.15, "
                            "omega = 1e-6 (settings ours: Appendix E is lost)", figures.produce_fig1),
             Figure("fig2", "Fig. 2: train and test accuracy (noisy labels) over GD, 15 % flips, n >> d (d = 20, n = 1000) "
                            "(sigma = 0.45) and d >> n (d = 2000, n = 100, sigma sqrt(d) = 3); m = 200, alpha = 0.5, 2000 steps, 2 seeds "
                            "(quick: m = 100, 100 steps, 1 seed; settings ours)", figures.produce_fig2)),
    experiments=(("fig2-low", figures.LOW), ("fig2-high", figures.HIGH)),
    commands=(Command("amplification-train", figures.add_subcommand),),
)
