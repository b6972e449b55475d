"""Benchmark of the bivariate normal CDF kernels (not a test).

On the same fuzzed inputs (10^6 by default: deep lower tails down to -37, mixed signs,
large positive arguments, h ~ +-k, |rho| -> 1, rho on a grid) it times

  (a) ``numerics.core.bvn.bvn_cdf`` on the CPU (torch, float64),
  (b) Owen's T formula with ``scipy.special.owens_t`` (vectorised):
      Phi2(h,k;rho) = (Phi(h) + Phi(k))/2 - T(h, a_h) - T(k, a_k) - beta,
      a_h = (k - rho h)/(h q), a_k = (h - rho k)/(k q), q = sqrt(1 - rho^2),
      beta = 0 if h k > 0 or (h k = 0 and h + k >= 0), else 1/2,
  (c) ``scipy.stats.multivariate_normal.cdf`` called per point on a subsample
      (``--scipy-n`` points, timing extrapolated to n),
  (d) ``bvn_cdf`` on CUDA when a device is available,

and reports throughput (points/s), ratios against (b) and (c), and each method's max
relative error against the mpmath reference (``tests/_mp_bvn.py``, raw definition at 40
digits) on a fuzzed subsample (``--ref-n`` points, tails included; values below the
smallest normal float64 are skipped).  Run ``python bench/bench_bvn.py --help``.
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import time

import numpy as np
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tests"))

from numerics.core import bvn  # noqa: E402


def fuzz(n: int, seed: int) -> np.ndarray:
    """(n, 3) array of (h, k, rho): a third generic (|h|,|k| <= 8), the rest spread over
    deep lower tails, mixed signs, large positive arguments, h ~ +-k and tiny
    arguments; rho uniform, on a grid, or within 1e-16..1e-2 of +-1."""
    rng = np.random.default_rng(seed)
    c = rng.integers(0, 12, n)
    h = rng.uniform(-8, 8, n)
    k = rng.uniform(-8, 8, n)
    sel = c == 4
    h[sel], k[sel] = rng.uniform(-37, -5, sel.sum()), rng.uniform(-37, -5, sel.sum())
    sel = c == 5
    h[sel], k[sel] = rng.uniform(-37, 5, sel.sum()), rng.uniform(-5, 37, sel.sum())
    sel = c == 6
    h[sel] = rng.uniform(-37, 37, sel.sum())
    k[sel] = h[sel] * (1 + rng.choice([-1, 1], sel.sum()) * 10 ** rng.uniform(-14, -1, sel.sum()))
    sel = c == 7
    h[sel] = rng.uniform(-37, 37, sel.sum())
    k[sel] = -h[sel] * (1 + rng.choice([-1, 1], sel.sum()) * 10 ** rng.uniform(-14, -1, sel.sum()))
    sel = c == 8
    h[sel], k[sel] = rng.uniform(3, 40, sel.sum()), rng.uniform(3, 40, sel.sum())
    sel = c == 9
    h[sel] = rng.uniform(-37, -2, sel.sum())
    k[sel] = h[sel] + rng.uniform(-3, 3, sel.sum())
    sel = c == 10
    h[sel], k[sel] = rng.uniform(-20, 20, sel.sum()), rng.uniform(-20, 20, sel.sum())
    u = rng.random(n)
    rho = rng.uniform(-1, 1, n)
    grid = np.array([-1, -0.999999, -0.9, -0.5, -0.1, 0, 0.1, 0.5, 0.9, 0.999999, 1.0])
    sel = u < 0.15
    rho[sel] = rng.choice(grid, sel.sum())
    sel = (u >= 0.15) & (u < 0.35)
    rho[sel] = rng.choice([-1, 1], sel.sum()) * (1 - 10 ** rng.uniform(-16, -2, sel.sum()))
    swap = rng.random(n) < 0.5
    h[swap], k[swap] = k[swap], h[swap]
    return np.stack([h, k, rho], axis=1)


def owens_t_bvn(h, k, rho):
    """Phi2 by Owen's T function (scipy.special.owens_t), vectorised; rho = +-1 and
    h = 0 or k = 0 handled by the limits of a_h, a_k."""
    from scipy import special as sp

    with np.errstate(all="ignore"):
        q = np.sqrt((1 - rho) * (1 + rho))
        ah = (k - rho * h) / (h * q)
        ak = (h - rho * k) / (k * q)
        ah = np.where(np.isnan(ah), 0.0, ah)
        ak = np.where(np.isnan(ak), 0.0, ak)
        beta = np.where((h * k > 0) | ((h * k == 0) & (h + k >= 0)), 0.0, 0.5)
        val = 0.5 * (sp.ndtr(h) + sp.ndtr(k)) - sp.owens_t(h, ah) - sp.owens_t(k, ak) - beta
        lim1 = sp.ndtr(np.minimum(h, k))
        limm1 = np.maximum(sp.ndtr(h) - sp.ndtr(-k), 0.0)
    val = np.where(rho >= 1, lim1, np.where(rho <= -1, limm1, val))
    return val


def scipy_mvn(points):
    from scipy.stats import multivariate_normal

    out = np.empty(len(points))
    for i, (h, k, r) in enumerate(points):
        try:
            out[i] = multivariate_normal.cdf(
                [h, k], mean=[0.0, 0.0], cov=[[1.0, r], [r, 1.0]], allow_singular=True
            )
        except (ValueError, np.linalg.LinAlgError):
            out[i] = np.nan
    return out


def timed(fn, *args, repeat=1):
    best = math.inf
    val = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        val = fn(*args)
        best = min(best, time.perf_counter() - t0)
    return best, val


def max_rel_err(values, refs):
    worst, at = 0.0, -1
    for i, (v, r) in enumerate(zip(values, refs)):
        if r is None:
            continue
        e = math.inf if not np.isfinite(v) else abs(v / r - 1.0)
        if e > worst:
            worst, at = e, i
    return worst, at


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=1_000_000, help="number of fuzzed inputs")
    ap.add_argument("--seed", type=int, default=0, help="fuzz seed")
    ap.add_argument("--scipy-n", type=int, default=2000, help="subsample for multivariate_normal.cdf")
    ap.add_argument("--ref-n", type=int, default=300, help="subsample checked against mpmath")
    ap.add_argument("--threads", type=int, default=0, help="torch CPU threads (0: torch default)")
    ap.add_argument("--repeat", type=int, default=1, help="timing repeats (best of)")
    args = ap.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)

    pts = fuzz(args.n, args.seed)
    h, k, r = (np.ascontiguousarray(pts[:, i]) for i in range(3))
    th, tk, tr = (torch.from_numpy(x) for x in (h, k, r))
    print(f"n = {args.n:,} fuzzed points (seed {args.seed}); torch {torch.__version__}, "
          f"{torch.get_num_threads()} CPU threads")

    # warm-up (quadrature rules are built on first use)
    bvn.bvn_cdf(th[:1000], tk[:1000], tr[:1000])
    if hasattr(bvn, "_fast_paths"):  # fraction of points on each path of bvn_cdf
        fin = torch.isfinite(th) & torch.isfinite(tk) & (tr.abs() < 1)
        masks = bvn._fast_p_route(th, tk, tr)[:4]
        done = bvn._fast_paths(th, tk, tr, fin, {"P": torch.zeros_like(th)})
        fr = [(m & done).double().mean().item() for m in masks]
        print("paths: fixed GL %.3f, Phi(h)Phi(k) %.3f, Phi(min) %.3f, P(-k<Y<h) %.3f, "
              "general %.3f, |rho|=1 or inf %.3f" % (*fr, (fin & ~done).double().mean().item(),
                                                   (~fin).double().mean().item()))
    rows = []
    t_cpu, _ = timed(bvn.bvn_cdf, th, tk, tr, repeat=args.repeat)
    rows.append(["torch CPU (bvn_cdf)", t_cpu, args.n / t_cpu, ""])
    t_ow, _ = timed(owens_t_bvn, h, k, r, repeat=args.repeat)
    rows.append(["Owen's T (scipy owens_t)", t_ow, args.n / t_ow, ""])
    m = min(args.scipy_n, args.n)
    t_sp, _ = timed(scipy_mvn, pts[:m])
    t_sp_full = t_sp * args.n / m
    rows.append(["scipy mvn.cdf per point", t_sp_full, args.n / t_sp_full,
                 f"{m} pts timed, extrapolated"])
    cuda = torch.cuda.is_available()
    if cuda:
        dev = torch.device("cuda")
        gh, gk, gr = th.to(dev), tk.to(dev), tr.to(dev)
        bvn.bvn_cdf(gh[:1000], gk[:1000], gr[:1000])
        torch.cuda.synchronize()

        def run_gpu():
            v = bvn.bvn_cdf(gh, gk, gr)
            torch.cuda.synchronize()
            return v

        t_gpu, _ = timed(run_gpu, repeat=args.repeat)
        rows.append(["torch CUDA (bvn_cdf)", t_gpu, args.n / t_gpu, torch.cuda.get_device_name()])

    # accuracy on a fuzzed subsample against mpmath (computed once)
    import _mp_bvn as ref
    import mpmath as mp

    sub = fuzz(args.ref_n, args.seed + 1)
    t0 = time.perf_counter()
    refs = []
    for a, b, c in sub:
        v = ref.bvn_cdf(float(a), float(b), float(c))
        refs.append(float(v) if v > mp.mpf("2.2250738585072014e-308") else None)
    t_ref = time.perf_counter() - t0
    sh, sk, sr = (np.ascontiguousarray(sub[:, i]) for i in range(3))
    errs = {
        "torch CPU (bvn_cdf)": bvn.bvn_cdf(*(torch.from_numpy(x) for x in (sh, sk, sr))).numpy(),
        "Owen's T (scipy owens_t)": owens_t_bvn(sh, sk, sr),
        "scipy mvn.cdf per point": scipy_mvn(sub),
    }
    if cuda:
        errs["torch CUDA (bvn_cdf)"] = bvn.bvn_cdf(
            *(torch.from_numpy(x).to(dev) for x in (sh, sk, sr))).cpu().numpy()

    print(f"accuracy: {sum(x is not None for x in refs)} of {args.ref_n} fuzzed points with a "
          f"normal reference value (mpmath, 40 digits, {t_ref:.0f}s)\n")
    hdr = f"{'method':<27}{'time (s)':>10}{'points/s':>12}{'vs Owen':>9}{'vs mvn':>9}{'max rel err':>13}  worst (h, k, rho)"
    print(hdr)
    print("-" * len(hdr))
    for name, t, thr, note in rows:
        e, i = max_rel_err(errs[name], refs)
        where = "" if i < 0 else "(%.4g, %.4g, %.10g)" % tuple(sub[i])
        print(f"{name:<27}{t:>10.3f}{thr:>12.3g}{t_ow / t:>9.2f}{t_sp_full / t:>9.1f}{e:>13.2e}  {where}")
        if note:
            print(f"{'':<27}({note})")
    print("\n'vs Owen' / 'vs mvn': speed-up relative to (b) / (c) (higher is faster).")


if __name__ == "__main__":
    main()
