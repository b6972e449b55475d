"""The files of a new paper pack (``maskverify new``): a working skeleton with one statement and
two witnesses, for the user to replace by the paper's own.

The statement is a placeholder that holds, *the mean of a normal variable is its mean*
(``E[z] = mu`` for ``z ~ N(mu, s^2)``), so that the skeleton passes every check as written:
SymPy integrates the density (symbolic witness) and the core's mpmath reference
``gaussian_expectation`` the raw expectation at 30 digits (precision ladder) over means and
scales across orders of magnitude (reference witness).  Each file's
docstring says what it is for; ``docs/adding-a-paper.md`` explains every one.

:func:`files` returns ``{relative path: text}`` for one of two layouts (:class:`Layout`):

- in this repository (``Layout.in_repository``): ``theory/<id>/``, ``numerics/<id>/``,
  ``verify/<id>/``, ``notes/<id>/errata.toml``, the entry point ``numerics.<id>.pack:PACK``;
- a distribution of its own (``Layout.distribution``): ``pyproject.toml`` and one package
  ``maskverify_<id>/`` holding ``paper.py``, ``pack.py``, ``verify/`` and ``notes/``.

Every pack has a source index (``sources.toml`` beside ``errata.toml``; ``numerics.core.sources``):
the skeleton's indexes its example statement.  With a draft of the paper (``maskverify new --from
SOURCE``, ``numerics.core.source_draft``) the theory module holds instead one placeholder statement
per drafted result (``not checked``: "no witness yet", the paper's text in ``notes``, its LaTeX in
``printed``), the index cites them, and there is no example statement nor its two witnesses.

The generated notes (``errata.md``, rendered from the empty ``errata.toml``, ``sources.md`` from the
index, and the LaTeX under ``notes/.../latex/``) are not templates: ``maskverify new`` writes them afterwards with
``numerics.core.notes.write`` from the imported pack, as ``maskverify notes`` would.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Layout:
    """Where a pack's parts go: module paths and file locations, relative to the root written."""

    id: str
    #: the module that holds the ``Paper`` (theory half), e.g. ``theory.toy.paper``
    theory_module: str
    #: the module that holds ``PACK``, e.g. ``numerics.toy.pack``
    pack_module: str
    #: the folder of the witnesses and the pack's notes folder (errata, generated LaTeX)
    verify_dir: str
    notes_dir: str

    @classmethod
    def in_repository(cls, pack_id: str) -> "Layout":
        return cls(pack_id, f"theory.{pack_id}.paper", f"numerics.{pack_id}.pack", f"verify/{pack_id}",
                   f"notes/{pack_id}")

    @classmethod
    def distribution(cls, pack_id: str) -> "Layout":
        pkg = package_name(pack_id)
        return cls(pack_id, f"{pkg}.paper", f"{pkg}.pack", f"{pkg}/verify", f"{pkg}/notes")

    @property
    def in_repo(self) -> bool:
        return self.pack_module.startswith("numerics.")

    @property
    def entry_point(self) -> str:
        """The value of the pack's line under ``[project.entry-points."maskverify.papers"]``."""
        return f"{self.pack_module}:PACK"

    def path_of(self, module: str) -> str:
        return module.replace(".", "/") + ".py"


def package_name(pack_id: str) -> str:
    """The importable package of a pack distributed on its own: ``maskverify_<id>``."""
    return "maskverify_" + pack_id


PAPER = '''\
"""The theory half of the __ID__ pack: __TITLE__ (__AUTHORS_TEXT__; __REFERENCE__).

The statements in the paper's order, as ``theory.core.statement.Statement`` (SymPy only: the
theory half imports no numpy or torch), and the ``Paper`` record.  ``lemma.mean`` is the
placeholder ``maskverify new`` writes: replace it by the paper's statements, keeping one
``Statement`` per numbered result, its ``ref`` as the paper prints it.
"""
from __future__ import annotations

import sympy as sp

from theory.core.pack import LatexMeta, Paper
from theory.core.statement import Equation, Expectation, Kind, Param, Statement

z, mu = sp.symbols("z mu", real=True)
s = sp.Symbol("s", positive=True)
#: the law of z, as LaTeX (the left side's expectation is typeset E_{LAW}[z])
LAW = r"z\\sim\\mathcal{N}(\\mu, s^2)"

MEAN = Statement(
    id="lemma.mean", ref="Lemma 1",
    title="placeholder written by maskverify new: the mean of a normal variable is its mean",
    kind=Kind.IDENTITY,
    params=(Param(mu, sp.Reals, "mean"), Param(s, sp.Interval.open(0, sp.oo), "standard deviation")),
    equations=(Equation("mean", Expectation(z, LAW), mu),),
    assumptions=(r"$z\\sim\\mathcal{N}(\\mu, s^2)$ with $\\mu\\in\\mathbb{R}$, $s > 0$",),
)

PAPER = Paper(
    id="__ID__", title=__TITLE_REPR__, authors=__AUTHORS_REPR__, reference=__REFERENCE_REPR__,
    statements=(MEAN,),
    latex=LatexMeta(sections=(("Lemmas", ("lemma.mean",)),)),
)
'''

PACK_IN_REPOSITORY = '''\
"""The __ID__ pack's record (``PACK``, registered under ``maskverify.papers`` as ``__ID__`` in
pyproject.toml): the paper (``theory/__ID__/``), its witnesses (``verify/__ID__/``), its errata
data (``notes/__ID__/errata.toml``) and its source index (``notes/__ID__/sources.toml``).  Campaigns, figures, experiments and subcommands are added
here as the pack grows (``numerics.core.pack.PaperPack``)."""
from __future__ import annotations

from pathlib import Path

from numerics.core.pack import PaperPack
from __THEORY__ import PAPER

ROOT = Path(__file__).resolve().parents[2]

PACK = PaperPack(paper=PAPER, verify_dir=ROOT / "verify" / "__ID__", errata=ROOT / "notes" / "__ID__" / "errata.toml",
                 sources=ROOT / "notes" / "__ID__" / "sources.toml")
'''

PACK_DISTRIBUTION = '''\
"""The __ID__ pack's record (``PACK``, registered under ``maskverify.papers`` as ``__ID__`` in
this distribution's pyproject.toml): the paper (``paper.py``), its witnesses (``verify/``), its
errata data (``notes/errata.toml``) and its source index (``notes/sources.toml``).  Campaigns, figures, experiments and subcommands are
added here as the pack grows (``numerics.core.pack.PaperPack``)."""
from __future__ import annotations

from pathlib import Path

from numerics.core.pack import PaperPack
from __THEORY__ import PAPER

HERE = Path(__file__).resolve().parent

PACK = PaperPack(paper=PAPER, verify_dir=HERE / "verify", errata=HERE / "notes" / "errata.toml",
                 sources=HERE / "notes" / "sources.toml")
'''

SYMBOLIC = '''\
"""Symbolic witness of __ID__:lemma.mean: SymPy integrates z against the normal density
(the definition of E[z]) and proves the result equal to the statement's right side."""
from __future__ import annotations

import pytest
import sympy as sp

from __THEORY__ import MEAN, mu, s, z

pytestmark = [pytest.mark.statement("lemma.mean"), pytest.mark.witness("symbolic")]


def test_mean_from_the_definition():
    density = sp.exp(-(z - mu) ** 2 / (2 * s ** 2)) / (s * sp.sqrt(2 * sp.pi))
    eq = MEAN.equation("mean")
    derived = sp.integrate(eq.lhs.expr * density, (z, -sp.oo, sp.oo))
    assert sp.simplify(derived - eq.rhs) == 0
'''

REFERENCE = '''\
"""Reference witness of __ID__:lemma.mean: the raw expectation E z, z ~ N(mu, s^2), by the
core's ``numerics.core.gaussian_reference.gaussian_expectation`` (Gauss-Legendre panels over
the density, precision ladder: 30 and 60 digits agree) against the statement's right side, at
means and scales across orders of magnitude (the whole domain mu real, s > 0).  The ladder is
relative, and E z = 0 at mu = 0 leaves it only rounding noise to compare: it integrates
z + c, c = |mu| + s (the scale the error is measured on), and c is subtracted."""
from __future__ import annotations

import mpmath as mp
import pytest
import sympy as sp

from numerics.core.gaussian_reference import gaussian_expectation
from numerics.core.tolerance import Tol, digits
from __THEORY__ import MEAN, mu, s

pytestmark = [pytest.mark.statement("lemma.mean"), pytest.mark.witness("reference")]

DPS = 30
TOL = Tol(10.0 ** -(DPS - 4), "precision ladder: 30 and 60 digits agree to 1e-27 of E[z + c] <= 2 c; a digit to spare",
          atol=0.0)
#: the statement's right side, evaluated by mpmath at the working precision
RHS = sp.lambdify((mu, s), MEAN.equation("mean").rhs, "mpmath")


@pytest.mark.parametrize("m", ["-1e3", "-1", "0", "0.3", "1e4"])
@pytest.mark.parametrize("sd", ["1e-3", "1", "1e3"])
def test_mean_by_quadrature(m, sd, record):
    with mp.workdps(DPS):
        m, sd = mp.mpf(m), mp.mpf(sd)
        c = abs(m) + sd
        value = gaussian_expectation(lambda x: x + c, m, sd, dps=DPS) - c
        claimed = RHS(m, sd)
        err = float(abs(value - claimed) / (abs(claimed) + sd))  # relative to the scale |mu| + s
    record(error=err, digits=digits(err))
    assert err <= TOL.bound(1.0), f"error {err:.3g} > {TOL}"
'''

LATEX = '''\
"""LaTeX witness of the __ID__ pack (``verify.latex_roundtrip.witness_tests``): each statement's
fragment states every relation with its reference and parses back, from the text, to the
catalogue's expressions; the slow tier parses back the steps SymPy checked (``Paper.derivations``)."""
from __future__ import annotations

from __THEORY__ import PAPER
from verify.latex_roundtrip import witness_tests

test_fragment_states_every_equation_with_reference, test_checked_steps_parse_back = witness_tests(PAPER)
'''

ERRATA = '''\
# Findings of the __ID__ pack: where the paper is wrong (numerics.core.errata describes the keys;
# notes/masking/errata.toml of the maskverify repository is a full example).  One [[erratum]]
# table per finding; its strict xfail's reason cites it as (__ID__:E1).  After editing, run
# `maskverify notes --paper __ID__` to render errata.md.
'''

PYPROJECT = '''\
[build-system]
requires = ["setuptools>=69"]
build-backend = "setuptools.build_meta"

[project]
name = "maskverify-__ID__"
version = "0.1.0"
description = __DESCRIPTION_REPR__
requires-python = ">=3.11"
dependencies = ["maskverify"]

# The line that makes the pack visible to maskverify (after `pip install -e .`)
[project.entry-points."maskverify.papers"]
__ID__ = "__ENTRY__"

[tool.setuptools.packages.find]
include = ["__PKG__*"]

[tool.setuptools.package-data]
__PKG__ = ["notes/*.toml", "notes/*.md", "notes/latex/*.tex"]

[tool.pytest.ini_options]
testpaths = ["__PKG__/verify"]
addopts = "-ra --strict-markers -m 'not slow and not gpu'"
filterwarnings = ["error::RuntimeWarning"]
'''

DOCSTRING = '"""{what}"""\n'


def _fill(template: str, layout: Layout, title: str, authors: tuple[str, ...], reference: str) -> str:
    values = {
        "__THEORY__": layout.theory_module, "__ENTRY__": layout.entry_point, "__PKG__": package_name(layout.id),
        "__TITLE_REPR__": repr(title), "__AUTHORS_REPR__": repr(tuple(authors)),
        "__REFERENCE_REPR__": repr(reference),
        "__DESCRIPTION_REPR__": '"' + f"maskverify pack {layout.id}: {title}".replace('"', "'") + '"',
        "__TITLE__": title, "__AUTHORS_TEXT__": ", ".join(authors), "__REFERENCE__": reference,
        "__ID__": layout.id,
    }
    return re.sub("|".join(map(re.escape, values)), lambda m: values[m.group(0)], template)


SOURCES = '''\
# The source index of the __ID__ pack: every result the paper states, one [[result]] each, with the
# statements that carry it or the reason none does (numerics.core.sources describes the keys; the
# check table counts them: "N results in the paper: ...").  `maskverify new __ID__ --from paper.tex`
# drafts it from the paper; this one indexes the placeholder statement of the skeleton.  After
# editing, run `python -m numerics.core.sources_notes` to render sources.md.
[paper]
source = "the skeleton of maskverify new (no paper read yet)"

[[result]]
label = "Lemma 1"
kind = "lemma"
section = "1"
quote = "the mean of a normal variable is its mean"
statements = ["lemma.mean"]
'''

DRAFTED_PAPER = '''\
"""The theory half of the __ID__ pack: __TITLE__ (__AUTHORS_TEXT__; __REFERENCE__).

Drafted by ``maskverify new __ID__ --from __SOURCE_TEXT__``: one placeholder ``Statement`` per
result of the pack's source index (``__SOURCES_PATH__``), in the paper's order, each ``not checked``
with the reason "no witness yet", carrying the paper's text (``notes``) and, where the source has
it, its LaTeX (``printed``: a LaTeX source's environment or display, a text extraction's $$...$$).  Replace each placeholder by the statement itself (its parameters, its
equations, its ``Kind``: the placeholder's is only a guess), keeping its id and ``ref``, and write
its witnesses (docs/adding-a-paper.md); the check table's coverage line counts what is left.
"""
from __future__ import annotations

from theory.core.pack import LatexMeta, Paper
from theory.core.statement import Kind, Statement

#: the reason every placeholder gives until a witness judges it
NO_WITNESS = "no witness yet"


def placeholder(sid: str, ref: str, kind: Kind, text: str, printed: str = "") -> Statement:
    """A result of the paper that no statement states yet: no equations, ``not checked``."""
    return Statement(id=sid, ref=ref, title="placeholder drafted from the source: not stated yet", kind=kind,
                     params=(), equations=(), notes=text, printed=printed, not_checked=NO_WITNESS)


STATEMENTS = (
__STATEMENTS__
)

PAPER = Paper(
    id="__ID__", title=__TITLE_REPR__, authors=__AUTHORS_REPR__, reference=__REFERENCE_REPR__,
    statements=STATEMENTS,
    latex=LatexMeta(sections=(
__SECTIONS__
    )),
)
'''

#: the ``Kind`` a placeholder of each index kind gets until its statement is written (a guess)
PLACEHOLDER_KIND = {"definition": "DEFINITION", "assumption": "DEFINITION", "condition": "DEFINITION",
                    "figure": "EMPIRICAL", "table": "EMPIRICAL"}
_TRIPLE = "'" * 3
#: control characters TOML strings may not hold (tab and newline are kept)
_CONTROL = dict.fromkeys([c for c in range(32) if c not in (9, 10)] + [127])


def python_text(text: str) -> str:
    """``text`` as a Python literal: a raw triple-quoted string where it can be one (the paper's
    LaTeX reads as written), ``repr`` otherwise."""
    control = any(ord(c) < 32 and c not in "\n\t" for c in text)
    if _TRIPLE not in text and not text.endswith(("\\", "'")) and not control:
        return "r" + _TRIPLE + text + _TRIPLE
    return repr(text)


def toml_text(text: str) -> str:
    """``text`` as a TOML string: a literal string (triple-quoted for several lines) where it can
    be one, so that TeX's backslashes stay as written; a basic string with escapes otherwise."""
    text = text.translate(_CONTROL)
    if "\n" not in text and "'" not in text:
        return "'" + text + "'"
    if _TRIPLE not in text and not text.endswith("'") and not text.startswith("\n"):
        return _TRIPLE + text + _TRIPLE
    return json.dumps(text, ensure_ascii=False)


def drafted_sources(draft, ids: list[str], source_text: str) -> str:
    """The pack's ``sources.toml`` drafted from ``draft`` (``numerics.core.source_draft.Draft``):
    one ``[[result]]`` per result, citing its placeholder statement (``ids``, in order)."""
    counts = ", ".join(f"{n} {kind}" for kind, n in draft.counts().items())
    lines = [f"# The source index of the __ID__ pack, drafted by `maskverify new __ID__ --from {source_text}`",
             f"# ({len(draft.results)} results: {counts}).  Each result cites its placeholder statement",
             "# (not checked: no witness yet).  Complete it by reading the paper: add what the draft missed (proof",
             "# steps, claims in prose, unnumbered results), give a reason where no statement will carry a result,",
             "# and replace the placeholders by statements (numerics.core.sources describes the keys).",
             "[paper]", f"source = {toml_text(draft.source)}", ""]
    for r, sid in zip(draft.results, ids):
        lines += ["[[result]]", f"label = {toml_text(r.label)}"]
        if r.name:
            lines.append(f"name = {toml_text(r.name)}")
        lines += [f"kind = {toml_text(r.kind)}", f"section = {toml_text(r.section)}",
                  f"quote = {toml_text(r.quote or r.label)}", f"statements = [{toml_text(sid)}]"]
        if r.tex:
            lines.append(f"tex = {toml_text(r.tex)}")
        lines.append("")
    return "\n".join(lines)


def _section_title(section: str) -> str:
    return f"Section {section}" if section[:1].isdigit() or len(section) <= 3 else section[:1].upper() + section[1:]


def drafted_paper(draft, ids: list[str]) -> str:
    """The theory module of a drafted pack (:data:`DRAFTED_PAPER`): one placeholder per result,
    the LaTeX layout grouped by the sections the results stand in."""
    statements, sections = [], {}
    for r, sid in zip(draft.results, ids):
        kind = PLACEHOLDER_KIND.get(r.kind, "IDENTITY")
        printed = f", printed={python_text(r.tex)}" if r.tex else ""
        text = f"({r.name}) {r.text or r.quote}" if r.name else r.text or r.quote
        statements.append(f"    placeholder({sid!r}, {r.label!r}, Kind.{kind}, {python_text(text)}{printed}),")
        sections.setdefault(r.section, []).append(sid)
    layout = [f"        ({_section_title(section)!r}, {tuple(sids)!r})," for section, sids in sections.items()]
    return DRAFTED_PAPER.replace("__SECTIONS__", "\n".join(layout)), "\n".join(statements)


def files(layout: Layout, title: str, authors: tuple[str, ...], reference: str, draft=None,
          source_text: str = "") -> dict[str, str]:
    """Every file of the skeleton, ``{path relative to the root written: text}``.  With ``draft``
    (a ``numerics.core.source_draft.Draft`` of the paper; ``source_text`` names it) the theory
    module holds one placeholder per drafted result and the source index cites them, in place of
    the example statement and its two witnesses."""
    pid = layout.id
    sources_path = f"{layout.notes_dir}/sources.toml"
    out = {
        layout.path_of(layout.pack_module): PACK_IN_REPOSITORY if layout.in_repo else PACK_DISTRIBUTION,
        f"{layout.verify_dir}/__init__.py": "",
        f"{layout.verify_dir}/test_latex.py": LATEX,
        f"{layout.notes_dir}/errata.toml": ERRATA,
    }
    if draft is None:
        out[layout.path_of(layout.theory_module)] = PAPER
        out[f"{layout.verify_dir}/test_s1_mean_symbolic.py"] = SYMBOLIC
        out[f"{layout.verify_dir}/test_s1_mean_reference.py"] = REFERENCE
        out[sources_path] = SOURCES
    if layout.in_repo:
        out[f"theory/{pid}/__init__.py"] = DOCSTRING.format(
            what=f"The theory half of the {pid} pack: its statements and the Paper record (paper.py).")
        out[f"numerics/{pid}/__init__.py"] = DOCSTRING.format(
            what=f"The numerical half of the {pid} pack: its models, references, experiments and PACK (pack.py).")
    else:
        pkg = package_name(pid)
        out[f"{pkg}/__init__.py"] = DOCSTRING.format(
            what=f"The maskverify pack {pid}: the paper (paper.py), its record PACK (pack.py), witnesses (verify/) "
                 "and notes (notes/).")
        out["pyproject.toml"] = PYPROJECT
    written = {path: _fill(text, layout, title, authors, reference) for path, text in out.items()}
    if draft is not None:
        # the paper's own text is inserted after the pack's names are filled in, so that nothing
        # in it is taken for a placeholder of the template
        from numerics.core.source_draft import unique_ids

        ids = unique_ids(draft.results)
        module, statements = drafted_paper(draft, ids)
        module = module.replace("__SOURCE_TEXT__", source_text).replace("__SOURCES_PATH__", sources_path)
        written[layout.path_of(layout.theory_module)] = _fill(module, layout, title, authors, reference).replace(
            "__STATEMENTS__", statements)
        index = drafted_sources(draft, ids, "\0")
        head, sep, rest = index.partition("[paper]")
        written[sources_path] = _fill(head, layout, title, authors, reference).replace("\0", source_text) + sep + rest
    return dict(sorted(written.items()))
