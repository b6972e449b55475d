"""Witnesses of ``lemma.4.2`` (reconstructed): the neuron counts |J_mu| ~ Binomial(m/2, p).

- reference: the exact per-set failure (incomplete beta) against the raw binomial sum in mpmath,
  and the Berry-Esseen bracket used for huge widths contains the raw sum;
- montecarlo: raw Gaussian initialisations (scale omega over 20 orders of magnitude) against the
  exact per-set law, and the union over the four sets against the union bound;
- property: the exact tail never exceeds the Chernoff-Hoeffding bound the proof uses;
- reference (constants): what Lemma 4.2 with the paper's C_0 = 4^5 1024^2 e^4 demands of m.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, target
from hypothesis import strategies as st

from numerics.amplification import counts as K
from numerics.core.binomial import chernoff_lower, lower_tail_bracket, lower_tail_sum
from numerics.core.tolerance import EPS, Tol, ZTest, rel_err

pytestmark = pytest.mark.statement("lemma.4.2")

EXACT = Tol(1e-12, why="Boost's ibeta on moderate parameters against a 30-digit sum; the tails here are "
                       ">= 1e-12, where the loss is a few hundred eps at most")


@pytest.mark.witness("reference")
@pytest.mark.parametrize("m, d, C0", [(8, 5, 1.5), (40, 20, 2.0), (200, 100, 4.0), (2000, 10**4, 10.0), (20000, 10**6, 30.0)])
def test_per_set_failure_is_the_binomial_sum(m, d, C0, record):
    k = math.ceil(m / 4 * (1 - 1 / C0) ** 2) - 1
    raw = lower_tail_sum(k, m // 2, K.membership(d, C0))
    fast = K.per_set_failure(m, d, C0)[0]
    err = rel_err(fast, float(raw))
    record(error=err)
    assert err <= EXACT.rtol, (fast, raw, EXACT)


@pytest.mark.witness("reference")
@pytest.mark.parametrize("k, n, p", [pytest.param(49_000, 100_000, 0.49, marks=pytest.mark.slow),
                                     pytest.param(49_500, 100_000, 0.5, marks=pytest.mark.slow),
                                     (30, 100, 0.4), (4_990, 10_000, 0.5)])
def test_berry_esseen_bracket_contains_the_sum(k, n, p):
    lo, hi = lower_tail_bracket(k, n, p)
    raw = lower_tail_sum(k, n, p, dps=20)
    assert lo - 4 * EPS <= raw <= hi + 4 * EPS


@pytest.mark.witness("montecarlo")
@pytest.mark.parametrize("omega", [1e-10, 1.0, 1e10])
def test_counts_of_raw_initialisations(omega, record):
    m, d, C0, trials = 40, 20, 2.0, 4000
    counts = K.simulate(m, d, C0, trials, seed=7, omega=omega)
    bound = m / 4 * (1 - 1 / C0) ** 2
    p = K.membership(d, C0)
    z = ZTest(alpha=1e-6, comparisons=6)
    mean = counts.mean(axis=0)
    zs = (mean - m / 2 * p) / math.sqrt(m / 2 * p * (1 - p) / trials)
    exact = K.per_set_failure(m, d, C0)[0]
    freq = (counts[:, 0] < bound).mean()
    zf = (freq - exact) / math.sqrt(exact * (1 - exact) / trials)
    union = (counts < bound).any(axis=1).mean()
    record(ratio=max(np.abs(zs).max(), abs(zf)) / z.z, detail=f"per-set failure {freq:.4f} vs {exact:.4f}")
    assert np.abs(zs).max() <= z.z and abs(zf) <= z.z, (zs, zf)
    assert (union - min(1.0, 4 * exact)) / math.sqrt(0.25 / trials) <= z.z     # the union bound holds


@pytest.mark.witness("reference")
def test_what_the_paper_constant_demands_of_m(record):
    """C_0 = 4^5 1024^2 e^4 (the good run of Section 4.1) and delta = 0.1: the union bound needs
    m ~ 8.8e21, i.e. (A5)'s m >= C log(1/delta) needs C >= ~3.8e21 for this route of proof."""
    lo, hi = K.minimal_width(0.1, 10**6, K.C0_PAPER)
    record(detail=f"minimal width for delta = 0.1: [{lo:.3e}, {hi:.3e}]")
    assert 8.7e21 < lo <= hi < 8.9e21
    # the scaling m ~ C_0^2 log(1/delta) seen at moderate C_0
    assert abs(K.minimal_width(0.1, 10**6, 1e6)[0] / K.minimal_width(0.1, 10**6, 1e4)[0] / 1e4 - 1) < 0.01


CHERNOFF = Tol(1e-9, why="Boost's ibeta on these tails (parameters <= 1e6) is good to ~1e-12 relative; the "
                         "bound is an inequality, so only the float tail's own error may be absorbed")


@pytest.mark.witness("property")
@given(st.integers(1, 10**6).map(lambda h: 2 * h), st.floats(math.log10(2), 6).map(lambda e: max(2, round(10**e))),
       st.floats(0.05, 5).map(lambda e: 1 + 10**e / 10))
def test_exact_failure_below_the_chernoff_bound(m, d, C0):
    """The concentration step of the proof: P(Binomial(m/2, p) <= k) <= exp(-(m/2) KL(k/(m/2) || p)),
    over widths 2 .. 2e6, d from 2 to 1e6 and C_0 from ~1.1 to 1e4 (where 2p > (1 - 1/C_0)^2)."""
    k = math.ceil(m / 4 * (1 - 1 / C0) ** 2) - 1
    p = K.membership(d, C0)
    if k < 0:
        return
    exact = K.per_set_failure(m, d, C0)[0]
    bound = chernoff_lower(k, m // 2, p)
    target(exact / bound if bound > 0 else 0.0, label="exact / Chernoff")
    assert exact <= bound * (1 + CHERNOFF.rtol) + 1e-300
