"""Dynamics witnesses of ``fig.1`` (Figure 1: with 15 % of the labels flipped, every noisy sample is
classified incorrectly and every clean one correctly), read as 'such a run is typical': the rate of
seeds whose network at T = 1 + 1/(4 alpha) fits every clean and misfits every noisy training sample,
with a 95 % Clopper-Pearson interval (``regimes.rate``), by the pack's batched GD (``gd.train``).

- default tier, reading 'inside': the smallest setting inside (A1)-(A3), (A5)-(A7) for C = 16 with
  eta = 0.15 (outside (A4)), 12 seeds; supported when the interval's lower end is >= 1/2;
- slow tier, reading 'drawn': the pack's drawing settings of Fig. 1 (``figures.FIG1``: d = 100,
  n = 200, m = 400, sigma = 0.15, alpha = 1/40, T = 11), 16 seeds; not refuted while the interval's
  upper end is >= 1/2 (measured 9/16).
"""
from __future__ import annotations

import pytest

from numerics.amplification import gd, regimes
from numerics.amplification.figures import FIG1

pytestmark = [pytest.mark.statement("fig.1"), pytest.mark.witness("dynamics")]


def _rate(s: gd.Setting, seeds: int) -> dict:
    tr = gd.train(s, range(seeds))
    T = s.T
    ok = int(((tr.clean_right[:, T] == 1) & (tr.noisy_wrong[:, T] == 1)).sum())
    return regimes.rate(ok, seeds)


@pytest.mark.reading("inside")
def test_typical_inside_the_assumptions_with_15_percent_flips(record):
    r = _rate(regimes.inside(16, 0.1, eta=0.15, n_test=1), 12)
    record(ratio=0.5 / max(r["lo"], 1e-300), judged=r["N"],
           detail=f"{r['k']}/{r['N']} seeds fit clean and misfit noisy (95% CI [{r['lo']:.3f}, {r['hi']:.3f}])")
    assert r["lo"] >= 0.5


@pytest.mark.slow
@pytest.mark.reading("drawn")
def test_at_the_drawing_settings(record):
    s = gd.Setting(d=FIG1.d, n=FIG1.n, m=FIG1.m, sigma=FIG1.sigma, eta=FIG1.eta, alpha=FIG1.alpha, omega=FIG1.omega,
                   n_test=100)
    r = _rate(s, 16)
    record(ratio=0.5 / max(r["hi"], 1e-300), judged=r["N"],
           detail=f"{r['k']}/{r['N']} seeds at the drawing settings (95% CI [{r['lo']:.3f}, {r['hi']:.3f}])")
    assert r["hi"] >= 0.5
