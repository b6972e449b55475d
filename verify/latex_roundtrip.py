"""The LaTeX round trip: read each formula from an exported fragment's text, parse it with
SymPy's LaTeX parser and prove it equal to the catalogue's expression.  Used by
``verify/test_latex.py`` (the LaTeX witness of each statement) and by
``tests/test_latex_export.py`` (the exporter's own tests)."""
from __future__ import annotations

import functools
import re

import sympy as sp
from sympy.core.function import AppliedUndef
from sympy.matrices.expressions.matexpr import MatrixExpr
from sympy.parsing.latex import parse_latex

from theory.masking.catalogue import CATALOGUE
from theory.core.functions import Phi, Phi2, varphi
from theory.core.latex import CONTINUE, latex_expr
from theory.core.statement import Expectation, Indicator

IDS = list(CATALOGUE)

#: construct -> why SymPy's LaTeX parser cannot read it back
UNPARSEABLE = {
    Expectation: "an unevaluated expectation E_{law}[...]: the parser has no expectation operator and the law "
                 "is free LaTeX (mis-parsed as products of letters)",
    Indicator: "the indicator \\mathbb{I}\\{...\\}: the parser has no indicator, nor conditions separated by commas",
    MatrixExpr: "a matrix expression: the parser's products commute and it reads ^{T} as a power",
}
#: commands a fragment may use: LaTeX, amsmath and amssymb, nothing defined by us
ALLOWED_COMMANDS = set(r"""
\allowbreak \textbar \item \textgreater \right \left \texttt \textit \textbf \frac \textless \end \begin
\textbackslash \tag \label \nonumber \quad \noindent \paragraph \mathbf \mathbb \mathcal \mathrm \text \sqrt \max
\min \lim \log \arccos \sum \Pr \hat \tilde \top \odot \nabla \langle \rangle \le \ge \leq \geq \sim \to \infty
\in \mid \pm \cdot \dots \big \Big \Phi \Omega \mu \kappa \rho \varphi \phi \psi \sigma \lambda \delta
\varepsilon \pi \tau \eta \gamma
""".split())


# ---------------------------------------------------------------------------- reading fragments
def balanced(tex: str) -> bool:
    depth = 0
    for ch in tex.replace(r"\{", "").replace(r"\}", ""):
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0


def unbreak(tex: str) -> str:
    """Join the continuation lines of a display (pure layout) back into one line."""
    return tex.replace(r"\right." + CONTINUE + r"\left.", "").replace(CONTINUE, " ")


_RELATION = re.compile(r"^  (?P<lhs>.+?) &(?P<rel>=|\\le|\\ge|\\sim) (?P<rhs>.+?) "
                       r"\\label\{(?P<key>[^}]*)\}\\tag\{.*\}(?: \\\\)?$", re.M)


def formulas_in_fragment(text: str) -> dict:
    """{(part, side) or (("where", k), side): LaTeX} read from a fragment's text."""
    text = unbreak(text)
    out = {}
    for m in _RELATION.finditer(text):
        part = m["key"].split(":", 1)[1]
        out[(part, "lhs")], out[(part, "rhs")] = m["lhs"], m["rhs"]
    where = re.search(r"\\begin\{align\*\}\n(.*?)\n\\end\{align\*\}", text, re.S)
    if where:
        for k, line in enumerate(where[1].split(" \\\\\n")):
            lhs, rhs = line.strip().split(" &= ", 1)
            out[(("where", k), "lhs")], out[(("where", k), "rhs")] = lhs, rhs
    return out


def catalogue_formulas(sid: str) -> dict:
    """{key: catalogue expression}, keyed as :func:`formulas_in_fragment`."""
    st = CATALOGUE[sid]
    out = {}
    for eq in st.equations:
        out[(eq.label, "lhs")], out[(eq.label, "rhs")] = sp.sympify(eq.lhs), sp.sympify(eq.rhs)
    for k, (sym, val) in enumerate(st.where):
        out[(("where", k), "lhs")], out[(("where", k), "rhs")] = sp.sympify(sym), sp.sympify(val)
    return out


def unparseable_construct(expr):
    """The first construct of :data:`UNPARSEABLE` that ``expr`` contains, or None."""
    for node in sp.preorder_traversal(expr):
        for cls in UNPARSEABLE:
            if isinstance(node, cls):
                return cls
    return None


# ---------------------------------------------------------------------------- parsing back
def _applied_functions(expr):
    return {f for f in sp.preorder_traversal(expr) if isinstance(f, (AppliedUndef, Phi, varphi, Phi2, sp.Max))}


@functools.lru_cache(maxsize=None)
def _parse_atom(tex: str):
    """``parse_latex(tex)``, or None where the parser rejects it."""
    try:
        return parse_latex(tex)
    except Exception:  # noqa: BLE001 - any parser failure means: not a plain symbol
        return None


def parse_back(tex: str, original):
    """``tex`` parsed by SymPy's LaTeX parser, its names mapped to ``original``'s atoms."""
    names, placeholders = {}, {}
    directions = {sp.Symbol(d) for d in ("+", "-", "+-")}  # a Limit's direction is stored as a Symbol
    atoms = (set(original.atoms(sp.Symbol, sp.Indexed)) - directions) | {sp.pi, sp.E}
    for k, atom in enumerate(sorted(atoms, key=sp.default_sort_key)):
        atom_tex = latex_expr(atom)
        parsed = _parse_atom(atom_tex)
        if isinstance(parsed, sp.Symbol):
            assert names.get(parsed, atom) == atom, f"{atom} and {names[parsed]} both parse to {parsed}"
            names[parsed] = atom
        else:
            placeholders[atom_tex] = (r"\mathit{zatom%s}" % "".join(chr(97 + int(c)) for c in str(k)), atom)
    for atom_tex in sorted(placeholders, key=len, reverse=True):
        token, atom = placeholders[atom_tex]
        tex = tex.replace(atom_tex, " " + token + " ")
        names[sp.Symbol(token[8:-1])] = atom
    functions = {}
    for app in _applied_functions(original):
        dummies = sp.symbols(f"x:{len(app.args)}")
        parsed = _parse_atom(latex_expr(app.func(*dummies)))
        if isinstance(parsed, AppliedUndef):
            functions[parsed.func.__name__] = app.func
    parsed = parse_latex(tex).xreplace(names)
    parsed = parsed.replace(lambda e: isinstance(e, AppliedUndef) and e.func.__name__ in functions,
                            lambda e: functions[e.func.__name__](*e.args))
    return parsed.replace(lambda e: isinstance(e, sp.Limit) and isinstance(e.args[3], sp.Symbol),
                          lambda e: sp.Limit(*e.args[:3], dir=e.args[3].name))


def round_trip(tex: str, original) -> str:
    """How ``tex`` was proved equal to ``original``: "expand" or "simplify" reduced the
    difference to 0; raises AssertionError if neither did."""
    parsed = parse_back(tex, original)
    difference = parsed - original
    if sp.expand(difference) == 0:
        return "expand"
    assert sp.simplify(difference) == 0, f"{tex!r} parses to {parsed}, not {original}"
    return "simplify"


def round_trip_cases() -> tuple[list, list]:
    """(sid, key) of every formula that round-trips, and (sid, key, name, reason) of every
    formula containing an UNPARSEABLE construct."""
    ok, failing = [], []
    for sid in IDS:
        for key, expr in catalogue_formulas(sid).items():
            construct = unparseable_construct(expr)
            if construct is None:
                ok.append((sid, key))
            else:
                name = f"{sid}:{key[0] if isinstance(key[0], str) else 'where%d' % key[0][1]}:{key[1]}"
                failing.append((sid, key, name, UNPARSEABLE[construct]))
    return ok, failing
