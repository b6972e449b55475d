"""The check runner: it tabulates what pytest reports, and a failure shows as a failure."""
from __future__ import annotations

import json
import subprocess
import sys

from numerics.checkrun import Row, WitnessResult, format_table
from theory.catalogue import CATALOGUE


def _result(outcome, witness="fast", error=None):
    return WitnessResult("verify/x.py::t", "lemma.relu_moment1", witness, outcome, 0.1, error=error)


def test_cells_report_failures_findings_and_passes():
    row = Row("lemma.relu_moment1", "Theorem 4.2")
    for r in (_result("passed", error=1e-15), _result("failed", error=3e-12),
              _result("xfail", "montecarlo"), _result("passed", "montecarlo")):
        row.add(r)
    assert row.cell("fast") == "FAIL 1/2"
    assert row.cell("montecarlo") == "ok 1 + finding 1"
    assert row.cell("symbolic") == "-"
    assert row.error == 3e-12
    assert "FAIL 1/2" in format_table([row])


def test_cli_check_runs_the_catalogue_and_writes_json(tmp_path):
    out = tmp_path / "check.json"
    proc = subprocess.run([sys.executable, "-m", "numerics.cli", "check", "-k", "latex",
                           "--json", str(out), "--no-progress"], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "lemma.mask_moment2" in proc.stdout
    data = json.loads(out.read_text())
    cells = {st["id"]: st["witnesses"]["latex"] for st in data["statements"]}
    assert cells == {sid: "ok 1" for sid in CATALOGUE}
