"""``maskverify amplification-train``: bad input is one line on stderr and exit status 2; a tiny
run writes its JSON, CSV and PNG and prints one summary line.  Slow tier: building the CLI parser
imports every pack (~5 s of CPU); the default tier's bad-input check of this command is
tests/test_cli.py's list."""
from __future__ import annotations

import json

import pytest

from numerics.app.cli import main

pytestmark = pytest.mark.slow

BAD = [["--m", "3"], ["--eta", "0.5"], ["--sigma", "0"], ["--steps", "10", "--every", "3"], ["--d", "1"]]


@pytest.mark.parametrize("argv", BAD, ids=[" ".join(a) for a in BAD])
def test_bad_input_is_one_line_and_exit_2(argv, tmp_path, capsys):
    try:
        code = main(["amplification-train", *argv, "--out", str(tmp_path)])
    except SystemExit as exc:
        code = exc.code
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and "Traceback" not in err and err.startswith("maskverify"), err


def test_missing_out_directory(tmp_path, capsys):
    assert main(["amplification-train", "--out", str(tmp_path / "missing")]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_tiny_run_writes_json_csv_png(tmp_path, capsys):
    code = main(["amplification-train", "--d", "30", "--n", "40", "--m", "8", "--steps", "4", "--every", "2",
                 "--n-test", "50", "--seeds", "2", "--seed", "3", "--no-progress", "--out", str(tmp_path)])
    assert code == 0
    res = json.loads((tmp_path / "amplification_train.json").read_text())
    assert res["steps"] == [0, 2, 4] and len(res["test"]) == 2
    lines = (tmp_path / "amplification_train.csv").read_text().splitlines()
    assert lines[0] == "seed,step,train,test,clean" and len(lines) == 1 + 2 * 3 and lines[1].startswith("3,0,")
    assert (tmp_path / "amplification_train.png").stat().st_size > 0
    assert "test accuracy" in capsys.readouterr().out
