"""Old import paths kept for one release (DESIGN.md, "Stable public names"): a module that moved
leaves a stub whose attributes forward to the new module with a ``DeprecationWarning``."""
from __future__ import annotations

import importlib
import warnings


def forward(old: str, new: str):
    """A module ``__getattr__`` for the stub ``old`` that forwards every name to ``new``."""
    def __getattr__(name):
        if name.startswith("__"):  # import machinery probing (__path__, __file__ ...)
            raise AttributeError(name)
        warnings.warn(f"{old} moved to {new}; import {name} from there (the old path goes in the next "
                      "release)", DeprecationWarning, stacklevel=2)
        return getattr(importlib.import_module(new), name)
    return __getattr__
