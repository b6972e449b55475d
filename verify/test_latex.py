"""LaTeX witness: every statement of the catalogue exports a pasteable fragment, and every
formula in it parses back to the catalogue's expression.

Round trip (in ``test_fragment_states_every_equation_with_reference``, the one LaTeX
witness per statement): each relation ``lhs REL rhs`` and
each definition ``symbol = value`` is read *from the exported fragment's text*, parsed with
SymPy's LaTeX parser (``sympy.parsing.latex.parse_latex``, ANTLR backend) and proved equal to
the catalogue's expression: ``expand`` or ``simplify`` of ``parsed - original`` is exactly 0
(no numerical tolerance: every formula that parses back is proved equal symbolically).

What the parser is told, and nothing more: the parser knows single (Greek) letters with
subscripts; every other atom of the catalogue expression (``\\mathcal{E}``, ``\\hat\\sigma``,
the opaque ``Tex`` notation such as ``\\|\\nabla_{w_r}\\mathcal{L}_{\\mathbf{C}}(W)\\|_2^2``)
is replaced, as a whole token, by a fresh ``\\mathit{...}`` name before parsing, and mapped
back after; parsed symbol and function names are mapped to the catalogue's by parsing each
atom's own LaTeX (a clash fails the test).  The inside of a ``Tex`` atom is never parsed: it
is notation the catalogue itself does not compute with.

Constructs that do not round-trip (``UNPARSEABLE``) are listed with the reason; each formula
containing one is an ``xfail(strict=True)`` test that attempts the same round trip, so a
construct that starts to round-trip is reported.
"""
from __future__ import annotations

import functools
import re

import pytest
import sympy as sp
from sympy.core.function import AppliedUndef
from sympy.matrices.expressions.matexpr import MatrixExpr
from sympy.parsing.latex import parse_latex

from theory.catalogue import CATALOGUE
from theory.functions import Phi, Phi2, varphi
from theory.latex import (CONTINUE, MASTER, OTHER_SECTION, SECTIONS, export, fragment, fragment_name, latex_expr,
                          ordered_sections)
from theory.statement import Expectation, Indicator
from verify.marks import per_statement

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
def _balanced(tex: str) -> bool:
    depth = 0
    for ch in tex.replace(r"\{", "").replace(r"\}", ""):
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0


def _unbreak(tex: str) -> str:
    """Join the continuation lines of a display (pure layout) back into one line."""
    return tex.replace(r"\right." + CONTINUE + r"\left.", "").replace(CONTINUE, " ")


_RELATION = re.compile(r"^  (?P<lhs>.+?) &(?P<rel>=|\\le|\\ge|\\sim) (?P<rhs>.+?) "
                       r"\\label\{(?P<key>[^}]*)\}\\tag\{.*\}(?: \\\\)?$", re.M)


def formulas_in_fragment(text: str) -> dict:
    """{(part, side) or (("where", k), side): LaTeX} read from a fragment's text."""
    text = _unbreak(text)
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


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    out = tmp_path_factory.mktemp("latex")
    export(out)
    return out


# ---------------------------------------------------------------------------- the fragments
def _round_trip_cases():
    ok, failing = [], []
    for sid in IDS:
        for key, expr in catalogue_formulas(sid).items():
            construct = unparseable_construct(expr)
            name = f"{sid}:{key[0] if isinstance(key[0], str) else 'where%d' % key[0][1]}:{key[1]}"
            if construct is None:
                ok.append((sid, key))
            else:
                # no statement/witness marker: `maskverify check` would count an xfail as a finding
                # against the paper, and this is a limit of the parser, not of the paper
                failing.append(pytest.param(sid, key, id=name, marks=pytest.mark.xfail(
                    strict=True, reason=UNPARSEABLE[construct])))
    return ok, failing


_PARSEABLE, _UNPARSEABLE_CASES = _round_trip_cases()


@pytest.mark.witness("latex")
@pytest.mark.parametrize("sid", per_statement(IDS))
def test_fragment_states_every_equation_with_reference(sid, exported, record):
    """The exported fragment holds the reference, every part (labelled), only LaTeX/amsmath/
    amssymb commands, and every formula without an UNPARSEABLE construct parses back, from the
    file's text, to an expression equal to the catalogue's."""
    st = CATALOGUE[sid]
    text = (exported / fragment_name(sid)).read_text()
    assert text == fragment(sid)
    assert _balanced(text), "unbalanced braces in the exported fragment"
    flat = _unbreak(text)
    assert st.id.replace("_", r"\_") in flat and st.ref.split(" ")[0] in flat
    for eq in st.equations:
        assert f"\\label{{{sid}:{eq.label}}}" in flat
        if isinstance(eq.lhs, Expectation):  # definitions stay unevaluated
            assert r"\mathbb{E}" in latex_expr(eq.lhs)
    assert set(formulas_in_fragment(text)) == set(catalogue_formulas(sid))
    used = set(re.findall(r"\\[a-zA-Z]+", text))
    assert used <= ALLOWED_COMMANDS, f"commands outside LaTeX/amsmath/amssymb: {sorted(used - ALLOWED_COMMANDS)}"
    # the round trip: every formula without an UNPARSEABLE construct, read from the file
    texts, originals = formulas_in_fragment(text), catalogue_formulas(sid)
    how = {key: round_trip(texts[key], originals[key]) for s, key in _PARSEABLE if s == sid}
    record(detail=f"{len(st.equations)} equations exported; {len(how)} formulas parsed back equal "
                  f"({sum(v == 'simplify' for v in how.values())} by simplify), {len(originals) - len(how)} "
                  f"with a listed unparseable construct")


@pytest.mark.parametrize("sid, key", _UNPARSEABLE_CASES)
def test_unparseable_constructs_stay_listed(sid, key, exported):
    """A formula with an UNPARSEABLE construct does not round-trip (strict xfail: if it ever
    does, the construct must leave the list)."""
    texts = formulas_in_fragment((exported / fragment_name(sid)).read_text())
    round_trip(texts[key], catalogue_formulas(sid)[key])


def test_round_trip_covers_most_formulas():
    """The listed constructs stay the exception: at least two thirds of all formulas round-trip."""
    assert len(_PARSEABLE) >= 2 * len(_UNPARSEABLE_CASES), (len(_PARSEABLE), len(_UNPARSEABLE_CASES))


# ---------------------------------------------------------------------------- the master document
def test_master_inputs_every_fragment_in_paper_order(exported):
    text = (exported / MASTER).read_text()
    inputs = re.findall(r"\\input\{([^}]*)\}", text)
    assert inputs == [fragment_name(sid) for _, ids in ordered_sections() for sid in ids]
    assert sorted(inputs) == sorted(fragment_name(sid) for sid in IDS)
    assert OTHER_SECTION not in text, "a statement of the catalogue is missing from theory.latex.SECTIONS"
    assert {sid for _, ids in SECTIONS for sid in ids} <= set(CATALOGUE), "SECTIONS names unknown statements"
    assert text.startswith("%") and r"\documentclass" in text and text.rstrip().endswith(r"\end{document}")
    assert r"\phi(x) = e^{-x^2}" in text and "not the standard normal density" in text
    assert r"\section*{Notation}" in text


def test_fragments_have_no_preamble():
    for sid in IDS:
        text = fragment(sid)
        for command in (r"\documentclass", r"\usepackage", r"\newcommand", r"\def", r"\begin{document}"):
            assert command not in text, (sid, command)


@pytest.mark.parametrize("sid, key, old, new", [
    ("thm.4.2", ("bound", "rhs"), r"R_{w} \kappa", r"R_{u} \kappa"),              # a wrong symbol
    ("lemma.relu_moment1", ("second", "rhs"), r"s^{2}", r"s^{3}"),              # a wrong power
    ("cor.5.3", ("restated", "rhs"), r"m n {\left(", r"m n \left("),             # n(...) read as a call
])
def test_round_trip_rejects_a_changed_formula(sid, key, old, new):
    """The round trip is not vacuous: a formula changed in the text does not parse back equal."""
    tex = formulas_in_fragment(fragment(sid))[key]
    assert old in tex
    with pytest.raises(AssertionError):
        round_trip(tex.replace(old, new, 1), catalogue_formulas(sid)[key])
