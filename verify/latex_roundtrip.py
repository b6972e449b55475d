"""The LaTeX round trip of any pack: read each formula from an exported fragment's text, parse
it with SymPy's LaTeX parser and prove it equal to the expression it was printed from.  Used by
each pack's LaTeX witness (``verify/<pack>/test_latex.py``) and by the exporter's own tests
(``tests/test_latex_export.py``); every helper takes the pack's ``theory.core.pack.Paper``.

The formulas of a fragment (:func:`formulas_in_fragment`, :func:`paper_formulas`) are keyed

- ``(part, side)``: the relation of part ``part`` (``side`` is ``"lhs"`` or ``"rhs"``);
- ``(("where", k), side)``: the k-th definition of an auxiliary symbol;
- ``(("step", part, k), side)``: the two sides of the k-th step SymPy checked for part ``part``
  (only the steps the fragment typesets: ``theory.core.latex.step_display``).
"""
from __future__ import annotations

import functools
import re

import pytest
import sympy as sp
from sympy.core.function import AppliedUndef
from sympy.matrices.expressions.matexpr import MatrixExpr
from sympy.parsing.latex import parse_latex

from theory.core.latex import (CONTINUE, RELATION_BREAK, escape_text, fragment, latex_expr, statement_fragment,
                               step_display)
from theory.core import latex_commands
from theory.core.pack import Paper
from theory.core.statement import Expectation, Indicator
from verify.marks import per_statement

def subscripted_derivative(node) -> bool:
    """A derivative with respect to a subscripted variable (``\\partial x_{1}``, ``d \\rho_{ij}``)."""
    return isinstance(node, sp.Derivative) and any("_" in latex_expr(v) for v in node.variables)


#: construct (a class, or a test of one node) -> why SymPy's LaTeX parser cannot read it back
UNPARSEABLE = {
    Expectation: "an unevaluated expectation E_{law}[...]: the parser has no expectation operator and the law "
                 "is free LaTeX (mis-parsed as products of letters)",
    Indicator: "the indicator \\mathbb{I}\\{...\\}: the parser has no indicator, nor conditions separated by commas",
    sp.MatrixBase: "an explicit matrix: the parser reads no matrix environment",
    MatrixExpr: "a matrix expression: the parser's products commute and it reads ^{T} as a power",
    sp.Tuple: "a tuple (a, b) as a side: the parser reads no tuples",
    sp.erfc: "erfc, printed \\operatorname{erfc}: the parser reads the letters as a product",
    sp.erf: "erf, printed \\operatorname{erf}: the parser reads the letters as a product",
    sp.sech: "sech, printed \\operatorname{sech}: the parser reads the letters as a product",
    subscripted_derivative: "a derivative with respect to a subscripted variable: the parser reads "
                            "\\partial x_{1} as a product and rejects d x_{1}",
}
#: commands a fragment may use: LaTeX, amsmath and amssymb (``theory.core.latex_commands``, typed
#: from the packages' documented command sets); a pack adds the macros its paper defines
#: (``LatexMeta.macros``, see :func:`allowed_commands`)
ALLOWED_COMMANDS = latex_commands.standard()


def allowed_commands(paper: Paper) -> frozenset[str]:
    """The commands ``paper``'s fragments may use: :data:`ALLOWED_COMMANDS` and its macros."""
    return latex_commands.allowed(paper.latex.macros)


def outside_commands(paper: Paper, text: str) -> list[str]:
    """The commands of ``text`` that are neither LaTeX's, amsmath's, amssymb's nor ``paper``'s
    macros, sorted."""
    return sorted(set(re.findall(r"\\[a-zA-Z]+", text)) - allowed_commands(paper))


def ids(paper: Paper) -> list[str]:
    """The pack's statement ids, in paper order."""
    return [st.id for st in paper.statements]


# ---------------------------------------------------------------------------- reading fragments
def balanced(tex: str) -> bool:
    depth = 0
    for ch in tex.replace(r"\{", "").replace(r"\}", ""):
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0


def unbreak(tex: str) -> str:
    """Join the continuation lines of a display (pure layout) back into one line: a sum's
    parentheses reopened across a break, each :data:`CONTINUE`, each :data:`RELATION_BREAK`."""
    return (tex.replace(r"\right." + CONTINUE + r"\left.", "").replace(CONTINUE, " ")
            .replace(RELATION_BREAK, " &"))


_RELATION = re.compile(r"^  (?P<lhs>.+?) &(?P<rel>=|\\le|\\ge|\\sim|<|>) (?P<rhs>.+?) "
                       r"\\label\{(?P<key>[^}]*)\}\\tag\{.*\}(?: \\\\)?$", re.M)
_WHERE = re.compile(r"^where\n\\begin\{align\*\}\n(.*?)\n\\end\{align\*\}", re.S | re.M)
_CHECKED = re.compile(r"^\\noindent\\textit\{Checked by SymPy, part\} \\texttt\{(?P<part>[^}]*)\}.*?\n"
                      r"\\begin\{enumerate\}\n(?P<items>.*?)\n\\end\{enumerate\}", re.S | re.M)
_STEP = re.compile(r"\\begin\{align\*\}\n  &?(?P<lhs>.+?) &(?P<rel>=|\\le|\\ge|<|>) (?P<rhs>.+)\n\\end\{align\*\}")


def formulas_in_fragment(text: str) -> dict:
    """{key: LaTeX} of every formula read from a fragment's text (keys as in the module's docstring)."""
    text = unbreak(text)
    out = {}
    for m in _RELATION.finditer(text):
        part = m["key"].rsplit(":", 1)[1]
        out[(part, "lhs")], out[(part, "rhs")] = m["lhs"], m["rhs"]
    where = _WHERE.search(text)
    if where:
        for k, line in enumerate(where[1].split(" \\\\\n")):
            lhs, rhs = line.strip().split(" &= ", 1)
            out[(("where", k), "lhs")], out[(("where", k), "rhs")] = lhs, rhs
    for block in _CHECKED.finditer(text):
        part = block["part"].replace(r"\_", "_")
        for k, item in enumerate(re.split(r"^  \\item ", block["items"], flags=re.M)[1:]):
            step = _STEP.search(item)
            if step:
                out[(("step", part, k), "lhs")], out[(("step", part, k), "rhs")] = step["lhs"], step["rhs"]
    return out


def paper_formulas(paper: Paper, sid: str, *, steps: bool = True) -> dict:
    """{key: the expression printed}, keyed as :func:`formulas_in_fragment`: the statement's
    relations and definitions, and (``steps``; this runs the pack's derivations) the sides of
    each checked step the fragment typesets."""
    st = paper.statement(sid)
    out = {}
    for eq in st.equations:
        out[(eq.label, "lhs")], out[(eq.label, "rhs")] = sp.sympify(eq.lhs), sp.sympify(eq.rhs)
    for k, (sym, val) in enumerate(st.where):
        out[(("where", k), "lhs")], out[(("where", k), "rhs")] = sp.sympify(sym), sp.sympify(val)
    if not steps:
        return out
    for d, _ in paper.checked_derivations():
        if d.statement_id != st.id:
            continue
        for k, step in enumerate(d.steps):
            if step_display(step) is not None:
                out[(("step", d.part, k), "lhs")] = sp.sympify(step.lhs)
                out[(("step", d.part, k), "rhs")] = sp.sympify(step.rhs)
    return out


def unparseable_construct(expr):
    """The first construct of :data:`UNPARSEABLE` that ``expr`` contains, or None (a tuple
    only as the whole side: the limits of sums and integrals are tuples too)."""
    if isinstance(expr, sp.Tuple):
        return sp.Tuple
    for node in sp.preorder_traversal(expr):
        for construct in UNPARSEABLE:
            if construct is sp.Tuple:
                continue
            if construct(node) if not isinstance(construct, type) else isinstance(node, construct):
                return construct
    return None


def key_name(sid: str, key) -> str:
    """A formula's key as text: ``lemma.D.22:union:rhs``, ``...:where0:lhs``, ``...:union.step3:lhs``."""
    what, side = key
    if isinstance(what, str):
        return f"{sid}:{what}:{side}"
    if what[0] == "where":
        return f"{sid}:where{what[1]}:{side}"
    return f"{sid}:{what[1]}.step{what[2]}:{side}"


# ---------------------------------------------------------------------------- parsing back
def _applied_functions(expr):
    return {f for f in sp.preorder_traversal(expr) if isinstance(f, (sp.Function, sp.Max))}


@functools.lru_cache(maxsize=None)
def _parse_atom(tex: str):
    """``parse_latex(tex)``, or None where the parser rejects it."""
    try:
        return parse_latex(tex)
    except Exception:  # noqa: BLE001 - any parser failure means: not a plain symbol
        return None


#: the variable of a printed limit, ``\\lim_{\\sigma_{u} \\to \\infty}``
_LIM_VARIABLE = re.compile(r"\\lim_\{\s*(?P<var>.+?)\s*\\to\b")


def _limit_variables(tex: str, names: dict) -> str:
    """``tex`` with each limit variable the parser cannot read (its grammar takes a letter or a
    bare command under ``\\lim``, not ``\\sigma_{u}`` nor a placeholder ``\\mathit{...}``) replaced
    by a bare command ``\\zlim<k>`` that ``names`` maps to the variable's atom (the body keeps its
    own spelling, mapped to the same atom, so the parsed Limit binds the right symbol)."""
    for k, var in enumerate(dict.fromkeys(m["var"] for m in _LIM_VARIABLE.finditer(tex))):
        if re.fullmatch(r"[A-Za-z]|\\[A-Za-z]+", var):
            continue
        placeholder = re.fullmatch(r"\\mathit\{(zatom[a-j]+)\}", var)
        parsed = sp.Symbol(placeholder[1]) if placeholder else _parse_atom(var)
        if not isinstance(parsed, sp.Symbol) or parsed not in names:
            continue  # not a symbol of the original: left for the parser to refuse
        token = "zlim" + "".join(chr(97 + int(c)) for c in str(k))
        tex = re.sub(r"\\lim_\{\s*" + re.escape(var) + r"\s*\\to\b", lambda _m: r"\lim_{\%s \to" % token, tex)
        names[sp.Symbol(token)] = names[parsed]
    return tex


def parse_back(tex: str, original):
    """``tex`` parsed by SymPy's LaTeX parser, its names mapped to ``original``'s atoms: a
    symbol by parsing its own LaTeX (or, where that is no plain symbol, by a placeholder token
    substituted before parsing), a function application ``f(x)`` the parser reads as an
    undefined function by parsing ``f``'s LaTeX applied to dummies."""
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
    tex = _limit_variables(tex, names)
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
    difference to 0 (unevaluated integrals, limits, products and derivatives compared as
    printed, not evaluated); raises AssertionError if neither did, or if the parsed formula
    has a symbol the original lacks (mis-read letters that happen to cancel prove nothing)."""
    parsed = parse_back(tex, original)
    stray = parsed.free_symbols - original.free_symbols
    assert not stray, f"{tex!r} parses to {parsed}, with symbols {sorted(map(str, stray))} not in {original}"
    difference = parsed - original
    if sp.expand(difference) == 0:
        return "expand"
    assert sp.simplify(difference) == 0, f"{tex!r} parses to {parsed}, not {original}"
    return "simplify"


@functools.lru_cache(maxsize=None)
def round_trip_cases(paper: Paper, steps: bool = True) -> tuple[tuple, tuple]:
    """``(sid, key)`` of every formula of the pack that should round-trip, and
    ``(sid, key, name, reason)`` of every formula containing an UNPARSEABLE construct
    (``steps=False``: the statements' own formulas only, without running a derivation)."""
    ok, failing = [], []
    for sid in ids(paper):
        for key, expr in paper_formulas(paper, sid, steps=steps).items():
            construct = unparseable_construct(expr)
            if construct is None:
                ok.append((sid, key))
            else:
                failing.append((sid, key, key_name(sid, key), UNPARSEABLE[construct]))
    return tuple(ok), tuple(failing)


# ---------------------------------------------------------------------------- the witnesses
def derived_ids(paper: Paper) -> list[str]:
    """The ids of the statements with a derivation or refutation, in paper order (read from the
    registries' keys: nothing is run)."""
    named = {sid for registry in paper.derivations + paper.refutations for sid, _part in registry}
    return [sid for sid in ids(paper) if sid in named]


def is_step(key) -> bool:
    return isinstance(key[0], tuple) and key[0][0] == "step"


def statement_witness(paper: Paper, sid: str, limits=frozenset()) -> str:
    """The LaTeX witness of one statement, the default tier of every pack's
    ``verify/<pack>/test_latex.py``; returns the check table's detail.

    The statement part of the fragment (``theory.core.latex.statement_fragment``; no
    derivation runs) has balanced braces, the qualified id, the reference, the provenance of a
    reconstructed statement, every part labelled ``<pack>:<id>:<part>``, definitions left
    unevaluated (an expectation stays ``\\mathbb{E}``), only :data:`ALLOWED_COMMANDS`; every
    relation and definition is read back from the text, and each without an UNPARSEABLE
    construct or a listed parser limit (``limits``: keys, each a strict xfail in the pack's
    ``tests/``) parses back equal to the expression it was printed from."""
    st = paper.statement(sid)
    text = statement_fragment(paper, sid)
    assert balanced(text), "unbalanced braces in the fragment"
    flat = unbreak(text)
    assert paper.qualify(st.id).replace("_", r"\_") in flat and st.ref.split(" ")[0] in flat
    if not st.provenance.printed:  # "reconstructed from <passage>", as escaped for LaTeX
        assert escape_text(st.provenance.describe()) in text
    for eq in st.equations:
        assert f"\\label{{{paper.id}:{sid}:{eq.label}}}" in flat
        if isinstance(eq.lhs, Expectation):
            assert r"\mathbb{E}" in latex_expr(eq.lhs)
    texts, originals = formulas_in_fragment(text), paper_formulas(paper, sid, steps=False)
    assert set(texts) == set(originals)
    outside = outside_commands(paper, text)
    assert not outside, (f"commands outside LaTeX/amsmath/amssymb and the paper's macros (LatexMeta.macros): "
                         f"{outside}")
    parseable, _ = round_trip_cases(paper, steps=False)
    how = {key: round_trip(texts[key], originals[key]) for s, key in parseable if s == sid and key not in limits}
    return (f"{len(st.equations)} equations, {len(st.where)} definitions; {len(how)} formulas parsed back equal "
            f"({sum(v == 'simplify' for v in how.values())} by simplify), {len(originals) - len(how)} with a "
            f"listed unparseable construct or parser limit")


def steps_witness(paper: Paper, sid: str, limits=frozenset()) -> str:
    """The slow sibling of :func:`statement_witness`: the whole fragment (with the steps SymPy
    checked; this runs the pack's derivations) is :func:`statement_fragment` followed by one
    block per derivation, every block's verdict and steps are typeset, and both sides of each
    typeset step but those of ``limits`` (keys ``(("step", part, k), side)``, listed parser
    limits as in :func:`statement_witness`) parse back, from the text, to the step's expressions."""
    text = fragment(paper, sid)
    assert text.startswith(statement_fragment(paper, sid)) and balanced(text)
    derivations = [d for d, _ in paper.checked_derivations() if d.statement_id == sid]
    assert derivations, f"{sid} is listed with a derivation but none ran"
    assert text.count(r"\textit{Checked by SymPy, part}") == len(derivations)
    outside = outside_commands(paper, text)
    assert not outside, (f"commands outside LaTeX/amsmath/amssymb and the paper's macros (LatexMeta.macros): "
                         f"{outside}")
    texts, originals = formulas_in_fragment(text), paper_formulas(paper, sid)
    assert set(texts) == set(originals)
    parseable, _ = round_trip_cases(paper)
    how = {key: round_trip(texts[key], originals[key]) for s, key in parseable
           if s == sid and is_step(key) and key not in limits}
    steps = sum(len(d.steps) for d in derivations)
    listed = sum(1 for key in limits if key in texts)
    return (f"{len(derivations)} derivations, {steps} steps; {len(how)} typeset step sides parsed back equal "
            f"({sum(v == 'simplify' for v in how.values())} by simplify)"
            + (f", {listed} with a listed parser limit" if listed else ""))


def witness_tests(paper: Paper, limits: dict | None = None):
    """The two LaTeX witness tests of a pack, for its ``verify/<pack>/test_latex.py`` to bind
    (``test_fragment_states_every_equation_with_reference, test_checked_steps_parse_back =
    witness_tests(PAPER)``): :func:`statement_witness` per statement in the default tier and
    :func:`steps_witness` per derived statement in the slow one.  ``limits``: ``{(sid, key):
    why}`` of formulas the parser cannot read back although they carry no UNPARSEABLE
    construct (each a strict xfail in the pack's ``tests/``): a statement's relation or definition
    (key ``(part, side)``, ``(("where", k), side)``) is left out of the default tier's round trip, a
    checked step's side (key ``(("step", part, k), side)``) out of the slow tier's.  A limit whose
    variable is subscripted (``\\lim_{\\sigma_{u} \\to \\infty}``) needs no entry: :func:`parse_back`
    reads it."""
    limits = limits or {}

    @pytest.mark.witness("latex")
    @pytest.mark.parametrize("sid", per_statement(ids(paper)))
    def test_fragment_states_every_equation_with_reference(sid, record):
        record(detail=statement_witness(paper, sid, limits={key for s, key in limits if s == sid}))

    derived = derived_ids(paper)
    if derived:
        @pytest.mark.slow
        @pytest.mark.witness("latex")
        @pytest.mark.parametrize("sid", per_statement(derived))
        def test_checked_steps_parse_back(sid, record):
            record(detail=steps_witness(paper, sid, limits={key for s, key in limits if s == sid}))
    else:  # no empty parameter set ("got empty parameter set for (sid)"): say why nothing runs
        @pytest.mark.slow
        def test_checked_steps_parse_back():
            pytest.skip(f"not checked: {paper.id} has no derivations (Paper.derivations is empty), so no "
                        "checked step to parse back")

    return test_fragment_states_every_equation_with_reference, test_checked_steps_parse_back
