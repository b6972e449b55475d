"""The master document of every registered pack compiles into a non-trivial PDF
(``theory.core.latex.export_all``, ``numerics.app.latex_cmd.compile_pdf``).

Needs a TeX engine (latexmk or pdflatex; Debian: ``numerics.app.latex_cmd.DEBIAN_PACKAGES``).
Without one the test is skipped, except under CI (environment variable ``CI`` set), where
the engine is installed and its absence is a failure.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest

from numerics.app.latex_cmd import compile_pdf, find_engine, no_engine_message
from numerics.core import registry
from theory.core.latex import MASTER, export_all


def test_master_document_compiles_to_a_pdf(tmp_path):
    if find_engine() is None:
        if os.environ.get("CI"):
            pytest.fail("CI is set but " + no_engine_message())
        pytest.skip("no TeX engine (latexmk or pdflatex) on PATH and CI unset: " + no_engine_message())
    papers = [pack.paper for pack in registry.select(None)]
    export_all(papers, tmp_path)
    pdf = compile_pdf(tmp_path / MASTER)
    assert pdf == tmp_path / "formulas.pdf" and pdf.exists()
    assert not list(tmp_path.rglob("*.aux")), "auxiliary files must stay in the build directory"
    assert pdf.read_bytes().startswith(b"%PDF")
    statements = sum(len(paper.statements) for paper in papers)
    if shutil.which("pdfinfo"):
        info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
        pages = int(re.search(r"^Pages:\s+(\d+)", info, re.M)[1])
        assert pages >= statements // 3, f"{pages} pages for {statements} statements"
    else:
        assert pdf.stat().st_size > 50_000, f"{pdf.stat().st_size} bytes"


def test_a_drafted_placeholder_statement_compiles(tmp_path):
    """A statement drafted by ``maskverify new --from`` has no relation yet: its fragment says so
    instead of opening an empty ``align`` (a TeX error), and the pack's document compiles."""
    from theory.core.latex import export, statement_fragment
    from theory.core.pack import Paper
    from theory.core.statement import Kind, Statement

    st = Statement(id="thm.1", ref="Theorem 1", title="drafted from the paper", kind=Kind.IDENTITY, params=(),
                   equations=(), not_checked="no witness yet", notes="For all x, x = x.", printed=r"x = x")
    paper = Paper("drafted", "A drafted paper", ("A. Author",), "arXiv 0000.00000", (st,))
    assert r"\begin{align}" not in statement_fragment(paper, "thm.1")
    assert "No relation written yet" in statement_fragment(paper, "thm.1")
    if find_engine() is None:
        if os.environ.get("CI"):
            pytest.fail("CI is set but " + no_engine_message())
        pytest.skip("no TeX engine: the fragment is checked, its compilation is not")
    export(paper, tmp_path)
    main = next(p for p in tmp_path.rglob("*.tex") if "\\documentclass" in p.read_text())
    assert compile_pdf(main).read_bytes().startswith(b"%PDF")
