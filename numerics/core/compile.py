"""The one expression compiler: a SymPy expression of ``theory`` turned into a function of plain
numbers, for one of three targets, so that numerics evaluates the formulas theory owns instead of
re-typing them.

- ``"math"``: Python floats (``math``), for bounds and constants that are sums of products of
  non-negative terms (no cancellation, so the displayed form is also the stable one);
- ``"mpmath"``: mpmath numbers at the working precision (references and their checks);
- ``"arb"``: python-flint balls, rationals printed as exact Arb quotients (never floats), for
  certified enclosures.

Phi and varphi (``theory.core.functions``) map to the target's normal CDF and density for
``math`` and ``mpmath``; other functions (Phi2, and for ``arb`` all three, as enclosures from
``numerics.core.certified``) are supplied with ``functions``.  Closed forms
that cancel in float64 (the truncated-normal moments in their lower tails) are not compiled for
float64: their kernels are written by hand and checked against these expressions by tests.
"""
from __future__ import annotations

import functools
import math

import mpmath as mp
import sympy as sp
from sympy.printing.lambdarepr import LambdaPrinter

TARGETS = ("math", "mpmath", "arb")


class _ArbPrinter(LambdaPrinter):
    """Prints rationals as exact Arb quotients and pi as an Arb ball."""

    def _print_Rational(self, expr):
        return f"(arb({expr.p})/arb({expr.q}))"

    def _print_Pi(self, expr):
        return "arb.pi()"


def _namespace(target: str) -> list:
    if target == "math":
        return [{"Phi": lambda x: 0.5 * math.erfc(-x / math.sqrt(2.0)),
                 "varphi": lambda x: math.exp(-x * x / 2.0) / math.sqrt(2.0 * math.pi)}, "math"]
    if target == "mpmath":
        return [{"Phi": mp.ncdf, "varphi": mp.npdf}, "mpmath"]
    from flint import arb

    # Phi, varphi and Phi2 as balls come from numerics.core.certified (passed as ``functions``)
    return [{"arb": arb, "sqrt": lambda x: x.sqrt(), "exp": lambda x: x.exp(), "log": lambda x: x.log()}]


@functools.lru_cache(maxsize=None)
def compile_expr(expr: sp.Basic, args: tuple, target: str = "math", functions: tuple = ()):
    """``f(*values)`` evaluating ``expr`` with ``args`` (a tuple of symbols) bound to the values.

    ``functions``: extra ``(name, callable)`` pairs for the target (e.g. ``("Phi2", enclosure)``).
    Raises ``ValueError`` for an unknown target or a free symbol not among ``args``."""
    if target not in TARGETS:
        raise ValueError(f"unknown target {target!r}; known: {', '.join(TARGETS)}")
    missing = sorted(map(str, expr.free_symbols - set(args)))
    if missing:
        raise ValueError(f"free symbols not given as arguments: {', '.join(missing)}")
    modules = _namespace(target)
    modules[0] = {**modules[0], **dict(functions)}
    printer = None
    if target == "arb":
        printer = _ArbPrinter({"fully_qualified_modules": False, "inline": True,
                               "allow_unknown_functions": True, "user_functions": {}})
    return sp.lambdify(args, expr, modules=modules, printer=printer)
