"""The meanfield paper's models, references and experiments (pack ``meanfield``): Chen,
Vanden-Eijnden, Bruna, *On Feature Learning in Neural Networks with Global Convergence
Guarantees* (ICLR 2022).

Public names (DESIGN.md, "Stable public names"): ``gram_bar(X, activation)`` (Gbar^(1) of eq. (23))
and ``gram_bar_prime(X, activation)`` (the derivative kernel); they load on first use.
"""
from __future__ import annotations

import importlib

_PUBLIC = {"gram_bar": "numerics.meanfield.kernels", "gram_bar_prime": "numerics.meanfield.kernels"}
__all__ = sorted(_PUBLIC)


def __getattr__(name):
    if name in _PUBLIC:
        return getattr(importlib.import_module(_PUBLIC[name]), name)
    raise AttributeError(f"module 'numerics.meanfield' has no attribute {name!r}")
