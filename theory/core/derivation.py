"""Checked derivations: the record a SymPy witness returns, its steps, and the one normaliser.

A :class:`Derivation` holds the statement id, the part, a ``claim`` saying exactly what was
shown, the checked ``steps`` (:class:`Step`: a prose caption, the two sides ``lhs REL rhs``
and what decided the step) and ``proved``, True only if *every* step holds.  Witnesses build
the steps with :class:`Steps`:

- ``equal(caption, lhs, rhs)``: the identity ``lhs = rhs``, decided by the residual
  ``reduce_zero(lhs - rhs)`` (exactly 0, a zero matrix or a tuple of zeros when it holds);
- ``compare(caption, lhs, rel, rhs)``: ``lhs <= rhs`` (``>=``, ``<``, ``>``), decided by SymPy's
  relational under the symbols' assumptions (``true`` when it holds, unevaluated when SymPy
  cannot decide, which fails);
- ``zero(caption, residual)``: ``residual = 0`` where the step is genuinely a residual;
- ``true(caption, condition)``: a condition with no sides at hand (``true`` when it holds).

A side (or an entry of a tuple side) that is an unevaluated ``Integral``, ``Limit``, ``Product``
or ``Derivative`` is kept unevaluated for typesetting and compared by its value (``doit``).

``reduce_zero`` is the one normaliser: Phi2's two limits sorted (it is symmetric in them),
Phi/varphi to erfc/exp, erf to 1 - erfc, erfc(-x) to 2 - erfc(x), numerator over a common
denominator, products of exponentials combined with canonical (cancelled) exponents, the bases
of fractional powers factored (so that ``sqrt(a) sqrt(b) = sqrt(ab)`` holds where the symbols'
assumptions make a, b >= 0, and not for real a, b), and only then ``sympy.simplify`` (which
applies only identities true under the symbols' assumptions: declare ``positive=True`` or
``real=True`` on a symbol for its identities to apply).  A point evaluation that is clearly non-zero skips the expensive
fallback (it can only ever make a step fail, never pass).

The helpers below (indicator to Heaviside, normal densities, integration of indicator
integrals, matrix-coefficient comparison) are shared by every pack's derivations.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import sympy as sp
from sympy.matrices.expressions.matexpr import MatrixExpr
from sympy.printing.str import StrPrinter

from .functions import Phi, Phi2, to_elementary
from .statement import Indicator


# ============================================================== the result record
@dataclass(frozen=True)
class Step:
    """One checked step: ``lhs RELATION rhs`` under a short prose ``caption``.

    ``relation`` is ``"="`` (``reduced`` is the residual ``reduce_zero(lhs - rhs)``), one of
    ``"<="``, ``">="``, ``"<"``, ``">"`` (``reduced`` is SymPy's relational of the two sides), or
    None for a bare condition (no sides; ``reduced`` is the condition).  ``reduced`` alone
    decides whether the step holds (:func:`holds`).
    """

    caption: str
    lhs: Any
    rhs: Any
    relation: str | None
    reduced: Any

    @property
    def holds(self) -> bool:
        return holds(self.reduced)


@dataclass(frozen=True)
class Derivation:
    """A checked derivation of one part of one statement."""

    statement_id: str
    part: str
    claim: str
    steps: tuple[Step, ...] = ()
    proved: bool = False

    @property
    def failed_steps(self) -> list[str]:
        """The captions of the steps that do not hold."""
        return [step.caption for step in self.steps if not step.holds]

    def report(self) -> str:
        """Plain text: the verdict, the claim, each step's caption, and for a failed step its
        relation and what is left of it."""
        lines = [f"{self.statement_id} [{self.part}]: {'PROVED' if self.proved else 'NOT PROVED'}",
                 f"  claim: {self.claim}"]
        for step in self.steps:
            lines.append(f"  [{'ok' if step.holds else 'FAIL'}] {step.caption}")
            if not step.holds:
                if step.relation is not None:
                    lines.append(f"        checked: {short(step.lhs, 200)} {step.relation} {short(step.rhs, 200)}")
                lines.append(f"        residual: {sp.sstr(step.reduced)[:400]}")
        return "\n".join(lines)


def holds(e) -> bool:
    """True iff ``e`` is exactly 0, a zero matrix/tuple, or SymPy's ``true``."""
    if e is sp.true or e is True:
        return True
    if isinstance(e, (sp.MatrixBase, sp.Tuple, tuple, list)):
        return all(holds(x) for x in e)
    return isinstance(e, sp.Expr) and e.is_zero is True and e == 0


#: the inequalities ``Steps.compare`` states, as SymPy relationals
INEQUALITIES = {"<=": sp.Le, ">=": sp.Ge, "<": sp.Lt, ">": sp.Gt}
_UNEVALUATED = (sp.Integral, sp.Limit, sp.Product, sp.Derivative)


def _value(side):
    """A side as it is compared: an unevaluated Integral, Limit, Product or Derivative (or a
    tuple's such entry) evaluated."""
    if isinstance(side, (tuple, list, sp.Tuple)):
        return sp.Tuple(*[_value(x) for x in side])
    return side.doit() if isinstance(side, _UNEVALUATED) else side


def _difference(lhs, rhs):
    """``lhs - rhs``, entry by entry for two sequences of one length."""
    if isinstance(lhs, (tuple, list, sp.Tuple)) or isinstance(rhs, (tuple, list, sp.Tuple)):
        if len(lhs) != len(rhs):
            raise ValueError(f"sides of different lengths: {len(lhs)} and {len(rhs)}")
        return sp.Tuple(*[a - b for a, b in zip(lhs, rhs)])
    return lhs - rhs


class Steps:
    """The steps of one derivation, in order; :meth:`done` makes the :class:`Derivation`."""

    def __init__(self):
        self.steps: list[Step] = []

    def add(self, *steps: Step) -> None:
        """Append steps built elsewhere (shared, cached steps)."""
        self.steps.extend(steps)

    def equal(self, caption: str, lhs, rhs) -> Step:
        """``lhs = rhs``: holds iff ``reduce_zero(lhs - rhs)`` is exactly zero (entrywise for
        matrices and tuples)."""
        step = Step(caption, lhs, rhs, "=", reduce_zero(_difference(_value(lhs), _value(rhs))))
        self.steps.append(step)
        return step

    def zero(self, caption: str, residual) -> Step:
        """``residual = 0``, for a step that is genuinely a residual (holds as :meth:`equal`)."""
        step = Step(caption, residual, sp.S.Zero, "=", reduce_zero(_value(residual)))
        self.steps.append(step)
        return step

    def compare(self, caption: str, lhs, relation: str, rhs) -> Step:
        """``lhs RELATION rhs`` for ``relation`` in :data:`INEQUALITIES`: holds iff SymPy
        evaluates the relational to ``true`` under the symbols' assumptions."""
        if relation not in INEQUALITIES:
            raise ValueError(f"relation {relation!r} is not one of {sorted(INEQUALITIES)}")
        decided = sp.sympify(INEQUALITIES[relation](_value(lhs), _value(rhs)))
        step = Step(caption, lhs, rhs, relation, decided)
        self.steps.append(step)
        return step

    def true(self, caption: str, condition) -> Step:
        """A condition with no sides at hand: holds iff it is SymPy's ``true``."""
        step = Step(caption, None, None, None, sp.sympify(condition))
        self.steps.append(step)
        return step

    def done(self, statement_id, part, claim) -> Derivation:
        proved = bool(self.steps) and all(step.holds for step in self.steps)
        return Derivation(statement_id, part, claim, tuple(self.steps), proved)


# ============================================================== the normaliser
def _canon_erfc(e):
    e = e.replace(sp.erf, lambda x: 1 - sp.erfc(x))

    def f(x):
        x = sp.expand(x)
        return 2 - sp.erfc(-x) if x.could_extract_minus_sign() else sp.erfc(x)

    return e.replace(sp.erfc, f)


def _canon_phi2(e):
    """Phi2(h, k; rho) = Phi2(k, h; rho) (exchangeable coordinates): sort the two limits."""
    def f(h, k, r):
        h, k = sp.expand(h), sp.expand(k)
        return Phi2(*sorted((h, k), key=sp.default_sort_key), r)

    return e.replace(Phi2, f)


def _canon_exp(e):
    return e.replace(sp.exp, lambda x: sp.exp(sp.cancel(sp.expand(x))))


_TEST_VALUES = [sp.Rational(n, d) for n, d in
                ((3, 7), (5, 11), (7, 19), (11, 23), (13, 31), (2, 9), (17, 41), (19, 29), (5, 13))]


def _clearly_nonzero(e) -> bool:
    """True if ``e`` evaluates to something clearly non-zero at a point inside every domain
    used here (symbols in (0, 1), negated for negative symbols: |rho| < 1, scales > 0)."""
    syms = sorted(e.free_symbols, key=str)
    if len(syms) > len(_TEST_VALUES):
        return False
    point = {x: (-v if x.is_negative else v) for x, v in zip(syms, _TEST_VALUES)}
    try:
        val = sp.sympify(e.xreplace(point)).evalf(30)
        return bool(val.is_number) and not val.atoms(sp.Function) and abs(complex(val)) > 1e-12
    except (TypeError, ValueError, AttributeError):  # unevaluable (Phi2, Integral, ...)
        return False


def reduce_zero(expr):
    """Reduce ``expr`` (scalar, matrix or tuple) towards 0; return ``S.Zero`` when it is
    identically zero, else what is left (the numerator over a common denominator: zero
    exactly where ``expr`` is, away from the poles).  Only ever applies true identities."""
    if isinstance(expr, (sp.MatrixBase,)):
        return expr.applyfunc(reduce_zero)
    if isinstance(expr, (tuple, list, sp.Tuple)):
        return sp.Tuple(*[reduce_zero(x) for x in expr])
    e = sp.sympify(expr)
    if isinstance(e, sp.logic.boolalg.Boolean):
        return e
    if sp.expand(e) == 0:       # cheap: cancels structurally
        return sp.S.Zero
    e = _canon_erfc(to_elementary(_canon_phi2(e)))
    e = sp.expand(e, power_exp=False)
    if e == 0:
        return sp.S.Zero
    n, _ = sp.fraction(sp.together(e))
    for _ in range(3):
        n = sp.expand(n, power_exp=False)
        n = sp.powsimp(n, combine="exp")
        n = _canon_exp(n)
        n = _canon_erfc(n)
        n = sp.expand(n, power_exp=False)
        if n == 0:
            return sp.S.Zero
    if _clearly_nonzero(n):
        return n
    split = sp.expand(_canon_radicals(n), power_exp=False)
    if split == 0:
        return sp.S.Zero
    n = sp.simplify(n)
    return sp.S.Zero if n == 0 else n


def _canon_radicals(e):
    """Every fractional power with its base factored: SymPy writes ``(x y)^q = x^q y^q`` by
    itself where the symbols' assumptions allow it (x, y >= 0, or q an integer), so that
    ``sqrt(2a + 1) sqrt(2b + 1) - sqrt(4ab + 2a + 2b + 1)`` cancels for positive a, b, and stays
    (rightly: ``sqrt(-1) sqrt(-1) = -1``) for a, b only real."""
    return e.replace(lambda x: isinstance(x, sp.Pow) and x.exp.is_Rational and not x.exp.is_Integer,
                     lambda x: sp.Pow(sp.factor(x.base), x.exp))


# ============================================================== helpers
def subs_where(expr, where):
    """Substitute a statement's ``where`` definitions until nothing changes."""
    rep = dict(where)
    for _ in range(10):
        new = expr.xreplace(rep)
        if new == expr:
            return new
        expr = new
    return expr


def normal_pdf(x, m, sd):
    """N(x; m, sd^2), written out (not taken from the library)."""
    return sp.exp(-(x - m) ** 2 / (2 * sd ** 2)) / (sp.sqrt(2 * sp.pi) * sd)


def integrate_indicator_integral(integral: sp.Integral):
    """Integrate ``Integral(Piecewise((f, cond), (0, True)), (x, lo, hi))`` over the set
    where ``cond`` holds (the indicator restricts the range; SymPy cannot do the Piecewise
    over the whole line)."""
    body = integral.function
    (var, lo, hi), = integral.limits
    if isinstance(body, sp.Piecewise):
        (f, cond), (other, rest) = body.args
        if other != 0 or rest is not sp.true:
            raise ValueError(f"not an indicator integrand: {body}")
        S = cond.as_set().intersect(sp.Interval(lo, hi))
        if not isinstance(S, sp.Interval):
            raise ValueError(f"indicator support is not an interval: {S}")
        return sp.integrate(f, (var, S.inf, S.sup))
    return sp.integrate(body, (var, lo, hi))


def positive_free(arg):
    """Drop positive factors: Heaviside(c w) = Heaviside(w) for c > 0."""
    f = sp.factor(arg)
    if isinstance(f, sp.Mul):
        keep = [x for x in f.args if x.is_positive is not True]
        return sp.Mul(*keep)
    return arg


def indicator_to_heaviside(expr):
    """1{A and B} = H(A) H(B) (almost everywhere: boundaries are null sets)."""
    def conv(cond):
        parts = cond.args if isinstance(cond, sp.And) else (cond,)
        out = sp.S.One
        for r in parts:
            if isinstance(r, (sp.GreaterThan, sp.StrictGreaterThan)):
                out *= sp.Heaviside(r.lhs - r.rhs)
            elif isinstance(r, (sp.LessThan, sp.StrictLessThan)):
                out *= sp.Heaviside(r.rhs - r.lhs)
            else:
                raise ValueError(f"unsupported condition {r}")
        return out

    return expr.replace(Indicator, conv)


def normalise_heaviside(expr):
    return expr.replace(sp.Heaviside, lambda x, *h: sp.Heaviside(positive_free(sp.expand(x))))


def sift(expr, variables):
    """g(x) delta(x - c) = g(c) delta(x - c), applied term by term (order-0 deltas)."""
    out = sp.S.Zero
    for term in sp.Add.make_args(sp.expand(expr)):
        for dd in [x for x in term.atoms(sp.DiracDelta) if len(x.args) == 1]:
            vs = [v for v in variables if dd.args[0].has(v)]
            if len(vs) != 1:
                continue
            root = sp.solve(dd.args[0], vs[0])
            if len(root) != 1:
                continue
            rest = sp.cancel(term / dd)
            term = dd * rest.subs(vs[0], root[0])
        out += term
    return sp.expand(out)


def zero_rho(expr):
    """Phi2(h, k, 0) = Phi(h) Phi(k): the coordinates are independent at rho = 0."""
    return expr.replace(lambda e: isinstance(e, Phi2) and e.args[2] == 0,
                        lambda e: Phi(e.args[0]) * Phi(e.args[1]))


#: LaTeX in a symbol's name -> its plain-text spelling, applied in order (see :func:`plain_name`)
_PLAIN_NAME = (
    (re.compile(r"\\(hat|tilde|bar)\s*\{?\s*\\?([A-Za-z]+|\w)\s*\}?"), r"\2_\1"),  # \hat{u} -> u_hat
    (re.compile(r"\\math(?:bf|bb|rm|cal)\s*\{([^{}]*)\}"), r"\1"),     # \mathbf{1} -> 1
    (re.compile(r"\\langle\s*"), "<"), (re.compile(r"\s*\\rangle"), ">"),
    (re.compile(r"\\\|"), "||"),
    (re.compile(r"\\([A-Za-z]+)\s*"), r"\1"),                           # \mu -> mu
    (re.compile(r"[{}]"), ""),
)


def plain_name(name: str) -> str:
    """A SymPy symbol's name, which may be LaTeX (``\\hat{u}``, ``\\langle c, u\\rangle``,
    ``\\varepsilon_1``), spelled as the plain text of the captions and claims (``u_hat``,
    ``<c, u>``, ``varepsilon_1``), so that it reads in a terminal and escapes into LaTeX prose
    without backslashes."""
    for pattern, repl in _PLAIN_NAME:
        name = pattern.sub(repl, name)
    return name


class _PlainPrinter(StrPrinter):
    """``sympy.sstr`` with symbol names spelled by :func:`plain_name`."""

    def _print_Symbol(self, expr):
        return plain_name(expr.name)

    _print_MatrixSymbol = _print_Symbol


def plain(e) -> str:
    """``e`` as plain text (``sympy.sstr``, symbol names by :func:`plain_name`)."""
    return _PlainPrinter().doprint(e)


def short(e, n=160) -> str:
    s = plain(e)
    return s if len(s) <= n else s[: n - 3] + "..."


# ---------------------------------------------------------- matrix-expression coefficients
def mat_coeffs(M) -> dict:
    """Scalar coefficient of each product of matrix symbols in an expanded matrix
    expression (1 1^T, u_hat 1^T, I, ...)."""
    M = sp.expand(M.doit()) if isinstance(M, MatrixExpr) else M
    out: dict = {}
    for t in sp.Add.make_args(M):
        if isinstance(t, sp.MatMul):
            c, mats = t.as_coeff_matrices()
            key = tuple(mats)
        elif isinstance(t, MatrixExpr):
            c, key = sp.S.One, (t,)
        else:
            raise ValueError(f"not a matrix term: {t}")
        out[key] = out.get(key, sp.S.Zero) + c
    return out


def matched_coeffs(derived, rhs):
    """``(basis, derived coefficient, rhs coefficient)`` for every product of matrix symbols
    in either side (a missing one has coefficient 0); the two sides are equal iff every
    pair is."""
    cd, cr = mat_coeffs(derived), mat_coeffs(rhs)
    keys = list(dict.fromkeys(list(cd) + list(cr)))
    return [(basis_name(k), cd.get(k, sp.S.Zero), cr.get(k, sp.S.Zero)) for k in keys]


def basis_name(key) -> str:
    """A product of matrix symbols as plain text: ``1*u_hat.T`` style (:func:`plain` joined by ``*``)."""
    return "*".join(plain(m) for m in key)
