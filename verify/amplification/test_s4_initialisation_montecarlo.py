"""Monte Carlo witness of ``lemma.4.1.p``: the raw randomness -- w ~ N(0, omega^2 I_d) drawn in
full, at initialisation scales omega over 20 orders of magnitude (the law of the normalised
correlation does not depend on omega) -- against the float64 kernel, and the anti-concentration
lower bound 1/2 - c/sqrt(2 pi)."""
from __future__ import annotations

import math

import pytest
import torch

from numerics.amplification import correlation_tail
from numerics.core.tolerance import ZTest

pytestmark = [pytest.mark.statement("lemma.4.1.p"), pytest.mark.witness("montecarlo")]

CASES = [(2, 0.5, 1e-10), (3, -1.0, 1.0), (10, 1.0, 1e10), (100, 0.1, 1e-3), (300, 2.0, 1.0)]
Z = ZTest(alpha=1e-6, comparisons=len(CASES))
SAMPLES = 60_000


@pytest.mark.parametrize("d, c, omega", CASES)
def test_fraction_of_random_neurons_above_the_threshold(d, c, omega, record):
    gen = torch.Generator().manual_seed(1000 + d)
    hits, done = 0, 0
    while done < SAMPLES:
        b = min(20_000, SAMPLES - done)
        w = omega * torch.randn(b, d, generator=gen, dtype=torch.float64)
        t = w[:, 0] / w.norm(dim=1)                # mu = e_1: the law is rotation invariant
        hits += int((t >= c / math.sqrt(d)).sum())
        done += b
    freq = hits / SAMPLES
    p = float(correlation_tail(c, d))
    z = (freq - p) / math.sqrt(p * (1 - p) / SAMPLES)
    record(ratio=abs(z) / Z.z, detail=f"d={d}, c={c}, omega={omega:g}: {freq:.5f} vs {p:.5f}")
    assert abs(z) <= Z.z, f"{freq} vs {p}: z = {z:.2f} ({Z})"
    if c >= 0:
        assert p >= 0.5 - c / math.sqrt(2 * math.pi)
