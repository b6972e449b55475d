"""Experiment 1 (Section 4.1, Fig. 1; Appendix I.1): the shallow tanh net on random labels, decided by
``numerics.meanfield.exp1.verdict`` (the rule is ``exp.1.linear-and-slower``'s notes) on a reduced run:
m = 256 (paper 8192), 2,000 GD steps of delta = 1 (paper 50,000), n in {20, 40, 80}, 2 seeds (paper 5)."""
from __future__ import annotations

import functools

import pytest

from numerics.meanfield import exp1

pytestmark = [pytest.mark.slow, pytest.mark.statement("exp.1.linear-and-slower"), pytest.mark.witness("dynamics")]


@functools.cache
def _verdict() -> dict:
    return exp1.verdict(exp1.run(exp1.Config(ns=(20, 40, 80), m=256, steps=2000, seeds=2, every=20)))


def test_exp1_linear_at_20_and_40_and_slower_with_n(record):
    v = _verdict()
    lin = "; ".join(f"n = {n}: rates q3/q4 {s['shape']['rate_q3']:.3g}/{s['shape']['rate_q4']:.3g}, rss exp/power "
                    f"{s['shape']['rss_exponential']:.2g}/{s['shape']['rss_power']:.2g} over {s['records']} records"
                    for n, s in v["linear"].items())
    rates = ", ".join(f"n = {n}: {r:.3g}" for n, r in v["rates"].items())
    record(judged=len(v["linear"]) + len(v["rates"]),
           detail=f"{lin}; mean decay rate of log L per step over the first {v['window_steps']:.0f} steps: {rates}")
    assert v["supported"], v
