"""Moved to ``numerics.core.closed_form`` (this path stays one release, with a DeprecationWarning)."""
from numerics.core.moved import forward

__getattr__ = forward(__name__, "numerics.core.closed_form")
