"""Experiment 2's pieces and command: the input laws, the teacher against its definition, a tiny run
with resume, and bad arguments."""
from __future__ import annotations

import argparse
import json
import math

import numpy as np
import pytest

from numerics.core.cliargs import UsageError
from numerics.meanfield import exp2


def _parser():
    p = argparse.ArgumentParser()
    exp2.add_subcommand(p.add_subparsers())
    return p


def test_input_laws():
    rng = np.random.default_rng(0)
    S = exp2.inputs(200, 7, "sphere", rng)
    assert np.allclose(np.linalg.norm(S, axis=1), math.sqrt(7), rtol=1e-14)
    G = exp2.inputs(20000, 3, "gaussian", rng)
    assert abs(G.mean()) <= 5 * math.sqrt(1 / G.size)                  # N(0, 1) entries, 5 sigma
    with pytest.raises(ValueError):
        exp2.inputs(3, 2, "cube", rng)


def test_teacher_is_its_definition():
    """y(x) = (1/5) sum_i c_i relu(x^T W_i x / d), written with the d x d matrices W_i."""
    rng = np.random.default_rng(1)
    d = 4
    X = rng.standard_normal((6, d))
    c, W = rng.choice([-1.0, 1.0], 5), rng.standard_normal((5, d * d))
    want = [sum(c[i] * max(x @ W[i].reshape(d, d) @ x / d, 0.0) for i in range(5)) / 5 for x in X]
    assert np.allclose(exp2.teacher(X, c, W), want, rtol=1e-13, atol=1e-15)


def test_tiny_run_and_resume(tmp_path, capsys):
    argv = ["meanfield-exp2", "--n", "10", "20", "--m", "8", "--d", "4", "--delta", "1", "--steps", "40", "--every", "10",
            "--seeds", "1", "--out", str(tmp_path), "--no-progress"]
    args = _parser().parse_args(argv)
    assert args.func(args) == 0
    data = json.loads((tmp_path / "exp2.json").read_text())
    assert set(data["runs"]) == {f"{mo}/n={n}/seed=0" for mo in exp2.MODELS for n in (10, 20)}
    assert all(r["train_mse"][-1] < r["train_mse"][0] for r in data["runs"].values())
    for name in ("exp2.csv", "exp2.png", "exp2_fig6.png"):
        assert (tmp_path / name).stat().st_size > 0
    assert "test MSE" in capsys.readouterr().out
    args = _parser().parse_args(argv + ["--resume", "--inputs", "sphere"])
    with pytest.raises(UsageError, match="other settings"):
        args.func(args)


@pytest.mark.parametrize("argv", [["--m", "0"], ["--delta", "0"], ["--inputs", "cube"], ["--loss", "x"]])
def test_bad_arguments_exit_2(argv):
    with pytest.raises(SystemExit) as exc:
        _parser().parse_args(["meanfield-exp2", *argv])
    assert exc.value.code == 2


def test_not_a_directory(tmp_path):
    """--out naming a file is refused when the command line is parsed (a missing folder is made)."""
    (tmp_path / "file").write_text("x")
    with pytest.raises(SystemExit) as exc:
        _parser().parse_args(["meanfield-exp2", "--out", str(tmp_path / "file")])
    assert exc.value.code == 2
