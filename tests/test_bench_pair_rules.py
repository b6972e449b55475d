"""``bench/bench_pair_rules.py``'s bookkeeping (issue 33 item 3): its re-stated Plackett rule is the
integral the raw-definition mpmath reference gives, the calibration's edge point is where the note says,
and the budget -> edge choice is contiguous from |rho| = 0 and moves with the budget."""
from __future__ import annotations

import sys
from pathlib import Path

import mpmath as mp
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import bench_pair_rules as bpr  # noqa: E402
from numerics.core import reference  # noqa: E402

EPS = 2.0**-52


def _plackett_mp(h, k, rho):
    """Phi_2(h, k; rho) - Phi(h) Phi(k) from the raw double integral (mpmath, 30 digits)."""
    with mp.workdps(30):
        return reference.bvn_cdf(h, k, rho) - mp.ncdf(h) * mp.ncdf(k)


def test_rule_is_plackett_integral_and_8_nodes_miss_the_budget_past_0_5():
    """At (h, k, rho) = (-1.5, 1.5, 0.55), the scan's worst point for 8 nodes at |rho| = 0.55: the
    200-node rule (the scan's reference) equals the raw integral within its rounding bound, (n + 32) u
    relative (the worst-case gamma_n of a sum of n positive terms, plus each term's few-u error
    amplified by its exponent, <= 6 here); 8 nodes miss the 4-eps budget (truncation ~9 eps), 16 keep
    it (the edges the note reports)."""
    h, k, rho = -1.5, 1.5, 0.55
    exact = _plackett_mp(h, k, rho)
    one = lambda n: bpr.plackett_rule(np.array([h]), np.array([k]), rho, n)[0]  # noqa: E731
    assert float(abs(mp.mpf(one(200)) - exact)) <= (200 + 32) * 2.0**-53 * float(abs(exact))
    assert float(abs(mp.mpf(one(8)) - exact)) > 4 * EPS
    assert float(abs(mp.mpf(one(16)) - exact)) <= 4 * EPS


def test_edges_are_contiguous_from_zero_and_follow_the_budget():
    """A node count's edge is the last |rho| before its first miss (a later pass does not count), 0 when
    the first |rho| misses; a looser budget gives the same or a higher edge."""
    errors = {}
    for rho in bpr._RHOS:
        errors[rho, 8] = (0.0, (0.0, 0.0), 1.0 if rho <= 0.5 else (9.0 if rho != 0.6 else 1.0))
        errors[rho, 16] = (0.0, (0.0, 0.0), 5.0)
    assert bpr.edges(errors, (8, 16), 4.0) == {8: 0.5, 16: 0.0}
    assert bpr.edges(errors, (8, 16), 10.0) == {8: 0.9, 16: 0.9}
