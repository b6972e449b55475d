"""The files of a new paper pack (``maskverify new``): a working skeleton with one statement and
two witnesses, for the user to replace by the paper's own.

The statement is a placeholder that holds, *the mean of a normal variable is its mean*
(``E[z] = mu`` for ``z ~ N(mu, s^2)``), so that the skeleton passes every check as written:
SymPy integrates the density (symbolic witness) and mpmath integrates the raw integrand at
30 digits over means and scales across orders of magnitude (reference witness).  Each file's
docstring says what it is for; ``docs/adding-a-paper.md`` explains every one.

:func:`files` returns ``{relative path: text}`` for one of two layouts (:class:`Layout`):

- in this repository (``Layout.in_repository``): ``theory/<id>/``, ``numerics/<id>/``,
  ``verify/<id>/``, ``notes/<id>/errata.toml``, the entry point ``numerics.<id>.pack:PACK``;
- a distribution of its own (``Layout.distribution``): ``pyproject.toml`` and one package
  ``maskverify_<id>/`` holding ``paper.py``, ``pack.py``, ``verify/`` and ``notes/``.

The generated notes (``errata.md``, rendered from the empty ``errata.toml``, and the LaTeX under
``notes/.../latex/``) are not templates: ``maskverify new`` writes them afterwards with
``numerics.core.notes.write`` from the imported pack, as ``maskverify notes`` would.
"""
from __future__ import annotations

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
pyproject.toml): the paper (``theory/__ID__/``), its witnesses (``verify/__ID__/``) and its errata
data (``notes/__ID__/errata.toml``).  Campaigns, figures, experiments and subcommands are added
here as the pack grows (``numerics.core.pack.PaperPack``)."""
from __future__ import annotations

from pathlib import Path

from numerics.core.pack import PaperPack
from __THEORY__ import PAPER

ROOT = Path(__file__).resolve().parents[2]

PACK = PaperPack(paper=PAPER, verify_dir=ROOT / "verify" / "__ID__", errata=ROOT / "notes" / "__ID__" / "errata.toml")
'''

PACK_DISTRIBUTION = '''\
"""The __ID__ pack's record (``PACK``, registered under ``maskverify.papers`` as ``__ID__`` in
this distribution's pyproject.toml): the paper (``paper.py``), its witnesses (``verify/``) and
its errata data (``notes/errata.toml``).  Campaigns, figures, experiments and subcommands are
added here as the pack grows (``numerics.core.pack.PaperPack``)."""
from __future__ import annotations

from pathlib import Path

from numerics.core.pack import PaperPack
from __THEORY__ import PAPER

HERE = Path(__file__).resolve().parent

PACK = PaperPack(paper=PAPER, verify_dir=HERE / "verify", errata=HERE / "notes" / "errata.toml")
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
"""Reference witness of __ID__:lemma.mean: mpmath integrates the raw integrand
z * exp(-(z - mu)^2 / (2 s^2)) / (s sqrt(2 pi)) at 30 digits and compares it with the
statement's right side, at means and scales across orders of magnitude (the whole domain
mu real, s > 0)."""
from __future__ import annotations

import mpmath as mp
import pytest
import sympy as sp

from numerics.core.tolerance import Tol, digits
from __THEORY__ import MEAN, mu, s

pytestmark = [pytest.mark.statement("lemma.mean"), pytest.mark.witness("reference")]

DPS = 30
#: 30 working digits; tanh-sinh quadrature of a Gaussian split at mu +- 8 s loses a few
TOL = Tol(1e-25, "30-digit mpmath quadrature, a few digits lost to the quadrature", atol=0.0)
#: the statement's right side, evaluated by mpmath at the working precision
RHS = sp.lambdify((mu, s), MEAN.equation("mean").rhs, "mpmath")


@pytest.mark.parametrize("m", ["-1e3", "-1", "0", "0.3", "1e4"])
@pytest.mark.parametrize("sd", ["1e-3", "1", "1e3"])
def test_mean_by_quadrature(m, sd, record):
    with mp.workdps(DPS):
        m, sd = mp.mpf(m), mp.mpf(sd)
        density = lambda x: mp.exp(-(x - m) ** 2 / (2 * sd ** 2)) / (sd * mp.sqrt(2 * mp.pi))  # noqa: E731
        value = mp.quad(lambda x: x * density(x), [-mp.inf, m - 8 * sd, m, m + 8 * sd, mp.inf])
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


def files(layout: Layout, title: str, authors: tuple[str, ...], reference: str) -> dict[str, str]:
    """Every file of the skeleton, ``{path relative to the root written: text}``."""
    pid = layout.id
    out = {
        layout.path_of(layout.theory_module): PAPER,
        layout.path_of(layout.pack_module): PACK_IN_REPOSITORY if layout.in_repo else PACK_DISTRIBUTION,
        f"{layout.verify_dir}/__init__.py": "",
        f"{layout.verify_dir}/test_latex.py": LATEX,
        f"{layout.verify_dir}/test_s1_mean_symbolic.py": SYMBOLIC,
        f"{layout.verify_dir}/test_s1_mean_reference.py": REFERENCE,
        f"{layout.notes_dir}/errata.toml": ERRATA,
    }
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
    return {path: _fill(text, layout, title, authors, reference) for path, text in out.items()}
