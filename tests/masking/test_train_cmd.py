"""``maskverify train``: the short run of the issue, its files, resuming, and clear refusals."""
from __future__ import annotations

import csv
import json

import numpy as np
import pytest
import torch

from numerics.masking import training as tr
from numerics.app.cli import main

SHORT = ["train", "--kappa", "0", "0.4", "--steps", "100", "--seeds", "1", "--no-progress", "--threads", "1"]
TINY = ["--n", "30", "--d", "5", "--m", "8", "--lr", "0.02"]


@pytest.fixture(autouse=True)
def keep_threads():
    with tr.torch_threads(None):      # the CLI's --threads changes the count: restore it
        yield


def _losses(path) -> dict:
    out = {}
    with open(path) as fh:
        for row in csv.DictReader(fh):
            out.setdefault((row["seed"], float(row["kappa"])), []).append(float(row["loss"]))
    return out


def test_the_issues_short_run_writes_every_file(tmp_path, capsys):
    """`--kappa 0 0.4 --steps 100 --seeds 1` at the paper's n, d, m (seconds)."""
    assert main(SHORT + ["--out", str(tmp_path)]) == 0
    for name in ("fig3a.png", "fig3a.pdf", "fig3a.json", "fig3a.csv", "checkpoint.pt"):
        assert (tmp_path / name).stat().st_size > 0
    summary = json.loads((tmp_path / "fig3a.json").read_text())
    assert summary["config"]["n"] == 500 and summary["steps"] == 100
    assert [p["kappa"] for p in summary["per_kappa"]] == [0.0, 0.4]
    assert summary["lambda0"] > 0
    losses = _losses(tmp_path / "fig3a.csv")
    assert set(losses) == {("0", 0.0), ("0", 0.4)} and all(len(v) == 101 for v in losses.values())
    assert "NOT converged" in capsys.readouterr().out


def test_resume_extends_a_run_to_what_a_straight_run_gives(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    assert main(SHORT + TINY + ["--out", str(a), "--steps", "40", "--checkpoint-every", "15"]) == 0
    assert main(SHORT + TINY + ["--out", str(a), "--steps", "70", "--resume"]) == 0
    assert main(SHORT + TINY + ["--out", str(b), "--steps", "70"]) == 0
    la, lb = _losses(a / "fig3a.csv"), _losses(b / "fig3a.csv")
    assert la.keys() == lb.keys() and all(np.array_equal(la[k], lb[k]) for k in la)


def test_an_interrupted_run_resumes_from_its_last_checkpoint(tmp_path):
    """A checkpoint written mid-run (as after an interruption) is continued to the end."""
    cfg = tr.Config(n=30, d=5, m=8, lr=0.02, steps=70, seeds=1, kappas=(0.0, 0.4))
    run = tr.MaskedGD(cfg)
    run.advance(25)
    torch.save(dict(masked=run.state(), expected=None), tmp_path / "checkpoint.pt")
    assert main(SHORT + TINY + ["--out", str(tmp_path), "--steps", "70", "--resume"]) == 0
    straight = tr.train(cfg)
    got = _losses(tmp_path / "fig3a.csv")
    assert np.array_equal(got[("0", 0.4)], straight.loss[0, 1])


def test_expected_dynamics_are_written_beside_the_masked_runs(tmp_path):
    assert main(SHORT + TINY + ["--out", str(tmp_path), "--steps", "20", "--seeds", "2",
                                "--expected-steps", "20"]) == 0
    summary = json.loads((tmp_path / "fig3a.json").read_text())
    (row,) = summary["expected"]
    assert row["kappa"] == 0.4 and row["steps"] == 20 and "bias" in row
    assert len(_losses(tmp_path / "fig3a.csv")[("expected", 0.4)]) == 21


def test_refuses_to_overwrite_or_to_resume_another_experiment(tmp_path, capsys):
    assert main(SHORT + TINY + ["--out", str(tmp_path), "--steps", "5"]) == 0
    assert main(SHORT + TINY + ["--out", str(tmp_path), "--steps", "5"]) == 2
    assert "--resume" in capsys.readouterr().err
    assert main(SHORT + TINY + ["--out", str(tmp_path), "--steps", "5", "--resume", "--tau", "2"]) == 2
    assert "tau" in capsys.readouterr().err


@pytest.mark.parametrize("bad", [["--kappa", "-1"], ["--steps", "-3"], ["--lr", "0"], ["--seeds", "-1"],
                                 ["--device", "cuda"] if not torch.cuda.is_available() else ["--n", "0"]])
def test_bad_settings_exit_2_with_a_message(tmp_path, capsys, bad):
    try:
        code = main(SHORT + TINY + ["--out", str(tmp_path)] + bad)
    except SystemExit as exc:  # refused by the parser
        code = exc.code
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith("maskverify train") and len(err.strip().splitlines()) == 1


def test_fedavg_mode_writes_fig3b(tmp_path):
    assert main(SHORT + TINY + ["--n", "20", "--steps", "6", "--seeds", "2", "--workers", "2",
                                "--local-steps", "1", "3", "--out", str(tmp_path)]) == 0
    for name in ("fig3b.png", "fig3b.pdf", "fig3b.json", "fig3b.csv"):
        assert (tmp_path / name).stat().st_size > 0
