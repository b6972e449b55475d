"""Benchmark of the bivariate normal CDF kernels (not a test).

On each input set (``--sets``, 10^6 points each by default): ``fuzz`` (deep lower tails
down to -37, mixed signs, large positive arguments, h ~ +-k, |rho| -> 1, rho on a grid)
and ``moderate`` (h, k ~ N(0, 4), rho = tanh(1.5 N(0, 1)), so that |rho| > 0.9 for ~30 %
of the points, as neuron pairs give), it times

  (a) ``numerics.core.bvn.bvn_cdf`` on the CPU (float64), its fast paths compiled (numba,
      ``numerics.core.bvn_compiled``: the default) and as tensors (``bvn._COMPILED = False``,
      the formulation CUDA runs: the baseline, timed in the same run),
  (b) Owen's T formula with ``scipy.special.owens_t`` (vectorised):
      Phi2(h,k;rho) = (Phi(h) + Phi(k))/2 - T(h, a_h) - T(k, a_k) - beta,
      a_h = (k - rho h)/(h q), a_k = (h - rho k)/(k q), q = sqrt(1 - rho^2),
      beta = 0 if h k > 0 or (h k = 0 and h + k >= 0), else 1/2,
  (c) ``scipy.stats.multivariate_normal.cdf`` called per point on a subsample
      (``--scipy-n`` points, timing extrapolated to n),
  (d) ``bvn_cdf`` on CUDA when a device is available,

and reports throughput (points/s), ratios against (b) and (c), each method's max
relative error against the mpmath reference (``tests/_mp_bvn.py``, raw definition at 40
digits) on a subsample of the same distribution (``--ref-n`` points, tails included;
values below the smallest normal float64 are skipped), and for ``bvn_cdf`` the fraction
of its exponential bound reached (``exp_bound``: exponentials evaluated per point, counted
in an untimed run of the tensor formulation -- the compiled one evaluates the same nodes --
times the ns per ``torch.exp`` element measured in this run; the ns of one scalar libm exp,
what the previous compiled loop paid per exponential, and that of ``numerics.core.vmath``'s
SIMD exp and sin, what the compiled loop pays now, are printed beside it).

Workload sets (``w<step>k<kappa>``: ``w0k0.2``, ``w500k0.2``, ``w2000k2``, ...; ``fig3a`` stands for
all of Fig. 3(a)'s kappas > 0 at steps 0, 500 and 2000): the Phi2 arguments of Fig. 3(a)'s exact pass
at W after ``step`` steps of the default ``Config``'s masked gradient descent (W_0 at step 0;
``bench/workload_bvn.py``, harvested in this run from the code; ~2.48e6 points per set, subsampled
to ``--n`` by the seed), evaluated in that pass's mode (``relative=False, atol=2^-60``, the path
"within atol" taking the rows a one-dimensional tail pins or the rule's band holds, timed against the same call without
``atol`` in the same run; the accuracy check uses the default relative mode).  The pass's second call on the refined pairs (|rho| > 0.9, with q;
~0.03 % of the points at W_0) is evaluated here without q, like the rest.

Beside the compiled fast paths of this tree (vectorised node loops, ``numerics.core.vmath``)
the same run times the previous compiled twin with one scalar libm exp/sin per node (the
file ``numerics/core/bvn_compiled.py`` at commit ``LIBM_COMMIT``, read with ``git show`` and
loaded in its place; skipped where git or that commit is missing).

Run ``python bench/bench_bvn.py --help``.
"""
from __future__ import annotations

import argparse
import contextlib
import importlib.util
import math
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tests"))

from numerics.core import bvn  # noqa: E402
import exp_bound  # noqa: E402
import workload_bvn  # noqa: E402
from numerics.masking import network  # noqa: E402


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


def moderate(n: int, seed: int) -> np.ndarray:
    """(n, 3) array of (h, k, rho): h, k ~ N(0, 4), rho = tanh(1.5 N(0, 1)) (many
    |rho| > 0.9, the neuron-pair regime of ``numerics.masking.network``)."""
    rng = np.random.default_rng(seed)
    h, k = rng.normal(0.0, 2.0, n), rng.normal(0.0, 2.0, n)
    rho = np.tanh(1.5 * rng.normal(size=n))
    return np.stack([h, k, rho], axis=1)


SETS = {"fuzz": fuzz, "moderate": moderate}

#: the last commit whose compiled twin calls libm's exp and sin once per node
LIBM_COMMIT = "77c5f1b"


def workload(step: int, kappa: float):
    """The set maker for Fig. 3(a)'s exact pass at W after ``step`` masked steps and ``kappa``:
    (n, 3) points drawn without replacement by ``seed`` (all of them, in call order, when n
    covers the set)."""
    def make(n: int, seed: int) -> np.ndarray:
        s = _harvested(step, kappa)
        pts = np.stack([s["h"], s["k"], s["rho"]], axis=1)
        if n >= len(pts):
            return pts
        return pts[np.sort(np.random.default_rng(seed).choice(len(pts), n, replace=False))]
    return make


_HARVESTED = {}


def _harvested(step, kappa):
    if (step, kappa) not in _HARVESTED:
        _HARVESTED[step, kappa] = workload_bvn.harvest(kappa, step)
    return _HARVESTED[step, kappa]


def set_names(spec: str) -> list:
    """The set names of a ``--sets`` value (comma separated; ``fig3a`` expands to
    ``workload_bvn.FIG3A_SETS``)."""
    names = []
    for name in (s for s in spec.split(",") if s):
        names.extend(workload_bvn.FIG3A_SETS if name == "fig3a" else [name])
    return names


def make_set(name: str):
    """The maker of set ``name`` and the mode its points are evaluated in (``bvn_cdf``'s keywords
    ``relative`` and ``atol``: the exact pass's own for the workload sets)."""
    if name in SETS:
        return SETS[name], dict(relative=True, atol=0.0)
    parsed = workload_bvn.parse_set(name)
    if parsed is not None:
        return workload(*parsed), dict(relative=False, atol=network._P_ATOL)
    raise ValueError(f"unknown set {name!r} (fuzz, moderate, fig3a or w<step>k<kappa>, kappa > 0)")


#: bvn_cdf's fast paths in the order ``path_split`` reports them
PATHS = ("fixed GL from 0", "Phi(h)Phi(k)", "Phi(min)", "P(-k<Y<h)", "fixed GL from -1")


def path_split(th, tk, tr, relative, atol=0.0):
    """How ``bvn_cdf(th, tk, tr, relative=relative, atol=atol)`` (no q) routes the rows: ({path:
    fraction} over ``PATHS``, "within atol", "general" and "|rho|=1 or inf"}, the bool mask of the
    rows on the general path), or (None, None) where bvn has no fast paths."""
    if not hasattr(bvn, "_fast_paths"):
        return None, None
    fin = torch.isfinite(th) & torch.isfinite(tk) & (tr.abs() < 1)
    rt = bvn._fast_p_route(th, tk, tr)
    masks = rt.quad, rt.n0, rt.n1, rt.nm1, rt.jm1 & ~rt.nm1  # nm1 rows go first
    done = bvn._fast_paths(th, tk, tr, fin, {"P": torch.zeros_like(th)}, relative)
    if done is None:
        done = torch.zeros_like(fin)
    split = {name: (m & done).double().mean().item() for name, m in zip(PATHS, masks)}
    general = fin & ~done
    if atol > 0:
        pinned = bvn._within_atol(th, tk, general, {"P": torch.zeros_like(th)}, atol)
        if pinned is not None:
            split["within atol"] = pinned.double().mean().item()
            general = general & ~pinned
        if hasattr(bvn, "_band_within_atol"):  # the rule's band (issue 33), after the tails
            band = bvn._band_within_atol(th, tk, tr, general, {"P": torch.zeros_like(th)}, atol)
            if band is not None:
                split["within atol"] = split.get("within atol", 0.0) + band.double().mean().item()
                general = general & ~band
    split["general"] = general.double().mean().item()
    split["|rho|=1 or inf"] = (~fin).double().mean().item()
    return split, general


def libm_twin():
    """The compiled twin of commit ``LIBM_COMMIT`` (scalar libm exp/sin per node) as a module,
    or None (with the reason printed) where it cannot be read."""
    try:
        src = subprocess.run(["git", "-C", ROOT, "show", f"{LIBM_COMMIT}:numerics/core/bvn_compiled.py"],
                             capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as err:
        print(f"libm twin of {LIBM_COMMIT} not available ({err}): its row is skipped")
        return None
    path = os.path.join(tempfile.gettempdir(), f"maskverify_bvn_compiled_{LIBM_COMMIT}.py")
    if not os.path.exists(path) or open(path).read() != src:  # unchanged file: numba's cache holds
        with open(path, "w") as f:
            f.write(src)
    spec = importlib.util.spec_from_file_location(f"bvn_compiled_{LIBM_COMMIT}", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # numba's cached code finds its module by name
    spec.loader.exec_module(mod)
    return mod


@contextlib.contextmanager
def compiled_twin(module):
    """bvn_cdf with its compiled fast paths taken from ``module`` inside."""
    old = bvn._compiled_module()
    bvn._BC = module
    try:
        yield
    finally:
        bvn._BC = old


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


@contextlib.contextmanager
def tensor_fast_paths():
    """bvn_cdf with its fast paths as tensors (``bvn._COMPILED = False``) inside."""
    old = bvn._COMPILED
    bvn._COMPILED = False
    try:
        yield
    finally:
        bvn._COMPILED = old


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=1_000_000, help="number of inputs per set")
    ap.add_argument("--sets", default="fuzz,moderate,w0k0.2,w0k2",
                    help="input sets (comma separated): fuzz, moderate, w<step>k<kappa> (Fig. 3(a)'s "
                         "exact pass at W after step masked GD steps, W_0 for 0; see "
                         "bench/workload_bvn.py), fig3a (every kappa > 0 of Fig. 3(a) at steps 0, 500, 2000)")
    ap.add_argument("--seed", type=int, default=0, help="input seed")
    ap.add_argument("--scipy-n", type=int, default=2000, help="subsample for multivariate_normal.cdf")
    ap.add_argument("--ref-n", type=int, default=300, help="subsample checked against mpmath")
    ap.add_argument("--threads", type=int, default=0, help="torch CPU threads (0: torch default)")
    ap.add_argument("--repeat", type=int, default=1, help="timing repeats (best of)")
    args = ap.parse_args(argv)
    try:
        for name in set_names(args.sets):
            make_set(name)
    except ValueError as err:
        ap.error(str(err))
    if min(args.n, args.repeat, args.ref_n, args.scipy_n) < 1:
        ap.error("--n, --repeat, --ref-n and --scipy-n must be >= 1")
    if args.threads:
        torch.set_num_threads(args.threads)
    cuda = torch.cuda.is_available()
    dev = torch.device("cuda") if cuda else None
    ns_cpu = exp_bound.ns_per_exp("cpu")
    ns_cpu_fresh = exp_bound.ns_per_exp("cpu", fresh=True)
    loops = exp_bound.ns_compiled_loops()
    print(f"torch {torch.__version__}, {torch.get_num_threads()} CPU threads; torch.exp: "
          f"{ns_cpu:.2f} ns/element into a preallocated buffer, {ns_cpu_fresh:.2f} ns with a fresh "
          f"2^23-element output\nper element in a compiled loop (one thread): libm exp "
          f"{loops['libm exp']:.2f} ns, vmath exp (SIMD) {loops['vmath exp']:.2f} ns "
          f"({loops['libm exp'] / loops['vmath exp']:.1f}x); libm sin {loops['libm sin']:.2f} ns, "
          f"vmath sin_small (SIMD) {loops['vmath sin']:.2f} ns ({loops['libm sin'] / loops['vmath sin']:.1f}x)")
    ns_gpu = None
    if cuda:
        ns_gpu = exp_bound.ns_per_exp("cuda", n=1 << 24)
        print(f"CUDA {torch.cuda.get_device_name()}: torch.exp {ns_gpu:.4f} ns/element (2^24 elements)")
    twin = libm_twin()
    summary = []
    for name in set_names(args.sets):
        summary.append(run_set(name, args, dev, ns_cpu, ns_gpu, twin))
    print("\nsummary (bvn_cdf vs Owen's T: > 1 is faster; bound: exponentials x ns/exp):")
    for line in summary:
        print("  " + line)


def run_set(name, args, dev, ns_cpu, ns_gpu, twin=None):
    """Time, check and bound one input set; returns its summary line."""
    make, mode = make_set(name)
    pts = make(args.n, args.seed)
    n = len(pts)
    h, k, r = (np.ascontiguousarray(pts[:, i]) for i in range(3))
    th, tk, tr = (torch.from_numpy(x) for x in (h, k, r))
    print(f"\n== set '{name}': n = {n:,} points (seed {args.seed}), relative={mode['relative']}, "
          f"atol={mode['atol']:g}")

    def cdf(a, b, c):
        return bvn.bvn_cdf(a, b, c, **mode)

    # warm-up (quadrature rules are built on first use; the twins compile or load)
    cdf(th[:1000], tk[:1000], tr[:1000])
    if twin is not None:
        with compiled_twin(twin):
            cdf(th[:1000], tk[:1000], tr[:1000])
    split, _ = path_split(th, tk, tr, **mode)
    if split is not None:  # fraction of points on each path of bvn_cdf
        print("paths: " + ", ".join(f"{name} {v:.3f}" for name, v in split.items()))
    with exp_bound.count_exps() as cnt, tensor_fast_paths():
        cdf(th, tk, tr)
    rows = []
    with tensor_fast_paths():
        t_tensor, _ = timed(cdf, th, tk, tr, repeat=args.repeat)
    t_libm = None
    if twin is not None:
        with compiled_twin(twin):
            t_libm, _ = timed(cdf, th, tk, tr, repeat=args.repeat)
    t_cpu, _ = timed(cdf, th, tk, tr, repeat=args.repeat)
    rows.append(["torch CPU (bvn_cdf)", t_cpu, n / t_cpu, "fast paths compiled, SIMD node loops (vmath)"])
    if mode["atol"] > 0:
        t_noatol, _ = timed(lambda a, b, c: bvn.bvn_cdf(a, b, c, relative=mode["relative"]), th, tk, tr,
                            repeat=args.repeat)
        rows.append(["  without atol", t_noatol, n / t_noatol,
                     f"baseline: atol = {t_noatol / t_cpu:.2f}x faster"])
    if t_libm is not None:
        rows.append(["  compiled, libm per node", t_libm, n / t_libm,
                     f"baseline ({LIBM_COMMIT}): SIMD = {t_libm / t_cpu:.2f}x faster"])
    rows.append(["  tensor fast paths", t_tensor, n / t_tensor,
                 f"baseline: compiled = {t_tensor / t_cpu:.2f}x faster"])
    t_ow, _ = timed(owens_t_bvn, h, k, r, repeat=args.repeat)
    rows.append(["Owen's T (scipy owens_t)", t_ow, n / t_ow, ""])
    m = min(args.scipy_n, n)
    t_sp, _ = timed(scipy_mvn, pts[:m])
    t_sp_full = t_sp * n / m
    rows.append(["scipy mvn.cdf per point", t_sp_full, n / t_sp_full,
                 f"{m} pts timed, extrapolated"])
    bounds = [exp_bound.bound_line("bvn_cdf CPU", cnt["n"], n, t_cpu, ns_cpu)]
    if t_libm is not None:
        bounds.append(exp_bound.bound_line("bvn_cdf CPU, libm per node", cnt["n"], n, t_libm, ns_cpu))
    bounds.append(exp_bound.bound_line("bvn_cdf CPU, tensor fast paths", cnt["n"], n, t_tensor, ns_cpu))
    if dev is not None:
        gh, gk, gr = th.to(dev), tk.to(dev), tr.to(dev)
        cdf(gh[:1000], gk[:1000], gr[:1000])
        torch.cuda.synchronize()

        def run_gpu():
            v = cdf(gh, gk, gr)
            torch.cuda.synchronize()
            return v

        with exp_bound.count_exps() as cg:
            run_gpu()
        t_gpu, _ = timed(run_gpu, repeat=args.repeat)
        rows.append(["torch CUDA (bvn_cdf)", t_gpu, n / t_gpu, torch.cuda.get_device_name()])
        bounds.append(exp_bound.bound_line("bvn_cdf CUDA", cg["n"], n, t_gpu, ns_gpu))

    # accuracy on a subsample of the same distribution against mpmath (computed once)
    import _mp_bvn as ref
    import mpmath as mp

    sub = make(args.ref_n, args.seed + 1)
    t0 = time.perf_counter()
    refs = []
    for a, b, c in sub:
        v = ref.bvn_cdf(float(a), float(b), float(c))
        refs.append(float(v) if v > mp.mpf("2.2250738585072014e-308") else None)
    t_ref = time.perf_counter() - t0
    sh, sk, sr = (np.ascontiguousarray(sub[:, i]) for i in range(3))
    sub_t = [torch.from_numpy(x) for x in (sh, sk, sr)]
    with tensor_fast_paths():
        sub_tensor = bvn.bvn_cdf(*sub_t).numpy()
    errs = {
        "torch CPU (bvn_cdf)": bvn.bvn_cdf(*sub_t).numpy(),
        "  tensor fast paths": sub_tensor,
        "Owen's T (scipy owens_t)": owens_t_bvn(sh, sk, sr),
        "scipy mvn.cdf per point": scipy_mvn(sub),
    }
    if twin is not None:
        with compiled_twin(twin):
            errs["  compiled, libm per node"] = bvn.bvn_cdf(*sub_t).numpy()
    # (the accuracy check is in the default relative mode, where atol plays no part)
    errs["  without atol"] = errs["torch CPU (bvn_cdf)"]
    if dev is not None:
        errs["torch CUDA (bvn_cdf)"] = bvn.bvn_cdf(
            *(torch.from_numpy(x).to(dev) for x in (sh, sk, sr))).cpu().numpy()

    print(f"accuracy: {sum(x is not None for x in refs)} of {args.ref_n} points with a "
          f"normal reference value (mpmath, 40 digits, {t_ref:.0f}s)\n")
    hdr = f"{'method':<27}{'time (s)':>10}{'points/s':>12}{'vs Owen':>9}{'vs mvn':>9}{'max rel err':>13}  worst (h, k, rho)"
    print(hdr)
    print("-" * len(hdr))
    worst_cpu = 0.0
    for mname, t, thr, note in rows:
        e, i = max_rel_err(errs[mname], refs)
        if mname.startswith("torch CPU"):
            worst_cpu = e
        where = "" if i < 0 else "(%.4g, %.4g, %.10g)" % tuple(sub[i])
        print(f"{mname:<27}{t:>10.3f}{thr:>12.3g}{t_ow / t:>9.2f}{t_sp_full / t:>9.1f}{e:>13.2e}  {where}")
        if note:
            print(f"{'':<27}({note})")
    print("\n'vs Owen' / 'vs mvn': speed-up relative to (b) / (c) (higher is faster).")
    for line in bounds:
        print(line)
    libm = "" if t_libm is None else f"libm per node {t_libm:.3f} s = {t_ow / t_libm:.2f}x, "
    return (f"{name}: bvn_cdf {t_cpu:.3f} s vs Owen's T {t_ow:.3f} s = {t_ow / t_cpu:.2f}x "
            f"({libm}tensor fast paths {t_tensor:.3f} s = {t_ow / t_tensor:.2f}x); "
            f"max rel err {worst_cpu:.1e}; " + bounds[0].split(": ", 1)[1].split("; ")[1])


if __name__ == "__main__":
    main()
