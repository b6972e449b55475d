"""Witnesses of ``lemma.4.3`` (reconstructed): the high-probability bounds on the sample.

- montecarlo: raw samples (``data.sample``: cluster index, Gaussian noise, independent flips)
  against the exact probability of each part at a given C_1 (chi^2, Gaussian and binomial laws,
  ``numerics.amplification.sample_laws``), and the four cluster events jointly against the union bound;
- reference: the smallest C_1 each part needs for probability 1 - delta/4 at the edge of (A1),
  and (b)'s 'C_1 sigma^2 d <= 1/C_1' under (A2) for C >= C_1.
"""
from __future__ import annotations

import math

import pytest
import torch

from numerics.amplification import data
from numerics.amplification import sample_laws as L
from numerics.core.tolerance import ZTest

pytestmark = pytest.mark.statement("lemma.4.3")

TRIALS = 600
Z = ZTest(alpha=1e-6, comparisons=4 * 3)


def _z(freq, p, trials):
    se = math.sqrt(max(p * (1 - p), 1 / trials**2) / trials)   # floor: a p of 0 or 1 has no spread
    return (freq - p) / se


@pytest.mark.witness("montecarlo")
@pytest.mark.parametrize("n, d, sigma, eta, C1", [(40, 30, 0.05, 0.1, 1.3),
                                                 pytest.param(20, 200, 0.01, 0.3, 1.1, marks=pytest.mark.slow),
                                                 pytest.param(60, 10, 1.0, 0.0, 1.8, marks=pytest.mark.slow)])
def test_parts_against_their_exact_laws(n, d, sigma, eta, C1, record):
    delta = 0.1
    gen_seed = 100 + n
    hits = torch.zeros(5)
    means = torch.tensor([c[:2] for c in data.CLUSTERS], dtype=torch.float64)
    for k in range(TRIALS):
        s = data.sample(n, d, sigma, eta, seed=gen_seed * 10_000 + k)
        dev = s.x.clone()
        dev[:, :2] -= means[s.cluster]
        along = (s.x[:, :2] * means[s.cluster]).sum(1)                    # <x_i, mu>
        across = (s.x[:, :2] * means[s.cluster].flip(1)).sum(1)           # <x_i, mu^perp>
        r = math.sqrt(C1 * d) * sigma
        sizes = torch.bincount(s.cluster, minlength=4).double()
        rad = C1 * math.sqrt(n * math.log(1 / delta))
        hits += torch.tensor([float(dev.square().sum(1).max() <= C1 * sigma**2 * d),
                              float(bool((along >= 1 - r).all() and (across.abs() <= r).all())),
                              float(s.noisy.sum() <= n * eta + rad),
                              float((sizes[0] - n / 4).abs() <= rad),
                              float(((sizes - n / 4).abs() <= rad).all())])
    freq = hits / TRIALS
    exact = [L.part_b(n, d, C1), L.part_a(n, d, C1), L.part_c(n, eta, C1, delta), L.part_d(n, C1, delta)]
    zs = [_z(float(f), p, TRIALS) for f, p in zip(freq[:4], exact)]
    record(ratio=max(abs(v) for v in zs) / Z.z, detail=f"frequencies {[round(float(f), 4) for f in freq]} vs exact "
                                                     f"{[round(p, 4) for p in exact]}")
    assert max(abs(v) for v in zs) <= Z.z, (zs, Z)
    # the joint cluster event is at least the union bound's 1 - 4 (1 - per cluster)
    assert _z(float(freq[4]), max(0.0, 1 - 4 * (1 - exact[3])), TRIALS) >= -Z.z


@pytest.mark.witness("reference")
@pytest.mark.parametrize("n, m", [(100, 50), (10_000, 1000)])
@pytest.mark.reading("some-C1")
def test_constants_the_parts_need_at_the_edge_of_A1(n, m, record):
    """C = 16, delta = 0.1, d at the edge of (A1): the smallest C_1 that gives each part probability
    1 - delta/4 (the proof's union bound). (b) needs C_1 close to 1 + O(sqrt(log(n/delta)/d)),
    and (A2) with C >= C_1 then gives C_1 sigma^2 d <= C_1/C^2 <= 1/C_1."""
    C, delta = 16.0, 0.1
    d = math.ceil(C * max(math.log(n / delta) ** 2, math.log(m / delta)))
    target = 1 - delta / 4
    need = {"b": L.smallest_C1(lambda c: L.part_b(n, d, c), target),
            "a": L.smallest_C1(lambda c: L.part_a(n, d, c), target),
            "c": L.smallest_C1(lambda c: L.part_c(n, 0.1, c, delta), target),
            "d": L.smallest_C1(lambda c: L.part_d(n, c, delta), 1 - delta / 16)}
    record(detail=", ".join(f"({k}) C_1 >= {v:.3f}" for k, v in need.items()))
    # the exact chi^2 quantile condition, checked directly: F(C_1 d)^n >= target at the returned C_1
    assert L.part_b(n, d, need["b"]) >= target > L.part_b(n, d, need["b"] * (1 - 1e-5))
    assert need["b"] < 1 + 4 * math.sqrt(math.log(n / delta) / d)   # chi^2 concentration at this d
    assert max(need.values()) <= 2                                  # the lemma's C_1 >= 2 suffices for all
    assert need["b"] * (1 / C**2) <= 1 / need["b"]                  # (b)'s second inequality under (A2)
