"""``docs/adding-a-paper.md`` works as written.

- Its ``file=`` code blocks, written out as files, make a distribution ``toypaper`` (a pack with
  no findings) that the registry loads through its entry point, and that ``maskverify papers``,
  ``check``, ``fuzz`` and ``notes`` handle in a fresh process, as a user runs them; after
  ``maskverify notes --paper toy`` (the guide's checklist) the meta-tests of ``tests/`` accept
  it (slow tier).
- Its ``sh run=in-repository`` and ``sh run=distribution`` blocks, run line by line (slow tier)
  in a copy of this repository and in a temporary folder: ``maskverify`` as ``python -m
  numerics.app.cli``, ``pip install -e .`` as the metadata it writes (``tests/_clone.py``),
  ``DIR`` as a temporary folder; every command must exit 0.
"""
from __future__ import annotations

import json
import shlex
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from _clone import ROOT, copy_of_the_repository, installed, maskverify, run  # tests/ is on sys.path
from markdown_it import MarkdownIt

GUIDE = ROOT / "docs" / "adding-a-paper.md"


def _blocks():
    return [tok for tok in MarkdownIt().parse(GUIDE.read_text()) if tok.type == "fence"]


def _files() -> dict[str, str]:
    """{relative path: content} of every fenced block whose info string names a ``file=``."""
    return {tok.info.split("file=", 1)[1].strip(): tok.content for tok in _blocks() if "file=" in tok.info}


def _commands(variant: str) -> list[str]:
    (block,) = [tok.content for tok in _blocks() if tok.info.strip() == f"sh run={variant}"]
    return [line for line in block.splitlines() if line.strip()]


@pytest.fixture(scope="module")
def toy_path(tmp_path_factory):
    root = tmp_path_factory.mktemp("toy-distribution")
    for rel, text in _files().items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (root / "toypaper-0.1.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: toypaper\nVersion: 0.1\n")
    return root


def _maskverify(toy_path, *args):
    return maskverify(toy_path, [toy_path, ROOT], *args)


def test_the_guide_has_every_file_of_the_pack():
    assert set(_files()) == {"toypaper/theory.py", "toypaper/__init__.py", "toypaper/verify/__init__.py",
                             "toypaper/verify/test_s1_mean_symbolic.py", "toypaper/verify/test_s1_mean_reference.py",
                             "toypaper/verify/test_s1_tail_property.py", "toypaper/verify/test_latex.py",
                             "toypaper/sources.toml", "toypaper-0.1.dist-info/entry_points.txt"}


def test_papers_lists_the_new_pack(toy_path):
    run_ = _maskverify(toy_path, "papers", "--json")
    assert run_.returncode == 0, run_.stderr
    rows = {r["id"]: r for r in json.loads(run_.stdout)}
    assert rows["toy"]["statements"] == 2 and rows["toy"]["findings"] == 0
    assert rows["toy"]["campaigns"] == ["toy:lemma.tail"]
    assert "masking" in rows  # the installed pack is still there


def test_check_shows_the_new_packs_witnesses(toy_path, tmp_path):
    out = tmp_path / "check.json"
    run_ = _maskverify(toy_path, "check", "--paper", "toy", "--no-progress", "-n", "1", "--json", str(out))
    assert run_.returncode == 0, run_.stdout + run_.stderr
    assert any(line.startswith("toy:lemma.mean") for line in run_.stdout.splitlines()), run_.stdout
    rows = {r["id"]: r for r in json.loads(out.read_text())["statements"]}
    assert rows["toy:lemma.mean"]["ref"] == "Lemma 1"
    assert {k: v for k, v in rows["toy:lemma.mean"]["witnesses"].items() if v != "-"} == {
        "symbolic": "ok 1", "reference": "ok 3", "latex": "ok 1"}
    assert {k: v for k, v in rows["toy:lemma.tail"]["witnesses"].items() if v != "-"} == {
        "property": "ok 1", "latex": "ok 1"}
    assert "7 witness tests: 7 passed, 0 failed" in run_.stdout
    # the guide's source index: two lemmas carried by holding statements, a remark carried by none
    assert ("toy: 3 results in the paper: 2 carried by a holding or supported statement, 0 by a finding, "
            "0 by a failing statement, 0 in part, 0 not checked, 1 not carried") in run_.stdout


def test_the_property_witness_records_every_example(toy_path, tmp_path):
    """The guide's Hypothesis pattern: the profile's examples run with ``record`` (no health
    check suppressed), and the test's report holds the examples judged and the largest ratio."""
    xml = tmp_path / "out.xml"
    run_ = run(toy_path, [toy_path, ROOT], "-m", "pytest", "-p", "no:cacheprovider", "-q", "-n", "0",
               f"--junitxml={xml}", "toypaper/verify/test_s1_tail_property.py")
    assert run_.returncode == 0, run_.stdout[-2000:]
    (case,) = ET.parse(xml).getroot().iter("testcase")
    props = {p.get("name"): p.get("value") for p in case.iter("property")}
    assert props["judged"] == "60"  # the dev profile's examples, one record(judged=1) each
    assert 0.25 < float(props["ratio"]) <= 1  # the bound's tightest point, t near 1.5: 0.30


def test_fuzz_runs_the_packs_campaign(toy_path):
    run_ = _maskverify(toy_path, "fuzz", "toy:lemma.tail", "--seed", "0", "--examples", "30", "--no-progress")
    assert run_.returncode == 0, run_.stdout + run_.stderr
    assert run_.stdout.startswith("campaign lemma.tail: Lemma 2") and "no counterexample in 30 examples" in run_.stdout


def test_a_second_pack_with_the_same_id_is_refused(toy_path, monkeypatch):
    from numerics.core import registry

    monkeypatch.syspath_prepend(str(toy_path))
    import toypaper

    with pytest.raises(registry.RegistryError, match="masking"):
        registry.register(registry.get("masking"))
    registry.register(toypaper.PACK) if "toy" not in registry.packs() else None
    try:
        with pytest.raises(registry.RegistryError, match="toy"):
            registry.register(toypaper.PACK)
    finally:
        registry.unregister("toy")


@pytest.mark.slow
def test_the_checklist_makes_the_meta_tests_accept_the_pack(toy_path):
    """``maskverify notes --paper toy`` writes the pack's LaTeX (it has no errata data, so no
    errata.md); then the layout, errata and notes meta-tests pass on it, or say that a pack
    without findings leaves nothing to judge."""
    run_ = _maskverify(toy_path, "notes", "--check", "--paper", "toy")
    assert run_.returncode == 1 and "missing" in run_.stdout
    assert _maskverify(toy_path, "notes", "--paper", "toy").returncode == 0
    assert _maskverify(toy_path, "notes", "--check", "--paper", "toy").returncode == 0
    assert sorted(p.name for p in (toy_path / "toypaper" / "latex").glob("*.tex")) == [
        "formulas.tex", "lemma_mean.tex", "lemma_tail.tex"]
    run_ = run(ROOT, [toy_path, ROOT], "-m", "pytest", "-p", "no:cacheprovider", "-q", "-n", "0", "-rs",
               "tests/test_errata.py", "tests/test_notes_current.py", "-k", "toy")
    assert run_.returncode == 0, run_.stdout[-3000:]
    assert "toy has no strict xfail" in run_.stdout


def _run_guide(variant: str, cwd: Path, path: list[Path], tmp: Path) -> list[str]:
    """Run the guide's ``sh run=<variant>`` block line by line; return the commands run."""
    done = []
    for line in _commands(variant):
        line = line.replace("DIR", str(tmp / "dist"))
        if line.startswith("cd "):
            where, _, line = line[3:].partition(" && ")
            cwd = Path(where)
        argv = shlex.split(line)
        if argv[:3] == ["pip", "install", "-e"]:
            pack_id = _commands(variant)[0].split()[2]
            module = "numerics.{0}.pack" if variant == "in-repository" else "maskverify_{0}.pack"
            path = path + [installed(tmp / "site", "maskverify_" + pack_id, f"{pack_id} = {module.format(pack_id)}:PACK")]
            if variant == "distribution":
                path.append(cwd)  # the editable install's finder
        elif argv[0] == "maskverify":
            got = maskverify(cwd, path, *argv[1:])
            assert got.returncode == 0, f"{line}\n{got.stdout[-2000:]}{got.stderr[-2000:]}"
        elif argv[0] == "pytest":
            got = run(cwd, path, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-n", "0", *argv[1:])
            assert got.returncode == 0 and "17 passed" in got.stdout, f"{line}\n{got.stdout[-2000:]}"
        else:
            raise AssertionError(f"the guide's command {line!r} is not one this test knows how to run")
        done.append(line)
    return done


@pytest.mark.slow
def test_the_guides_commands_in_this_repository(tmp_path):
    copy = copy_of_the_repository(tmp_path / "clone")
    done = _run_guide("in-repository", copy, [copy], tmp_path)
    assert len(done) == 5 and (copy / "verify" / "arccos" / "test_latex.py").is_file()


@pytest.mark.slow
def test_the_guides_commands_as_a_distribution(tmp_path):
    done = _run_guide("distribution", ROOT, [ROOT], tmp_path)
    assert len(done) == 5 and (tmp_path / "dist" / "maskverify_arccos" / "pack.py").is_file()
