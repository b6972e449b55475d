"""``numerics.meanfield.theorem_sizes``: the smallest sizes recomputed from the raw conditions of
Theorems 1-3 (Appendix E (58), Appendix F (74), (80), Lemmas 2 and 3 as repaired in errata E1-E4),
transcribed here independently of the theory's expressions; the interval I is a local minimum of the
binding width; (T3.84)'s D does what it claims (Monte Carlo over the raw embedding)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from numerics.meanfield import theorem_sizes as ts
from numerics.meanfield.kernels import gram_bar

RHO2 = (math.sqrt(2) - 1) ** 2


def _K(lo, hi, gmin, gmax):
    xi = (hi - lo) / 3
    M0 = max(abs(lo + xi), abs(hi - xi))
    return (hi - lo) / (6 * math.sqrt(2 * math.pi * gmax)) * math.exp(-M0**2 / (2 * gmin))


def _Ks(act, lo, hi):
    return 1 / math.cosh(max(abs(lo), abs(hi))) ** 2 if act == "tanh" else 1.0


def raw_theorem1(G, y, act, I, delta):
    lo, hi = I
    ev, dg, n, yn = np.linalg.eigvalsh(G), np.diag(G), len(y), float(np.linalg.norm(y))
    K, Ks = _K(lo, hi, dg.min(), dg.max()), _Ks(act, lo, hi)
    C2 = ev[-1] / (math.sqrt(2) * (hi - lo) / 3 * Ks * ev[0])
    c = 6 * C2 * yn / K**1.5
    return c, math.log(2 * n / delta) / (2 * K**2), 2 * n * c**2 * dg.max() * math.log(4 * n / delta) / (RHO2 * yn**2)


def raw_theorem2(Gbar, y, act, I, delta):
    lo, hi = I
    ev, dg, n, yn = np.linalg.eigvalsh(Gbar), np.diag(Gbar), len(y), float(np.linalg.norm(y))
    K, Ks = _K(lo, hi, dg.min() / 2, 2 * dg.max()), _Ks(act, lo, hi)
    kappa = 9 * ev[-1] / (math.sqrt(2) * ev[0] * Ks * (hi - lo))
    c = 8 * kappa * yn / K**1.5
    m3 = math.log(4 * n / delta) / (2 * K**2)
    m2 = 2 * n * c**2 * 2 * dg.max() * math.log(8 * n / delta) / (RHO2 * yn**2)
    return c, m3, m2, 8 * n**2 * math.log(2 * n * (n + 1) / delta) / ev[0] ** 2


CASES = {
    "thm1-unit": (ts.theorem1, raw_theorem1, np.ones((1, 1)), np.array([0.5])),
    "thm1-orthonormal": (ts.theorem1, raw_theorem1, np.eye(3), np.array([0.5, -0.5, 0.5])),
    "thm3-unit": (ts.theorem2, raw_theorem2, gram_bar(np.ones((1, 1)), "tanh"), np.array([0.5])),
    "thm3-triangle": (ts.theorem2, raw_theorem2, gram_bar(ts._triangle(1.0), "tanh"), np.array([0.5, -0.5, 0.5])),
}


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("delta", [0.1, 0.5])
def test_sizes_from_the_raw_conditions(case, delta):
    fn, raw, G, y = CASES[case]
    got = ts.smallest(fn, ts.Spectrum.of(G), y, "tanh", delta)
    want = raw(G, y, "tanh", got.I, delta)
    assert got.c_min == pytest.approx(want[0], rel=1e-12)
    # the smallest integers meeting m >= value: the value itself meets it, one less does not
    assert got.m_lemma3 == math.ceil(want[1]) and got.m_lemma3 - 1 < want[1] <= got.m_lemma3
    assert got.m_lemma2 == math.ceil(want[2])
    if fn is ts.theorem2:
        assert got.D == math.ceil(want[3])


@pytest.mark.parametrize("case", ["thm1-unit", "thm3-unit"])
def test_interval_is_a_local_minimum_of_the_binding_width(case):
    fn, _, G, y = CASES[case]
    S = ts.Spectrum.of(G)
    best = ts.smallest(fn, S, y, "tanh", 0.1)
    lo, hi = best.I
    for dlo, dhi in [(-0.01, 0.0), (0.01, 0.0), (0.0, -0.01), (0.0, 0.01), (-0.01, 0.01), (0.01, -0.01)]:
        other = fn(S, y, "tanh", (lo + dlo, hi + dhi), 0.1)
        assert other.m_min >= best.m_min * (1 - 1e-6)


def test_relu_interval_stays_in_the_positive_half_line():
    X = np.array([[1.0, 0.0], [0.6, 0.8]])
    got = ts.smallest(ts.theorem2, ts.Spectrum.of(gram_bar(X, "relu")), np.array([1.0, -1.0]), "relu", 0.1)
    assert got.I[0] >= 0 and got.K_s == 1.0 and got.D is None


def test_hoeffding_width_T3_84_meets_74_by_monte_carlo():
    """(T3.84) at n = 1 (x = 1, tanh): P(|G^(1) - Gbar^(1)| > lambda_min/2) <= delta/2 over raw draws of z."""
    S = ts.Spectrum.of(gram_bar(np.ones((1, 1)), "tanh"))
    got = ts.theorem2(S, np.array([0.5]), "tanh", (-1.0, 1.0), 0.1)
    rng = np.random.default_rng(0)
    reps = 4000
    G = (np.tanh(rng.standard_normal((reps, got.D))) ** 2).mean(1)
    fails = np.mean(np.abs(G - S.lam_min) > S.lam_min / 2)
    # Hoeffding is loose: no draw in 4000 fails, far below delta/2 = 0.05 (a 4-sigma margin would be 0.05 - 4 x 0.0034)
    assert fails <= 0.05 - 4 * math.sqrt(0.05 * 0.95 / reps)


def test_singular_gram_is_refused():
    with pytest.raises(ValueError, match="T1.0"):
        ts.theorem1(ts.Spectrum.of(np.ones((2, 2))), np.array([0.5, 0.5]), "tanh", (-1.0, 1.0), 0.1)


def test_cli_bad_delta(capsys):
    assert ts.main(["--delta", "2"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error:")


@pytest.mark.parametrize("x", [0.0, 1e-8, 0.7, 20.0, 700.0, 711.0, 1e4])
def test_tanh_k_on_i_has_no_overflow(x):
    """K_sigma' for tanh over I = (-x, x) is sech(x)^2, against mpmath; 1/cosh(x)^2 overflowed at
    x = 711 (Lemma 1's campaign raised OverflowError at x_scale = 1000 after the sizes module took it)."""
    import mpmath as mp

    want = float(mp.sech(mp.mpf(x)) ** 2)
    got = ts.K_ON_I["tanh"](-x, x)
    assert abs(got - want) <= 4 * 2.0**-52 * want + 2.0**-1074, (x, got, want)


def test_lemma1_campaign_skips_where_k_underflows():
    from numerics.meanfield.campaigns import CAMPAIGNS

    ex = {"act": "tanh", "lo": 0.0, "width": 1.0, "n": 1, "d": 1, "m": 2, "seed": 0, "x_scale": 1000.0,
          "y_scale": 1.0, "c_hat": 1.0}
    ratio, detail = CAMPAIGNS["lemma.1.proof"].evaluate(ex)
    assert ratio is None and "skipped" in detail
