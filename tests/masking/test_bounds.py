"""numerics.masking.bounds: requirement bookkeeping, bad input, and the JSON output."""
from __future__ import annotations

import json

import numpy as np
import pytest

from numerics.masking import bounds


def test_requirement_ratio_and_direction():
    assert bounds.Requirement("T", "x", "<=", 1.0, 2.0).met
    assert not bounds.Requirement("T", "x", ">=", 1.0, 2.0).met
    assert bounds.Requirement("T", "x", ">=", 4.0, 2.0).ratio == 2.0


def test_more_width_and_smaller_steps_move_toward_the_requirements():
    X, y = bounds.synthetic_data(6, 3, seed=1)
    small = bounds.evaluate(X, y, m=4, eta=0.1, K=10, kappa=0.1, tau=1.0, delta=0.1)
    big = bounds.evaluate(X, y, m=16, eta=0.01, K=10, kappa=0.1, tau=1.0, delta=0.1)
    w = lambda r: next(q for q in r.requirements if q.what.startswith("width"))  # noqa: E731
    s = lambda r: next(q for q in r.requirements if q.what.startswith("step"))  # noqa: E731
    assert w(big).ratio == pytest.approx(4 * w(small).ratio)
    assert s(big).ratio == pytest.approx(s(small).ratio / 10)


@pytest.mark.parametrize("bad", [dict(m=0), dict(eta=0.0), dict(delta=1.5), dict(kappa=-1.0), dict(K=2.5)])
def test_bad_input(bad):
    X, y = bounds.synthetic_data(4, 2, seed=0)
    args = dict(m=3, eta=0.1, K=5, kappa=0.1, tau=1.0, delta=0.1) | bad
    with pytest.raises(ValueError):
        bounds.evaluate(X, y, **args)


def test_cli_writes_json(tmp_path):
    from numerics.app.cli import main

    data = tmp_path / "d.npz"
    X, y = bounds.synthetic_data(5, 3, seed=2)
    np.savez(data, X=X, y=y)
    out = tmp_path / "b.json"
    assert main(["bounds", "--data", str(data), "--m", "4", "--kappa", "0.1", "0.5", "--json", str(out)]) == 0
    reports = json.loads(out.read_text())
    assert len(reports) == 2 and reports[0]["settings"]["n"] == 5
    assert {r["theorem"] for r in reports[1]["requirements"]} == {"Theorem 5.2", "Theorem 5.6"}
