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
