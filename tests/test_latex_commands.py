"""The command list of the LaTeX round trip (``theory.core.latex_commands``): every Greek letter,
a sample of each group, no name listed twice, and, where TeX is installed, no made-up name:
each entry is undefined in a bare ``article`` before its package is loaded and defined after
(LaTeX's own entries are defined with no package at all).
"""
from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from theory.core import latex_commands as lc

SAMPLES = {
    ("latex", "greek upper"): r"\Sigma \Gamma \Omega",
    ("latex", "operators"): r"\exp \log \sin \cosh \det \dim \ker \lim \liminf \sup \inf \max \min \arg \deg \gcd \hom \Pr",
    ("latex", "relations"): r"\le \ge \sim \approx \propto \perp \mid \in \notin",
    ("latex", "arrows"): r"\to \mapsto \Rightarrow \iff \longrightarrow",
    ("latex", "delimiters"): r"\langle \rangle \lfloor \rceil \left \right \big",
    ("latex", "accents"): r"\hat \tilde \bar \vec \dot \widehat \overline",
    ("amsmath", "operators"): r"\operatorname",
    ("amsmath", "fractions"): r"\dfrac \tfrac \binom",
    ("amsmath", "structures"): r"\text \boldsymbol \substack",
    ("amssymb", "fonts"): r"\mathbb \mathfrak",
    ("amssymb", "relations"): r"\leqslant \geqslant \lesssim \gtrsim",
    ("amssymb", "symbols"): r"\varnothing \square",
}


def test_every_greek_letter_is_allowed():
    lower = ("alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa varkappa lambda mu "
             "nu xi pi varpi rho varrho sigma varsigma tau upsilon phi varphi chi psi omega").split()
    upper = "Gamma Delta Theta Lambda Xi Pi Sigma Upsilon Phi Psi Omega".split()
    names = {"\\" + n for n in lower + upper + ["var" + u for u in upper]}
    assert names <= lc.standard() and names <= set(lc.GREEK)


@pytest.mark.parametrize("package, group", sorted(SAMPLES))
def test_a_sample_of_each_group_is_listed_there(package, group):
    assert set(SAMPLES[package, group].split()) <= set(lc.COMMANDS[package][group])


def test_names_are_commands_listed_once():
    listed = [n for groups in lc.COMMANDS.values() for names in groups.values() for n in names]
    assert len(listed) == len(set(listed)) == len(lc.PACKAGE)
    assert all(lc.NAME.match(n) for n in listed)


def test_macros_extend_the_allowed_set():
    assert r"\Var" not in lc.allowed()
    assert r"\Var" in lc.allowed(((r"\Var", r"\operatorname{Var}"),))


def _defined(names, packages) -> dict[str, bool]:
    """``{name: defined?}`` in a bare ``article`` with ``packages`` loaded, asked of TeX itself."""
    probe = "".join(r"\typeout{MV:%s:\ifdefined%s yes\else no\fi}" % (n[1:], n) for n in names)
    doc = (r"\documentclass{article}" + "".join(r"\usepackage{%s}" % p for p in packages)
           + r"\begin{document}" + probe + r"\end{document}")
    proc = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-draftmode", "-jobname=probe", doc],
                          capture_output=True, text=True, timeout=120, cwd=os.environ.get("TMPDIR", "/tmp"),
                          stdin=subprocess.DEVNULL)
    found = {}
    for line in proc.stdout.splitlines():
        if line.startswith("MV:"):
            _, name, answer = line.split(":", 2)
            found["\\" + name] = answer.strip() == "yes"
    assert set(found) == set(names), proc.stdout[-2000:]
    return found


@pytest.fixture
def tex(tmp_path, monkeypatch):
    if shutil.which("pdflatex") is None:
        if os.environ.get("CI"):
            pytest.fail("CI is set but pdflatex is not on PATH (Debian: texlive-latex-base)")
        pytest.skip("pdflatex is not on PATH and CI unset: the package attribution needs TeX")
    monkeypatch.setenv("TMPDIR", str(tmp_path))


@pytest.mark.parametrize("package, before, after", [
    ("latex", None, ()),
    ("amsmath", (), ("amsmath",)),
    ("amssymb", ("amsmath",), ("amssymb",)),
])
def test_each_entry_belongs_to_its_package(tex, package, before, after):
    """No made-up name: LaTeX's entries are defined in a bare article; amsmath's are not,
    and are with amsmath; amssymb's are neither bare nor with amsmath, and are with amssymb."""
    names = sorted(n for n, p in lc.PACKAGE.items() if p == package)
    if before is not None:
        early = _defined(names, before)
        assert not [n for n in names if early[n]], f"defined before {package} is loaded"
    late = _defined(names, after)
    assert not [n for n in names if not late[n]], f"not defined by {package}"
