"""The meanfield pack's record (``PACK``, registered under ``maskverify.papers`` as ``meanfield``):
the paper, its witnesses (``verify/meanfield/``), its errata data (``notes/meanfield/errata.toml``), Exp. 1's figure, settings and command
(``maskverify meanfield-train``)."""
from __future__ import annotations

from pathlib import Path

from numerics.core.pack import Command, Figure, PaperPack
from theory.meanfield.paper import PAPER

from . import campaigns, exp1

ROOT = Path(__file__).resolve().parents[2]

PACK = PaperPack(
    paper=PAPER,
    verify_dir=ROOT / "verify" / "meanfield",
    errata=ROOT / "notes" / "meanfield" / "errata.toml",
    campaigns=tuple(campaigns.CAMPAIGNS.values()),
    figures=(Figure("exp1", "Exp. 1 (Fig. 1): training loss of GD (9) on a shallow tanh net fitting random labels, "
                            "d = 20, per n (quick: m = 256, 300 steps; full: m = 512, 2000 steps; the paper m = 8192, "
                            "50,000 steps)", exp1.produce),),
    experiments=(("exp1", exp1.Config()),),
    commands=(Command("meanfield-train", exp1.add_subcommand),),
)
