"""``formulas.tex`` compiles into a non-trivial PDF (``numerics.app.latex_cmd.compile_pdf``).

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
from theory.masking.catalogue import CATALOGUE
from theory.core.latex import MASTER, export
from theory.masking.paper import PAPER


def test_formulas_tex_compiles_to_a_pdf(tmp_path):
    if find_engine() is None:
        if os.environ.get("CI"):
            pytest.fail("CI is set but " + no_engine_message())
        pytest.skip("no TeX engine (latexmk or pdflatex) on PATH and CI unset: " + no_engine_message())
    export(PAPER, tmp_path)
    pdf = compile_pdf(tmp_path / MASTER)
    assert pdf == tmp_path / "formulas.pdf" and pdf.exists()
    assert not list(tmp_path.glob("*.aux")), "auxiliary files must stay in the build directory"
    assert pdf.read_bytes().startswith(b"%PDF")
    if shutil.which("pdfinfo"):
        info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
        pages = int(re.search(r"^Pages:\s+(\d+)", info, re.M)[1])
        assert pages >= len(CATALOGUE) // 3, f"{pages} pages for {len(CATALOGUE)} statements"
    else:
        assert pdf.stat().st_size > 50_000, f"{pdf.stat().st_size} bytes"
