"""Helpers of the tests that run ``maskverify`` as a user would on a pack that is not part of this
checkout (``tests/test_new_pack.py``, ``tests/test_add_paper.py``): a copy of the repository,
the metadata ``pip install -e .`` would add, and a subprocess on a chosen ``PYTHONPATH``.

``pip install`` itself is never run: it would replace this environment's install of maskverify
(even with ``--prefix`` pip uninstalls the copy it finds first)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def copy_of_the_repository(dest: Path) -> Path:
    """Copy this checkout's tracked and untracked-but-not-ignored files into ``dest`` (so that
    the working tree's code is what runs) and return it."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")
    for rel in filter(None, listed):
        src = ROOT / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)
    return dest


def installed(where: Path, name: str, entry: str) -> Path:
    """What ``pip install -e .`` adds to the metadata of a distribution ``name`` whose pack entry
    point is ``entry`` (``id = module:PACK``): a ``.dist-info`` in ``where``, to put on the path."""
    info = where / f"{name}-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1.0\n")
    (info / "entry_points.txt").write_text(f"[maskverify.papers]\n{entry}\n")
    return where


def run(cwd: Path, path: list[Path], *argv: str, timeout: float = 900) -> subprocess.CompletedProcess:
    """``python ARGV`` in ``cwd`` with ``PYTHONPATH`` = ``path``."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(map(str, path))}
    return subprocess.run([sys.executable, *argv], cwd=cwd, capture_output=True, text=True, env=env,
                          timeout=timeout)


def maskverify(cwd: Path, path: list[Path], *args: str) -> subprocess.CompletedProcess:
    """``maskverify ARGS`` (as ``python -m numerics.app.cli``) in ``cwd`` on ``path``."""
    return run(cwd, path, "-m", "numerics.app.cli", *args)
