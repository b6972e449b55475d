"""Test ids that run from where their pack lives (``numerics.core.nodeids``) and the plugin's
time per pack (``verify.plugin.pack_times``), on planted folders: a test of this repository is
named by its path from the repository root, a distribution's by its import name (``pytest
--pyargs``) or its path from the distribution's root, a file outside any package by its absolute
path; the commands quote the id as the check table always has."""
from __future__ import annotations

from pathlib import Path

from numerics.core import nodeids
from verify import plugin

ROOT = Path(__file__).resolve().parents[1]


def _distribution(tmp_path: Path) -> Path:
    pkg = tmp_path / "dist" / "maskverify_x"
    (pkg / "verify").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "verify" / "__init__.py").write_text("")
    test = pkg / "verify" / "test_s1_a.py"
    test.write_text("def test_b():\n    pass\n")
    return test


def test_a_test_of_this_repository_is_named_from_its_root():
    path = ROOT / "verify" / "masking" / "test_latex.py"
    assert nodeids.in_repository(path)
    assert nodeids.runnable(path, "::test_x[a-b]") == "verify/masking/test_latex.py::test_x[a-b]"
    assert nodeids.forms(path, "::t") == {"verify/masking/test_latex.py::t"}
    assert nodeids.from_root(ROOT.parent, f"{ROOT.name}/verify/masking/test_latex.py::t") == \
        "verify/masking/test_latex.py::t"
    assert nodeids.command("verify/masking/test_latex.py::t[x]", "-m", "slow") == \
        "pytest 'verify/masking/test_latex.py::t[x]' -m slow"


def test_a_distributions_test_is_named_by_its_import_name(tmp_path):
    test = _distribution(tmp_path)
    assert not nodeids.in_repository(test)
    assert nodeids.package_root(test) == tmp_path / "dist"
    assert nodeids.module_of(test) == "maskverify_x.verify.test_s1_a"
    node = nodeids.runnable(test, "::test_b")
    assert node == "maskverify_x.verify.test_s1_a::test_b" and nodeids.is_module_id(node)
    assert nodeids.forms(test, "::test_b") == {node, "maskverify_x/verify/test_s1_a.py::test_b"}
    assert nodeids.pytest_args(node) == ["--pyargs", node]
    assert nodeids.command(node, "-m", "slow") == "pytest --pyargs 'maskverify_x.verify.test_s1_a::test_b' -m slow"
    # pytest's own node id of the file, rooted at a far parent, names it the same way
    assert nodeids.from_root(tmp_path, "dist/maskverify_x/verify/test_s1_a.py::test_b") == node


def test_a_file_outside_any_package_is_named_by_its_absolute_path(tmp_path):
    loose = tmp_path / "test_loose.py"
    loose.write_text("")
    assert nodeids.module_of(loose) is None
    assert nodeids.runnable(loose, "::t") == f"{loose}::t" and not nodeids.is_module_id(f"{loose}::t")
    assert not nodeids.is_module_id("verify/x/test_a.py::t") and not nodeids.is_module_id("test_a.py::t")


def test_the_plugin_times_each_pack(tmp_path, monkeypatch):
    """The terminal summary's rows: this repository's ``verify/<id>/`` by folder, an outside
    pack's by its witness folder (paths relative to the run's root, as pytest's locations are),
    anything else apart."""
    test = _distribution(tmp_path)
    monkeypatch.setattr(plugin, "_outside_packs", lambda everything=False: [("x", str(test.parent))])
    root = tmp_path / "root"
    root.mkdir()
    times = {str(ROOT / "verify/masking/test_a.py"): [3, 1.5], str(ROOT / "verify/masking/test_b.py"): [1, 0.5],
             str(ROOT / "verify/meanfield/test_c.py"): [2, 4.0], str(ROOT / "tests/test_d.py"): [5, 2.0],
             "../dist/maskverify_x/verify/test_s1_a.py": [4, 1.0]}
    per, other = plugin.pack_times(times, str(root))
    assert per == {"masking": [4, 2.0], "meanfield": [2, 4.0], "x": [4, 1.0]}
    assert other == [5, 2.0]
