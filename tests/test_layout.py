"""The architecture, enforced (DESIGN.md, "Layout"): dependencies point app -> packs -> core and
theory -> numerics -> verify; ``theory`` never imports numpy or torch; the core names no pack;
a pack imports no other pack; there are no import cycles between modules.

The rules are ``numerics.app.lint``'s, the ones ``maskverify lint`` runs, applied here to the
suite's own modules and to every installed pack's, wherever its files live (a distribution
outside this repository included).  Imports are read from the source with ``ast`` (module
level and inside functions), so a forbidden import fails here even if no test executes it.
"""
from __future__ import annotations

import importlib
import sys
import textwrap
from collections import defaultdict
from pathlib import Path

import pytest

from numerics.app import lint
from numerics.core import registry

ROOT = Path(__file__).resolve().parents[1]
LAYOUT = lint.layout(registry.select(None))


def _id(source: lint.Source) -> str:
    try:
        return source.path.relative_to(ROOT).as_posix()
    except ValueError:
        return f"{source.pack}:{source.module}"


@pytest.mark.parametrize("source", LAYOUT.sources, ids=_id)
def test_imports_point_one_way(source):
    assert [message for _line, message in lint.violations(source, LAYOUT)] == []


@pytest.mark.parametrize("pack_id", sorted(registry.packs()))
def test_every_installed_pack_is_linted(pack_id):
    """Every pack's theory, numerical half and witnesses are among the linted files."""
    mine = [s for s in LAYOUT.sources if s.pack == pack_id]
    assert {s.layer for s in mine} == {"theory", "numerics", "verify"}, sorted(s.module for s in mine)


def _planted(mod: str, source: str, tmp_path) -> lint.Source:
    planted = tmp_path / "planted.py"
    planted.write_text(source)
    parts = mod.split(".")
    pack = parts[1] if parts[1] in registry.packs() else None
    return lint.Source(planted, mod, pack, parts[0], pack or parts[1])


@pytest.mark.parametrize("mod, source, expected", [
    ("numerics.core.planted", "from numerics.masking import network\nimport torch\n",
     ["the core imports numerics.masking.network"]),
    ("theory.core.planted", "import numpy as np\n", ["theory imports numpy"]),
    ("numerics.masking.planted", "from ..app import cli\n",
     ["pack masking imports numerics.app.cli", "numerics.masking.planted imports the application (numerics.app.cli)"]),
    ("numerics.masking.planted", "from verify import plugin\n",
     ["numerics imports verify.plugin (verify depends on numerics, not back)"]),
    ("numerics.masking.planted", "def f():\n    from numerics.meanfield import gram_bar\n",
     ["pack masking imports numerics.meanfield"]),
])
def test_the_checker_sees_a_forbidden_import(mod, source, expected, tmp_path):
    """Planted forbidden imports are reported (inside a function too)."""
    assert [m for _line, m in lint.violations(_planted(mod, source, tmp_path), LAYOUT)] == expected


def test_no_import_cycles():
    """No cycle between modules, through imports at module level or inside functions alike: a
    function-level import only defers the cycle (the two modules still cannot be read, tested
    or moved apart)."""
    assert lint.cycles(LAYOUT) == []


def test_the_checker_sees_a_cycle_through_a_function_level_import(tmp_path):
    """A planted pair of modules, one importing the other inside a function, is a cycle."""
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("import numerics.app.planted_b\n")
    b.write_text("def render():\n    from numerics.app.planted_a import X\n")
    graph = {"numerics.app.planted_a": [t for t, _ in lint.imports(a, "numerics.app.planted_a")],
             "numerics.app.planted_b": [t for t, _ in lint.imports(b, "numerics.app.planted_b")]}
    assert lint.import_cycles(graph) == ["numerics.app.planted_a -> numerics.app.planted_b -> numerics.app.planted_a"]


# ---------------------------------------------------------------------------- a distribution of its own
PAPER_PY = '''
import sympy as sp
{planted}
from theory.core.pack import Paper
from theory.core.statement import Equation, Expectation, Kind, Param, Statement

from .helpers import LAW

z, mu = sp.symbols("z mu", real=True)
MEAN = Statement(id="lemma.mean", ref="Lemma 1", title="the mean", kind=Kind.IDENTITY,
                 params=(Param(mu, sp.Reals, "mean"),), equations=(Equation("mean", Expectation(z, LAW), mu),))
PAPER = Paper(id="{pid}", title="A planted paper", authors=("A. Author",), reference="none", statements=(MEAN,))
'''
PACK_PY = '''
from pathlib import Path

from numerics.core.pack import PaperPack

from .paper import PAPER

HERE = Path(__file__).resolve().parent
PACK = PaperPack(paper=PAPER, verify_dir=HERE / "verify", errata=HERE / "errata.toml")
'''


@pytest.fixture
def distribution(tmp_path, monkeypatch):
    """``make(pid, planted)``: a distribution-like pack ``<pid>/`` under ``tmp_path`` (theory
    module ``paper.py`` with ``planted`` lines, a helper it imports, ``pack.py``, ``verify/``),
    imported and registered for this test, outside this repository."""
    monkeypatch.syspath_prepend(str(tmp_path))
    made = []

    def make(pid, planted="", helper=""):
        pkg = tmp_path / pid
        (pkg / "verify").mkdir(parents=True)
        (pkg / "__init__.py").write_text("")
        (pkg / "helpers.py").write_text(helper + '\nLAW = r"z\\sim\\mathcal{N}(\\mu, 1)"\n')
        (pkg / "paper.py").write_text(PAPER_PY.format(planted=planted, pid=pid))
        (pkg / "pack.py").write_text(PACK_PY)
        (pkg / "verify" / "__init__.py").write_text("")
        (pkg / "verify" / "test_s1_mean.py").write_text(f"from {pid}.paper import MEAN\nimport numpy\n")
        pack = importlib.import_module(f"{pid}.pack").PACK
        registry.register(pack)
        made.append(pid)
        return pack

    yield make
    for pid in made:
        registry.unregister(pid)
        for name in [m for m in sys.modules if m == pid or m.startswith(pid + ".")]:
            del sys.modules[name]


def test_a_distributions_planted_imports_are_reported(distribution):
    pack = distribution("mvlint_planted", planted="import numpy\nimport numerics.masking\n",
                        helper="import torch  # the theory's own helper, so theory too\n")
    lines = lint.lint([pack], suite=False)
    text = "\n".join(lines)
    assert "mvlint_planted/paper.py:3: mvlint_planted.paper: theory imports numpy" in text
    assert "mvlint_planted/paper.py:4: mvlint_planted.paper: theory imports numerics.masking" in text
    assert "mvlint_planted.paper: pack mvlint_planted imports numerics.masking" in text
    assert "mvlint_planted/helpers.py:1: mvlint_planted.helpers: theory imports torch" in text
    assert len(lines) == 4, text  # the witnesses may import numpy; pack.py imports only the core


def test_a_distribution_importing_another_distribution_is_reported(distribution):
    other = distribution("mvlint_other")
    pack = distribution("mvlint_user", planted="from mvlint_other.helpers import LAW as OTHER\n")
    assert lint.lint([other], suite=False) == []
    lines = lint.lint([pack], suite=False)
    assert [line.split(": ", 2)[2] for line in lines] == ["pack mvlint_user imports mvlint_other.helpers"]


def test_a_clean_distribution_is_clean_and_its_layers_are_read(distribution):
    pack = distribution("mvlint_clean")
    lay = lint.layout([pack], suite=False)
    assert {s.module: s.layer for s in lay.sources} == {
        "mvlint_clean": "numerics", "mvlint_clean.helpers": "theory", "mvlint_clean.paper": "theory",
        "mvlint_clean.pack": "numerics", "mvlint_clean.verify": "verify", "mvlint_clean.verify.test_s1_mean": "verify"}
    assert lint.lint([pack], suite=False) == []


def test_the_command(distribution, capsys):
    from numerics.app.cli import main

    distribution("mvlint_cmd", planted="import scipy\n")
    assert main(["lint", "--paper", "mvlint_cmd"]) == 1
    out, err = capsys.readouterr()
    assert out.splitlines() == [next(line for line in out.splitlines() if "theory imports scipy" in line)]
    assert "1 violation in pack mvlint_cmd" in err
    assert main(["lint", "--paper", "masking"]) == 0
    assert "no violation" in capsys.readouterr().out
    assert main(["lint", "--paper", "no-such-pack"]) == 2
    assert "unknown paper 'no-such-pack'" in capsys.readouterr().err


# ---------------------------------------------------------------------------- other layout facts
def test_public_names_of_the_masking_pack():
    import numerics.masking as pack

    for name in ("mask_moment1", "mask_moment2", "expected_loss", "expected_grad", "theorem_4_2",
                 "definition_4_1", "ntk_gram", "lambda0"):
        assert callable(getattr(pack, name))


def test_test_files_outside_packages_have_unique_names():
    """pytest imports a test file of a folder without ``__init__.py`` (``tests/``, ``tests/<pack>/``)
    by its basename: two such files with one name break a session that collects both ("import
    file mismatch").  A pack's tests are named for the pack (``test_<pack>_campaigns.py``)."""
    seen = defaultdict(list)
    for path in sorted((ROOT / "tests").rglob("test_*.py")):
        if not (path.parent / "__init__.py").exists():
            seen[path.name].append(path.relative_to(ROOT).as_posix())
    clashes = {name: paths for name, paths in seen.items() if len(paths) > 1}
    assert not clashes, f"test files sharing a name outside packages: {clashes}"


def test_papers_counts_in_the_singular(distribution, capsys):
    """``maskverify papers`` says "1 statement, 0 findings" of a pack with one statement (it said
    "1 findings" of one finding)."""
    from numerics.app.cli import _count, main

    distribution("mvlint_count")
    assert main(["papers", "--paper", "mvlint_count"]) == 0
    assert "  1 statement, 0 findings;" in capsys.readouterr().out
    assert (_count(1, "finding"), _count(2, "finding"), _count(0, "finding")) == ("1 finding", "2 findings", "0 findings")


def test_a_module_that_only_holds_a_pack_is_not_the_pack(tmp_path, monkeypatch):
    """A test module (or any module) with an installed pack as a global is not one of the pack's
    modules: ``pack_packages`` keeps only holders in the entry point's package (before, after the
    report's tests had run in the same process, every file of tests/ counted as masking's)."""
    import types

    pack = registry.get("masking")
    (tmp_path / "holder_pkg").mkdir()
    (tmp_path / "holder_pkg" / "__init__.py").write_text("import numerics.amplification\n")
    holder = types.ModuleType("holder_pkg")
    holder.__file__ = str(tmp_path / "holder_pkg" / "__init__.py")
    holder.PACK = pack
    monkeypatch.setitem(sys.modules, "holder_pkg", holder)
    assert "holder_pkg" not in lint.pack_packages(pack)
