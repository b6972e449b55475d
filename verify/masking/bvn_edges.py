"""Points on both sides of every routing edge of ``bvn_cdf``'s fast rules, with mpmath values.

``bvn_cdf`` (``numerics.core.bvn``) serves a row by one of its fast rules (16/24-node theta
rules, 32/48-node s rules, the rule from rho = -1, all in ``numerics.core.bvn_rules``;
Phi(h)Phi(k) or Phi(min) where the integral is negligible, P(-k < Y <= h)) when thresholds on
|rho|, max(|h|, |k|), the exponent's range, F(rho) and the negligibility slack admit it, else by
its general path (``numerics.core.bvn_general``).  The thresholds are data of ``bvn``, read
there at each call (the rules get their node counts from it, the compiled twin every
threshold), so setting an attribute of ``bvn`` reaches every formulation.  A
rule admitted beyond its accurate range (a changed threshold) shows only near those edges.

:func:`edge_points` walks one-parameter families (h, k, rho)(t) chosen to cross each edge,
labels each grid point by the path the landed code takes, and keeps, at every change of
label, the two grid points that straddle it and points 3 and 12 steps beyond on each side.
The points are then frozen with their values from the raw definition
(``numerics.core.reference.bvn_cdf``, mpmath quadrature at ``DPS`` digits) in
``bvn_edges.json``, with sentinels: the points of each family where a threshold opened wide
(``OPEN``) would let a rule err (so that a changed threshold meets a point it gets wrong, not
only points where the rule still happens to be accurate).  The fast witness (``test_s4_gaussian_fast.py``) judges every formulation
of the kernel (compiled, tensors, masked) there in milliseconds, and the slow tier
recomputes the table from the raw definition.
Regenerate: ``python -m verify.masking.bvn_edges --write`` (a few minutes).
"""
from __future__ import annotations

import argparse
import json
import pathlib

import numpy as np
import torch

TABLE = pathlib.Path(__file__).with_name("bvn_edges.json")
DPS = 30
STEPS = 400
#: (name, t grid, (h, k, rho) as functions of t), each crossing the edges in its name
FAMILIES = [
    ("max|h,k| across 10 (range <= 15)", np.linspace(8.0, 16.0, STEPS), lambda t: (-t, -5.0 + 0 * t, 0.5 + 0 * t)),
    ("max|h,k| across 8 (range in (15, 40])", np.linspace(6.0, 12.0, STEPS), lambda t: (-t, -0.5 + 0 * t, 0.6 + 0 * t)),
    ("range across 15 at m = 9.5", np.linspace(0.3, 0.95, STEPS), lambda t: (-9.5 + 0 * t, -0.3 + 0 * t, t)),
    ("range across 40 at m = 7.5", np.linspace(0.5, 0.99, STEPS), lambda t: (-7.5 + 0 * t, -0.3 + 0 * t, t)),
    ("|rho| across 0.7, 0.9, 0.99, 1 - 1e-6", 1.0 - np.logspace(np.log10(0.4), -9, STEPS),
     lambda t: (-2.0 + 0 * t, -1.5 + 0 * t, t)),
    ("range across 5 (16-node tier)", np.linspace(0.0, 4.0, STEPS), lambda t: (-t, 0.5 + 0 * t, 0.6 + 0 * t)),
    ("F(rho) across 2 (rule from -1)", np.linspace(-1.5, 2.9, STEPS), lambda t: (3.0 + 0 * t, t, -0.5 + 0 * t)),
    ("rho < 0: the tiers and the rule from -1", -1.0 + np.logspace(-7, np.log10(0.7), STEPS),
     lambda t: (1.0 + 0 * t, -0.5 + 0 * t, t)),
    ("rho < 0: Phi(h)Phi(k)/Phi2 across 2 (cancellation)", np.linspace(-0.9, -0.02, STEPS),
     lambda t: (-1.0 + 0 * t, -1.0 + 0 * t, t)),
    ("negligible integral (Phi(h)Phi(k))", np.linspace(4.0, 40.0, STEPS), lambda t: (-t, 2.0 + 0 * t, 0.4 + 0 * t)),
    ("negligible integral (Phi(min))", np.linspace(0.0, 30.0, STEPS), lambda t: (-t, -t - 1.0, 0.95 + 0 * t)),
    ("P(-k < Y <= h)", np.linspace(0.0, 12.0, STEPS), lambda t: (t, -2.0 + 0 * t, -0.6 + 0 * t)),
    ("rule from -1 against the general path", np.linspace(1.0, 15.0, STEPS),
     lambda t: (-t, 0.3 * t, -0.5 + 0 * t)),
    ("max|h,k| to 40", np.linspace(8.0, 40.0, STEPS), lambda t: (-t, -5.0 + 0 * t, 0.5 + 0 * t)),
    ("range to rho = 0.999 at m = 9.5", np.linspace(0.3, 0.999, STEPS), lambda t: (-9.5 + 0 * t, -0.3 + 0 * t, t)),
    # a 24-node rule past max|h,k| = 10 loses digits as |H| grows while the range stays near 15
    # (1e-13 at h = -34.4, k = -5.24, rho = 0.3), and past 8 where rho nears 0.9 and the range 40
    # (2.4e-12 at h = -11.6, k = -5.9, rho = 0.86): these cross the two max|h,k| edges there
    ("max|h,k| across 10 to range 15 at |H| ~ 35", np.linspace(8.0, 40.0, STEPS),
     lambda t: (-t, -5.24 + 0 * t, 0.3 + 0 * t)),
    ("max|h,k| across 8 at rho = 0.86 (range to 40)", np.linspace(6.0, 16.0, STEPS),
     lambda t: (-t, -5.9 + 0 * t, 0.86 + 0 * t)),
]
#: each threshold of ``bvn`` opened in turn (a rule admitted far beyond its edge): where that
#: changes the value by more than ``SENTINEL_RTOL`` the rule is inaccurate, and the first such
#: grid point of each family (and 3 steps on), and the one it moves most, join the table
OPEN = {"_FP_HMAX": 1e3, "_FP_DF": 1e4, "_FP_HMAX2": 1e3, "_FP_DF2": 1e4, "_FP_RHO_SMALL": 0.99999,
        "_FP_DF_SMALL": 1e4, "_FP_RHO": 0.99999, "_FP_JF": 0.0, "_FP_NEGL": 5.0, "_FP_CANCEL": 1e6}
#: the relative error at which the fast witness judges the table (``test_s4_gaussian_fast.FAST_RULES``)
WITNESS_RTOL = 1e-14
#: a sentinel is a point the opened rule moves by twice that: judged against mpmath, it is then off by
#: more than the witness allows even after the landed code's own error there (<= 5e-15, measured)
SENTINEL_RTOL = 2 * WITNESS_RTOL


def labels(h, k, rho) -> list[tuple]:
    """The path of ``bvn_cdf`` (default relative mode) for each row: (done by a fast path,
    quad, n0, n1, nm1, jm1, the quadrature tier)."""
    from numerics.core import bvn

    th, tk, tr = (torch.as_tensor(np.ascontiguousarray(x), dtype=torch.float64) for x in (h, k, rho))
    rt = bvn._fast_p_route(th, tk, tr)
    done = bvn._fast_paths(th, tk, tr, torch.ones(th.numel(), dtype=torch.bool),
                           {"P": torch.zeros_like(th)})
    done = np.zeros(th.numel(), bool) if done is None else done.numpy()
    a = np.abs(rho)
    tier = np.where((a <= bvn._FP_RHO_SMALL) & (rt.rng.numpy() <= bvn._FP_DF_SMALL), 16,
                    np.where(a <= bvn._FP_RHO, 24, np.where(a <= bvn._FP_RHO_S[0], 32, 48)))
    cols = [done] + [m.numpy() for m in (rt.quad, rt.n0, rt.n1, rt.nm1, rt.jm1)]
    return [tuple(bool(c[i]) for c in cols) + (int(tier[i]) if cols[1][i] else 0,) for i in range(len(h))]


def _sentinels(h, k, rho) -> list[int]:
    """Grid indices where some rule, its threshold opened (``OPEN``), would be inaccurate:
    for each threshold the first index whose value moves by more than SENTINEL_RTOL, the
    index 3 further and the index it moves most (located with float64 runs of the landed
    code, which only choose the points: their values in the table are mpmath's)."""
    from numerics.core import bvn

    th, tk, tr = (torch.from_numpy(x) for x in (h, k, rho))
    p0 = bvn.bvn_cdf(th, tk, tr).numpy()
    out = []
    for name, value in OPEN.items():
        landed = getattr(bvn, name)
        setattr(bvn, name, value)
        try:
            p1 = bvn.bvn_cdf(th, tk, tr).numpy()
        finally:
            setattr(bvn, name, landed)
        ok = np.abs(p0) > 1e-300
        moved = np.nonzero(ok & (np.abs(p1 - p0) > SENTINEL_RTOL * np.abs(p0)))[0]
        if moved.size:
            worst = int(np.argmax(np.where(ok, np.abs(p1 - p0) / np.where(ok, np.abs(p0), 1.0), 0.0)))
            out += [int(moved[0]), int(moved[0]) + 3, worst]
    return out


def edge_points() -> list[tuple[str, float, float, float]]:
    """(family, h, k, rho) on both sides of every change of path along each family, and its
    sentinels (:func:`_sentinels`)."""
    out, seen = [], set()
    for name, ts, f in FAMILIES:
        h, k, rho = (np.broadcast_to(np.asarray(v, dtype=np.float64), ts.shape).copy() for v in f(ts))
        lab = labels(h, k, rho)
        near = [j for i in range(len(ts) - 1) if lab[i] != lab[i + 1]
                for j in (i - 12, i - 3, i, i + 1, i + 4, i + 13)]
        for j in near + _sentinels(h, k, rho):
            if 0 <= j < len(ts) and (name, j) not in seen:
                seen.add((name, j))
                out.append((name, float(h[j]), float(k[j]), float(rho[j])))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--write", action="store_true", help=f"compute the references and write {TABLE.name}")
    args = ap.parse_args(argv)
    import mpmath as mp

    from numerics.core import reference as ref

    pts = edge_points()
    print(f"{len(pts)} points from {len(FAMILIES)} families")
    if not args.write:
        return
    rows = [dict(family=fam, h=h, k=k, rho=r, P=mp.nstr(ref.bvn_cdf(h, k, r, dps=DPS), DPS))
            for fam, h, k, r in pts]
    TABLE.write_text(json.dumps(dict(dps=DPS, points=rows), indent=1) + "\n")
    print(f"wrote {TABLE}")


if __name__ == "__main__":
    main()
