"""``maskverify new`` writes a pack that works as written, in both layouts, run as a user runs it:
in a copy of this repository (its tracked and untracked-but-not-ignored files, so that the
working tree's code is what runs; the pack never lands in this checkout) and as a distribution
of its own in a temporary folder.

``pip install -e .`` is not run (it would replace the environment's own install of maskverify):
what it contributes, the pack's entry point in installed metadata, is written by hand as the
``.dist-info/entry_points.txt`` that pip writes, on ``PYTHONPATH``.  Before it, the pack is
declared but unknown, and the commands say which reinstall it needs.

Default tier: the files written, the one line added to pyproject.toml, the reinstall hint
before it, the import without installing, nothing overwritten.  Slow tier (about a minute of
subprocesses): after the 'install', ``pytest verify/<id>``, ``maskverify check --paper <id>``
and ``maskverify notes --check`` in both layouts, and the meta-tests of ``tests/`` (layout,
errata, notes) on the new pack.
"""
from __future__ import annotations

import pytest
from _clone import ROOT, copy_of_the_repository, installed
from _clone import maskverify as _cli
from _clone import run as _run

from numerics.core import registry

#: the packs this test writes are named so that no user's pack (a ``maskverify new toy2`` in the
#: same checkout, as the guide suggests) collides with them: ``new`` refuses an installed id
ARGS = ["--title", "A toy paper", "--authors", "A. Author, B. Author", "--reference", "arXiv 0000.00000"]
IN_REPO = {"theory/newprobe/__init__.py", "theory/newprobe/paper.py", "numerics/newprobe/__init__.py",
           "numerics/newprobe/pack.py", "verify/newprobe/__init__.py", "verify/newprobe/test_latex.py",
           "verify/newprobe/test_s1_mean_symbolic.py", "verify/newprobe/test_s1_mean_reference.py",
           "notes/newprobe/errata.toml", "notes/newprobe/errata.md", "notes/newprobe/latex/lemma_mean.tex",
           "notes/newprobe/latex/formulas.tex", "notes/newprobe/sources.toml", "notes/newprobe/sources.md"}
PKG = "maskverify_newprobedist"
DIST = {"pyproject.toml", f"{PKG}/__init__.py", f"{PKG}/paper.py", f"{PKG}/pack.py", f"{PKG}/verify/__init__.py",
        f"{PKG}/verify/test_latex.py", f"{PKG}/verify/test_s1_mean_symbolic.py",
        f"{PKG}/verify/test_s1_mean_reference.py", f"{PKG}/notes/errata.toml", f"{PKG}/notes/errata.md",
        f"{PKG}/notes/latex/lemma_mean.tex", f"{PKG}/notes/latex/formulas.tex", f"{PKG}/notes/sources.toml",
        f"{PKG}/notes/sources.md"}


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    """A copy of this repository in which ``maskverify new newprobe`` ran: (copy, its output, the
    path on which the pack is 'installed')."""
    copy = copy_of_the_repository(tmp_path_factory.mktemp("clone"))
    run = _cli(copy, [copy], "new", "newprobe", *ARGS)
    assert run.returncode == 0, run.stderr
    meta = installed(tmp_path_factory.mktemp("site"), "maskverify_newprobe", "newprobe = numerics.newprobe.pack:PACK")
    return copy, run, [copy, meta]


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    """``maskverify new newprobedist --dist DIR``: (DIR, its output, the path on which it is 'installed')."""
    out = tmp_path_factory.mktemp("dist") / "newprobedist"
    run = _cli(ROOT, [ROOT], "new", "newprobedist", *ARGS, "--dist", str(out))
    assert run.returncode == 0, run.stderr
    meta = installed(tmp_path_factory.mktemp("site"), "maskverify_newprobedist", f"newprobedist = {PKG}.pack:PACK")
    return out, run, [ROOT, meta, out]  # out: what the editable install puts on the path


def test_new_writes_the_pack_and_one_line_of_pyproject(repo):
    copy, run, _ = repo
    lines = [line.removeprefix("wrote ") for line in run.stdout.splitlines() if line.startswith("wrote ")]
    written = set(lines)
    assert written == IN_REPO and all((copy / rel).is_file() for rel in IN_REPO)
    assert len(lines) == len(written), f"a file reported twice: {sorted(p for p in written if lines.count(p) > 1)}"
    before, after = (ROOT / "pyproject.toml").read_text().splitlines(), (copy / "pyproject.toml").read_text().splitlines()
    added = [line for line in after if line not in before]
    assert added == ['newprobe = "numerics.newprobe.pack:PACK"'] and len(after) == len(before) + 1
    assert registry.declared(copy / "pyproject.toml")["newprobe"] == "numerics.newprobe.pack:PACK"
    assert "  pip install -e .\n" in run.stdout  # the one command that makes it visible
    assert not (ROOT / "verify" / "newprobe").exists(), "the toy pack must not land in this checkout"


def test_before_the_reinstall_the_pack_is_named_with_the_command(repo):
    copy, _, _ = repo
    run = _cli(copy, [copy], "check", "--paper", "newprobe")
    assert run.returncode == 2 and "unknown paper 'newprobe'" in run.stderr and "`pip install -e .`" in run.stderr
    run = _cli(copy, [copy], "papers")
    assert run.returncode == 0 and "'newprobe' is declared in" in run.stderr


def test_the_new_pack_imports_without_installing(repo):
    copy, _, _ = repo
    run = _run(copy, [copy], "-c", "from numerics.newprobe.pack import PACK; "
               "print(PACK.id, [s.id for s in PACK.paper.statements], PACK.verify_dir.relative_to(PACK.errata.parents[2]))")
    assert run.returncode == 0 and run.stdout.split() == ["newprobe", "['lemma.mean']", "verify/newprobe"], run.stderr


@pytest.mark.slow
@pytest.mark.parametrize("layout", ["in-repository", "distribution"])
def test_its_witnesses_and_check_pass_as_written(layout, request):
    where, _, path = request.getfixturevalue("repo" if layout == "in-repository" else "dist")
    pid, tests = ("newprobe", "verify/newprobe") if layout == "in-repository" else ("newprobedist", f"{PKG}/verify")
    run = _run(where, path, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-n", "0", tests)
    assert run.returncode == 0 and "17 passed" in run.stdout, run.stdout[-2000:]
    run = _cli(where, path, "check", "--paper", pid, "--no-progress", "-n", "1")
    assert run.returncode == 0, run.stdout + run.stderr
    (row,) = [line.split() for line in run.stdout.splitlines() if line.startswith(f"{pid}:lemma.mean")]
    assert row[1:7] == ["Lemma", "1", "holds", "ok", "1", "ok"], row  # verdict, symbolic ok 1, reference ok ...
    assert "0 failed" in run.stdout
    run = _cli(where, path, "notes", "--check", "--paper", pid)
    assert run.returncode == 0 and "current" in run.stdout, run.stdout


def test_the_distribution_has_only_its_own_files(dist):
    out, run, _ = dist
    assert {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file() and "__pycache__" not in p.parts} \
        == DIST
    assert registry.declared(out / "pyproject.toml") == {"newprobedist": f"{PKG}.pack:PACK"}
    assert f"cd {out} && pip install -e ." in run.stdout
    lines = [line.removeprefix("wrote ") for line in run.stdout.splitlines() if line.startswith("wrote ")]
    assert sorted(lines) == sorted(DIST), "each file the command writes is reported once"


def test_new_overwrites_nothing(repo):
    copy, _, _ = repo
    run = _cli(copy, [copy], "new", "newprobe", *ARGS)
    assert run.returncode == 2 and "already declared" in run.stderr


@pytest.mark.slow
def test_the_meta_tests_accept_the_new_pack(repo):
    """The layout, errata and notes meta-tests of ``tests/`` on the new pack, a pack without
    findings: they pass or say there is nothing to judge."""
    copy, _, path = repo
    run = _run(copy, path, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-n", "0", "-rs", "tests/test_layout.py",
               "tests/test_errata.py", "tests/test_notes_current.py", "-k", "newprobe")
    assert run.returncode == 0, run.stdout[-3000:]
    assert "failed" not in run.stdout and "newprobe has no strict xfail" in run.stdout
