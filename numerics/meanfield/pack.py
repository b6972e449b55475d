"""The meanfield pack's record (``PACK``, registered under ``maskverify.papers`` as ``meanfield``):
the paper, its witnesses (``verify/meanfield/``), its errata data (``notes/meanfield/errata.toml``), the figures, settings and commands of
Exp. 1-3 (``maskverify meanfield-train``, ``meanfield-exp2``, ``meanfield-exp3``)."""
from __future__ import annotations

from pathlib import Path

from numerics.core.pack import Command, Figure, PaperPack
from theory.meanfield.paper import PAPER

from . import campaigns, exp1, exp2, exp3

ROOT = Path(__file__).resolve().parents[2]

PACK = PaperPack(
    paper=PAPER,
    verify_dir=ROOT / "verify" / "meanfield",
    errata=ROOT / "notes" / "meanfield" / "errata.toml",
    sources=ROOT / "notes" / "meanfield" / "sources.toml",
    campaigns=tuple(campaigns.CAMPAIGNS.values()),
    figures=(Figure("exp1", "Exp. 1 (Fig. 1): training loss of GD (9) on a shallow tanh net fitting random labels, "
                            "d = 20, per n (quick: m = 256, 300 steps; full: m = 512, 2000 steps; the paper m = 8192, "
                            "50,000 steps)", exp1.produce),
             Figure("exp2", "Exp. 2 (Figs. 2, 6): test MSE of a shallow ReLU net with and without the quadratic "
                            "embedding vec(x x^T), d = 30, teacher m = 5, against n and GD steps (quick: m = 32, "
                            "400 steps; full: m = 64, 2,500 steps of delta = 20 on the mean loss; the paper m = 8192)",
                    exp2.produce),
             Figure("exp3", "Exp. 3 (Figs. 3, 4, 7, 8): the P-3L ReLU net under the scalings ours, NTK, MF of Table 1 "
                            "on the data (93)-(96), d = 50: test error against n, losses and features (quick: m = 32, "
                            "400 steps; full: m in {64, 128}, 2,500 steps of delta = 20 on the mean loss; the paper "
                            "m = 8192)", exp3.produce),),
    experiments=(("exp1", exp1.Config()), ("exp2", exp2.Config()), ("exp3", exp3.Config())),
    commands=(Command("meanfield-train", exp1.add_subcommand), Command("meanfield-exp2", exp2.add_subcommand),
              Command("meanfield-exp3", exp3.add_subcommand)),
)
