"""Benchmark of the meanfield and amplification kernels on their papers' own arguments (not a test).

Where the two packs spend their kernel time (profiled once, issue 24): meanfield's ``gram_bar`` /
``gram_bar_prime`` (``numerics.meanfield.kernels``) are ``gaussian_kernels.pair_angles`` plus
``gaussian_kernels.dual``; for ReLU the closed form is cheap and ``pair_angles`` (n^2 d) takes ~70 %
of ``gram_bar`` at Exp. 3's data, for tanh the quadrature takes all of it: the polar Gauss-Legendre
rule (``polar_expectation``, 4.4e5 integrand evaluations per pair, ~15-25 s for Exp. 1's 40 inputs)
before issue 33, now ``tanh_dual``'s switch (a tensor trapezoidal rule of ``TRAPEZOID_RULES`` at
pair scales max(a, b) <= 6, 1.3e4 nodes per pair at Exp. 1's scales, the polar rule beyond).
Amplification evaluates ``correlation_tail(c, d)`` once per width tried in ``counts.minimal_width`` (a scalar call each, the same (c, d) every time: the cost is the call's
fixed overhead, about half validation and conversion and half the kernel's all-branch evaluation,
not the incomplete beta function itself) and no Gaussian kernel at all in its training (``gd``:
products, relu and sigmoid).

Sets (``--sets``), each the arguments of one of the papers' computations:

  mf-exp1   Exp. 1's inputs (x ~ N(0, I_20), n = 40 > d, as ``exp1.run`` draws them, seed 0), tanh:
            the kernel the meanfield campaigns and Theorem 2's sizes evaluate when n > d;
  mf-exp2   Exp. 2's training inputs (x ~ N(0, I_30), n = 800, ``exp2``'s draw, seed 0), relu;
  mf-exp3   Exp. 3's training inputs ((93)-(96), d = 50, n = 600, ``exp3.one_run``'s draw, seed 0),
            relu (Theorem 3's sizes evaluate ``gram_bar`` there);
  amp-counts the ``correlation_tail`` calls of ``counts.minimal_width(0.1, d, C_0)`` at (d, C_0) =
            (10^6, the paper's 4^5 1024^2 e^4) and (100, 2), recorded in call order.

Per set it prints the split across the kernel's branches -- ReLU's J(theta) (``arccos1``): the direct
form (theta <= pi/2), the series for nearly antiparallel pairs (pi - theta < 1) and sin(e) - e cos(e)
in between; tanh: the pairs on each rule of ``tanh_dual``'s switch (a trapezoidal row by its s_max, or
the polar rule), the nodes per pair of each and the polar rule's refinement levels; ``correlation_tail``: the
value's branch (beyond the support, c = 0, 1/2 (1 - I_x) where it is >= 1/4, Q_x/2, I_y/2; c < 0 by
reflection) -- and times, best of ``--repeat``, (a) the whole kernel (``gram_bar``, ``gram_bar_prime``,
``correlation_tail`` call by call as the computation makes them, and once vectorised), (b) the dual
kernel alone on the harvested (a, b, theta, pi - theta) of the upper triangle, and (c) an independent
baseline in the same run: for ReLU the textbook arc-cosine formula in numpy (theta = arccos of the
clipped cosine), for tanh a 256 x 256 Gauss-Hermite product rule on the Cholesky factor, for the tail
0.5 I_{1 - c^2/d}((d - 1)/2, 1/2) with ``scipy.special.betainc``.  For tanh the dual kernel is also
timed with the switch off (``tanh_dual(..., rules=())``: the polar rule on every pair, the kernel
before issue 33), with 'vs polar' its agreement with the switched kernel.  'agree' is the largest difference
from the baseline relative to the largest |value| (two formulas' agreement, not an error bound).
Run ``python bench/bench_kernels.py --help``.
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

from numerics.core import gaussian_kernels as gk  # noqa: E402
from numerics.meanfield import exp1, exp2, exp3, gram_bar, gram_bar_prime  # noqa: E402
from numerics.meanfield.certified import exp1_data  # noqa: E402

#: Gauss-Hermite nodes per dimension of the tanh baseline: tanh's poles at +-i pi/(2a) limit the
#: rule's convergence; at Exp. 1's data (a <= 1.2) 256 nodes agree with the polar quadrature to
#: 5e-16 (tanh) and 5e-15 (sech^2), 128 to 1e-11 and 7e-10, 64 to 9e-8 and 2e-6
GH_NODES = 256


def mf_exp1():
    return exp1_data(40, exp1.Config().d), "tanh"


def mf_exp2():
    cfg = exp2.Config()
    n = max(cfg.ns)
    return exp2.inputs(n, cfg.d, cfg.inputs, np.random.default_rng([cfg.seed, n, 0])), "relu"


def mf_exp3():
    cfg = exp3.Config()
    n = max(cfg.ns)
    return exp3.data(n, cfg.d, np.random.default_rng([cfg.seed, n, 0]))[0], "relu"


def amp_counts():
    """The (c, d) of every ``correlation_tail`` call of ``counts.minimal_width`` at the two
    settings of the module docstring, in call order: two arrays."""
    from numerics.amplification import counts

    calls, real = [], counts.correlation_tail

    def record(c, d):
        calls.append((float(c), float(d)))
        return real(c, d)

    counts.correlation_tail = record
    try:
        counts.minimal_width(0.1, 10**6, counts.C0_PAPER)
        counts.minimal_width(0.1, 100, 2.0)
    finally:
        counts.correlation_tail = real
    c, d = np.array(calls).T
    return c, d


MEANFIELD = {"mf-exp1": mf_exp1, "mf-exp2": mf_exp2, "mf-exp3": mf_exp3}
SETS = (*MEANFIELD, "amp-counts")


def timed(fn, repeat):
    best, val = math.inf, None
    for _ in range(repeat):
        t0 = time.perf_counter()
        val = fn()
        best = min(best, time.perf_counter() - t0)
    return best, val


def pair_arguments(X):
    """The dual kernel's arguments on the upper triangle (diagonal included), as ``gram_bar``
    forms them: a, b = |x|/sqrt d and theta, pi - theta from ``pair_angles``."""
    t = torch.as_tensor(X, dtype=torch.float64)
    norms, theta, supp = gk.pair_angles(t)
    s = norms / math.sqrt(t.shape[1])
    i, j = torch.triu_indices(len(s), len(s))
    return s[i], s[j], theta[i, j], supp[i, j]


def relu_split(theta, supp):
    """Fractions of pairs on each branch of ``gaussian_kernels.arccos1`` (its docstring's rule)."""
    direct = theta <= math.pi / 2
    series = ~direct & (supp < 1.0)
    return {"direct (theta <= pi/2)": direct.double().mean().item(),
            "series (pi - theta < 1)": series.double().mean().item(),
            "sin(e) - e cos(e)": (~direct & ~series).double().mean().item()}


def polar_nodes(scale):
    """The polar rule's geometric refinement levels and nodes per pair at largest scale ``scale``
    (``polar_expectation``: one level count for the whole call, from the largest scale)."""
    levels = max(0, math.ceil(math.log2(math.pi / 4 * 40 * max(scale, 1.0))))
    n_phi = (4 * (2 * (levels + 1) + 1) + 1) * gk.GL_ORDER
    n_r = (11 + 2 * len(gk._R_GRADES) - 1) * gk.GL_ORDER
    return levels, n_phi * n_r


def tanh_split(a, b):
    """Fractions of pairs on each rule of ``tanh_dual``'s switch (its docstring's rule: the first
    ``TRAPEZOID_RULES`` row with max(a, b) <= s_max, else polar), with each rule's nodes per pair,
    and the polar rule's levels and nodes per pair if it ran on every pair (the switch off)."""
    s = torch.maximum(a, b)
    todo = torch.ones_like(s, dtype=torch.bool)
    out = {}
    for s_max, _, K in gk.TRAPEZOID_RULES:
        sel = todo & (s <= s_max)
        if sel.any():
            out[f"trapezoid s <= {s_max:g} ({(2 * K + 1) ** 2:,} nodes)"] = sel.double().mean().item()
        todo &= ~sel
    if todo.any():
        out[f"polar ({polar_nodes(float(s[todo].max()))[1]:,} nodes)"] = todo.double().mean().item()
    levels, nodes = polar_nodes(float(s.max()))
    out["switch off: polar levels"], out["nodes per pair"] = levels, nodes
    return out


def relu_baseline(X, derivative):
    """The arc-cosine kernels as textbooks write them, in numpy: cos = x.x'/(|x||x'|) clipped,
    theta = arccos, ab/(2 pi) (sin theta + (pi - theta) cos theta), or (pi - theta)/(2 pi)."""
    X = np.asarray(X)
    nrm = np.linalg.norm(X, axis=1)
    cos = np.clip(X @ X.T / np.outer(nrm, nrm), -1.0, 1.0)
    th = np.arccos(cos)
    if derivative:
        return (math.pi - th) / (2 * math.pi)
    s = nrm / math.sqrt(X.shape[1])
    return np.outer(s, s) / (2 * math.pi) * (np.sin(th) + (math.pi - th) * cos)


def relu_pair_baseline(a, b, theta, derivative):
    th = theta.numpy()
    if derivative:
        return (math.pi - th) / (2 * math.pi)
    return a.numpy() * b.numpy() / (2 * math.pi) * (np.sin(th) + (math.pi - th) * np.cos(th))


def tanh_pair_baseline(a, b, theta, derivative):
    """E[f(u) f(v)], u = a z1, v = b (cos theta z1 + sin theta z2), by the GH_NODES^2 Gauss-Hermite
    product rule (numpy, 16 pairs at a time), f = tanh or sech^2."""
    z, w = np.polynomial.hermite_e.hermegauss(GH_NODES)
    w = w / math.sqrt(2 * math.pi)
    ww = w[:, None] * w[None, :]
    f = (lambda x: 1.0 / np.cosh(x) ** 2) if derivative else np.tanh
    a, b, th = (x.numpy() for x in (a, b, theta))
    out = np.empty(len(a))
    for lo in range(0, len(a), 16):
        sl = slice(lo, lo + 16)
        u = a[sl, None, None] * z[None, :, None]
        v = b[sl, None, None] * (np.cos(th[sl])[:, None, None] * z[None, :, None]
                                 + np.sin(th[sl])[:, None, None] * z[None, None, :])
        out[sl] = (f(u) * f(v) * ww).sum((1, 2))
    return out


def tanh_baseline(X, derivative):
    a, b, theta, _ = pair_arguments(X)
    return tanh_pair_baseline(a, b, theta, derivative)


def upper(K):
    K = torch.as_tensor(K)
    i, j = torch.triu_indices(K.shape[0], K.shape[0])
    return K[i, j].numpy()


def run_meanfield(name, repeat):
    X, act = MEANFIELD[name]()
    n, d = X.shape
    a, b, theta, supp = pair_arguments(X)
    split = relu_split(theta, supp) if act == "relu" else tanh_split(a, b)
    print(f"\n== set '{name}': n = {n}, d = {d}, {act}, {len(a):,} pairs (upper triangle)")
    print("branches: " + ", ".join(f"{k} {v:.3f}" if isinstance(v, float) else f"{k} {v:,}"
                                   for k, v in split.items()))
    t_angles, _ = timed(lambda: gk.pair_angles(torch.as_tensor(X)), repeat)
    print(f"pair_angles: {t_angles:.4f} s")
    pair_base = relu_pair_baseline if act == "relu" else tanh_pair_baseline
    full_base = relu_baseline if act == "relu" else tanh_baseline
    hdr = f"{'kernel':<16}{'whole (s)':>10}{'baseline':>10}{'ratio':>8}{'dual (s)':>10}{'baseline':>10}{'ratio':>8}{'agree':>10}"
    if act == "tanh":
        hdr += f"{'polar (s)':>11}{'ratio':>8}{'vs polar':>10}"
    print(hdr + "\n" + "-" * len(hdr))
    lines = []
    for deriv, fn in ((False, gram_bar), (True, gram_bar_prime)):
        label = f"{fn.__name__}"
        t_whole, K = timed(lambda: fn(X, act), repeat)
        t_wbase, _ = timed(lambda: full_base(X, deriv), repeat)
        t_dual, vals = timed(lambda: gk.dual(act, a, b, theta, supp, derivative=deriv), repeat)
        t_dbase, base = timed(lambda: pair_base(a, b, theta, deriv), repeat)
        vals = vals.numpy()
        agree = np.abs(vals - base).max() / np.abs(vals).max()
        assert np.array_equal(upper(K), vals)  # gram_bar is pair_angles + dual on these arguments
        row = (f"{label:<16}{t_whole:>10.4f}{t_wbase:>10.4f}{t_wbase / t_whole:>8.2f}{t_dual:>10.4f}"
               f"{t_dbase:>10.4f}{t_dbase / t_dual:>8.2f}{agree:>10.1e}")
        line = (f"{name} {label}({act}): {t_whole:.4f} s whole, baseline {t_wbase:.4f} s "
                f"({t_wbase / t_whole:.2f}x); dual alone {t_dual:.4f} s, baseline {t_dbase:.4f} s")
        if act == "tanh":
            t_polar, polar = timed(lambda: gk.tanh_dual(a, b, theta, supp, derivative=deriv, rules=()), repeat)
            vs = np.abs(vals - polar.numpy()).max() / np.abs(vals).max()
            row += f"{t_polar:>11.4f}{t_polar / t_dual:>8.2f}{vs:>10.1e}"
            line += f"; polar rule (switch off) {t_polar:.4f} s ({t_polar / t_dual:.1f}x the switch), agree {vs:.1e}"
        print(row)
        lines.append(line)
    print("ratio: baseline / kernel, polar / kernel (> 1: the kernel is faster)")
    return lines


def tail_branches(c, d):
    """Fractions of calls on each branch of ``amplification.tail._tail`` (its docstring's rule)."""
    from scipy import special as sc

    mag = np.abs(c)
    x = np.minimum(mag, 2 * np.sqrt(d)) ** 2 / d
    beyond = x >= 1
    zero = mag == 0
    lower = sc.betainc(0.5, (d - 1) / 2, np.minimum(x, 1.0))
    live = ~beyond & ~zero
    out = {"beyond": beyond.mean(), "c = 0": zero.mean(),
           "(1 - I_x)/2": (live & (lower <= 0.5)).mean(),
           "Q_x/2": (live & (lower > 0.5) & (x < 0.5)).mean(),
           "I_y/2": (live & (lower > 0.5) & (x >= 0.5)).mean()}
    return {k: float(v) for k, v in out.items()}, float((c < 0).mean())


def tail_baseline(c, d):
    """0.5 I_{1 - c^2/d}((d - 1)/2, 1/2) for 0 <= c < sqrt d, reflected for c < 0 (scipy, as written)."""
    from scipy import special as sc

    r = 0.5 * sc.betainc((d - 1) / 2, 0.5, np.clip(1 - c * c / d, 0.0, 1.0))
    return np.where(c >= 0, r, 1 - r)


def run_amplification(repeat):
    from numerics.amplification import correlation_tail

    c, d = amp_counts()
    split, negative = tail_branches(c, d)
    print(f"\n== set 'amp-counts': {len(c)} calls, {len(set(zip(c, d)))} distinct (c, d)")
    print("branches: " + ", ".join(f"{k} {v:.3f}" for k, v in split.items()) + f"; c < 0: {negative:.3f}")
    t_calls, vals = timed(lambda: [float(correlation_tail(ci, di)) for ci, di in zip(c, d)], repeat)
    t_base, base = timed(lambda: [float(tail_baseline(np.float64(ci), np.float64(di))) for ci, di in zip(c, d)],
                         repeat)
    t_vec, _ = timed(lambda: correlation_tail(c, d), repeat)
    t_vbase, _ = timed(lambda: tail_baseline(c, d), repeat)
    vals, base = np.array(vals), np.array(base)
    agree = np.abs(vals - base).max() / np.abs(vals).max()
    print(f"call by call: {t_calls * 1e6 / len(c):.1f} us per call, baseline {t_base * 1e6 / len(c):.1f} us "
          f"({t_base / t_calls:.2f}x); vectorised: {t_vec * 1e6:.0f} us, baseline {t_vbase * 1e6:.0f} us "
          f"({t_vbase / t_vec:.2f}x); agree {agree:.1e}")
    return [f"amp-counts correlation_tail: {t_calls * 1e6 / len(c):.1f} us per call vs baseline "
            f"{t_base * 1e6 / len(c):.1f} us ({t_base / t_calls:.2f}x)"]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", default=",".join(SETS), help=f"comma separated, of: {', '.join(SETS)} (default all)")
    ap.add_argument("--repeat", type=int, default=3, help="timing repeats (best of; default 3)")
    ap.add_argument("--threads", type=int, default=1, help="torch CPU threads (default 1)")
    args = ap.parse_args(argv)
    names = [s for s in args.sets.split(",") if s]
    bad = [s for s in names if s not in SETS]
    if bad or not names:
        ap.error(f"unknown set(s) {', '.join(bad) or '(none given)'}; known: {', '.join(SETS)}")
    if args.repeat < 1 or args.threads < 1:
        ap.error("--repeat and --threads must be >= 1")
    torch.set_num_threads(args.threads)
    with open("/proc/loadavg") as f:
        print(f"torch {torch.__version__}, {torch.get_num_threads()} thread(s); load average "
              f"{' '.join(f.read().split()[:3])}")
    summary = []
    for name in names:
        summary += run_amplification(args.repeat) if name == "amp-counts" else run_meanfield(name, args.repeat)
    print("\nsummary:\n  " + "\n  ".join(summary))


if __name__ == "__main__":
    main()
