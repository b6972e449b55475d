"""A user's paper as a distribution of its own, exercised as the user has it (issue 36).

``maskverify new wdist --dist DIR`` writes the distribution; the test then grows it as the guide
does with a finding (an ``xfail(strict=True)`` witness citing ``(wdist:E1)``, its erratum listing
the test by its importable id and reproducing it with ``pytest --pyargs``) and a slow-tier witness.

- Default tier (the distribution on ``PYTHONPATH`` with the metadata ``pip install -e .`` writes,
  ``tests/_clone.py``; about 20 s of subprocesses): the check runner's inventory names the
  distribution's tests by their importable ids and the reason of a slow-tier witness is a ``pytest
  --pyargs`` command.  Slow tier: the erratum's reproducer runs as printed from the repository root
  and from the distribution's root.
- Slow tier: the distribution really installed (``pip install --no-deps --no-build-isolation
  --no-index -e DIR``, offline) into a throwaway virtual environment layered over this one (its
  ``.pth`` adds this environment's site-packages, so nothing of it is replaced), and, in that
  environment, as subprocesses from the repository root: the meta-tests (``tests/test_errata.py``,
  ``tests/test_verdicts.py``, ``tests/test_sources.py``), ``maskverify check`` over every pack (every
  ``pytest`` command its reasons print is run, collecting, from the repository root) and ``pytest
  verify/`` (which collects the distribution's witnesses too, and says each pack's time).
"""
from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import pytest
from _clone import ROOT, installed, maskverify, run  # tests/ is on sys.path

PKG = "maskverify_wdist"
ARGS = ["--title", "A distribution of its own", "--authors", "A. User", "--reference", "arXiv 0000.00001"]
ERRATA_TEST = f"{PKG}.verify.test_s1_mean_errata::test_the_printed_mean"
REPRODUCE = f"pytest --pyargs {PKG}.verify.test_s1_mean_errata -rxX"

FINDING = '''\
import pytest

pytestmark = [pytest.mark.statement("lemma.mean"), pytest.mark.witness("reference")]


@pytest.mark.xfail(strict=True, raises=AssertionError, reason="the mean as printed, 2 mu, is wrong (wdist:E1)")
def test_the_printed_mean():
    """A planted misprint: E z = mu for z ~ N(mu, s^2), printed as 2 mu."""
    mu = 0.5
    assert mu == 2 * mu
'''

SLOW = '''\
import pytest

pytestmark = [pytest.mark.statement("lemma.mean"), pytest.mark.witness("reference"), pytest.mark.slow]


def test_the_mean_at_a_large_scale(record):
    import mpmath as mp

    with mp.workdps(40):
        value = mp.quad(lambda x: x * mp.npdf(x, 7, 3), [-mp.inf, 7, mp.inf])
    record(error=float(abs(value - 7) / 7))
    assert abs(value - 7) < mp.mpf(10) ** -30
'''

ERRATUM = f'''
[[erratum]]
id = "E1"
title = "The mean is printed as 2 mu"
statements = ["lemma.mean"]
paper = "E z = 2 mu for z ~ N(mu, s^2)"
wrong = "E z = mu"
reproduce = ["{REPRODUCE}"]
tests = ["{ERRATA_TEST}"]
'''


def _grow(dist: Path) -> None:
    verify = dist / PKG / "verify"
    (verify / "test_s1_mean_errata.py").write_text(FINDING)
    (verify / "test_s1_mean_slow.py").write_text(SLOW)
    errata = dist / PKG / "notes" / "errata.toml"
    errata.write_text(errata.read_text() + ERRATUM)


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    """``maskverify new wdist --dist DIR``, grown by a finding and a slow witness, its notes
    regenerated: (DIR, the PYTHONPATH on which it is 'installed': the repository, its
    metadata, DIR)."""
    out = tmp_path_factory.mktemp("dist") / "wdist"
    made = maskverify(ROOT, [ROOT], "new", "wdist", *ARGS, "--dist", str(out))
    assert made.returncode == 0, made.stdout + made.stderr
    _grow(out)
    meta = installed(tmp_path_factory.mktemp("site"), PKG, f"wdist = {PKG}.pack:PACK")
    path = [ROOT, meta, out]
    notes = maskverify(out, path, "notes", "--paper", "wdist")
    assert notes.returncode == 0, notes.stdout + notes.stderr
    return out, path


def test_the_inventory_and_reasons_name_a_distributions_tests_as_importable(dist):
    """In a fresh process: every test of the distribution is named ``maskverify_wdist.verify.
    test_x::test`` and the slow witness's place is a ``pytest --pyargs`` command; the errata's
    Markdown says where the reproducer runs from."""
    out, path = dist
    code = textwrap.dedent('''
        import json
        from numerics.app import checkrun, verdicts
        from numerics.core import registry
        pack = registry.get("wdist")
        items = checkrun.inventory([pack])
        where = checkrun.elsewhere(items, "wdist:lemma.mean", {"default tier"})
        print(json.dumps({"nodes": sorted({n for *_, n in items}),
                          "reasons": [verdicts._where(w.where, [w.what]) for w in where]}))
    ''')
    got = run(ROOT, path, "-c", code)
    assert got.returncode == 0, got.stderr[-3000:]
    import json

    data = json.loads(got.stdout.strip().splitlines()[-1])
    assert data["nodes"] and all(n.startswith(f"{PKG}.verify.test_") for n in data["nodes"]), data["nodes"]
    assert ERRATA_TEST in data["nodes"]
    assert data["reasons"] == [f"slow tier: pytest --pyargs '{PKG}.verify.test_s1_mean_slow::"
                               "test_the_mean_at_a_large_scale' -m slow"]
    md = (out / PKG / "notes" / "errata.md").read_text()
    assert "Reproduce** (from the distribution's root; `pytest --pyargs` lines from any folder)" in md


@pytest.mark.slow
@pytest.mark.parametrize("where", ["repository", "distribution"])
def test_the_errata_reproducer_runs_as_printed_from_either_root(dist, where):
    out, path = dist
    argv = shlex.split(REPRODUCE)
    got = run(ROOT if where == "repository" else out, path, "-m", "pytest", "-p", "no:cacheprovider", "-n", "0",
              *argv[1:])
    assert got.returncode == 0, got.stdout[-3000:]
    assert "XFAIL" in got.stdout and "(wdist:E1)" in got.stdout


# ---------------------------------------------------------------------------------------
# Installed with pip into a throwaway environment
# ---------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def env(dist, tmp_path_factory):
    """A virtual environment layered over this one (without pip of its own; a ``.pth`` adds this
    environment's site-packages) with the distribution installed in it by pip, offline."""
    out, _ = dist
    where = tmp_path_factory.mktemp("env") / "venv"
    made = subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    python = where / "bin" / "python"
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    base = sysconfig.get_paths()["purelib"]
    Path(site, "_maskverify_base.pth").write_text(f"import site; site.addsitedir({base!r})\n")
    pip = subprocess.run([str(python), "-m", "pip", "install", "--no-deps", "--no-build-isolation", "--no-index",
                          "-q", "-e", str(out)], capture_output=True, text=True, timeout=900)
    assert pip.returncode == 0, pip.stdout + pip.stderr
    return python


def _in(env, cwd, *argv, timeout=1800):
    environ = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTEST_XDIST_WORKER")}
    return subprocess.run([str(env), *argv], cwd=cwd, capture_output=True, text=True, env=environ, timeout=timeout)


@pytest.mark.slow
def test_the_meta_tests_pass_with_the_distribution_installed(env):
    got = _in(env, ROOT, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-n", "0", "-rs", "tests/test_errata.py",
              "tests/test_verdicts.py", "tests/test_sources.py")
    assert got.returncode == 0, got.stdout[-4000:]
    listed = _in(env, ROOT, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-n", "0", "--co",
                 "tests/test_errata.py", "tests/test_sources.py")
    assert "[wdist]" in listed.stdout  # the distribution is among the packs judged


@pytest.mark.slow
def test_check_prints_commands_that_run_from_the_repository_root(env, tmp_path):
    got = _in(env, ROOT, "-m", "numerics.app.cli", "check", "--no-progress", "-n", "2", "-k", "latex or errata")
    assert got.returncode in (0, 1), got.stdout[-3000:] + got.stderr[-3000:]
    assert any(line.startswith("wdist:lemma.mean") for line in got.stdout.splitlines()), got.stdout
    commands = re.findall(r"(pytest (?:--pyargs )?'[^']+') -m (slow|gpu)", got.stdout)
    assert commands, got.stdout
    for command, marker in commands:
        assert command.startswith(("pytest 'verify/", f"pytest --pyargs '{PKG}.")), command
    for command, marker in dict.fromkeys(commands):  # each runs (collecting) from the repository root
        argv = shlex.split(command)[1:]
        collected = _in(env, ROOT, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--co", "-n", "0", *argv,
                        "-m", marker)
        assert collected.returncode == 0, f"{command}\n{collected.stdout[-2000:]}"  # 5: nothing collected


@pytest.mark.slow
def test_pytest_verify_collects_the_distributions_witnesses_and_times_each_pack(env):
    got = _in(env, ROOT, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-n", "2", "verify/", "-k",
              "latex or mean")
    assert got.returncode == 0, got.stdout[-4000:]
    assert "maskverify: time per pack (default tier" in got.stdout
    lines = {m.group(1): int(m.group(2)) for m in re.finditer(r"^(\w+): (\d+) tests, [\d.]+ s", got.stdout, re.M)}
    assert {"masking", "meanfield", "amplification", "wdist"} <= set(lines), got.stdout[-3000:]
    assert lines["wdist"] >= 5  # symbolic, 3 reference points ... and the finding, default tier


@pytest.mark.slow
def test_the_header_says_where_a_distributions_node_ids_are_rooted(env, dist):
    """pytest names a test outside the root folder relative to the folder it was collected from; the
    header's line names that folder, and a collected id prefixed with it runs from the repository root."""
    out, _ = dist
    got = _in(env, ROOT, "-m", "pytest", "-p", "no:cacheprovider", "--co", "-n", "0", "verify/", "-k", "mean")
    assert got.returncode == 0, got.stdout[-3000:]
    folder = re.search(r"^maskverify: pack wdist's witnesses from (\S+) ", got.stdout, re.M)
    assert folder, got.stdout[:2000]
    listed = _in(env, ROOT, "-m", "pytest", "-p", "no:cacheprovider", "--co", "-q", "-n", "0", "verify/", "-k", "mean")
    bare = [line for line in listed.stdout.splitlines() if "::" in line and not line.startswith("verify/")]
    assert bare, listed.stdout[-2000:]
    again = _in(env, ROOT, "-m", "pytest", "-p", "no:cacheprovider", "--co", "-q", "-n", "0",
                f"{folder.group(1)}{os.sep}{bare[0]}")
    assert again.returncode == 0 and bare[0].split("::")[-1] in again.stdout, again.stdout[-2000:]
