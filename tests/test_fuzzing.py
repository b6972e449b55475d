"""The fuzz campaign runner (``numerics.core.fuzzing``) on toy campaigns: a failure is shrunk to
the minimal example and the campaign resumes from its example database; a campaign without a
threshold reports its largest ratio; an evaluation error is reported with its shrunk example;
results are strict JSON."""
from __future__ import annotations

import json
import math

import pytest
from hypothesis import strategies as st

from numerics.core import fuzzing


@pytest.fixture(autouse=True)
def _cwd(tmp_path, monkeypatch):
    """Each test in its own directory, so the example database never leaks between them."""
    monkeypatch.chdir(tmp_path)


def _toy(evaluate, threshold=1.0):
    return fuzzing.Campaign(
        id="toy", statement="x <= 500", ratio_name="x/500", domain="integers 0..1000", judged="always",
        strategy=st.integers(0, 1000).map(lambda x: {"x": x}), evaluate=evaluate,
        reproducer=lambda ex: f"{ex['x']}/500", threshold=threshold, examples=300)


def test_failure_is_shrunk_to_the_minimal_example_and_the_campaign_resumes():
    """Unseeded: random draws (some x > 500 among 300 is certain but for 2^-300), shrunk to the
    boundary x = 501; the database then replays it first."""
    toy = _toy(lambda ex: (ex["x"] / 500, {}))
    first = fuzzing.run(toy, progress=False)
    assert first.failed and first.shrunk_counterexample == {"x": 501} and first.seed is None
    assert first.reproducer == "501/500" and first.worst_ratio >= 501 / 500
    again = fuzzing.run(toy, progress=False)
    assert again.failed and again.shrunk_counterexample == {"x": 501} and again.examples_tried == 1


def test_no_threshold_never_fails_and_reports_the_largest():
    toy = _toy(lambda ex: (float(ex["x"]), {}), threshold=None)
    res = fuzzing.run(toy, examples=50, seed=3, progress=False)
    assert not res.failed and res.error is None and res.examples_tried == 50
    assert res.worst_ratio == res.worst_example["x"] > 500  # target() pushes x up
    assert res.worst_reproducer == f"{res.worst_example['x']}/500"
    assert "no failure threshold" in fuzzing.format_result(res)


def test_evaluation_error_is_reported_with_its_shrunk_example():
    def evaluate(ex):
        if ex["x"] > 700:
            raise ValueError("boom")
        return ex["x"] / 1000, {}

    toy = _toy(evaluate)
    res = fuzzing.run(toy, examples=300, seed=5, progress=False)
    assert res.error == "ValueError: boom" and res.error_example == {"x": 701} and not res.failed
    assert "ERROR" in fuzzing.format_result(res)


def test_json_is_strict_with_non_finite_ratios(tmp_path):
    toy = _toy(lambda ex: (math.inf if ex["x"] > 900 else 0.0, {"v": math.inf}))
    res = fuzzing.run(toy, examples=300, seed=7, progress=False)
    fuzzing.write_json(tmp_path / "r.json", res)
    data = json.loads((tmp_path / "r.json").read_text())  # strict JSON: no bare Infinity
    assert data["failed"] and data["shrunk_ratio"] == "inf" and data["shrunk_counterexample"] == {"x": 901}
