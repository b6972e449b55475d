"""Fast witnesses of ``numerics.core.binomial`` written to kill its mutants (bench/mutation.py,
notes/mutation.md).

The reference is the raw definition in exact rational arithmetic: P(X <= k) =
sum_{j <= k} C(n, j) p^j (1 - p)^(n - j) with ``fractions.Fraction`` and ``math.comb`` (no
rounding at all), for rational p; the Berry-Esseen bracket is checked to contain it and to
have the width the theorem gives (Shevtsova 2011's constant 0.4748).  Bad input must raise
ValueError with a message naming the offending argument.
"""
from __future__ import annotations

import math
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest

from numerics.core import binomial as bn

EPS = 2.0**-52


def exact_cdf(k: int, n: int, p: Fraction) -> Fraction:
    """P(X <= k) for X ~ Binomial(n, p), exactly."""
    return sum((math.comb(n, j) * p**j * (1 - p) ** (n - j) for j in range(min(k, n) + 1)), Fraction(0))


# (k, n, p): lower and upper tails, the mode, small and large n
CASES = [(0, 1, Fraction(1, 2)), (3, 10, Fraction(1, 3)), (7, 10, Fraction(1, 3)), (0, 25, Fraction(1, 10)),
         (12, 25, Fraction(1, 2)), (40, 200, Fraction(3, 10)), (80, 200, Fraction(3, 10)),
         (5, 300, Fraction(1, 7)), (150, 300, Fraction(1, 7)), (999, 1000, Fraction(99, 100))]


def test_lower_tail_against_exact_sum():
    # scipy's betainc (Boost) is accurate to a few hundred eps relative at these sizes
    # (its documented worst case on the binomial region); 1e-12 leaves room for n = 1000.
    for k, n, p in CASES:
        want = exact_cdf(k, n, p)
        got = bn.lower_tail(k, n, float(p))
        assert isinstance(got, float) or np.ndim(got) == 0
        assert abs(float(got) - float(want)) <= 1e-12 * float(want), (k, n, p)
    ks = np.array([c[0] for c in CASES], dtype=float)
    ns = np.array([c[1] for c in CASES], dtype=float)
    ps = np.array([float(c[2]) for c in CASES])
    vec = bn.lower_tail(ks, ns, ps)
    assert vec.shape == (len(CASES),)
    for v, (k, n, p) in zip(vec, CASES):
        assert abs(v - float(exact_cdf(k, n, p))) <= 1e-12 * float(exact_cdf(k, n, p))


def test_lower_tail_edges():
    assert bn.lower_tail(-1, 10, 0.3) == 0.0  # k < 0: the empty event
    assert bn.lower_tail(10, 10, 0.3) == 1.0 and bn.lower_tail(12, 10, 0.3) == 1.0  # k >= n
    assert bn.lower_tail(3, 10, 0.0) == 1.0  # X = 0 surely
    assert bn.lower_tail(3, 10, 1.0) == 0.0  # X = n surely
    assert bn.lower_tail(0, 0, 0.5) == 1.0  # n = 0: X = 0
    # the degenerate p override only applies to 0 <= k < n: outside, the empty or sure event
    assert bn.lower_tail(-1, 10, 0.0) == 0.0 and bn.lower_tail(-1, 10, 1.0) == 0.0
    assert bn.lower_tail(10, 10, 1.0) == 1.0 and bn.lower_tail(11, 10, 0.0) == 1.0
    out = bn.lower_tail(np.array([-1.0, 0.0, 5.0]), 5, 0.5)
    assert list(out) == [0.0, 1 / 32, 1.0]


@pytest.mark.parametrize("args,match", [
    ((1, 10, float("nan")), "NaN"), ((float("nan"), 10, 0.5), "NaN"), ((1, float("nan"), 0.5), "NaN"),
    ((1, -1, 0.5), "n must"), ((1, 2.5, 0.5), "n must"), ((1, float("inf"), 0.5), "n must"),
    ((1.5, 10, 0.5), "k must"), ((1, 10, -0.1), "p must"), ((1, 10, 1.5), "p must")])
def test_lower_tail_rejects(args, match):
    with pytest.raises(ValueError, match=match):
        bn.lower_tail(*args)


def test_lower_tail_sum_against_exact_sum():
    for k, n, p in CASES:
        want = exact_cdf(k, n, p)
        with mp.workdps(60):
            got = bn.lower_tail_sum(k, n, mp.mpf(p.numerator) / p.denominator, dps=40)
            # 40 digits asked for: the value agrees with the exact rational to ~1e-39 relative
            assert abs(got - mp.mpf(want.numerator) / want.denominator) <= mp.mpf(10) ** -38 * want, (k, n, p)
    assert bn.lower_tail_sum(12, 10, 0.5) == 1  # k > n: the whole mass
    with mp.workdps(60):
        got = bn.lower_tail_sum(3, 10, mp.mpf(1) / 3, dps=50)
        want = exact_cdf(3, 10, Fraction(1, 3))
        assert abs(got - mp.mpf(want.numerator) / want.denominator) <= mp.mpf(10) ** -49


@pytest.mark.parametrize("args,match", [((1, 10**5 + 1, 0.5), "n must"), ((1, 2.5, 0.5), "n must"),
                                        ((1, -1, 0.5), "n must"), ((1.5, 10, 0.5), "k must"),
                                        ((1, 10, 1.5), "p must"), ((1, 10, -0.5), "p must")])
def test_lower_tail_sum_rejects(args, match):
    with pytest.raises(ValueError, match=match):
        bn.lower_tail_sum(*args)


def test_chernoff_lower_bounds_the_exact_tail():
    # exp(-n KL(k/n || p)) >= P(X <= k) for k <= n p (Hoeffding 1963, (2.1)); KL by mpmath
    for k, n, p in [(0, 25, Fraction(1, 10)), (3, 10, Fraction(1, 2)), (40, 200, Fraction(3, 10)),
                    (60, 200, Fraction(3, 10)), (5, 300, Fraction(1, 7))]:
        with mp.workdps(30):
            q, pp = mp.mpf(k) / n, mp.mpf(p.numerator) / p.denominator
            kl = (q * mp.log(q / pp) if k else 0) + (1 - q) * mp.log((1 - q) / (1 - pp))
            want = mp.exp(-n * kl)
        got = bn.chernoff_lower(k, n, float(p))
        assert abs(got - float(want)) <= 1e-12 * float(want), (k, n, p)  # cond ~ n KL ulps
        # a bound: at k = 0 it is (1 - p)^n, the exact value, so allow its float64 rounding
        # (the same 1e-12 as above: exp amplifies the rounding of n KL by n KL)
        assert got >= float(exact_cdf(k, n, p)) * (1 - 1e-12)


@pytest.mark.parametrize("args", [(-1, 10, 0.5), (6, 10, 0.5), (1, 10, 0.0), (1, 10, 1.0)])
def test_chernoff_lower_rejects(args):
    with pytest.raises(ValueError, match="0 <= k <= n p"):
        bn.chernoff_lower(*args)


def test_lower_tail_bracket_contains_and_has_the_berry_esseen_width():
    # Berry-Esseen: |P(X <= k) - Phi((k - n p)/s)| <= C rho/(sigma^3 sqrt n), C = 0.4748
    # (Shevtsova 2011), rho/sigma^3 = (p^2 + q^2)/sqrt(p q) for a Bernoulli, s = sqrt(n p q)
    for k, n, p in [(40, 200, Fraction(3, 10)), (80, 200, Fraction(3, 10)), (150, 300, Fraction(1, 7)),
                    (30, 300, Fraction(1, 7)), (1000, 2000, Fraction(1, 2)), (570, 2000, Fraction(3, 10))]:
        lo, hi = bn.lower_tail_bracket(k, n, float(p))
        exact = float(exact_cdf(k, n, p))
        assert lo <= exact <= hi, (k, n, p)
        pf, qf = float(p), 1 - float(p)
        width = 0.4748 * (pf**2 + qf**2) / math.sqrt(n * pf * qf)
        centre = float(mp.ncdf((k - n * mp.mpf(p.numerator) / p.denominator) / mp.sqrt(n * pf * qf)))
        assert lo == pytest.approx(max(0.0, centre - width), rel=1e-12, abs=1e-15)
        assert hi == pytest.approx(min(1.0, centre + width), rel=1e-12, abs=1e-15)
    assert bn.lower_tail_bracket(0, 10, 0.5)[0] == 0.0  # clipped at 0
    assert bn.lower_tail_bracket(10, 10, 0.5)[1] == 1.0  # clipped at 1
    assert bn.BERRY_ESSEEN == 0.4748
    for args in [(1, 10, 0.0), (1, 10, 1.0), (0, 0.5, 0.5)]:
        with pytest.raises(ValueError, match="0 < p < 1 and n >= 1"):
            bn.lower_tail_bracket(*args)


# (k, m, p) for P(X > k): k above the mode (upward sum), below it (1 - downward sum), at it,
# non-integer k (the event X >= floor(k) + 1), both ends
SF_CASES = [(7, 10, Fraction(1, 3)), (2, 10, Fraction(1, 3)), (3, 10, Fraction(1, 3)), (2.5, 10, Fraction(1, 3)),
            (60, 200, Fraction(3, 10)), (50, 200, Fraction(3, 10)), (10, 200, Fraction(3, 10)),
            (-0.5, 10, Fraction(1, 2)), (9, 10, Fraction(1, 2)), (150, 300, Fraction(1, 7)),
            (0, 1, Fraction(1, 2))]


def test_binomial_sf_against_exact_sum():
    for k, m, p in SF_CASES:
        want = 1 - exact_cdf(math.floor(k), m, p)
        with mp.workdps(50):
            got = bn.binomial_sf(k, m, mp.mpf(p.numerator) / p.denominator, dps=30)
            # 30 digits asked for, relative (the ladder of numerics.core.reference)
            assert abs(got - mp.mpf(want.numerator) / want.denominator) <= mp.mpf(10) ** -28 * want, (k, m, p)


def test_binomial_sf_edges():
    assert bn.binomial_sf(-1, 10, 0.3) == 1 and bn.binomial_sf(-0.5, 10, 0.3) == 1  # j0 <= 0: X >= 0 surely
    assert bn.binomial_sf(10, 10, 0.3) == 0 and bn.binomial_sf(12, 10, 0.3) == 0  # j0 > m
    assert bn.binomial_sf(3, 10, 0.0) == 0
    assert bn.binomial_sf(3, 10, 1.0) == 1
    for args, match in [((1, 0, 0.5), "m must"), ((1, 2.5, 0.5), "m must"), ((1, 10, 1.5), "p must"),
                        ((1, 10, -0.5), "p must")]:
        with pytest.raises(ValueError, match=match):
            bn.binomial_sf(*args)


@pytest.mark.parametrize("m", [10**12, 10**13, 10**15])
def test_binomial_sf_stops_early_at_huge_m(m):
    # m up to 10^15 (the docstring's range), p = 10/m: X is within Le Cam's bound of
    # Poisson(10), total variation <= m p^2 = 100/m (Le Cam 1960), so
    # |P(X > 30) - P(Poisson(10) > 30)| <= 100/m absolutely.  The sum must stop once its
    # terms are below 10^-(dps+5) of it (a few tens of terms here); a sum that ran on to
    # j = m would never finish.  From m = 10^13 on, the loggamma differences of _logpmf
    # cancel ~log10(m log m) digits: the working precision must add them (it raised
    # LadderError at dps = 30 before it did).
    k = 30
    p = 10 / m
    with mp.workdps(40):
        lam = m * mp.mpf(p)
        poisson_sf = mp.fsum(mp.exp(-lam) * lam**j / mp.factorial(j) for j in range(k + 1, 400))
        got = bn.binomial_sf(k, m, p, dps=30)
        assert 0 < got and abs(got - poisson_sf) <= mp.mpf(m) * mp.mpf(p) ** 2
