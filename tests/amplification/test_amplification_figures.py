"""The pack's figures (slow tier: each trains networks): Fig. 1's run reproduces the paper's
observation (every clean training sample right, every flipped one wrong) and both producers write
their PNG and JSON."""
from __future__ import annotations

import json

import pytest

from numerics.amplification import figures

pytestmark = pytest.mark.slow


def test_fig1_every_clean_right_every_noisy_wrong(tmp_path):
    png, js = figures.produce_fig1(tmp_path, quick=True, progress=False)
    res = json.loads(js.read_text())
    assert png.stat().st_size > 0 and sum(res["noisy"]) > 0
    assert res["clean_right"] == 1.0 and res["noisy_wrong"] == 1.0


def test_fig2_quick_writes_both_settings(tmp_path):
    png, js = figures.produce_fig2(tmp_path, quick=True, progress=False)
    res = json.loads(js.read_text())
    assert set(res) == {"n >> d", "d >> n"} and png.stat().st_size > 0
    for run in res.values():
        assert len(run["test"][0]) == len(run["steps"]) == 21
