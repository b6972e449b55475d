"""One statement, many witnesses: the record every witness is generated from.

A ``Statement`` holds a stable id, the paper reference, typed parameters with domains and
LaTeX symbols, assumptions, and one or more ``Equation`` parts whose left side is kept as
an *unevaluated* expectation (the definition) and whose right side is the closed form or
bound the paper (or we) claim.  See ``../shared/DESIGN.md``, "One statement, many witnesses".
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field

import sympy as sp


class Kind(enum.Enum):
    IDENTITY = "identity"
    UPPER_BOUND = "upper bound"
    LOWER_BOUND = "lower bound"
    ASYMPTOTIC = "asymptotic (hidden constant)"
    DEFINITION = "definition"
    EMPIRICAL = "empirical (a claim decided by a statistical test)"


class Indicator(sp.Function):
    """The indicator 1{cond} of a relational (or a conjunction of relationals)."""

    nargs = 1
    is_commutative = True
    is_real = True

    def _latex(self, printer):
        return r"\mathbb{I}\{%s\}" % printer._print(self.args[0])  # amssymb has no blackboard 1

    def _eval_rewrite_as_Piecewise(self, cond, **kwargs):
        return sp.Piecewise((1, cond), (0, True))


class Tex(sp.Symbol):
    """An opaque symbol that prints as the raw LaTeX it is named by (for notation that is
    displayed, never computed with, e.g. a max over indices)."""

    def _latex(self, printer):
        return self.name


class Expectation(sp.Expr):
    is_commutative = True

    """Unevaluated E_{law}[expr]; ``law`` is a LaTeX string naming the distribution.

    It never evaluates itself: it is the definition that witnesses integrate or sample.
    For a scalar ``z ~ N(mu, s^2)`` it rewrites to the explicit Lebesgue integral with
    ``as_integral`` so that SymPy can derive the closed form from the definition.
    """

    def __new__(cls, expr, law):
        # ``law`` is the LaTeX string; SymPy's rebuilds (doit, xreplace) pass back the Symbol
        law = law if isinstance(law, sp.Symbol) else sp.Symbol(law)
        return sp.Expr.__new__(cls, sp.sympify(expr), law)

    @property
    def expr(self):
        return self.args[0]

    @property
    def law(self) -> str:
        return self.args[1].name

    def _latex(self, printer):
        return r"\mathbb{E}_{%s}\left[%s\right]" % (self.law, printer._print(self.expr))

    def as_integral(self, var: sp.Symbol, density: sp.Expr, lower=-sp.oo, upper=sp.oo):
        """The definition as ``Integral(expr * density, (var, lower, upper))``."""
        body = self.expr.rewrite(sp.Piecewise) * density
        return sp.Integral(body, (var, lower, upper))


@dataclass(frozen=True)
class Param:
    """A parameter: its symbol, its domain (a SymPy set) and what it means."""

    symbol: sp.Basic
    domain: sp.Set
    meaning: str

    @property
    def name(self) -> str:
        return str(self.symbol)


@dataclass(frozen=True)
class Equation:
    """One displayed relation ``lhs REL rhs`` of a statement."""

    label: str
    lhs: sp.Basic
    rhs: sp.Basic
    relation: str = "="  # "=", "<=", ">=", "~" (asymptotic)


@dataclass(frozen=True)
class Reading:
    """One reading of a reconstructed statement: what the surviving words assert when read
    this way.  ``strength`` orders the readings of one statement (a larger number asserts
    more: "for all C1 >= c" over "for some C1").  Tests witness a reading with
    ``@pytest.mark.reading(id)`` (the reading holds when they pass) or
    ``@pytest.mark.reading(id, refutes=True)`` (they pass by exhibiting its counterexample);
    the check table reports the strongest reading that holds and the weakest that fails."""

    id: str
    asserts: str
    strength: int


@dataclass(frozen=True)
class Provenance:
    """Where a statement's text comes from: ``printed`` (as the paper prints it) or
    reconstructed from ``passage`` (where the source text is lost, the statement is rebuilt,
    in its weakest form the proofs need, from how the named passage uses it).  A
    reconstruction lists the ``words`` that survive and the ``readings`` they admit."""

    printed: bool = True
    passage: str = ""
    words: str = ""
    readings: tuple[Reading, ...] = ()

    def __post_init__(self):
        if not self.printed and not self.passage:
            raise ValueError("a reconstructed statement must name the passage it was rebuilt from")
        if self.printed and self.readings:
            raise ValueError("only a reconstructed statement has readings")
        ids = [r.id for r in self.readings]
        if len(set(ids)) != len(ids):
            raise ValueError(f"duplicate reading ids {ids}")

    def describe(self) -> str:
        return "as printed" if self.printed else f"reconstructed from {self.passage}"


AS_PRINTED = Provenance()


def reconstructed(passage: str, *, words: str = "", readings: tuple[Reading, ...] = ()) -> Provenance:
    return Provenance(printed=False, passage=passage, words=words, readings=tuple(readings))


@dataclass(frozen=True)
class Statement:
    id: str
    ref: str
    title: str
    kind: Kind
    params: tuple[Param, ...]
    equations: tuple[Equation, ...]
    #: the hypotheses, each LaTeX prose with inline math between ``$`` (``r"$x\in\mathbb{R}^d$"``):
    #: the LaTeX export typesets the math and escapes the prose around it
    #: (``theory.core.latex.text_with_math``); prose without ``$`` is plain text
    assumptions: tuple[str, ...] = ()
    #: auxiliary symbols used on the right-hand sides, with their definitions
    where: tuple[tuple[sp.Basic, sp.Basic], ...] = ()
    notes: str = ""
    tags: tuple[str, ...] = field(default_factory=tuple)
    provenance: Provenance = AS_PRINTED
    #: where an evidential witness runs when the default tier of ``pytest verify/`` has none
    #: (a tier, "slow tier: pytest verify/<pack> -m slow -k ...", or a command); the verdict
    #: is then "not checked in this tier" and names it
    checked_in: str = ""
    #: why no evidential witness exists at all (the verdict "not checked" gives this reason)
    not_checked: str = ""
    #: the statement as the paper prints it, in the paper's own LaTeX (the display or environment
    #: body that ``maskverify new --from`` read), beside the typed equations; empty when not known.
    #: Shown, never computed with: a witness may parse it (``sympy.parsing.latex.parse_latex``) to
    #: compare the paper's formula with the pack's hand-written one
    printed: str = ""

    def equation(self, label: str) -> Equation:
        for eq in self.equations:
            if eq.label == label:
                return eq
        raise KeyError(f"{self.id} has no equation {label!r}; it has {[e.label for e in self.equations]}")
