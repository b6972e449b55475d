"""30-digit reference Gram matrices of eq. (23) and its derivative kernel for tanh over the
whole input range, for ``test_s3_kernels_tanh_range.py`` (scipy's ``_precompute`` model,
DESIGN.md: only this script's output, ``tanh_reference.json`` beside it, lives in the tests).

The reference is ``numerics.meanfield.reference.tanh_entry_panels`` (graded fixed panels in
Arb after conditioning on u, on the 30/60-digit precision ladder; about a second per entry, so
a default-tier witness cannot afford to recompute it).  It never calls the kernels it judges.

Inputs (rows x_a; a = |x_a|/sqrt d is the standard deviation of u = z^T x_a/sqrt d):

- ``DEFAULT``: three small matrices checked in the default tier, each row at a different scale
  so one Gram matrix holds tiny x huge, parallel, antiparallel, nearly (anti)parallel and
  orthogonal pairs, d = 1, 2, 3;
- ``sweep()``: seeded pairs with a, b log-uniform on [1e-8, 1e4] independently, d in {1, 2, 5}
  and angles cycling through uniform on [0, pi], 10^U(-9, -1) from 0 and from pi, exactly 0
  (x_b = 2^k x_a), exactly pi and exactly pi/2 (for the slow tier).

    python verify/meanfield/tanh_reference_table.py    # rewrite tanh_reference.json (~10 min)

``test_s3_kernels_tanh_range.py::test_table_is_current`` (slow) recomputes rows.
"""
from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import mpmath as mp
import numpy as np

HERE = Path(__file__).resolve().parent
TABLE = HERE / "tanh_reference.json"
#: digits of the reference (ladder 30/60) and digits stored
DPS, DIGITS = 30, 25
SWEEP_SIZE, SWEEP_SEED = 36, 24
ANGLES = ("uniform", "near 0", "near pi", "0", "pi", "pi/2")

_c, _s = math.cos(2.0), math.sin(2.0)
DEFAULT = {
    # d = 1: every pair parallel or antiparallel; a = 1e-8, 0.7, 1e4
    "d=1 scales 1e-8, 0.7, 1e4": [[1e-8], [-0.7], [1e4]],
    # a = 1e4 and 3e3 nearly antiparallel (pi - theta ~ 1e-7), a = 1e-8 at angle 2 from the first
    "d=3 huge nearly antiparallel, tiny": [[1e4 * math.sqrt(3), 0.0, 0.0],
                                            [-3e3 * math.sqrt(3), 3e3 * math.sqrt(3) * 1e-7, 0.0],
                                            [1e-8 * math.sqrt(3) * _c, 0.0, 1e-8 * math.sqrt(3) * _s]],
    # a = 30 and 500 nearly parallel (theta ~ 1e-9), a = 2e-3 exactly orthogonal to the first
    "d=2 nearly parallel, orthogonal": [[30 * math.sqrt(2), 0.0], [500 * math.sqrt(2), 500 * math.sqrt(2) * 1e-9],
                                         [0.0, 2e-3 * math.sqrt(2)]],
}


def sweep() -> dict[str, list[list[float]]]:
    """The seeded pairs of the module docstring, named by their scales, d and angle."""
    rng = np.random.default_rng(SWEEP_SEED)
    out = {}
    for i in range(SWEEP_SIZE):
        a, b = 10.0 ** rng.uniform(-8, 4, 2)
        kind = ANGLES[i % len(ANGLES)]
        d = 1 if kind in ("0", "pi") and (i // len(ANGLES)) % 2 == 0 else int(rng.choice([2, 5]))
        basis, _ = np.linalg.qr(rng.standard_normal((d, d)))
        e1 = basis[:, 0]
        xa = a * math.sqrt(d) * e1
        if kind in ("0", "pi"):                     # exact: a power-of-two multiple of x_a
            k = round(math.log2(b / a))
            xb = (1.0 if kind == "0" else -1.0) * np.ldexp(xa, k)
        else:
            th = {"uniform": rng.uniform(0, math.pi), "near 0": 10.0 ** rng.uniform(-9, -1),
                  "near pi": math.pi - 10.0 ** rng.uniform(-9, -1), "pi/2": math.pi / 2}[kind]
            e2 = basis[:, 1]
            xb = b * math.sqrt(d) * (math.cos(th) * e1 + math.sin(th) * e2)
            if kind == "pi/2":                      # exactly orthogonal rows
                xa, xb = a * math.sqrt(d) * np.eye(d)[0], b * math.sqrt(d) * np.eye(d)[1]
        a, b = (float(np.linalg.norm(x)) / math.sqrt(d) for x in (xa, xb))
        out[f"{i:02d} d={d} a={a:.1e} b={b:.1e} angle {kind}"] = [xa.tolist(), xb.tolist()]
    return out


def gram(rows, derivative: bool) -> list[list[str]]:
    """The reference Gram matrix of ``rows`` (upper triangle computed, stored in full)."""
    from numerics.meanfield.reference import tanh_entry_panels

    n = len(rows)
    G = [[""] * n for _ in range(n)]
    for i in range(n):
        for j in range(i, n):
            v = tanh_entry_panels(np.array(rows[i]), np.array(rows[j]), derivative=derivative, dps=DPS)
            G[i][j] = G[j][i] = mp.nstr(v, DIGITS)
    return G


def entry(name, rows, tier, progress=print) -> dict:
    out = {"name": name, "tier": tier, "X": [[float(v).hex() for v in r] for r in rows],
           "tanh": gram(rows, False), "sech2": gram(rows, True)}
    progress(f"{tier} {name}")
    return out


def table(progress=print) -> dict:
    mats = [entry(k, v, "default", progress) for k, v in DEFAULT.items()]
    mats += [entry(k, v, "slow", progress) for k, v in sweep().items()]
    return {"dps": DPS, "digits": DIGITS, "reference": "numerics.meanfield.reference.tanh_entry_panels",
            "matrices": mats}


def main(argv=None) -> int:
    argparse.ArgumentParser(description="Write verify/meanfield/tanh_reference.json (30-digit tanh and "
                            "sech^2 Gram matrices of eq. (23) over scales 1e-8 .. 1e4).").parse_args(argv)
    sys.path.insert(0, str(HERE.parents[1]))
    from theory.core.io import write_json
    from tqdm import tqdm

    bar = tqdm(total=len(DEFAULT) + SWEEP_SIZE, unit="matrix")
    write_json(TABLE, table(progress=lambda msg: (bar.set_description(msg[:40]), bar.update())))
    bar.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
