"""The masking paper's models, references and experiments (pack ``masking``).

Public names (DESIGN.md, "Stable public names"): ``mask_moment1``, ``mask_moment2``,
``expected_loss``, ``expected_grad``, ``theorem_4_2``, ``definition_4_1``, ``ntk_gram``,
``lambda0``; they load on first use, so importing the package is cheap.
"""
from __future__ import annotations

import importlib

_PUBLIC = {
    "mask_moment1": "numerics.core.closed_form", "mask_moment2": "numerics.core.closed_form",
    "expected_loss": "numerics.masking.network", "expected_grad": "numerics.masking.network",
    "theorem_4_2": "numerics.masking.network", "definition_4_1": "numerics.masking.network",
    "ntk_gram": "numerics.masking.ntk", "lambda0": "numerics.masking.ntk",
}
__all__ = sorted(_PUBLIC)


def __getattr__(name):
    if name in _PUBLIC:
        return getattr(importlib.import_module(_PUBLIC[name]), name)
    raise AttributeError(f"module 'numerics.masking' has no attribute {name!r}")
