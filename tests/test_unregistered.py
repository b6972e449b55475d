"""A pack declared in a ``pyproject.toml`` but not installed (its distribution not reinstalled
since the entry-point line was added) is named, with the reinstall it needs: by the
unknown-paper error of every command, and by a warning of ``maskverify papers`` on stderr."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = """\
[project]
name = "arccos-pack"

[project.entry-points."maskverify.papers"]
arccos = "arccos.pack:PACK"
"""


def _maskverify(cwd, *args):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-m", "numerics.app.cli", *args], cwd=cwd, capture_output=True,
                          text=True, env=env, timeout=300)


@pytest.fixture
def distribution(tmp_path):
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    return tmp_path


def test_unknown_paper_names_the_reinstall(distribution):
    run = _maskverify(distribution, "check", "--paper", "arccos")
    assert run.returncode == 2 and run.stdout == ""
    (line,) = run.stderr.splitlines()
    assert line.startswith("maskverify check: error: unknown paper 'arccos'; known: ")
    assert f"declared in {distribution / 'pyproject.toml'}" in line and "`pip install -e .`" in line


def test_papers_warns_about_a_declared_pack_it_leaves_out(distribution):
    run = _maskverify(distribution, "papers")
    assert run.returncode == 0
    assert "arccos" not in run.stdout and "masking:" in run.stdout
    assert run.stderr.splitlines() == [
        f"maskverify papers: warning: 'arccos' is declared in {distribution / 'pyproject.toml'} but not "
        "installed (left out below): run `pip install -e .`"]


def test_an_unknown_paper_nowhere_declared_has_no_hint(tmp_path):
    run = _maskverify(tmp_path, "check", "--paper", "nosuch")
    assert run.returncode == 2 and "declared" not in run.stderr and "pip install" not in run.stderr
    run = _maskverify(tmp_path, "papers")
    assert run.returncode == 0 and run.stderr == ""
