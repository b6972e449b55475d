"""``docs/adding-a-paper.md`` works: its code blocks, written out as files, make a pack that the
registry loads through its entry point and that ``maskverify papers`` and ``maskverify check``
show, in a fresh process, as a user would run them."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

GUIDE = Path(__file__).resolve().parents[1] / "docs" / "adding-a-paper.md"


def _files() -> dict[str, str]:
    """{relative path: content} of every fenced block whose info string names a ``file=``."""
    out = {}
    for tok in MarkdownIt().parse(GUIDE.read_text()):
        if tok.type == "fence" and "file=" in tok.info:
            out[tok.info.split("file=", 1)[1].strip()] = tok.content
    return out


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
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(toy_path), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-m", "numerics.app.cli", *args], capture_output=True, text=True,
                          env=env, timeout=300)


def test_the_guide_has_every_file_of_the_pack():
    assert set(_files()) == {"toypaper/theory.py", "toypaper/__init__.py", "toypaper/verify/test_mean.py",
                             "toypaper-0.1.dist-info/entry_points.txt"}


def test_papers_lists_the_new_pack(toy_path):
    run = _maskverify(toy_path, "papers", "--json")
    assert run.returncode == 0, run.stderr
    rows = {r["id"]: r for r in json.loads(run.stdout)}
    assert rows["toy"]["statements"] == 1 and rows["toy"]["findings"] == 0
    assert "masking" in rows  # the installed pack is still there


def test_check_shows_the_new_packs_witnesses(toy_path, tmp_path):
    out = tmp_path / "check.json"
    run = _maskverify(toy_path, "check", "--paper", "toy", "--no-progress", "-n", "1", "--json", str(out))
    assert run.returncode == 0, run.stdout + run.stderr
    assert any(line.startswith("toy:lemma.mean") for line in run.stdout.splitlines()), run.stdout
    (row,) = json.loads(out.read_text())["statements"]
    assert row["id"] == "toy:lemma.mean" and row["ref"] == "Lemma 1"
    assert row["witnesses"]["symbolic"] == "ok 1" and row["witnesses"]["reference"] == "ok 1"
    assert "2 witness tests: 2 passed, 0 failed" in run.stdout


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
