"""Experiment 1's command: a tiny run writes its JSON and PNG; bad arguments end in exit status 2."""
from __future__ import annotations

import argparse
import json

import pytest

from numerics.core.cliargs import UsageError
from numerics.meanfield import exp1


def _parser():
    p = argparse.ArgumentParser()
    exp1.add_subcommand(p.add_subparsers())
    return p


def test_tiny_run(tmp_path, capsys):
    args = _parser().parse_args(["meanfield-train", "--n", "4", "8", "--m", "32", "--steps", "40", "--every", "10",
                                 "--seeds", "2", "--out", str(tmp_path)])
    assert args.func(args) == 0
    data = json.loads((tmp_path / "exp1.json").read_text())
    assert set(data["runs"]) == {"4", "8"} and len(data["runs"]["4"][0]) == 5
    assert all(c[-1] < c[0] for cs in data["runs"].values() for c in cs)     # GD decreases the loss
    assert (tmp_path / "exp1.png").stat().st_size > 0
    assert "final training loss" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [["--m", "0"], ["--delta", "-1"], ["--n", "x"]])
def test_bad_arguments_exit_2(argv):
    with pytest.raises(SystemExit) as exc:
        _parser().parse_args(["meanfield-train", *argv])
    assert exc.value.code == 2


def test_steps_not_multiple(tmp_path):
    args = _parser().parse_args(["meanfield-train", "--steps", "15", "--every", "10", "--out", str(tmp_path)])
    with pytest.raises(UsageError):
        args.func(args)


def _result(curves, every=20):
    """A result dict of ``exp1.run``'s shape from per-n curves (one seed each)."""
    k = len(next(iter(curves.values())))
    return {"steps": list(range(0, every * k, every)), "runs": {str(n): [list(c)] for n, c in curves.items()}}


def test_exp1_verdict_separates_linear_from_power_law_and_orders_rates():
    """The rule of ``exp.1.linear-and-slower`` on planted curves: geometric decays with rates falling in n
    are supported; a power law at n = 40 is not; equal rates are not 'slower'; the floor cuts a curve."""
    import numpy as np

    k = np.arange(101)
    geo = lambda rho: 0.5 * rho**k
    good = exp1.verdict(_result({20: np.maximum(geo(0.5), 1e-33), 40: geo(0.9), 80: geo(0.95)}))
    assert good["supported"] and good["linear"][20]["records"] < 100
    power = exp1.verdict(_result({20: geo(0.6), 40: 0.5 * (1 + k) ** -3.0, 80: geo(0.99)}))
    assert not power["linear"][40]["supported"] and not power["supported"]
    flat = exp1.verdict(_result({20: geo(0.9), 40: geo(0.9), 80: geo(0.95)}))
    assert not flat["slower"] and not flat["supported"]
