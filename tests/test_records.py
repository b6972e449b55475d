"""The code version committed task records are keyed by (``execution.closure_version``): the
task's module and every module of its pack that it imports, directly or not, by their code, so
that a record goes stale when what the task computes may have changed and not when prose did."""
from __future__ import annotations

import importlib
import sys

from numerics.core import execution


def _package(root, name, helper_code):
    pkg = root / name / "sub"
    pkg.mkdir(parents=True)
    (root / name / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "task.py").write_text('"""A task."""\nfrom . import helper\n\n\ndef run(p):\n    return helper.f(p)\n')
    (pkg / "helper.py").write_text(helper_code)
    (root / name / "other.py").write_text("X = 1\n")


def _version(root, name, monkeypatch):
    monkeypatch.syspath_prepend(str(root))
    for mod in [m for m in sys.modules if m.split(".")[0] == name]:
        del sys.modules[mod]
    importlib.invalidate_caches()
    task = importlib.import_module(f"{name}.sub.task")
    return execution.closure_version(task.run)


def test_a_helper_edit_makes_the_version_change_and_prose_does_not(tmp_path, monkeypatch):
    base = '"""Helper."""\n\n\ndef f(p):\n    return p["x"] + 1\n'
    root = tmp_path / "same"
    _package(root, "pkg_same", base)
    first = _version(root, "pkg_same", monkeypatch)
    (root / "pkg_same" / "sub" / "helper.py").write_text(
        '"""Reworded."""\n# a comment\n\n\ndef f(p):\n    """doc"""\n    return p["x"] + 1  # why\n')
    assert _version(root, "pkg_same", monkeypatch) == first
    (root / "pkg_same" / "sub" / "helper.py").write_text(base.replace("+ 1", "+ 2"))
    assert _version(root, "pkg_same", monkeypatch) != first
    assert first.startswith(execution.module_version(execution.run).split("+")[0] + "+closure-")
