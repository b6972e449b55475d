"""`maskverify fuzz masking:...`: the masking campaigns find Theorem 4.2's known failure and shrink
it to a counterexample whose reproducer really fails, find none for Corollary 5.3, and the help
and usage errors list them."""
from __future__ import annotations

import json

import pytest

from numerics.app.cli import main
from numerics.masking.campaigns import CAMPAIGNS


@pytest.fixture(autouse=True)
def _cwd(tmp_path, monkeypatch):
    """Each test in its own directory, so the example database never leaks between them."""
    monkeypatch.chdir(tmp_path)


def _reproducer_line(out: str) -> str:
    (line,) = [x for x in out.splitlines() if x.startswith("reproducer: ")]
    return line.removeprefix("reproducer: ")


def test_thm_4_2_known_failure_is_found_shrunk_and_reproduced(tmp_path, capsys):
    path = tmp_path / "res" / "thm42.json"
    code = main(["fuzz", "masking:thm.4.2", "--examples", "200", "--seed", "1", "--no-progress", "--json", str(path)])
    out = capsys.readouterr().out
    assert code == 1, out
    assert "FAILED" in out and "domain: Assumption 3.1 networks" in out
    expr = _reproducer_line(out)
    assert eval(expr) > 1  # the one-line reproducer recomputes a ratio > 1 from the public kernel
    data = json.loads(path.read_text())
    assert data["failed"] is True and data["campaign"] == "thm.4.2" and data["seed"] == 1
    assert data["reproducer"] == expr and data["shrunk_ratio"] > 1
    assert data["examples_tried"] <= 200 and 0 < data["valid_examples"] <= data["examples_tried"]
    assert data["worst_ratio"] >= data["shrunk_ratio"]
    assert "kappa in [0.0316, 10]" in data["domain"]
    ex = data["shrunk_counterexample"]
    assert len(ex["W"]) == len(ex["X"]) == 1  # shrunk to one neuron and one sample
    ratio, detail = CAMPAIGNS["thm.4.2"].evaluate(ex)  # inside the judged domain
    assert ratio == pytest.approx(data["shrunk_ratio"], rel=1e-15) and "skipped" not in detail
    assert not list(path.parent.glob("*.tmp"))


def test_thm_4_2_errata_counterexample_is_judged_a_failure():
    """Erratum masking:E4: w = 2, x = 1, y = -6, kappa = 1/2 (at the edge |y| = 3 sqrt(m) R_w)."""
    ex = {"W": [[2.0]], "a": [1.0], "X": [[1.0]], "y": [-6.0], "kappa": 0.5}
    c = CAMPAIGNS["thm.4.2"]
    ratio, _ = c.evaluate(ex)
    assert ratio > c.threshold
    assert eval(c.reproducer(ex)) == ratio


def test_cor_5_3_holds_on_a_short_campaign(tmp_path, capsys):
    path = tmp_path / "cor53.json"
    code = main(["fuzz", "masking:cor.5.3", "--examples", "20", "--seed", "0", "--no-progress", "--json", str(path)])
    out = capsys.readouterr().out
    assert code == 0, out
    data = json.loads(path.read_text())
    assert data["failed"] is False and data["shrunk_counterexample"] is None
    assert data["examples_tried"] == 20 and data["valid_examples"] > 0
    assert data["worst_ratio"] <= 1
    assert eval(data["worst_reproducer"]) == pytest.approx(data["worst_ratio"], rel=1e-15)
    assert "labels set to the network's own outputs" in data["domain"]


def test_unknown_id_exits_2_and_lists_the_known_ids(capsys):
    assert main(["fuzz", "masking:thm.9.9", "--no-progress"]) == 2
    err = capsys.readouterr().err
    for cid in CAMPAIGNS:
        assert f"masking:{cid}" in err


def test_help_explains_campaigns_output_and_exit_status(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["fuzz", "--help"])
    assert exc.value.code == 0
    out = " ".join(capsys.readouterr().out.split())  # argparse wraps lines
    for cid in CAMPAIGNS:
        assert cid in out
    for word in ("--examples", "--seed", "--deep", "--json", "--no-progress", "Exit status", "reproducer",
                 ".hypothesis/maskverify-fuzz", "no threshold", "masking:NAME"):
        assert word in out
