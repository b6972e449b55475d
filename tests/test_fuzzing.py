"""`maskverify fuzz`: the campaign runner finds Theorem 4.2's known failure and shrinks it to a
counterexample whose reproducer really fails, finds none for Corollary 5.3, resumes from its
example database, and reports usage errors, evaluation errors and hidden-constant campaigns
as documented."""
from __future__ import annotations

import json
import math

import pytest
from hypothesis import strategies as st

from numerics import fuzzing
from numerics.cli import main


@pytest.fixture(autouse=True)
def _cwd(tmp_path, monkeypatch):
    """Each test in its own directory, so the example database never leaks between them."""
    monkeypatch.chdir(tmp_path)


def _reproducer_line(out: str) -> str:
    (line,) = [x for x in out.splitlines() if x.startswith("reproducer: ")]
    return line.removeprefix("reproducer: ")


def test_thm_4_2_known_failure_is_found_shrunk_and_reproduced(tmp_path, capsys):
    path = tmp_path / "res" / "thm42.json"
    code = main(["fuzz", "thm.4.2", "--examples", "200", "--seed", "1", "--no-progress", "--json", str(path)])
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
    ratio, detail = fuzzing.CAMPAIGNS["thm.4.2"].evaluate(ex)  # inside the judged domain
    assert ratio == pytest.approx(data["shrunk_ratio"], rel=1e-15) and "skipped" not in detail
    assert not list(path.parent.glob("*.tmp"))


def test_thm_4_2_errata_counterexample_is_judged_a_failure():
    """notes/errata.md E4: w = 2, x = 1, y = -6, kappa = 1/2 (at the edge |y| = 3 sqrt(m) R_w)."""
    ex = {"W": [[2.0]], "a": [1.0], "X": [[1.0]], "y": [-6.0], "kappa": 0.5}
    c = fuzzing.CAMPAIGNS["thm.4.2"]
    ratio, _ = c.evaluate(ex)
    assert ratio > c.threshold
    assert eval(c.reproducer(ex)) == ratio


def test_cor_5_3_holds_on_a_short_campaign(tmp_path, capsys):
    path = tmp_path / "cor53.json"
    code = main(["fuzz", "cor.5.3", "--examples", "20", "--seed", "0", "--no-progress", "--json", str(path)])
    out = capsys.readouterr().out
    assert code == 0, out
    data = json.loads(path.read_text())
    assert data["failed"] is False and data["shrunk_counterexample"] is None
    assert data["examples_tried"] == 20 and data["valid_examples"] > 0
    assert data["worst_ratio"] <= 1
    assert eval(data["worst_reproducer"]) == pytest.approx(data["worst_ratio"], rel=1e-15)
    assert "labels set to the network's own outputs" in data["domain"]


def test_unknown_id_exits_2_and_lists_the_known_ids(capsys):
    assert main(["fuzz", "thm.9.9", "--no-progress"]) == 2
    err = capsys.readouterr().err
    for cid in fuzzing.CAMPAIGNS:
        assert cid in err


def test_help_explains_campaigns_output_and_exit_status(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["fuzz", "--help"])
    assert exc.value.code == 0
    out = " ".join(capsys.readouterr().out.split())  # argparse wraps lines
    for cid in fuzzing.CAMPAIGNS:
        assert cid in out
    for word in ("--examples", "--seed", "--deep", "--json", "--no-progress", "Exit status", "reproducer",
                 fuzzing.DATABASE_DIR, "no threshold"):
        assert word in out


def _toy(monkeypatch, evaluate, threshold=1.0):
    c = fuzzing.Campaign(
        id="toy", statement="x <= 500", ratio_name="x/500", domain="integers 0..1000", judged="always",
        strategy=st.integers(0, 1000).map(lambda x: {"x": x}), evaluate=evaluate,
        reproducer=lambda ex: f"{ex['x']}/500", threshold=threshold, examples=300)
    monkeypatch.setitem(fuzzing.CAMPAIGNS, "toy", c)


def test_failure_is_shrunk_to_the_minimal_example_and_the_campaign_resumes(monkeypatch):
    """Unseeded: random draws (some x > 500 among 300 is certain but for 2^-300), shrunk to the
    boundary x = 501; the database then replays it first."""
    _toy(monkeypatch, lambda ex: (ex["x"] / 500, {}))
    first = fuzzing.run("toy", progress=False)
    assert first.failed and first.shrunk_counterexample == {"x": 501} and first.seed is None
    assert first.reproducer == "501/500" and first.worst_ratio >= 501 / 500
    again = fuzzing.run("toy", progress=False)
    assert again.failed and again.shrunk_counterexample == {"x": 501} and again.examples_tried == 1


def test_no_threshold_never_fails_and_reports_the_largest(monkeypatch):
    _toy(monkeypatch, lambda ex: (float(ex["x"]), {}), threshold=None)
    res = fuzzing.run("toy", examples=50, seed=3, progress=False)
    assert not res.failed and res.error is None and res.examples_tried == 50
    assert res.worst_ratio == res.worst_example["x"] > 500  # target() pushes x up
    assert res.worst_reproducer == f"{res.worst_example['x']}/500"
    assert "no failure threshold" in fuzzing.format_result(res)


def test_evaluation_error_is_reported_with_its_shrunk_example(monkeypatch, capsys):
    def evaluate(ex):
        if ex["x"] > 700:
            raise ValueError("boom")
        return ex["x"] / 1000, {}

    _toy(monkeypatch, evaluate)
    res = fuzzing.run("toy", examples=300, seed=5, progress=False)
    assert res.error == "ValueError: boom" and res.error_example == {"x": 701} and not res.failed
    assert main(["fuzz", "toy", "--examples", "300", "--seed", "5", "--no-progress"]) == 1
    assert "ERROR" in capsys.readouterr().out


def test_json_is_strict_with_non_finite_ratios(monkeypatch, tmp_path):
    _toy(monkeypatch, lambda ex: (math.inf if ex["x"] > 900 else 0.0, {"v": math.inf}))
    res = fuzzing.run("toy", examples=300, seed=7, progress=False)
    fuzzing.write_json(tmp_path / "r.json", res)
    data = json.loads((tmp_path / "r.json").read_text())  # strict JSON: no bare Infinity
    assert data["failed"] and data["shrunk_ratio"] == "inf" and data["shrunk_counterexample"] == {"x": 901}
