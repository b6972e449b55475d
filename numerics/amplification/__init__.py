"""The amplification paper's models, references and experiments (pack ``amplification``):
Frei, Chatterji, Bartlett, *Random Feature Amplification* (arXiv 2202.07626).

Public name (DESIGN.md, "Stable public names"): ``correlation_tail(c, d)`` =
P(<w/||w||, mu> >= c/sqrt d) for w ~ N(0, I_d) and a fixed unit vector mu (Lemma 4.1's
probability, reconstructed); it loads on first use.
"""
from __future__ import annotations

import importlib

_PUBLIC = {"correlation_tail": "numerics.amplification.tail"}
__all__ = ["correlation_tail"]


def __getattr__(name):
    if name in _PUBLIC:
        return getattr(importlib.import_module(_PUBLIC[name]), name)
    raise AttributeError(f"module 'numerics.amplification' has no attribute {name!r}")
