"""``pytest`` as a user types it runs on every core (the plugin adds pytest-xdist's ``-n auto``
when no ``-n`` is given, and its header line says so); ``-n 0`` runs serially; runs from code
(``pytest.main``) and runs inside an xdist worker are left alone."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

HEADER = "maskverify: every core by default"


@pytest.fixture
def project(tmp_path):
    (tmp_path / "test_one.py").write_text(textwrap.dedent('''
        import os

        def test_where():
            with open("where.txt", "w") as f:
                f.write("WORKER=" + os.environ.get("PYTEST_XDIST_WORKER", "none"))
    '''))
    return tmp_path


def _pytest(project, *args, worker=None):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTEST_XDIST_WORKER", "MASKVERIFY_NO_AUTO_WORKERS")}
    if worker:
        env["PYTEST_XDIST_WORKER"] = worker
    out = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args, "test_one.py"],
                         cwd=project, env=env, capture_output=True, text=True, timeout=240)
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout + (project / "where.txt").read_text()


def test_typed_without_n_uses_every_core_and_says_so(project):
    out = _pytest(project)
    assert HEADER in out and "workers" in out and "WORKER=gw" in out  # whichever worker took it


def test_n_0_runs_serially(project):
    out = _pytest(project, "-n", "0")
    assert HEADER not in out and "WORKER=none" in out


def test_an_explicit_n_is_kept(project):
    out = _pytest(project, "-n1")
    assert HEADER not in out and "1 worker" in out


def test_inside_an_xdist_worker_nothing_is_added(project):
    out = _pytest(project, worker="gw7")
    assert HEADER not in out and "WORKER=gw7" in out


def test_pytest_main_from_code_is_left_alone(project):
    code = ("import sys, pytest; sys.exit(pytest.main(['-p', 'no:cacheprovider', 'test_one.py']))")
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_XDIST_WORKER"}
    out = subprocess.run([sys.executable, "-c", code], cwd=project, env=env, capture_output=True, text=True,
                         timeout=240)
    assert out.returncode == 0 and HEADER not in out.stdout
    assert (project / "where.txt").read_text() == "WORKER=none"
