"""The amplification pack's record (``PACK``, to be registered under ``maskverify.papers`` as
``amplification``): the paper (``theory.amplification.paper``), its witnesses
(``verify/amplification/``) and its errata data (``notes/amplification/errata.toml``)."""
from __future__ import annotations

from pathlib import Path

from numerics.core.pack import PaperPack
from theory.amplification.paper import PAPER

ROOT = Path(__file__).resolve().parents[2]

PACK = PaperPack(
    paper=PAPER,
    verify_dir=ROOT / "verify" / "amplification",
    errata=ROOT / "notes" / "amplification" / "errata.toml",
)
