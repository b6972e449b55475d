"""``maskverify privacy``: a tiny run writes every file, --resume reuses the finished runs,
refusals are one clear message (UsageError, exit status 2 through ``maskverify``'s main)."""
from __future__ import annotations

import argparse
import csv
import json

import pytest
import torch

from numerics.core.cliargs import UsageError
from numerics.masking.privacy import cli
from numerics.masking.privacy import experiment as ex

TINY = ["--model", "mlp", "--kappa", "0", "0.5", "1", "1.5", "--seeds", "2", "--epochs", "1", "--no-progress"]


@pytest.fixture(autouse=True)
def keep_threads():
    before = torch.get_num_threads()
    yield
    torch.set_num_threads(before)


def _run(argv):
    parser = argparse.ArgumentParser()
    cli.add_subcommand(parser.add_subparsers())
    args = parser.parse_args(["privacy", *argv])
    return args.func(args)


def test_a_tiny_accuracy_run_writes_every_file(tmp_path, capsys):
    assert _run(["accuracy", *TINY, "--out", str(tmp_path), "--threads", "1"]) == 0
    for name in ("fig4.png", "fig4.pdf", "accuracy.json", "accuracy.csv", ex.STORE):
        assert (tmp_path / name).stat().st_size > 0
    summary = json.loads((tmp_path / "accuracy.json").read_text())
    assert summary["settings"]["kappas"] == [0.0, 0.5, 1.0, 1.5] and summary["settings"]["data"] is None
    assert {c["id"] for c in summary["claims"]} == {"emp.fig4.falls.mlp"}        # no kappa 0.2: no small-kappa claim
    with open(tmp_path / "accuracy.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 8 and all(0 <= float(r["test_accuracy"]) <= 1 for r in rows)
    assert "emp.fig4.falls.mlp" in capsys.readouterr().out


def test_resume_reuses_finished_runs_and_refuses_to_overwrite(tmp_path):
    assert _run(["accuracy", *TINY, "--out", str(tmp_path)]) == 0
    before = json.loads((tmp_path / ex.STORE).read_text())
    with pytest.raises(UsageError, match="pass --resume"):
        _run(["accuracy", *TINY, "--out", str(tmp_path)])
    assert _run(["accuracy", *TINY, "--out", str(tmp_path), "--resume", "--seeds", "3"]) == 0
    after = json.loads((tmp_path / ex.STORE).read_text())["runs"]
    assert len(after) == 12 and all(after[k] == v for k, v in before["runs"].items())


def test_a_tiny_dp_run_compares_at_matched_accuracy(tmp_path):
    argv = ["dp", "--model", "cnn", "improved", "--kappa", "0", "1", "3", "--noise", "1", "--seeds", "2",
            "--epochs", "1", "--no-progress", "--out", str(tmp_path)]
    assert _run(argv) == 0
    s = json.loads((tmp_path / "dp.json").read_text())
    assert {c["id"] for c in s["claims"]} == {"emp.fig10.closer.precision", "emp.fig10.closer.recall"}
    assert s["curves"]["cnn"]["epsilon"][0]["epsilon"] > 0
    assert (tmp_path / "fig9.png").exists() and (tmp_path / "fig10.png").exists()


@pytest.mark.parametrize("argv, match", [
    (["accuracy", "--kappa", "0.2", "0.5", "1"], "include 0"),
    (["accuracy", "--kappa", "0", "1"], "at least 3 kappas"),
    (["attack", "--data", "/nonexistent/cifar"], "not a directory"),
])
def test_bad_input_is_a_usage_error(tmp_path, argv, match):
    with pytest.raises(UsageError, match=match):
        _run([*argv, "--out", str(tmp_path), "--no-progress"])


def test_the_seeds_must_allow_a_test():
    with pytest.raises(SystemExit):
        _run(["accuracy", "--seeds", "1"])


@pytest.mark.slow
def test_the_quick_fig4_producer_returns_its_png_first(tmp_path):
    """The report's quick Fig. 4 (24 short trainings: slow tier)."""
    names = [f.name for f in cli.FIGURES]
    assert names == ["fig4", "fig5", "fig6_7", "fig9", "fig10"]
    torch.set_num_threads(1)
    paths = cli.FIGURES[0].produce(tmp_path, True, False)
    assert [p.name for p in paths] == ["fig4.png", "fig4.pdf"] and all(p.stat().st_size > 0 for p in paths)
