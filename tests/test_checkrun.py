"""The check runner: it tabulates what pytest reports, and a failure shows as a failure."""
from __future__ import annotations

import json
import subprocess
import sys

from numerics.app.checkrun import Row, WitnessResult, format_table
from theory.masking.catalogue import CATALOGUE


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
    proc = subprocess.run([sys.executable, "-m", "numerics.app.cli", "check", "--paper", "masking", "-k", "latex",
                           "--json", str(out), "--no-progress"], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "masking:lemma.mask_moment2" in proc.stdout
    data = json.loads(out.read_text())
    cells = {st["id"]: st["witnesses"]["latex"] for st in data["statements"]}
    assert cells == {f"masking:{sid}": "ok 1" for sid in CATALOGUE}


def test_results_of_xdist_workers_are_tabulated_like_serial_ones():
    """The statement and witness of each test travel in its report (``verify.plugin``), so two
    workers give the same rows as one."""
    from numerics.app import checkrun
    from numerics.core import registry

    pack = [registry.get("masking")]
    rows = {}
    for workers in (1, 2):
        code, results = checkrun.run(pack, select="latex or orthant", progress=False, workers=workers)
        assert code == 0
        rows[workers] = {r.statement: dict(r.cells) for r in checkrun.table(results, pack)}
    assert rows[1] == rows[2]
    assert rows[1]["masking:lemma.relu_moment2"]  # something was tabulated

