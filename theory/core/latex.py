"""LaTeX export: one fragment per statement of a pack, a document per pack, and one for all.

A fragment (``<id>.tex``, :func:`fragment_name`) holds, for one statement, its paper
reference and title, its kind, its provenance where it is reconstructed, its assumptions,
every relation ``lhs REL rhs`` in an ``align`` environment (``\\label{<pack>:<id>:<part>}``,
tagged with the part), the definitions of the auxiliary symbols, the statement's notes, and
the steps SymPy checked for it (the pack's derivation registries, run once per process): one
numbered item per step, its caption (``\\textbf{[fails]}`` in front where the step does
not hold) and, below it, the step's ``lhs REL rhs`` as a display (:func:`step_display`).
The title, the derivations' claims and the steps' captions are prose with inline ``$...$`` math,
as the assumptions are (:func:`text_with_math`); SymPy expressions quoted in them are plain text
(``theory.core.derivation.plain``: symbol names spelled without LaTeX).
Fragments have no preamble and use only LaTeX, amsmath and amssymb commands, so they paste
into a paper as they are.

``formulas.tex`` (:data:`MASTER`) is a complete document that ``\\input``s every fragment of
a pack in the paper's order (``Paper.latex.sections``), after the pack's warnings and
notation table; :func:`master_document` puts several packs in one document.

Formulas are printed by :class:`PaperLatexPrinter`, which writes what SymPy's LaTeX parser
(``sympy.parsing.latex.parse_latex``) reads back wherever the notation allows it: function
applications ``\\Phi\\left(x\\right)``, ``\\Phi_2\\left(h, k, \\rho\\right)``, ``\\max``,
``\\arccos``, ``|x|`` and nested single sums; indexed quantities as ``\\mu_{ir}``.
The packs' LaTeX tests parse the exported strings back and prove them equal to the
catalogue's expressions.
"""
from __future__ import annotations

import functools
import os
import re
from pathlib import Path

import sympy as sp
from sympy.core.function import AppliedUndef
from sympy.printing.latex import LatexPrinter

from .functions import Phi, Phi2, varphi
from .derivation import Step
from .pack import Paper
from .statement import Expectation, Indicator, Statement, Tex

#: The master document written beside the fragments.
MASTER = "formulas.tex"
OTHER_SECTION = "Other statements"


# ============================================================================ the printer
class PaperLatexPrinter(LatexPrinter):
    """``sympy``'s LaTeX printer with the paper's notation, in forms SymPy's LaTeX parser reads.

    It prints, overriding the classes' own ``_latex`` methods:
    ``Phi``/``varphi``/undefined functions as ``name\\left(args\\right)``; ``Phi2(h, k, rho)``
    as ``\\Phi_2\\left(h, k, \\rho\\right)`` (a power of any of these, and of an indicator, as
    ``name\\left(args\\right)^{p}``); ``Abs`` as ``|x|``; ``Max`` as ``\\max\\left(a, b\\right)``;
    a sum over several indices as nested single sums; ``Indexed`` as ``\\mu_{ir}``; ``Tex`` as
    its raw LaTeX (with :data:`INDICATOR` for ``\\mathbb{1}``); ``Indicator(a & b)`` as
    ``\\mathbb{I}\\{a, b\\}``; the identity matrix as ``I_{d}``; ``Expectation`` as
    ``\\mathbb{E}_{law}\\left[expr\\right]``; a one-sided limit as ``\\lim_{s \\to 0^{+}}``;
    the symbol ``d`` as ``{d}``; and :func:`brace_factors` on the result.
    """

    def __init__(self):
        super().__init__({"inv_trig_style": "full"})

    def _print(self, expr, **kwargs):
        for cls in type(expr).__mro__:  # these classes' own ``_latex`` would take precedence
            if cls in _OWN_NOTATION:
                return getattr(self, "_print_" + cls.__name__)(expr, **kwargs)
        return super()._print(expr, **kwargs)

    def _apply(self, name: str, args, exp=None) -> str:
        """``name\\left(args\\right)``, raised to ``exp`` when given (a power of a function
        application reaches the printer as ``exp``)."""
        tex = r"%s\left(%s\right)" % (name, ", ".join(self._print(a) for a in args))
        return tex if exp is None else r"%s^{%s}" % (tex, exp)

    def _print_Phi(self, expr, exp=None):
        return self._apply(r"\Phi", expr.args, exp)

    def _print_varphi(self, expr, exp=None):
        return self._apply(r"\varphi", expr.args, exp)

    def _print_Phi2(self, expr, exp=None):
        return self._apply(r"\Phi_2", expr.args, exp)

    def _print_Function(self, expr, exp=None):
        if isinstance(expr, AppliedUndef):
            return self._apply(self._print(sp.Symbol(expr.func.__name__)), expr.args, exp)
        return super()._print_Function(expr, exp)

    def _print_Abs(self, expr, exp=None):
        tex = r"|%s|" % self._print(expr.args[0])
        return tex if exp is None else r"%s^{%s}" % (tex, exp)

    def _print_Max(self, expr, exp=None):
        tex = self._apply(r"\max", expr.args)
        return tex if exp is None else r"%s^{%s}" % (tex, exp)

    def _print_Sum(self, expr):
        if len(expr.limits) == 1:
            return super()._print_Sum(expr)
        tex = super()._print_Sum(sp.Sum(expr.function, expr.limits[0]))
        for var, lo, hi in expr.limits[1:]:  # Sum(f, l1, l2) = sum_{l2} sum_{l1} f
            tex = r"\sum_{%s=%s}^{%s} %s" % (self._print(var), self._print(lo), self._print(hi), tex)
        return tex

    def _print_Indexed(self, expr):
        base = self._print(expr.base.label)
        return "%s_{%s}" % (base, "".join(self._print(i) for i in expr.indices))

    def _print_Symbol(self, expr, style="plain"):
        tex = super()._print_Symbol(expr, style)
        return "{d}" if tex == "d" else tex  # the parser reads "d n" as a differential "dn"

    def doprint(self, expr):
        return brace_factors(super().doprint(expr))

    def _print_Limit(self, expr):
        tex = super()._print_Limit(expr)  # the parser reads the one-sided 0^{+}, not 0^+
        return re.sub(r"\^([+-])\}", r"^{\1}}", tex, count=1)

    def _print_Identity(self, expr):
        return r"I_{%s}" % self._print(expr.rows)

    def _print_Tex(self, expr, **kwargs):
        return expr.name.replace(r"\mathbb{1}", INDICATOR)

    def _print_Indicator(self, expr, exp=None):
        cond = expr.args[0]
        parts = cond.args if isinstance(cond, sp.And) else (cond,)
        tex = r"%s\{%s\}" % (INDICATOR, ", ".join(self._print(p) for p in parts))
        return tex if exp is None else r"%s^{%s}" % (tex, exp)

    # ---------------------------------------------------------------- display lines
    def display_lines(self, expr, budget: int) -> list[str]:
        """``expr`` over as many display lines as it takes to keep each (roughly, see
        :func:`visible_width`) within ``budget`` glyphs.  Lines join with :data:`CONTINUE`;
        a break inside a sum's parentheses closes them with ``\\right.`` and reopens them with
        ``\\left.``.  Breaks only between the terms of a sum (``Add``), inside a ``\\sum`` of
        a sum, and after a rational factor in front of one.  Each line as :func:`brace_factors`."""
        return [brace_factors(line) for line in self._lines(expr, budget)]

    def _lines(self, expr, budget):
        tex = self._print(expr)
        if visible_width(tex) <= budget:
            return [tex]
        if isinstance(expr, sp.Add):
            return self._add_lines(expr, budget)
        if isinstance(expr, sp.Sum) and len(expr.limits) == 1 and isinstance(expr.function, sp.Add):
            head = r"\sum_{%s=%s}^{%s}\left(" % tuple(self._print(x) for x in expr.limits[0])
            body = self._add_lines(expr.function, budget)
            if len(body) == 1:
                return [head + body[0] + r"\right)"]
            return ([head + body[0] + r" \right."] + [r"\left. " + b + r" \right." for b in body[1:-1]]
                    + [r"\left. " + body[-1] + r"\right)"])
        coeff, rest = expr.as_coeff_Mul() if isinstance(expr, sp.Mul) else (sp.S.One, expr)
        if coeff.is_Rational and coeff > 0 and coeff != 1 and isinstance(rest, (sp.Add, sp.Sum)):
            rest_lines = self._lines(rest, budget)
            return [self._print(coeff) + " " + rest_lines[0]] + rest_lines[1:]
        return [tex]

    def _add_lines(self, expr, budget):
        lines, current = [], ""
        for k, term in enumerate(self._as_ordered_terms(expr)):
            sign = ""
            if k > 0:
                sign = "- " if term.could_extract_minus_sign() else "+ "
                term = -term if sign == "- " else term
            term_tex = self._print(term)
            if self._needs_add_brackets(term):
                term_tex = r"\left(%s\right)" % term_tex
            piece = sign + term_tex
            if current and visible_width(current + piece) > budget:
                lines.append(current.rstrip())
                current = ""
            current += piece + " "
        lines.append(current.rstrip())
        return lines

    def _print_Expectation(self, expr, **kwargs):
        return r"\mathbb{E}_{%s}\left[%s\right]" % (expr.law, self._print(expr.expr))


#: The indicator 1{.}: amssymb has no blackboard-bold digits, so \\mathbb{1} would print garbage.
INDICATOR = r"\mathbb{I}"
_OWN_NOTATION = (Phi, varphi, Phi2, Tex, Indicator, Expectation)
_PRINTER = PaperLatexPrinter()


def brace_factors(tex: str) -> str:
    """Wrap each parenthesised factor that follows another factor, ``n \\left(a + b\\right)``,
    in braces, ``n {\\left(a + b\\right)}``: the same output, but SymPy's LaTeX parser no
    longer reads it as the function application ``n(a + b)``."""
    out, k = [], 0
    opener = re.compile(r"(?<=[\w}')]) \\left\(")
    while (m := opener.search(tex, k)) is not None:
        depth, j = 0, m.start() + 1
        while True:  # find the matching \right
            nxt = re.compile(r"\\(left|right)(?![a-zA-Z])").search(tex, j)
            depth += 1 if nxt[1] == "left" else -1
            j = nxt.end()
            if depth == 0:
                break
        close = j + 1  # the delimiter after \right
        out.append(tex[k:m.start() + 1] + "{" + brace_factors(tex[m.start() + 1:close]) + "}")
        k = close
    return "".join(out) + tex[k:]


def latex_expr(expr) -> str:
    """``expr`` in LaTeX as the fragments print it (:class:`PaperLatexPrinter`)."""
    return _PRINTER.doprint(expr)


RELATIONS = {"=": "=", "<=": r"\le", ">=": r"\ge", "~": r"\sim", "<": "<", ">": ">"}

#: What joins two lines of one displayed relation (inside ``align``/``align*``).
CONTINUE = " \\nonumber \\\\\n  &\\quad "
#: Glyph budget of one display line (10pt, 2cm margins on A4, room for the tag).
LINE_BUDGET = 72
#: What breaks a step's display before its relation when its left side is long (inside ``align*``):
#: the left side's lines and the relation all start at the alignment point.
RELATION_BREAK = " \\nonumber \\\\\n  &"
#: The widest line a step's display may have, in :func:`visible_width` glyphs (which count a
#: fraction's two parts side by side, so stacked formulas come out narrower); sides that cannot
#: be broken into lines this narrow (mostly explicit matrices) are stated by the caption alone.
STEP_WIDTH = 2 * LINE_BUDGET


def visible_width(tex: str) -> int:
    """A rough count of the glyphs ``tex`` typesets: every control word and every other
    character except spaces, braces, ``^`` and ``_`` counts one; sub- and superscripts count
    like the rest and fractions like their two parts side by side (an overestimate)."""
    tex = re.sub(r"\\(left|right|frac|sqrt|mathbb|mathcal|mathbf|hat|tilde|operatorname)\b", "", tex)
    tex = re.sub(r"\\[a-zA-Z]+", "x", tex)
    return len(re.sub(r"[\s{}^_]", "", tex))


# ============================================================================ text helpers
_TEXT_ESCAPES = {
    "\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "_": r"\_", "^": r"\^{}",
    "~": r"\~{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
    "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}",
}


def escape_text(text: str) -> str:
    """``text`` (plain ASCII prose from the catalogue) as LaTeX text-mode source; a line may
    break after ``*``, ``(`` and ``,`` (the derivations' steps quote long SymPy expressions)."""
    out = "".join(_TEXT_ESCAPES.get(ch, ch) for ch in text)
    return re.sub(r"([*(,])(?=\S)", r"\1\\allowbreak{}", out)


_MATH_DELIMITER = re.compile(r"(?<!\\)\$")


def text_with_math(text: str) -> str:
    """``text`` written as LaTeX prose with inline math (a statement's assumptions): what lies
    between two ``$`` is math and is copied as it is, so that it typesets; the prose around it
    is escaped by :func:`escape_text` (``\\$`` there is a literal dollar).  An odd number of
    ``$`` is an error (``ValueError``), so that a missing delimiter is not typeset as text."""
    parts = _MATH_DELIMITER.split(text)
    if len(parts) % 2 == 0:
        raise ValueError(f"unbalanced $ in {text!r}: math goes between two $ (\\$ for a literal dollar)")
    return "".join(f"${part}$" if i % 2 else escape_text(part.replace(r"\$", "$"))
                   for i, part in enumerate(parts))


def fragment_name(statement_id: str) -> str:
    """The fragment's file name: ``lemma.relu_moment1`` -> ``lemma_relu_moment1.tex``."""
    return statement_id.replace(".", "_") + ".tex"


# ============================================================================ derivations
def _vacuous(step: Step) -> bool:
    """Both sides of the equation ``step`` are the number 0 (``0 = 0``; ``(0, 0) = 0`` from a
    tuple of zeros): a residual SymPy evaluated before the step was made."""
    def zero(side):
        if isinstance(side, (tuple, list, sp.Tuple)):
            return all(zero(x) for x in side)
        return isinstance(side, (int, sp.Integer)) and side == 0

    return step.relation == "=" and zero(step.lhs) and zero(step.rhs)


def step_display(step: Step) -> str | None:
    """The body of a step's ``align*``: ``lhs &REL rhs`` (the right side over several lines,
    joined by :data:`CONTINUE`, when it is long); a left side wider than half a line goes over
    lines of its own from the alignment point, then :data:`RELATION_BREAK` and ``&REL rhs``.
    None for a bare condition (no sides), for sides that do not fit lines of
    :data:`STEP_WIDTH` glyphs, and for a vacuous step whose two sides are both 0 (``0 = 0``:
    a residual that SymPy had already evaluated to 0 when the pack built it, from numbers, so
    the step as written is not there to print): the caption alone states those."""
    if step.relation is None or _vacuous(step):
        return None
    rel = RELATIONS[step.relation]
    lhs_tex = latex_expr(step.lhs)
    if visible_width(lhs_tex) <= LINE_BUDGET // 2:
        text = _relation(step.lhs, rel, step.rhs)
    else:
        lhs_lines = _PRINTER.display_lines(step.lhs, LINE_BUDGET)
        rhs_lines = _PRINTER.display_lines(step.rhs, LINE_BUDGET)
        text = ("  &" + CONTINUE.join(lhs_lines) + RELATION_BREAK + rel + " " + CONTINUE.join(rhs_lines))
    widths = [visible_width(line) for line in text.replace(RELATION_BREAK, CONTINUE).split(CONTINUE)]
    return text if max(widths) <= STEP_WIDTH else None


def _derivation_block(paper: Paper, statement_id: str) -> list[str]:
    found = [(d, refutes) for d, refutes in paper.checked_derivations() if d.statement_id == statement_id]
    if not found:
        return []
    lines = []
    for d, refutes in found:
        if refutes:
            verdict = "counterexample verified" if d.proved else "counterexample NOT verified"
        else:
            verdict = "proved" if d.proved else "NOT proved"
        lines.append(r"\noindent\textit{Checked by SymPy, part} \texttt{%s} (%s): %s" % (
            escape_text(d.part), verdict, text_with_math(d.claim)))
        lines.append(r"\begin{enumerate}")
        for step in d.steps:
            mark = "" if step.holds else r"\textbf{[fails]} "
            lines.append(r"  \item %s%s." % (mark, text_with_math(step.caption)))
            display = step_display(step)
            if display is not None:
                lines += [r"\begin{align*}", display, r"\end{align*}"]
        lines.append(r"\end{enumerate}")
    return lines


# ============================================================================ fragments
def _relation(lhs, rel: str, rhs) -> str:
    lhs_tex = latex_expr(lhs)
    budget = max(LINE_BUDGET - visible_width(lhs_tex), LINE_BUDGET // 2)
    return "  %s &%s %s" % (lhs_tex, rel, CONTINUE.join(_PRINTER.display_lines(rhs, budget)))


def equation_line(st: Statement, eq, label_prefix: str = "") -> str:
    """One relation of the fragment's ``align``: ``lhs &REL rhs \\label{pack:id:part}\\tag{part}``,
    the right side over several lines (joined by :data:`CONTINUE`) when it is long."""
    return r"%s \label{%s%s:%s}\tag{\texttt{%s}}" % (
        _relation(eq.lhs, RELATIONS[eq.relation], eq.rhs), label_prefix, st.id, eq.label, escape_text(eq.label))


def where_line(symbol, value) -> str:
    """One definition of the fragment's ``align*``: ``symbol &= value`` (over several lines when long)."""
    return _relation(symbol, "=", value)


@functools.lru_cache(maxsize=None)
def fragment(paper: Paper, statement_id: str) -> str:
    """The LaTeX fragment of one statement (no preamble; LaTeX, amsmath and amssymb only):
    :func:`statement_fragment`, then the steps of each derivation SymPy checked for it (which
    runs the pack's derivations once per process).  Labels are namespaced by the pack
    (``\\label{masking:thm.4.2:bound}``) so that the fragments of several papers live in one
    document."""
    steps = _derivation_block(paper, statement_id)
    return statement_fragment(paper, statement_id) + ("\n".join(steps) + "\n" if steps else "")


_REPOSITORY = Path(__file__).resolve().parents[2]


def theory_source(paper: Paper) -> str:
    """Where ``paper``'s theory module lives, as the headers of its files say it: the folder of
    the module that holds it, relative to this repository (``theory/masking/``) for a pack in
    it, its importable name (``maskverify_williams.paper``) for a distribution installed
    elsewhere (a path there would differ from machine to machine), ``pack <id>`` when no loaded
    module holds it (a paper built in a notebook).  Of several modules holding it (the pack record
    and the witnesses import it), a ``theory.*`` or ``*.paper``/``*.theory`` one wins, then the
    shortest name."""
    import sys

    holders = [name for name, module in list(sys.modules.items())
               if module is not None and any(v is paper for v in list(getattr(module, "__dict__", {}).values()))]
    if not holders:
        return f"pack {paper.id}"

    def rank(name):
        parts = name.split(".")
        return (parts[0] != "theory" and parts[-1] not in ("paper", "theory"), "verify" in parts or "pack" in parts,
                len(parts), name)

    name = min(holders, key=rank)
    file = getattr(sys.modules[name], "__file__", None)
    if file:
        path = Path(file).resolve()
        try:
            rel = path.relative_to(_REPOSITORY)
        except ValueError:
            return name
        return rel.parent.as_posix() + "/"
    return name


@functools.lru_cache(maxsize=None)
def statement_fragment(paper: Paper, statement_id: str) -> str:
    """The statement part of :func:`fragment` (its first lines): reference, kind, provenance,
    assumptions, the labelled relations, the definitions and the note; no derivation is run."""
    st = paper.statement(statement_id)
    lines = [
        f"% {paper.qualify(st.id)}: generated by `maskverify latex` from {theory_source(paper)}; do not edit.",
        r"\paragraph{%s (\texttt{%s}).}" % (escape_text(st.ref), escape_text(paper.qualify(st.id))),
        r"%s. \textit{Kind:} %s." % (text_with_math(st.title[:1].upper() + st.title[1:]), escape_text(st.kind.value)),
    ]
    if not st.provenance.printed:
        lines.append(r"\textit{Provenance:} %s." % escape_text(st.provenance.describe()))
    if st.assumptions:
        lines.append(r"\textit{Assumptions:} %s." % "; ".join(text_with_math(a) for a in st.assumptions))
    if st.equations:
        lines.append(r"\begin{align}")
        lines.append(" \\\\\n".join(equation_line(st, eq, paper.id + ":") for eq in st.equations))
        lines.append(r"\end{align}")
    else:  # a placeholder drafted from the paper (maskverify new --from): an empty align is a TeX error
        lines.append(r"\textit{No relation written yet.}")
    if st.where:
        lines.append(r"where")
        lines.append(r"\begin{align*}")
        lines.append(" \\\\\n".join(where_line(sym, val) for sym, val in st.where))
        lines.append(r"\end{align*}")
    if st.notes:
        lines.append(r"\noindent\textit{Note:} %s" % escape_text(st.notes))
        lines.append("")
    return "\n".join(lines) + "\n"


def ordered_sections(paper: Paper) -> list[tuple[str, list[str]]]:
    """The pack's sections restricted to its statements, plus "Other statements" for any unplaced id."""
    ids_known = [st.id for st in paper.statements]
    placed = {sid for _, ids in paper.latex.sections for sid in ids}
    out = [(title, [sid for sid in ids if sid in ids_known]) for title, ids in paper.latex.sections]
    rest = [sid for sid in ids_known if sid not in placed]
    if rest:
        out.append((OTHER_SECTION, rest))
    return [(title, ids) for title, ids in out if ids]


_PREAMBLE = (
    r"\documentclass[10pt]{article}",
    r"\usepackage[a4paper,margin=2cm]{geometry}",
    r"\usepackage{amsmath,amssymb}",
    r"\allowdisplaybreaks",
)
_READING = (
    r"\medskip\noindent Every statement below is one record of the catalogue (its id in "
    r"typewriter type); left-hand sides that are expectations are the definitions, "
    r"right-hand sides the closed forms or bounds. Equation tags name the part; the "
    r"label of part \texttt{p} of statement \texttt{s} of pack \texttt{k} is \texttt{k:s:p}."
)


def macro_definitions(paper: Paper, command: str = "newcommand") -> list[str]:
    """``\\newcommand{name}[n]{definition}`` for each macro the paper defines
    (``LatexMeta.macros``; ``n``, the number of arguments, is the largest ``#k`` of the
    definition, left out when there is none)."""
    lines = []
    for name, definition in paper.latex.macros:
        args = max((int(k) for k in re.findall(r"#([1-9])", definition)), default=0)
        lines.append(r"\%s{%s}%s{%s}" % (command, name, f"[{args}]" if args else "", definition))
    return lines


def _body(paper: Paper, heading: str, prefix: str = "") -> list[str]:
    """The paper's warnings, notation table and one ``\\input`` per fragment (``prefix``: the
    fragments' directory relative to the document)."""
    lines = []
    for warning in paper.latex.warnings:
        lines += [r"\noindent\fbox{\parbox{\dimexpr\linewidth-2\fboxsep-2\fboxrule\relax}{%",
                  warning + "}}", ""]
    if paper.latex.notation:
        lines += [r"\%s*{Notation}" % heading,
                  r"\begin{tabular}{@{}p{0.3\linewidth}p{0.66\linewidth}@{}}", r"\hline"]
        lines += [f"{sym} & {meaning} \\\\" for sym, meaning in paper.latex.notation]
        lines += [r"\hline", r"\end{tabular}", ""]
    for title, ids in ordered_sections(paper):
        lines.append(r"\%s*{%s}" % (heading, escape_text(title)))
        lines += [r"\input{%s%s}" % (prefix, fragment_name(sid)) for sid in ids]
        lines.append("")
    return lines


@functools.lru_cache(maxsize=None)
def document(paper: Paper) -> str:
    """The pack's document: preamble, its warnings, its notation table and one ``\\input``
    per fragment in the paper's order."""
    lines = [
        f"% {MASTER}: generated by `maskverify latex` from {theory_source(paper)}; do not edit.",
        "% Compile with `maskverify latex --pdf`, or pdflatex twice in this directory.",
        *_PREAMBLE,
        *macro_definitions(paper),
        r"\title{The formulas of \emph{%s}, as checked by maskverify}" % escape_text(paper.title),
        r"\author{%s}" % escape_text(", ".join(paper.authors) + " (" + paper.reference + ")"),
        r"\date{}",
        r"\begin{document}",
        r"\maketitle",
        _READING,
        "",
        *_body(paper, "section"),
        r"\end{document}",
    ]
    return "\n".join(lines) + "\n"


def master_document(papers) -> str:
    """One document for several packs: a part per paper, inputting each pack's fragments from
    its own subdirectory ``<pack>/``."""
    lines = [
        f"% {MASTER}: generated by `maskverify latex` for the packs "
        + ", ".join(p.id for p in papers) + "; do not edit.",
        *_PREAMBLE,
        r"\title{The formulas of %d papers, as checked by maskverify}" % len(papers),
        r"\date{}",
        r"\begin{document}",
        r"\maketitle",
        _READING,
        r"\tableofcontents",
        "",
    ]
    for paper in papers:
        lines += [r"\section{%s}" % escape_text(paper.title),
                  r"\noindent %s (%s); pack \texttt{%s}." % (
                      escape_text(", ".join(paper.authors)), escape_text(paper.reference), escape_text(paper.id)),
                  ""]
        # each pack's macros hold in its own part (two papers may define one name differently)
        lines += [r"\providecommand{%s}{}" % name for name, _ in paper.latex.macros]
        lines += macro_definitions(paper, "renewcommand")
        lines += _body(paper, "subsection", prefix=paper.id + "/")
    lines.append(r"\end{document}")
    return "\n".join(lines) + "\n"


def files(paper: Paper) -> dict[str, str]:
    """What :func:`export` writes, ``{file name: text}``: ``<id>.tex`` for every statement in
    paper order, then :data:`MASTER`."""
    out = {fragment_name(st.id): fragment(paper, st.id) for st in paper.statements}
    out[MASTER] = document(paper)
    return out


def export(paper: Paper, out_dir: str | os.PathLike) -> list[Path]:
    """Write :func:`files` into ``out_dir`` (each file atomically); return the paths, fragments
    first in paper order, the document last."""
    from .io import atomic_write

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    return [atomic_write(out / name, text) for name, text in files(paper).items()]


def export_all(papers, out_dir: str | os.PathLike) -> list[Path]:
    """Each pack's fragments and document in ``out_dir/<pack>/`` and the master document for
    all of them in ``out_dir``."""
    from .io import atomic_write

    out = Path(out_dir)
    paths = []
    for paper in papers:
        paths += export(paper, out / paper.id)
    master = out / MASTER
    atomic_write(master, master_document(papers))
    paths.append(master)
    return paths
