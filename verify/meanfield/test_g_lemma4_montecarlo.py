"""Lemma 4 (84) and Condition 1: G^(1) of (22), sampled from its raw definition (z_j ~ N(0, I_d)),
against Gbar^(1) of (23), as D grows (``numerics.meanfield.lemmas.gram_deviations``).

- unbiasedness: the sample mean of G^(1) over draws equals Gbar^(1) entrywise (z-test), a Monte
  Carlo witness of eq. (23) itself;
- the 1/D law behind Condition 1: D E|G^(1) - Gbar^(1)|_F^2 = sum_ab Var(s_a s_b) does not depend
  on D (a bias in Gbar would add D |bias|^2 and grow with D): z-test between D = 32 and D = 512;
- Lemma 4's constant: the smallest C_4 with D >= C_4 n^2 log(n/delta)/u^2 for u the measured
  (1 - delta)-quantile of |G^(1) - Gbar^(1)|_2 (recorded; the lemma hides C_4).
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from numerics.core.tolerance import ZTest
from numerics.meanfield import gram_bar
from numerics.meanfield import lemmas as L

ACTS = ["relu", "erf", "tanh"]
#: per activation: n(n+1)/2 = 15 entries (n = 5) at a family-wise rate of 1e-6
ENTRY_TEST = ZTest(alpha=1e-6, comparisons=15 * len(ACTS))
FROB_ACTS = ["relu", "erf"]          # tanh's Gbar costs a second of quadrature: its unbiasedness test suffices
FROB_TEST = ZTest(alpha=1e-6, comparisons=len(FROB_ACTS))


def _data(n=5, d=3, seed=0):
    return np.random.default_rng(seed).standard_normal((n, d)) * np.array([1.0, 2.0, 0.5])


@pytest.mark.statement("eq.23")
@pytest.mark.witness("montecarlo")
@pytest.mark.parametrize("act", ["relu", "erf", pytest.param("tanh", marks=pytest.mark.slow)])
def test_gram_bar_is_the_mean_of_G1(act, record):
    X = _data()
    _, _, grams = L.gram_deviations(X, act, 64, 400, seed=1)
    mean, se = grams.mean(0), grams.std(0, ddof=1) / math.sqrt(len(grams))
    z = np.abs(mean - gram_bar(X, act)) / se
    record(detail=f"max |z| = {z.max():.2f} over 15 entries (D = 64 x 400 draws)")
    assert z.max() <= ENTRY_TEST.z, f"{act}: |z| = {z.max():.2f} > {ENTRY_TEST}"


@pytest.mark.statement("cond.1")
@pytest.mark.witness("montecarlo")
@pytest.mark.parametrize("act", FROB_ACTS)
def test_frobenius_deviation_scales_like_one_over_D(act, record):
    X = _data()
    est = []
    for D, reps in ((32, 400), (512, 400)):
        _, frob, _ = L.gram_deviations(X, act, D, reps, seed=D)
        est.append((D * frob.mean(), D * frob.std(ddof=1) / math.sqrt(reps)))
    (a, sa), (b, sb) = est
    z = abs(a - b) / math.hypot(sa, sb)
    record(detail=f"D E|G - Gbar|_F^2: {a:.4g} +- {sa:.2g} (D = 32), {b:.4g} +- {sb:.2g} (D = 512)")
    assert z <= FROB_TEST.z, f"{act}: D E|dG|_F^2 depends on D (z = {z:.2f}, {FROB_TEST})"


@pytest.mark.statement("lemma.4")
@pytest.mark.witness("montecarlo")
@pytest.mark.parametrize("n", [4, 16])
def test_lemma4_constant_needed(n, record):
    """relu, d = 3, delta = 0.1: C_4(n, D) = D u_q^2/(n^2 log(n/delta)), u_q the 0.9-quantile over
    300 draws.  The lemma holds with any C_4 at least the largest value; the assertion is
    Condition 1's: the quantile falls as D grows -- the distribution-free confidence interval of
    the 0.9-quantile at 4 D (order statistics at binomial ranks, false-alarm rate 1e-6 per side)
    lies wholly below the one at D (the expected ratio is 1/2, as u_q ~ D^-1/2)."""
    X = np.random.default_rng(n).standard_normal((n, 3))
    delta, out, quant, bracket = 0.1, [], [], []
    for D in (64, 256, 1024):
        spec, _, _ = L.gram_deviations(X, "relu", D, 300, seed=D + n)
        u = float(np.quantile(spec, 1 - delta))
        ranked = np.sort(spec)
        # P(#draws below the quantile < k) <= 1e-6: ranks k_lo, k_hi bracket it with that rate
        k_lo, k_hi = (int(stats.binom.ppf(p, len(ranked), 1 - delta)) for p in (1e-6, 1 - 1e-6))
        bracket.append((ranked[max(k_lo - 1, 0)], ranked[min(k_hi, len(ranked) - 1)]))
        quant.append(u)
        out.append(D * u * u / (n * n * math.log(n / delta)))
    record(ratio=max(out), detail=f"n = {n}: u_0.9 = {[f'{q:.3g}' for q in quant]}, C_4 needed = {[f'{c:.3g}' for c in out]} (D = 64, 256, 1024)")
    assert bracket[1][1] < bracket[0][0] and bracket[2][1] < bracket[1][0], bracket
