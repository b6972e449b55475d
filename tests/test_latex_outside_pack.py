"""The LaTeX round trip as an outside pack meets it (issue 36, items 4, 5 and 8): standard
commands (``\\Sigma``, ``\\exp``, ``\\beta``, ``\\xi``, ``\\nu``) pass, a paper's own macros pass
once declared in ``LatexMeta.macros`` (and the documents define them), ``\\lim`` over a
subscripted variable parses back, ``limits`` reaches the slow tier's step check, a vacuous
``0 = 0`` step is not typeset, a file's header names where the theory module lives, and the step
checker uses the symbols' assumptions.
"""
from __future__ import annotations

import importlib
import shutil
import sys
import textwrap

import pytest
import sympy as sp

from theory.core.derivation import Steps
from theory.core.latex import document, export_all, fragment, latex_expr, master_document, statement_fragment, \
    step_display
from theory.core.pack import LatexMeta, Paper
from theory.core.statement import Equation, Expectation, Kind, Param, Statement
from verify.latex_roundtrip import round_trip, statement_witness, steps_witness

s, b, xi, nu = sp.symbols("Sigma beta xi nu", positive=True)
z = sp.Symbol("z", real=True)
sigma_u = sp.Symbol("sigma_u", positive=True)
LAW = r"z\sim\mathcal{N}(0, \Sigma^2)"


def _paper(assumption=r"$\beta, \xi, \nu > 0$", macros=(), derivations=()):
    st = Statement(
        id="lemma.mgf", ref="Lemma 1", title="the moment generating function", kind=Kind.IDENTITY,
        params=(Param(s, sp.Interval.open(0, sp.oo), "scale"), Param(b, sp.Interval.open(0, sp.oo), "rate"),
                Param(xi, sp.Interval.open(0, sp.oo), "shift"), Param(nu, sp.Interval.open(0, sp.oo), "weight")),
        equations=(Equation("mgf", Expectation(sp.exp(b * z), LAW), nu * sp.exp(b**2 * s**2 / 2 + xi) / nu
                            * sp.exp(-xi)),),
        assumptions=(assumption,))
    return Paper(id="outside", title="An outside paper", authors=("A. Author",), reference="none",
                 statements=(st,), derivations=derivations,
                 latex=LatexMeta(sections=(("Lemmas", ("lemma.mgf",)),), macros=macros))


def test_standard_commands_pass():
    paper = _paper()
    text = statement_fragment(paper, "lemma.mgf")
    for command in (r"\Sigma", r"\exp", r"\beta", r"\xi", r"\nu"):
        assert command in text or command == r"\exp"
    assert "parsed back equal" in statement_witness(_paper(r"$\exp(\beta) > 1$ for $\beta, \xi, \nu > 0$"),
                                                    "lemma.mgf")


def test_a_papers_macro_passes_once_declared_and_the_documents_define_it(tmp_path):
    with_macro = r"$\Var(z) = \Sigma^2$"
    with pytest.raises(AssertionError, match=r"\\Var"):
        statement_witness(_paper(with_macro), "lemma.mgf")
    paper = _paper(with_macro, macros=((r"\Var", r"\operatorname{Var}"), (r"\norm", r"\lVert #1\rVert")))
    statement_witness(paper, "lemma.mgf")
    assert r"\newcommand{\Var}{\operatorname{Var}}" in document(paper)
    assert r"\newcommand{\norm}[1]{\lVert #1\rVert}" in document(paper)
    master = master_document([paper])
    assert r"\providecommand{\Var}{}" in master and r"\renewcommand{\Var}{\operatorname{Var}}" in master
    if shutil.which("pdflatex"):  # the documents compile with the macro used
        from numerics.app.latex_cmd import compile_pdf

        export_all([paper], tmp_path)
        assert compile_pdf(tmp_path / "outside" / "formulas.tex").exists()
        assert compile_pdf(tmp_path / "formulas.tex").exists()


@pytest.mark.parametrize("macros, match", [
    (((r"\exp", "e"),), "command of latex"),
    (((r"\mathbb", "B"),), "command of amssymb"),
    ((("Var", "V"),), "not a macro name"),
    (((r"\Var", "V"), (r"\Var", "W")), "twice"),
    (((r"\Var",),), "pair"),
])
def test_a_bad_macro_is_refused(macros, match):
    with pytest.raises(ValueError, match=match):
        LatexMeta(macros=macros)


@pytest.mark.parametrize("limit", [
    sp.Limit(sigma_u * (1 - sp.exp(-1 / sigma_u)), sigma_u, sp.oo),
    sp.Limit(sp.sin(sigma_u) / sigma_u, sigma_u, 0, dir="+"),
    sp.Limit(1 / sigma_u, sigma_u, sp.oo) + sp.Limit(xi * sigma_u, sigma_u, 0, dir="+"),
])
def test_a_limit_over_a_subscripted_variable_parses_back(limit):
    tex = latex_expr(limit)
    assert r"\lim_{\sigma_{u} \to" in tex
    round_trip(tex, limit)
    with pytest.raises(AssertionError):  # not vacuous: the limit point matters
        round_trip(tex.replace(r"\infty", "1").replace("0^{+}", "1^{+}"), limit)


def _log_square_step():
    S = Steps()
    S.equal("a square of a logarithm", sp.log(b) ** 2, sp.log(b) * sp.log(b))
    S.zero("a residual SymPy already evaluated", sp.Integer(3) - 3)
    return S.done("lemma.mgf", "logs", "a step the parser misreads")


def test_limits_reach_the_slow_tiers_step_check():
    """``\\log{\\left(x \\right)}^{2}`` parses as log(x^2): a listed parser limit of a step's side
    is left out of the slow tier's round trip, as of the default tier's."""
    paper = _paper(derivations=({("lemma.mgf", "logs"): _log_square_step},))
    with pytest.raises(AssertionError, match="parses to"):
        steps_witness(paper, "lemma.mgf")
    detail = steps_witness(paper, "lemma.mgf", limits={(("step", "logs", 0), "lhs"), (("step", "logs", 0), "rhs")})
    assert "2 with a listed parser limit" in detail


def test_a_vacuous_step_is_not_typeset_and_its_caption_stays():
    paper = _paper(derivations=({("lemma.mgf", "logs"): _log_square_step},))
    text = fragment(paper, "lemma.mgf")
    assert "0 &= 0" not in text and "a residual SymPy already evaluated" in text
    S = Steps()
    assert step_display(S.zero("zeros", sp.Tuple(0, 0))) is None
    assert step_display(S.zero("a residual", sp.Symbol("x") - 1)) is not None


def test_headers_name_where_the_theory_module_lives(tmp_path, monkeypatch):
    """A pack in this repository: its folder (``theory/masking/``); a distribution's: its module."""
    from theory.masking.paper import PAPER

    assert "from theory/masking/;" in statement_fragment(PAPER, PAPER.statements[0].id)
    (tmp_path / "outsidepack_mv").mkdir()
    (tmp_path / "outsidepack_mv" / "__init__.py").write_text("")
    (tmp_path / "outsidepack_mv" / "paper.py").write_text(textwrap.dedent("""
        from tests.test_latex_outside_pack import _paper
        PAPER = _paper()
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        paper = importlib.import_module("outsidepack_mv.paper").PAPER
        assert "from outsidepack_mv.paper;" in statement_fragment(paper, "lemma.mgf")
        assert "from outsidepack_mv.paper;" in document(paper)
    finally:
        for name in ("outsidepack_mv.paper", "outsidepack_mv"):
            sys.modules.pop(name, None)


# ---------------------------------------------------------------------------- assumptions in the step checker
pa, pb = sp.symbols("a b", positive=True)
ra, rb = sp.symbols("a b", real=True)


@pytest.mark.parametrize("lhs, rhs", [
    (sp.sqrt(pa) * sp.sqrt(pb), sp.sqrt(pa * pb)),
    (sp.sqrt(2 * pa + 1) * sp.sqrt(2 * pb + 1), sp.sqrt(4 * pa * pb + 2 * pa + 2 * pb + 1)),
    (1 / (sp.sqrt(1 + 2 * pa**2) * sp.sqrt(1 + 2 * pb**2)), 1 / sp.sqrt(1 + 2 * pa**2 + 2 * pb**2 + 4 * pa**2 * pb**2)),
    (sp.sqrt(pa) * sp.sqrt(pb) * sp.exp(pa), sp.sqrt(pa * pb * sp.exp(2 * pa))),
])
def test_a_product_of_square_roots_of_positive_quantities_is_a_valid_step(lhs, rhs):
    assert Steps().equal("sqrt a sqrt b = sqrt(ab), a, b > 0", lhs, rhs).holds


@pytest.mark.parametrize("lhs, rhs", [
    (sp.sqrt(ra) * sp.sqrt(rb), sp.sqrt(ra * rb)),
    (sp.sqrt(2 * ra + 1) * sp.sqrt(2 * rb + 1), sp.sqrt(4 * ra * rb + 2 * ra + 2 * rb + 1)),
])
def test_the_same_step_for_real_quantities_is_not_accepted(lhs, rhs):
    """False at a = b = -1: sqrt(-1) sqrt(-1) = -1, sqrt(1) = 1."""
    assert not Steps().equal("sqrt a sqrt b = sqrt(ab), a, b real", lhs, rhs).holds
