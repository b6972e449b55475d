"""Experiment 3's pieces and command: the data law (93)-(96), the random-feature embedding against
its kernel, the scalings' constants against Table 1, a tiny run with resume, and bad arguments."""
from __future__ import annotations

import argparse
import json
import math

import numpy as np
import pytest
import torch

from numerics.core.cliargs import UsageError
from numerics.core.tolerance import EPS
from numerics.meanfield import dynamics as dy
from numerics.meanfield import exp3
from numerics.meanfield.embeddings import embedded_problem, random_features
from numerics.meanfield.kernels import gram_empirical


def _parser():
    p = argparse.ArgumentParser()
    exp3.add_subcommand(p.add_subparsers())
    return p


def test_data_law():
    """(93)-(96): each of the four (x_1, x_2, y) atoms with probability 1/4 (z-test, 5 sigma), x_3.. ~ U[-1, 1]."""
    X, y = exp3.data(40000, 5, np.random.default_rng(0))
    atoms = {(1, 0, 1), (-1, 0, 1), (0, 1, -1), (0, -1, -1)}
    seen = [tuple(int(v) for v in row) for row in np.column_stack([X[:, :2], y])]
    assert set(seen) == atoms
    for a in atoms:
        frac = np.mean([s == a for s in seen])
        assert abs(frac - 0.25) <= 5 * math.sqrt(0.25 * 0.75 / len(seen))
    rest = X[:, 2:]
    assert rest.min() >= -1 and rest.max() <= 1
    assert abs(rest.mean()) <= 5 * math.sqrt(1 / 3 / rest.size)          # U[-1, 1]: mean 0, variance 1/3


def test_table1_constants():
    """alpha, rate and initial variance of each scaling at m = D = 16 against Table 1 worked by hand:
    ours (1/m, 1, 1), NTK (1/sqrt m, 1/sqrt m, 1), MF (1/m, 1, 1/m)."""
    m = 16
    want = {"ours": (1 / 16, 1.0, 1.0), "ntk": (1 / 4, 1 / 4, 1.0), "mf": (1 / 16, 1.0, 1 / 16)}
    for name, (alpha, rate, var) in want.items():
        s = dy.SCALINGS[name]
        assert (s.alpha(m), s.rate(m, m), s.init_variance(m)) == pytest.approx((alpha, rate, var), rel=4 * EPS)


def test_embedded_problem_kernels():
    """G = Phi Phi^T / D equals ``gram_empirical`` (an independent implementation of (22)); the NTK
    initialisation is symmetric with f^0 = 0; the MF features have variance G/m."""
    rng = np.random.default_rng(1)
    X, Xt = rng.standard_normal((5, 4)), rng.standard_normal((3, 4))
    Z = rng.standard_normal((64, 4))
    P, Pt = random_features(X, Z, "relu"), random_features(Xt, Z, "relu")
    e = embedded_problem(P, Pt, rng.uniform(-1, 1, 5), 64, dy.SCALINGS["ntk"], "relu", seed=2)
    G = gram_empirical(np.vstack([X, Xt]), Z, "relu")
    assert torch.allclose(e.problem.G, torch.as_tensor(G[:5, :5]), rtol=1e-13, atol=1e-15)
    assert torch.allclose(e.G_test, torch.as_tensor(G[5:, :5]), rtol=1e-13, atol=1e-15)
    assert torch.equal(e.problem.h0[:32], e.problem.h0[32:]) and torch.equal(e.problem.c[:32], -e.problem.c[32:])
    assert float(dy.output(e.problem, e.problem.h0).abs().max()) <= 64 * EPS
    mf = embedded_problem(P, Pt, np.zeros(5), 64, dy.SCALINGS["mf"], "relu", seed=2)
    assert torch.allclose(mf.problem.h0, mf.W0 @ P.T / 64, rtol=1e-13)


def test_tiny_run_and_resume(tmp_path, capsys):
    argv = ["meanfield-exp3", "--n", "20", "--m", "8", "--steps", "40", "--every", "10", "--seeds", "1",
            "--out", str(tmp_path), "--no-progress"]
    args = _parser().parse_args(argv)
    assert args.func(args) == 0
    data = json.loads((tmp_path / "exp3.json").read_text())
    assert len(data["runs"]) == 3 and all(len(r["train_mse"]) == 5 for r in data["runs"].values())
    assert all(r["train_mse"][-1] < r["train_mse"][0] for r in data["runs"].values())
    for name in ("exp3.csv", "exp3.png", "exp3_fig4_n20.png", "exp3_runs.json"):
        assert (tmp_path / name).stat().st_size > 0
    assert "test MSE" in capsys.readouterr().out
    stored = json.loads((tmp_path / "exp3_runs.json").read_text())
    stored["runs"]["ours/n=20/m=8/seed=0"]["move_rel"] = -1.0         # a marker: resume must keep it
    (tmp_path / "exp3_runs.json").write_text(json.dumps(stored))
    args = _parser().parse_args(argv + ["--resume"])
    assert args.func(args) == 0
    assert json.loads((tmp_path / "exp3.json").read_text())["runs"]["ours/n=20/m=8/seed=0"]["move_rel"] == -1.0
    args = _parser().parse_args(argv + ["--resume", "--delta", "3"])
    with pytest.raises(UsageError, match="other settings"):
        args.func(args)


@pytest.mark.parametrize("argv", [["--m", "1"], ["--delta", "-1"], ["--n", "x"], ["--scaling", "lazy"],
                                  ["--loss", "max"], ["--device", "tpu"]])
def test_bad_arguments_exit_2(argv):
    with pytest.raises(SystemExit) as exc:
        _parser().parse_args(["meanfield-exp3", *argv])
    assert exc.value.code == 2


@pytest.mark.parametrize("argv", [["--steps", "15", "--every", "10"], ["--m", "7"]])
def test_usage_errors(tmp_path, argv):
    args = _parser().parse_args(["meanfield-exp3", *argv, "--out", str(tmp_path)])
    with pytest.raises(UsageError):
        args.func(args)


def test_decay_shape():
    """An exponential curve is judged linear (equal quarter rates, exact affine fit in k); a power law is not."""
    k = np.arange(0, 101)
    exp_shape = exp3.decay_shape(np.exp(-0.1 * k))
    assert exp_shape["rate_q3"] == pytest.approx(0.1, rel=1e-12) and exp_shape["rate_q4"] == pytest.approx(0.1, rel=1e-12)
    assert exp_shape["rss_exponential"] < exp_shape["rss_power"]
    pw = exp3.decay_shape((1.0 + k) ** -2.0)
    assert pw["rss_power"] < pw["rss_exponential"] and pw["rate_q4"] < pw["rate_q3"]
