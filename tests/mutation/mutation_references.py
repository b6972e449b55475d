"""High-precision reference tables for the fast mutation witnesses of ``numerics.core.bvn`` and
``numerics.masking.network`` (``test_kills_bvn.py``, ``test_kills_network.py``;
notes/mutation.md).

A mutant run must take seconds, and the raw-definition references take ~0.15 s per bivariate
value and ~8 s per network, so their values are computed once here and stored (scipy's
``_precompute`` model, DESIGN.md): only this script's output, the JSON tables beside it,
lives in the tests.  The references never call the code they judge:

- bivariate: ``tests/_mp_bvn.py`` (one-dimensional quadrature of the conditional law of Y2 given
  Y1, at 40 digits; no Plackett identity), for Phi2, N1, M, M11;
- network: ``numerics.masking.reference_network`` (mpmath quadrature of the raw Gaussian
  moments, precision ladder 30/60 digits), for E_C[L_C], E_C[grad L_C] and Theorem 4.2's
  T1, T2, E, bound.

    python tests/mutation/mutation_references.py            # rewrite both tables
    python tests/mutation/mutation_references.py --only bvn # one of them

``test_kills_bvn.py::test_table_is_current`` and ``test_kills_network.py::test_table_is_current``
(slow tier) recompute rows and compare them with the stored strings.
"""
from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import mpmath as mp
import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
BVN_TABLE = HERE / "reference_bvn.json"
NETWORK_TABLE = HERE / "reference_network.json"
#: digits of the references (tests/_mp_bvn.py works at DPS + 20 internally) and digits stored
DPS, DIGITS = 40, 25
QUANTITIES = ("P", "N1", "M", "M11")

# --------------------------------------------------------------------------- bivariate points
# (h, k, rho): every region of the module docstrings of bvn.py, bvn_rules.py and bvn_general.py:
# the fast paths of bvn_cdf (fixed rule, Phi(h)Phi(k), Phi(min), P(-k <= Y <= h)), the general
# path's Gauss-Hermite and Gauss-Laguerre pieces, its panels in w and linear in v, both modes,
# rho < 0 from -1 and rho >= 0 from 0, |a1| < |a2| and >, H = 0, arguments below 1e-16 (N1's far
# tail) and near 1e-300, the deep lower tail down to ~1e-300, |rho| -> 1 and the exact limits
# rho = +-1.  (Arguments beyond 1e100 are checked in test_kills_bvn.py against the exact limit
# laws, cheaper than quadrature.)
POINTS = [
    # curated (tests/test_bvn_kernels.py's tail and near-degenerate cases)
    (-8.0, -8.0, 0.5), (0.0, 0.0, 0.3), (1.5, -0.7, -0.6), (-37.0, -37.0, 0.99),
    (-36.5, -37.2, 0.5), (-30.0, -29.99, 0.999999),
    (-33.33431352814416, 33.33431352811921, -0.3763370959790291),
    (5.0, 0.0, 0.999999), (-3.0, 2.0, -0.9), (10.0, 12.0, -0.5), (-20.0, 3.0, 0.7),
    (2.0, -2.0, -0.999999), (-1.0, 1.0000001, -0.9999999),
    (1.4094264788018478, -1.4094264601647541, -0.9999999646762381),
    (-14.265781426369175, -14.232481304030184, 0.999999),
    (3.3505803108725314e-09, 5.006021806497622e-09, -0.1), (-6.0, -6.0, 1e-10),
    (-25.0, -5.0, -0.2), (0.0, 0.0, -0.999999), (-3.0, 1.2, 0.7), (-2.0, 1.0, -0.3),
    (-15.031462783090731, 15.031463162094134, -0.999999), (4.0, -6.0, 0.9),
    # the body, both signs of rho, swapped roles
    (0.7, 1.9, 0.45), (1.9, 0.7, 0.45), (-0.4, 0.9, -0.35), (0.9, -0.4, -0.35),
    (1.0, -0.5, 0.4), (-2.0, 1.5, -0.5), (3.0, 2.5, 0.85), (-1.0, -1.0, -0.8),
    (2.0, 2.0, -0.7), (0.3, -0.2, 0.0), (-0.6, 2.2, -0.95), (2.5, -1.5, 0.95),
    # H = 0 (both zero) and one zero
    (0.0, 0.0, 0.0), (0.0, 0.0, 0.75), (0.0, 0.0, -0.6), (0.0, 1.3, 0.5), (-1.3, 0.0, -0.5),
    # tails: lower (values down to ~1e-250), mixed signs, upper
    (-12.0, -9.0, 0.3), (-9.0, -12.0, -0.4), (-18.0, -18.5, 0.9), (-22.0, -4.0, 0.95),
    (-7.0, 6.0, -0.8), (6.0, -7.0, 0.2), (-5.0, -30.0, 0.6), (-15.0, -15.0, -0.3),
    (-26.0, -25.0, 0.2), (8.0, 9.0, 0.5), (9.0, -9.5, -0.99),
    (-20.0, -20.000001, 0.999), (-30.0, -29.5, 0.9999999), (-5.0, 5.0, -0.9999),
    # tiny arguments (N1's tail beyond the w-window; |h| below 1e-154, where |h|^2 = 0)
    (1e-17, 2e-17, -0.5), (3e-20, -1e-20, -0.7), (-2e-18, 5e-18, -0.3), (1e-200, 5e-201, -0.3),
    (-4e-170, 1e-170, -0.8), (2e-12, 1e-12, 0.5), (1e-30, -1e-30, 0.6),
    # |rho| -> 1 without q
    (1.0, 1.0, 0.9999999999), (-3.0, -3.1, 0.99999999), (0.5, -0.5, -0.99999999),
    (-2.0, 2.5, -0.9999999999), (4.0, 4.0, 1.0 - 2.0**-52), (-1.0, 0.5, -1.0 + 2.0**-53),
    # the exact limits rho = +-1 (a1 >, =, < a2; the interval empty or not)
    (-30.0, -20.0, 1.0), (3.0, -2.9, -1.0), (-2.0, -3.0, -1.0), (0.5, 0.5, 1.0),
    (-3.0, 2.5, -1.0), (1.2, -0.4, 1.0), (-0.4, 1.2, 1.0), (0.8, 0.8, -1.0),
    (2.0, -2.0, -1.0), (-6.0, 1.0, 1.0),
]

# (h, k, t, sign): rho = sign cos t, q = sin t; the kernels get (float(rho), q=float(q)), and
# float(rho) rounds to +-1 for t <= 1e-8.  The reference is at the correlation these two floats
# define by bvn_cdf's docstring, 1 - |rho| = q^2/(1 + |rho|), in 80 digits (for t of order 1,
# where exp(-E) with E ~ 600 amplifies an eps of rho 600-fold, cos t itself would differ).
Q_POINTS = [
    (hk[0], hk[1], t, s)
    for t in ("1e-3", "1e-6", "1e-9", "1e-12")
    for s in (1, -1)
    for hk in ((1.0, 1.0), (-3.0, -3.0), (-25.0, -25.0), (1.5, -0.7), (-6.0, 4.0))
] + [
    # q of order 1 in the lower tail, where E(rho) ~ 200-600 carries the low-order part of
    # rho h - k formed from q (an error of eps there moves the value by ~1e-13)
    (-19.3, -17.4, "1.1", -1), (-19.3, -17.4, "2.0", 1), (-30.0, -22.0, "1.1", 1), (-15.0, -18.0, "1.1", -1),
]

# bvn_cdf(..., relative=False): rows with rho < 0 on the fixed rule whose integral cancels
# against Phi(h)Phi(k) (Phi(h)Phi(k) > 2 Phi2)
ABS_POINTS = [
    (-1.0, -1.0, -0.8), (-0.5, -1.5, -0.7), (0.2, -2.0, -0.85), (-2.5, 0.0, -0.6),
    (-1.8, -1.2, -0.5), (1.0, -3.0, -0.4), (-3.2, -3.0, -0.2),
]


def consistent_pair(rho0: float, span: int = 3000) -> tuple[float, float]:
    """The floats (rho, q) within ``span`` ulps of rho0 (q within one ulp of sqrt(1 - rho^2))
    with the smallest |1 - rho^2 - q^2|: ~1e-21 instead of the ~1e-17 of two rounded values,
    so that every reading of the pair is the same correlation to far below eps."""
    best, up, dn = None, rho0, rho0
    with mp.workdps(60):
        for _ in range(span):
            for rf in (up, dn):
                q0 = math.sqrt((1 - rf) * (1 + rf))
                for qf in (q0, math.nextafter(q0, 0.0), math.nextafter(q0, 2.0)):
                    res = abs(1 - mp.mpf(rf) ** 2 - mp.mpf(qf) ** 2)
                    if best is None or res < best[0]:
                        best = (res, rf, qf)
            up, dn = math.nextafter(up, 2.0), math.nextafter(dn, -2.0)
    return best[1], best[2]


def q_point(h, k, t, sign):
    """(h, k, float(rho), float(q), and as a string the correlation sgn(rho) (1 - q^2/(1 + |rho|))
    that the two floats define) for rho = sign cos t, q = sin t.  For t >= 0.01 the pair is
    made consistent (``consistent_pair``): there exp(-E), E ~ 600, would turn the ~1e-17
    disagreement of two rounded floats into ~1e-14."""
    with mp.workdps(80):
        rho, q = float(sign * mp.cos(mp.mpf(t))), float(mp.sin(mp.mpf(t)))
        if float(t) >= 0.01:
            rho, q = consistent_pair(rho)
        exact = mp.sign(rho) * (1 - mp.mpf(q) ** 2 / (1 + abs(mp.mpf(rho))))
        return h, k, rho, q, mp.nstr(exact, 70)


def _ref():
    sys.path.insert(0, str(ROOT / "tests"))
    import _mp_bvn

    return _mp_bvn


def bvn_row(point, rho_exact=None):
    """The four reference values at (h, k, rho) as strings (rho_exact overrides rho)."""
    ref = _ref()
    h, k, rho = point[:3]
    names = {"P": "bvn_cdf", "N1": "orthant_m1", "M": "orthant_m2", "M11": "orthant_m11"}
    with mp.workdps(80):
        r = mp.mpf(rho_exact) if rho_exact is not None else rho  # all 70 digits of the exact rho
        return {key: mp.nstr(ref.REFERENCES[names[key]](h, k, r, dps=DPS), DIGITS) for key in QUANTITIES}


def bvn_table(progress=print):
    rows = []
    for i, p in enumerate(POINTS):
        rows.append({"h": p[0], "k": p[1], "rho": p[2], **bvn_row(p)})
        progress(f"bvn {i + 1}/{len(POINTS)}")
    qrows = []
    for p in Q_POINTS:
        h, k, rho, q, rho_exact = q_point(*p)
        qrows.append({"h": h, "k": k, "rho": rho, "q": q, "rho_exact": rho_exact,
                      **bvn_row((h, k, rho), rho_exact)})
    progress("q points done")
    arows = [{"h": h, "k": k, "rho": r, "P": bvn_row((h, k, r))["P"]} for h, k, r in ABS_POINTS]
    return {"dps": DPS, "points": rows, "q_points": qrows, "absolute_points": arows}


# ----------------------------------------------------------------------------- networks
def networks() -> dict:
    """Small networks (W, a, X, y, kappa) that reach every branch of network.py: generic;
    d = 1 (every pair parallel or antiparallel: q = 0); a nearly parallel pair (|rho| > 0.9,
    q from the 2x2 minors); exactly parallel and antiparallel rows in d = 3; u_ir = 0 (s = 0
    with mu = 0); kappa = 0; small kappa (|a| ~ 1e2, deep tails); huge and tiny scales."""
    nets = {
        "generic": ([[0.8, -0.4, 0.3], [0.5, 0.9, -0.2], [-0.7, 0.1, 0.6]], [1.0, -1.0, 1.0],
                    [[0.5, 0.4, -0.7], [0.1, 0.9, 0.2]], [0.3, -0.1], 0.4),
        "d1": ([[0.7], [-1.2], [0.4]], [1.0, -1.0, -1.0], [[0.9], [-0.6]], [0.2, 0.5], 0.6),
        "nearly_parallel": ([[0.8, -0.4, 0.3], [0.8, -0.4, 0.3 + 1e-9], [-0.8, 0.4, -0.3]],
                            [1.0, -1.0, 1.0], [[0.5, 0.4, -0.7], [0.1, 0.9, 0.2]], [0.3, -0.1], 0.4),
        "parallel": ([[0.6, -0.3, 0.9], [1.2, -0.6, 1.8], [-0.3, 0.15, -0.45]], [1.0, 1.0, -1.0],
                     [[0.4, 0.7, -0.2], [-0.8, 0.3, 0.5]], [0.1, 0.4], 0.7),
        "u_zero": ([[1.0, 0.0, 0.0], [0.0, 0.5, -0.5], [0.3, -0.2, 0.4]], [1.0, -1.0, 1.0],
                   [[0.0, 1.0, 1.0], [0.7, 0.0, 0.0], [0.2, -0.3, 0.6]], [0.4, -0.2, 0.1], 0.5),
        "kappa_0": ([[0.8, -0.4, 0.3], [0.5, 0.9, -0.2], [-0.7, 0.1, 0.6]], [1.0, -1.0, 1.0],
                    [[0.5, 0.4, -0.7], [0.1, 0.9, 0.2]], [0.3, -0.1], 0.0),
        "small_kappa": ([[0.8, -0.4, 0.3], [0.5, 0.9, -0.2], [-0.7, 0.1, 0.6]], [1.0, -1.0, 1.0],
                        [[0.5, 0.4, -0.7], [0.1, 0.9, 0.2]], [0.3, -0.1], 0.01),
        "huge_scale": ([[8e60, -4e60], [5e60, 9e60]], [1.0, -1.0], [[5e60, 4e60], [1e60, -9e60]],
                       [3e120, -1e120], 0.3),
        "tiny_scale": ([[8e-40, -4e-40], [5e-40, 9e-40]], [-1.0, 1.0], [[5e-40, 4e-40], [1e-40, -9e-40]],
                       [3e-80, 1e-80], 0.9),
    }
    return nets


def network_row(net):
    from numerics.masking import reference_network as R

    W, a, X, y, kappa = (np.array(v, dtype=np.float64) if isinstance(v, list) else v for v in net)
    loss = R.expected_loss(W, a, X, y, kappa)
    grad = R.expected_grad(W, a, X, y, kappa)
    out = {"loss": mp.nstr(loss, DIGITS), "grad": [[mp.nstr(g, DIGITS) for g in row] for row in grad]}
    if kappa > 0:
        th = R.theorem_4_2(W, a, X, y, kappa)
        out.update({f: mp.nstr(getattr(th, f), DIGITS) for f in ("T1", "T2", "E", "bound")})
    return out


def network_table(progress=print):
    rows = {}
    for name, net in networks().items():
        W, a, X, y, kappa = net
        rows[name] = {"W": W, "a": a, "X": X, "y": y, "kappa": kappa, **network_row(net)}
        progress(f"network {name}")
    return {"dps": 30, "networks": rows}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Write the reference tables of tests/mutation/ "
                                 "(reference_bvn.json, reference_network.json) from the raw definitions.")
    ap.add_argument("--only", choices=("bvn", "network"), help="write one table only")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from theory.core.io import write_json

    if args.only in (None, "bvn"):
        write_json(BVN_TABLE, bvn_table())
    if args.only in (None, "network"):
        write_json(NETWORK_TABLE, network_table())
    return 0


if __name__ == "__main__":
    sys.exit(main())
