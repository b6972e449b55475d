"""Fast witnesses of ``numerics.core.bvn`` and the two modules it routes to (``bvn_rules``,
``bvn_general``) written to kill their mutants (bench/mutation.py, notes/mutation.md), through
the public API only (bvn_cdf, orthant_m1, orthant_m2, orthant_m11, orthant_moments), so that
they hold for any implementation of the same contract.

References, never the kernels' own formulas:
- ``reference_bvn.json``: the raw-definition mpmath quadrature of ``tests/_mp_bvn.py`` at 40
  digits (one-dimensional integral of the conditional law of Y2 given Y1; no Plackett identity),
  at points chosen to reach every path of bvn.py, bvn_rules.py and bvn_general.py (see
  ``mutation_references.POINTS``); written by ``python tests/mutation/mutation_references.py``,
  checked by ``test_table_is_current``;
- closed forms at the boundary, evaluated in mpmath: Phi2(h, +inf) = Phi(h), Phi2(0, 0; rho) =
  1/4 + asin(rho)/(2 pi) (Sheppard), N1(a, +inf) = g1(a) = a Phi(a) + phi(a), M11(a, +inf) =
  g2(a) = (a^2 + 1) Phi(a) + a phi(a).
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import mpmath as mp
import pytest
import torch

from numerics.core import bvn

HERE = Path(__file__).resolve().parent
TABLE = json.loads((HERE / "reference_bvn.json").read_text())
KEYS = {"P": bvn.bvn_cdf, "N1": bvn.orthant_m1, "M": bvn.orthant_m2, "M11": bvn.orthant_m11}
#: the contract of bvn.py ("relative error <= 1e-13 wherever the value is a normal float64")
CONTRACT = 1e-13
#: the accuracy measured on the table's points (worst 2.2e-15, M11 at (-7, 6, -0.8); 1.7e-15 for
#: Phi2; with q 2.4e-15, M at (-25, -25), t = 1e-12) with a 4x margin: tested below the contract,
#: so that an error that grows 10x but stays inside it is still seen (issue 16, item 1)
MEASURED = 1e-14
#: below the smallest normal float64 a value may be 0 or subnormal: it must be below 1e-290
TINY = 2.2250738585072014e-308
#: bvn_cdf(relative=False) on its cancelling rows: |error| <= 1e-14 Phi(h)Phi(k) (its docstring)
ABSOLUTE = 1e-14


def t(v):
    return torch.tensor(v, dtype=torch.float64)


def rel_err(got: float, want: str) -> float:
    """|got - want| / |want| in mpmath (the reference string exact to 25 digits)."""
    with mp.workdps(40):
        w = mp.mpf(want)
        return float(abs(mp.mpf(got) - w) / abs(w))


def check_rows(rows, got, key, tol, what):
    worst, where = 0.0, None
    for row, g in zip(rows, got.tolist()):
        assert math.isfinite(g), f"{what} {key}: non-finite {g} at {row['h'], row['k'], row['rho']}"
        if abs(float(row[key])) < TINY:
            assert 0.0 <= g < 1e-290, f"{what} {key} at {row['h'], row['k'], row['rho']}: expected ~0, got {g}"
            continue
        e = rel_err(g, row[key])
        if e > worst:
            worst, where = e, (row["h"], row["k"], row["rho"], g, row[key])
    assert worst <= tol, f"{what} {key}: relative error {worst:.3e} > {tol:g} at (h, k, rho, got, exact) = {where}"


@pytest.fixture(params=["compiled", "tensor", "masked"])
def fast_paths(request, monkeypatch):
    """Each implementation of bvn_cdf's fast paths on the CPU: compiled (the default), the routed
    tensors (``_COMPILED = False``) and the sync-free masks CUDA runs (``_MASKED = True``), so that
    a mutant of any of them meets the references."""
    monkeypatch.setattr(bvn, "_COMPILED", request.param == "compiled")
    monkeypatch.setattr(bvn, "_MASKED", request.param == "masked")
    return request.param


def columns(rows, *names):
    return [t([r[n] for r in rows]) for n in names]


@pytest.mark.parametrize("key", list(KEYS))
def test_each_function_against_the_raw_definition(key, fast_paths):
    rows = TABLE["points"]
    h, k, rho = columns(rows, "h", "k", "rho")
    check_rows(rows, KEYS[key](h, k, rho), key, MEASURED, "alone")


def test_orthant_moments_against_the_raw_definition():
    rows = TABLE["points"]
    h, k, rho = columns(rows, "h", "k", "rho")
    out = bvn.orthant_moments(h, k, rho)
    assert set(out) == set(KEYS)
    for key in KEYS:
        check_rows(rows, out[key], key, MEASURED, "together")


def test_each_point_alone_as_python_floats(fast_paths):
    """Scalars in, 0-d float64 tensors out, and a row's value does not depend on its batch
    (the routing of bvn_cdf's fast paths is per batch): every point evaluated alone from
    Python floats is as accurate (Phi2 at every point, the moments at every third)."""
    for i, row in enumerate(TABLE["points"]):
        for key, fn in KEYS.items():
            if key != "P" and i % 3:
                continue
            got = fn(row["h"], row["k"], row["rho"])
            assert got.dtype == torch.float64 and got.shape == ()
            check_rows([row], got.reshape(1), key, MEASURED, "scalar")


@pytest.mark.parametrize("a1, a2", [(1.2, 0.0), (-0.7, 0.0), (0.0, 2.5), (-3.0, 1.5), (4.0, -9.0)])
def test_zero_correlation_is_independence(a1, a2):
    """rho = 0: Y1, Y2 independent, so P = Phi(a1)Phi(a2), N1 = g1(a1)Phi(a2), M = g1(a1)g1(a2),
    M11 = g2(a1)Phi(a2) (g1, g2 the partial moments in mpmath); one point alone per call (with
    a2 = 0 no Plackett piece exists at all)."""
    with mp.workdps(40):
        P1, P2 = mp.ncdf(a1), mp.ncdf(a2)
        g1 = [x * mp.ncdf(x) + mp.npdf(x) for x in (a1, a2)]
        g2 = (a1 * a1 + 1) * mp.ncdf(a1) + a1 * mp.npdf(a1)
        exact = {"P": P1 * P2, "N1": g1[0] * P2, "M": g1[0] * g1[1], "M11": g2 * P2}
    together = bvn.orthant_moments(t(a1), t(a2), t(0.0))
    for key, fn in KEYS.items():
        for got in (float(fn(t(a1), t(a2), t(0.0))), float(together[key])):
            assert abs(mp.mpf(got) - exact[key]) <= MEASURED * exact[key], (key, got, exact[key])


@pytest.mark.parametrize("key", list(KEYS))
def test_accurate_q_near_rho_pm1(key):
    """rho = +-cos t, q = sin t (t = 1e-3 ... 1e-12): with q the kernels are accurate at the
    correlation 1 - |rho| = q^2/(1 + |rho|) although float(rho) has lost 1 - |rho|; and at
    t ~ 1.1, 2.0 in the lower tail (E ~ 600), with (rho, q) floats consistent to ~1e-21."""
    rows = TABLE["q_points"]
    h, k, rho, q = columns(rows, "h", "k", "rho", "q")
    check_rows(rows, KEYS[key](h, k, rho, q=q), key, MEASURED, "q")
    check_rows(rows, bvn.orthant_moments(h, k, rho, q=q)[key], key, MEASURED, "q together")


def test_absolute_mode_on_cancelling_rows(fast_paths):
    """relative=False: within 1e-14 Phi(h)Phi(k) of the reference (Phi by mpmath), never
    negative; on the table's points within MEASURED Phi2 + 1e-14 Phi(h)Phi(k) (rows that do not
    cancel are computed as with relative=True, the others are held to the absolute bound)."""
    rows = TABLE["absolute_points"]
    h, k, rho = columns(rows, "h", "k", "rho")
    got = bvn.bvn_cdf(h, k, rho, relative=False).tolist()
    for row, g in zip(rows, got):
        with mp.workdps(40):
            scale = mp.ncdf(row["h"]) * mp.ncdf(row["k"])
            err = abs(mp.mpf(g) - mp.mpf(row["P"])) / scale
        assert g >= 0.0
        assert err <= ABSOLUTE, (row, g, float(err))
    ordinary = TABLE["points"]
    h, k, rho = columns(ordinary, "h", "k", "rho")
    for row, g in zip(ordinary, bvn.bvn_cdf(h, k, rho, relative=False).tolist()):
        with mp.workdps(40):
            exact, scale = mp.mpf(row["P"]), mp.ncdf(row["h"]) * mp.ncdf(row["k"])
            if exact < TINY:
                assert 0.0 <= g < 1e-290, (row, g)
            else:
                assert abs(mp.mpf(g) - exact) <= MEASURED * exact + ABSOLUTE * scale, (row, g)


@pytest.mark.parametrize("rho", [-1.0, -0.6, 0.0, 0.35, 1.0])
def test_infinite_arguments_are_the_marginals(rho):
    """One argument +-inf: the exact marginal laws (mpmath closed forms)."""
    inf = math.inf
    a = [-30.0, -3.5, -0.25, 0.0, 1.75, 6.0]
    with mp.workdps(40):
        Phi = [mp.ncdf(x) for x in a]
        g1 = [x * mp.ncdf(x) + mp.npdf(x) for x in a]
        g2 = [(x * x + 1) * mp.ncdf(x) + x * mp.npdf(x) for x in a]
    x, r = t(a), t(rho)
    pinf, ninf = torch.full_like(x, inf), torch.full_like(x, -inf)
    for key, exact in (("P", Phi), ("N1", g1), ("M11", g2)):
        fn = KEYS[key]
        first = fn(x, pinf, r).tolist()  # Y2 unconstrained: the law of Y1 alone
        for g, e in zip(first, exact):
            assert abs(mp.mpf(g) - e) <= MEASURED * e, (key, g, e)
        # Y1 unconstrained: P is Phi(k); N1, M11 (weights in a1 - Y1) are infinite
        second = fn(pinf, x, r).tolist()
        if key == "P":
            assert all(abs(mp.mpf(g) - e) <= MEASURED * e for g, e in zip(second, exact)), second
        else:
            assert all(g == inf for g in second), (key, second)
        # either argument -inf: the empty event
        assert fn(ninf, x, r).tolist() == [0.0] * len(a), key
        assert fn(x, ninf, r).tolist() == [0.0] * len(a), key
    # M = E[(a1 - Y1)+ (a2 - Y2)+]: infinite when one argument is +inf, 0 when one is -inf
    assert bvn.orthant_m2(x, pinf, r).tolist() == [inf] * len(a)
    assert bvn.orthant_m2(pinf, x, r).tolist() == [inf] * len(a)
    assert bvn.orthant_m2(ninf, x, r).tolist() == [0.0] * len(a)
    assert bvn.orthant_m2(x, ninf, r).tolist() == [0.0] * len(a)
    both = bvn.orthant_moments(t([inf, inf, -inf]), t([inf, -inf, -inf]), r)
    assert both["P"].tolist() == [1.0, 0.0, 0.0]
    assert both["N1"].tolist()[1:] == [0.0, 0.0] and both["M11"].tolist()[1:] == [0.0, 0.0]


def test_sheppard_at_the_origin(fast_paths):
    """Phi2(0, 0; rho) = 1/4 + asin(rho)/(2 pi), for rho over (-1, 1) and at +-1."""
    rhos = [-1.0, -0.9999999, -0.97, -0.5, -1e-9, 0.0, 1e-9, 0.3, 0.9, 0.99999999, 1.0]
    got = bvn.bvn_cdf(t([0.0] * len(rhos)), t([0.0] * len(rhos)), t(rhos)).tolist()
    for r, g in zip(rhos, got):
        with mp.workdps(40):
            exact = mp.mpf(1) / 4 + mp.asin(r) / (2 * mp.pi)
        if exact == 0:
            assert g == 0.0
        else:
            assert abs(mp.mpf(g) - exact) <= MEASURED * exact, (r, g, exact)


def test_bvn_cdf_beyond_1e100_is_the_limit_law():
    """Arguments beyond |a| = 1e100: Phi2 equals its limit law to far below eps (the event
    Y1 > 1e100 has probability Phi(-1e100)): Phi(k), Phi(h), 0 or 1."""
    pts = [(1e150, -2.0, 0.3), (-1e200, 1.0, 0.5), (0.5, 3e120, -0.4), (2e300, 2e300, 0.2),
           (1e101, -1e101, -0.9), (-3.0, 5e200, 1.0)]
    with mp.workdps(40):
        exact = [mp.ncdf(-2), mp.mpf(0), mp.ncdf(0.5), mp.mpf(1), mp.mpf(0), mp.ncdf(-3)]
    got = bvn.bvn_cdf(*(t(list(c)) for c in zip(*pts))).tolist()
    for p, g, e in zip(pts, got, exact):
        assert abs(mp.mpf(g) - e) <= MEASURED * e, (p, g, e)


def test_orthant_moments_beyond_1e100():
    """One argument beyond the quadrature's clamp at 1e100: the other event is then certain to
    far below eps, so with Y1 = rho Y2 + q Z: N1(a1, a2) = a1 Phi(a2) + rho varphi(a2),
    M11 = a1^2 Phi(a2) + 2 a1 rho varphi(a2) + Phi(a2) - rho^2 a2 varphi(a2) (a1 huge) and
    M(a1, a2) = a2 g1(a1) + rho Phi(a1) (a2 huge), all normal float64 numbers here; before the
    fix N1(1e150, -2, 0.3) came out 2.275e98 instead of 2.275e148.  (mpmath, 40 digits.)"""
    with mp.workdps(40):
        a, y, r = mp.mpf(1e150), mp.mpf(-2), mp.mpf(0.3)
        n1 = a * mp.ncdf(y) + r * mp.npdf(y)
        m11 = a**2 * mp.ncdf(y) + 2 * a * r * mp.npdf(y) + mp.ncdf(y) - r**2 * y * mp.npdf(y)
        m = 3e120 * (mp.mpf(0.5) * mp.ncdf(0.5) + mp.npdf(0.5)) + mp.mpf(-0.4) * mp.ncdf(0.5)
        m_swapped = 3e120 * (mp.mpf(0.5) * mp.ncdf(0.5) + mp.npdf(0.5)) + mp.mpf(0.7) * mp.ncdf(0.5)
    got = bvn.orthant_moments(t(1e150), t(-2.0), t(0.3))
    assert abs(mp.mpf(float(got["N1"])) - n1) <= CONTRACT * n1, (float(got["N1"]), n1)
    assert abs(mp.mpf(float(got["M11"])) - m11) <= CONTRACT * m11, (float(got["M11"]), m11)
    got_m = float(bvn.orthant_m2(t(0.5), t(3e120), t(-0.4)))
    assert abs(mp.mpf(got_m) - m) <= CONTRACT * m, (got_m, m)
    got_m = float(bvn.orthant_m2(t(3e120), t(0.5), t(0.7)))  # the first argument large
    assert abs(mp.mpf(got_m) - m_swapped) <= CONTRACT * m_swapped, (got_m, m_swapped)


def test_broadcasting_and_float32_inputs():
    """Arguments broadcast (h (n, 1), k (1, n), rho scalar); float32 tensors are taken as their
    float64 values; the values are the reference's."""
    rows = TABLE["points"][:6]
    h = t([r["h"] for r in rows])
    grid = bvn.bvn_cdf(h[:, None], h[None, :], t(0.5))
    assert grid.shape == (6, 6) and grid.dtype == torch.float64
    # the diagonal against the table's own symmetric point (-8, -8, 0.5)
    check_rows(rows[:1], grid[0, 0].reshape(1), "P", MEASURED, "broadcast")
    x32 = torch.tensor([0.5, -1.25, 2.0], dtype=torch.float32)  # exact in float32
    for key, fn in KEYS.items():
        got = fn(x32, x32.flip(0), torch.tensor(0.25, dtype=torch.float32))
        want = fn(t([0.5, -1.25, 2.0]), t([2.0, -1.25, 0.5]), t(0.25))
        assert got.dtype == torch.float64 and torch.equal(got, want), key


@pytest.mark.slow
def test_table_is_current():
    """Every 7th row of the table recomputed from the raw definition equals the stored strings."""
    import mutation_references as mr

    rows = TABLE["points"]
    for row in rows[::7]:
        assert mr.bvn_row((row["h"], row["k"], row["rho"])) == {k: row[k] for k in KEYS}, row
    for row in TABLE["q_points"][::9]:
        assert mr.bvn_row((row["h"], row["k"], row["rho"]), row["rho_exact"]) == {k: row[k] for k in KEYS}
