r"""The exact network pass as one compiled pair kernel (CPU, float64): each pair visited once.

``numerics.masking.network`` states the pass (its module docstring: per sample i and pair of
neurons (r, r'), P = Phi_2(a_1, a_2; rho), T_1, T_2, Q, E_1 = E[ReLU(z_1) ReLU(z_2)], F, H) and
keeps its tensor formulation (``network._pairs``, ``network._moments``) as the reference and the
CUDA path.  There each quantity is a full-size temporary over the (samples x pairs) chunk, ~40 of
them, and memory traffic bounds the pass.  Here one numba loop per sample walks the pairs
r < r' and keeps a_1, a_2, rho, q, the numerators n_1 = q b_1, n_2 = q b_2, P, T_1, T_2, Q, E_1,
F_12, F_21, H_12, H_21 in registers, and adds

* a_r a_r' E_1 to the sample's sum (E f_i^2),
* a_r' F_12 to alpha_ir and a_r F_21 to alpha_ir' (and H to beta), the gradient's coefficients,
* a_r' P w_r' to PW_ir and a_r P w_r to PW_ir' (the kappa^2 P u term of Stein's contraction),

so that no array grows with the number of pairs: the only arrays are per neuron (n x m for mu, s,
a, Phi(a), varphi(a), formed in the sweep itself, and n x m x d for PW, the size of the inputs'
U = X . W; the unit vectors u_hat are an m x d scratch per sample).

Per pair, by the same rules as the tensor formulation:

* rho = u_hat_1 . u_hat_2 clamped to [-1, 1] (0 where s_1 s_2 = 0: a degenerate member has no
  correlation); q = sqrt((1 - rho)(1 + rho)), n_1 = a_1 - rho a_2, n_2 = a_2 - rho a_1;
* where |rho| > ``network._RHO_REFINE`` the pair is *refined*: rho, q and the numerators come from
  the geometry of span(u_hat_1, u_hat_2) with error-free 2 x 2 minors (:func:`_plane`, the compiled
  twin of ``closed_form._plane``), and P from ``bvn_cdf(..., q=q)``;
* otherwise P is ``bvn_cdf(a_1, a_2, rho, relative=False, atol=network._P_ATOL)`` row by row:
  the fast paths (``bvn_compiled.phi2_row``, with Phi(a_1), Phi(a_2) per neuron), then the atol
  routes (``bvn_compiled.phi2_within_atol``, a one-dimensional tail; ``phi2_band_within_atol``,
  the rule from 0 in its band 8 < max|a| <= 10);
* the rows neither serves (the general path's rows) and the refined rows are *deferred*: the
  sweep records them, ``bvn_cdf`` evaluates them in one batch after the sweep (torch, as today),
  and :func:`_finish` adds their terms, each sample's deferred pairs after its swept ones.

Every threshold and node table comes in as data at each call (``bvn_compiled.parameters(bvn)``,
``bvn._compiled_rules()``, ``bvn._ABS_SCREEN``, ``network._RHO_REFINE``, ``network._P_ATOL``);
``bvn._FAST_P = False`` defers every pair.

Threads.  The samples are split into contiguous parts swept by a ``ThreadPoolExecutor`` over the
``nogil`` loop (no OpenMP runtime beside torch's).  Each sample's sums are formed by one thread in a
fixed order (pairs r < r' in order, then its deferred pairs in order), the deferred batch and the
final sums over samples run in sample order on one thread, so the result is bit for bit the same
for every thread count and every split.

Accuracy contract (the pass's, normwise; ``network.term_sizes`` gives the sizes): with
S_i = m^{-1/2} sum_r (|mu_ir| + s_ir) + |y_i|, L_size = 1/2 sum_i S_i^2 and
G_size = m^{-1/2} sum_i ||x_i||_inf (1 + kappa)^2 S_i,

    |E_C[L_C] computed - exact| <= ``CONTRACT`` L_size,
    max_{r, j} |E_C[grad L_C]_rj computed - exact| <= ``CONTRACT`` G_size,

``CONTRACT`` = ``network.CONTRACT`` = 64 eps, from which the pass derives what it asks of each pair
(``network._P_ATOL`` = CONTRACT 2^-14 = 2^-60, P's absolute error).  Why it holds: each pair term
is a few eps times its size |mu_1 mu_2| + s_1 s_2 (the closed forms evaluated as written, Phi(b) and
varphi(b) from erfc and exp); P's error is at most 1e-14 max(P, Phi(a_1) Phi(a_2)) (the fast rules
with ``relative=False``: 45 eps, measured ~5e-15) plus 2^-60 (the atol routes), and P's coefficients
are at most the pair's size, so P adds at most ~45 eps of the sizes; the sums are of O(m^2) terms
whose absolute values sum to at most the sizes above (m^{-1} sum_{r,r'} (|mu_r mu_r'| + s_r s_r') <=
S_i^2).  Measured against the mpmath network reference on every branch
(``verify/masking/test_s4_network_kernel.py``): at most 0.76 eps.

Cache soundness: numba caches this file's functions keyed on this file alone, yet their machine
code inlines ``bvn_compiled``'s row functions and ``vmath``'s kernels.  So this file records the
SHA-256 of both (``_DEPENDS``) and caches only while both still match (else it compiles without
the cache: correct, slower to start); ``tests/test_pair_kernel.py`` fails until the digests here
are updated, which edits this file and so invalidates its cache.
"""
from __future__ import annotations

import concurrent.futures
import hashlib
import math
import pathlib
import time

import numba
import numpy as np
import torch

from numerics.core import bvn
from numerics.core import bvn_compiled as bc
from numerics.core import vmath as vm

#: SHA-256 of the files whose compiled code this file's cached code inlines
_DEPENDS = {
    "bvn_compiled.py": "3159ac940187308a70567f0b98fbfdca98eeb2cc8990947a7bce4aef7d6cff3f",
    "vmath.py": "e56d6a851029977eeab6ba0a8b14c9175efe2113be609abe67ded55a3cb7686a",
}


def _digests() -> dict:
    """The current SHA-256 of the files in ``_DEPENDS``."""
    return {name: hashlib.sha256(pathlib.Path(mod.__file__).read_bytes()).hexdigest()
            for name, mod in (("bvn_compiled.py", bc), ("vmath.py", vm))}


_CACHE = _digests() == _DEPENDS

#: samples below which a call is not split over threads
_MIN_PART = 8
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_INV_SQRT2 = 1.0 / math.sqrt(2.0)


# ------------------------------------------------------------------------ per pair, in registers
@numba.njit(cache=_CACHE, error_model="numpy")
def _unit_sum(x):
    """sum_j x_j / ||x|| (0 where x = 0): the sum of ``closed_form._unit(x)``'s vector."""
    n2 = 0.0
    t = 0.0
    for j in range(x.shape[0]):
        n2 += x[j] * x[j]
        t += x[j]
    nrm = math.sqrt(n2)
    return t / nrm if nrm > 0.0 else t


@numba.njit(cache=_CACHE, error_model="numpy")
def _plane(u, v, e, f):
    """(rho, q, sum of e2, sum of f2) of ``closed_form._plane`` for nonzero u, v: q from the
    error-free 2 x 2 minors m_ji = u_j v_i - u_i v_j (Lagrange's identity), e2 the unit vector of
    sum_j u_j m_j. (v's component orthogonal to u), f2 that of -sum_j v_j m_j.; ``e``, ``f``: room
    for d values."""
    d = u.shape[0]
    nu2 = 0.0
    nv2 = 0.0
    uv = 0.0
    for j in range(d):
        nu2 += u[j] * u[j]
        nv2 += v[j] * v[j]
        uv += u[j] * v[j]
        e[j] = 0.0
        f[j] = 0.0
    mm = 0.0
    for j in range(d):
        for i in range(d):
            p1, l1 = bc._two_prod(u[j], v[i])
            p2, l2 = bc._two_prod(u[i], v[j])
            mji = (p1 - p2) + (l1 - l2)
            mm += mji * mji
            e[i] += u[j] * mji
            f[i] -= v[j] * mji
    q = min(math.sqrt(0.5 * mm / (nu2 * nv2)), 1.0)
    rho = min(max(uv / math.sqrt(nu2 * nv2), -1.0), 1.0)
    return rho, q, _unit_sum(e), _unit_sum(f)


@numba.njit(cache=_CACHE, error_model="numpy")
def _step_cdf(num, q):
    """Phi(num/q) from erfc, and its q -> 0+ limit 1, 1/2, 0 as num >, =, < 0 (``network._step_cdf``)."""
    if q > 0.0:
        return 0.5 * math.erfc(-(num / q) * _INV_SQRT2)
    return 1.0 if num > 0.0 else (0.5 if num == 0.0 else 0.0)


@numba.njit(cache=_CACHE, error_model="numpy")
def _add_pair(i, r1, r2, P, rho, q, n1, n2, mu, s, pdf, W, sign, want_grad, alpha, beta, PW):
    """The pair's terms (``network._pairs``): returns a_1 a_2 E_1 and, with ``want_grad``, adds F, H
    and P w to the sample's coefficient rows."""
    mu1, mu2, s1, s2 = mu[i, r1], mu[i, r2], s[i, r1], s[i, r2]
    p1, p2 = pdf[i, r1], pdf[i, r2]
    T1 = p1 * _step_cdf(n2, q)
    T2 = p2 * _step_cdf(n1, q)
    if q > 0.0:
        b2 = n2 / q
        Q = q * p1 * (math.exp(-0.5 * b2 * b2) * _INV_SQRT_2PI)
    else:
        Q = 0.0
    E1 = (mu1 * mu2 + rho * s1 * s2) * P + mu1 * s2 * T2 + mu2 * s1 * T1 + s1 * s2 * Q
    if want_grad:
        g1, g2 = sign[r1], sign[r2]
        F12 = mu2 * P + s2 * (T2 + rho * T1)
        F21 = mu1 * P + s1 * (T1 + rho * T2)
        H12 = (s2 * n2 if s2 > 0.0 else mu2) * T1 + s2 * Q
        H21 = (s1 * n1 if s1 > 0.0 else mu1) * T2 + s1 * Q
        alpha[i, r1] += g2 * F12
        alpha[i, r2] += g1 * F21
        beta[i, r1] += g2 * H12
        beta[i, r2] += g1 * H21
        c1, c2 = g2 * P, g1 * P
        for j in range(W.shape[1]):
            PW[i, r1, j] += c1 * W[r2, j]
            PW[i, r2, j] += c2 * W[r1, j]
    return sign[r1] * sign[r2] * E1


@numba.njit(cache=_CACHE, error_model="numpy")
def _prepare(i, W, X, kappa, aclamp, clamp, mu, s, a, Phi, pdf, eh, nu, uh):
    """Sample i's neurons (``network._neurons``): mu = w_r . x_i, nu = ||u_ir|| (scaled, no
    overflow), s = kappa nu, a = mu/s clamped to +-aclamp (+-aclamp where s = 0), Phi(a), varphi(a),
    exp(-a^2/2) (``bvn_compiled``'s, as ``normal``'s), and u_hat_ir into the (m, d) scratch ``uh``."""
    m, d = W.shape
    for r in range(m):
        dot = 0.0
        big = 0.0
        for j in range(d):
            u = X[i, j] * W[r, j]
            uh[r, j] = u
            dot += W[r, j] * X[i, j]
            big = max(big, abs(u))
        nrm = 0.0
        if big > 0.0:
            ss = 0.0
            for j in range(d):
                t = uh[r, j] / big
                ss += t * t
            nrm = big * math.sqrt(ss)
            for j in range(d):
                uh[r, j] = uh[r, j] / nrm
        sr = kappa * nrm
        if sr > 0.0:
            ar = min(max(dot / sr, -aclamp), aclamp)
        else:
            ar = aclamp if dot >= 0.0 else -aclamp
        e = bc._exp_half_sq(ar, clamp)
        mu[i, r], s[i, r], a[i, r], nu[i, r] = dot, sr, ar, nrm
        eh[i, r] = e
        pdf[i, r] = _INV_SQRT_2PI * e
        Phi[i, r] = bc._cdf(ar, clamp)


@numba.njit(cache=_CACHE, nogil=True, error_model="numpy")
def _sweep(lo, hi, W, X, kappa, aclamp, sign, want_grad, fast, prm, atol, screen, refine,
           x16, w16, x24, w24, x32, w32, x48, w48, xj, wj, xs, ws, mu, s, a, Phi, pdf, eh, nu, E1sum, alpha, beta, PW):
    """Samples lo <= i < hi: the neurons (:func:`_prepare`), then every pair r < r' once, its terms
    added where P is served here, the rest recorded.  Returns (count, ints (i, r1, r2, refined),
    floats (rho, q, n1, n2)) of the deferred pairs, in sweep order, and the numbers of pairs the atol
    routes served (tail, band)."""
    m, d = W.shape
    clamp = prm[bc._CLAMP]
    buf = np.empty(max(x16.shape[0], x24.shape[0], x32.shape[0], x48.shape[0], xj.shape[0], xs.shape[0]))
    e = np.empty(d)
    f = np.empty(d)
    uh = np.empty((m, d))
    cap = 64
    ints = np.empty((cap, 4), np.int64)
    flts = np.empty((cap, 4))
    cnt = 0
    natol = 0
    nband = 0
    for i in range(lo, hi):
        _prepare(i, W, X, kappa, aclamp, clamp, mu, s, a, Phi, pdf, eh, nu, uh)
        acc = 0.0
        for r1 in range(m):
            s1 = s[i, r1]
            a1 = a[i, r1]
            for r2 in range(r1 + 1, m):
                s2 = s[i, r2]
                a2 = a[i, r2]
                rho = 0.0
                if s1 > 0.0 and s2 > 0.0:
                    for j in range(d):
                        rho += uh[r1, j] * uh[r2, j]
                    rho = min(max(rho, -1.0), 1.0)
                refined = abs(rho) > refine
                done = False
                P = 0.0
                if refined:
                    rho, q, se2, sf2 = _plane(uh[r1], uh[r2], e, f)
                    n1, n2 = q * sf2 / kappa, q * se2 / kappa
                else:
                    q = math.sqrt((1.0 - rho) * (1.0 + rho))
                    n1, n2 = a1 - rho * a2, a2 - rho * a1
                    if fast:
                        P, done = bc.phi2_row(a1, a2, rho, Phi[i, r1], Phi[i, r2], eh[i, r1], eh[i, r2], False, prm,
                                              x16, w16, x24, w24, x32, w32, x48, w48, xj, wj, xs, ws, buf)
                        if not done and atol > 0.0:
                            P, done = bc.phi2_within_atol(a1, a2, Phi[i, r1], Phi[i, r2], atol, screen, clamp)
                            natol += 1 if done else 0
                            if not done:
                                P, done = bc.phi2_band_within_atol(a1, a2, rho, Phi[i, r1], Phi[i, r2], eh[i, r1],
                                                                   eh[i, r2], atol, prm, x16, w16, x24, w24, x32,
                                                                   w32, x48, w48, buf)
                                nband += 1 if done else 0
                if done:
                    acc += _add_pair(i, r1, r2, P, rho, q, n1, n2, mu, s, pdf, W, sign, want_grad,
                                     alpha, beta, PW)
                    continue
                if cnt == cap:
                    cap *= 2
                    ni = np.empty((cap, 4), np.int64)
                    nf = np.empty((cap, 4))
                    ni[:cnt] = ints[:cnt]
                    nf[:cnt] = flts[:cnt]
                    ints, flts = ni, nf
                ints[cnt, 0], ints[cnt, 1], ints[cnt, 2], ints[cnt, 3] = i, r1, r2, 1 if refined else 0
                flts[cnt, 0], flts[cnt, 1], flts[cnt, 2], flts[cnt, 3] = rho, q, n1, n2
                cnt += 1
        E1sum[i] = acc
    return cnt, ints[:cnt].copy(), flts[:cnt].copy(), natol, nband


@numba.njit(cache=_CACHE, error_model="numpy")
def _finish(ints, flts, P, mu, s, pdf, W, sign, want_grad, E1sum, alpha, beta, PW):
    """The deferred pairs' terms, in their order (each sample's after its swept pairs)."""
    for t in range(ints.shape[0]):
        i = ints[t, 0]
        E1sum[i] += _add_pair(i, ints[t, 1], ints[t, 2], P[t], flts[t, 0], flts[t, 1], flts[t, 2], flts[t, 3],
                              mu, s, pdf, W, sign, want_grad, alpha, beta, PW)


@numba.njit(cache=_CACHE, error_model="numpy")
def _assemble(mu, s, Phi, pdf, nu, X, y, W, sign, kappa, want_grad, E1sum, alpha, beta, PW, Ef, Ef2, grad):
    """E f_i, E f_i^2 and E_C[grad L_C] from the per-sample sums (``network._moments``), the samples
    in order; the diagonal r = r' (F = sigma_tilde, H = 0, P = Phi(a)) added here."""
    n, m = mu.shape
    d = W.shape[1]
    sqm = math.sqrt(m)
    for r in range(m):
        for j in range(d):
            grad[r, j] = 0.0
    for i in range(n):
        ef = 0.0
        sq = 0.0
        for r in range(m):
            if s[i, r] > 0.0:
                sig = mu[i, r] * Phi[i, r] + s[i, r] * pdf[i, r]
                sqr = (mu[i, r] * mu[i, r] + s[i, r] * s[i, r]) * Phi[i, r] + mu[i, r] * s[i, r] * pdf[i, r]
            else:
                sig = max(mu[i, r], 0.0)
                sqr = sig * sig
            ef += sign[r] * sig
            sq += sqr
            if want_grad:
                yi = y[i]
                coef1 = (alpha[i, r] + sign[r] * sig) / sqm - yi * Phi[i, r]
                nr = nu[i, r] if nu[i, r] > 0.0 else 1.0
                coefu = kappa * (beta[i, r] / sqm - yi * pdf[i, r]) / nr
                cp = sign[r] * Phi[i, r]
                for j in range(d):
                    x = X[i, j]
                    x2 = x * x
                    pw = (PW[i, r, j] + cp * W[r, j]) / sqm
                    grad[r, j] += coef1 * x + W[r, j] * (coefu * x2) + (kappa * kappa) * (x2 * pw)
        Ef[i] = ef / sqm
        Ef2[i] = (sq + 2.0 * E1sum[i]) / m
    if want_grad:
        for r in range(m):
            c = sign[r] / sqm
            for j in range(d):
                grad[r, j] *= c


# ------------------------------------------------------------------------------------- driver
_POOL = None


def _pool(workers: int):
    """The module's thread pool, grown to ``workers`` threads when needed."""
    global _POOL
    if _POOL is None or _POOL._max_workers < workers:
        _POOL = concurrent.futures.ThreadPoolExecutor(max_workers=workers, thread_name_prefix="pairs")
    return _POOL


def default_threads() -> int:
    """The thread count when none is given: torch's (``torch.get_num_threads()``: the machine's
    cores unless the caller set fewer, as one-task-per-core runs do)."""
    return max(1, torch.get_num_threads())


def moments(W, a, X, y, kappa: float, *, want_grad: bool, threads: int | None = None,
            p_atol: float, rho_refine: float, a_clamp: float, stats: dict | None = None):
    """(E f, E f^2, E_C[grad L_C]) as numpy arrays ((n,), (n,), (m, d)) for float64 CPU tensors W, a,
    X, y (module docstring); ``a_clamp``: ``network._A_CLAMP``, where |mu/s| is clamped (and the
    standardised mean at s = 0).  ``threads``: sweep threads (default :func:`default_threads`); the
    result does not depend on it.  ``stats``: a dict that receives the counts of pairs (``pairs``),
    deferred (``deferred``: the ``refined`` ones and the ``general`` path's), and served by the atol
    routes (``atol``: a tail; ``band``: the rule's band), the threads used, and the wall seconds of
    each phase (``seconds``) (witnesses and benchmarks)."""
    threads = default_threads() if threads is None else int(threads)
    if threads < 1:
        raise ValueError(f"threads must be >= 1, got {threads}")
    clock = [time.perf_counter()]
    c = np.ascontiguousarray
    Wn, sign, Xn, yn = (c(t.detach().numpy()) for t in (W, a, X, y))
    n, d = Xn.shape
    m = Wn.shape[0]
    mu, s, av, Phi, pdf, eh, nu = (np.empty((n, m)) for _ in range(7))
    prm = bc.parameters(bvn)
    rules = [z for xw in bvn._compiled_rules() for z in xw]
    fast = bool(bvn._FAST_P)
    E1sum = np.zeros(n)
    alpha = np.zeros((n, m) if want_grad else (1, 1))
    beta = np.zeros_like(alpha)
    PW = np.zeros((n, m, d) if want_grad else (1, 1, 1))
    args = (Wn, Xn, float(kappa), float(a_clamp), sign, want_grad, fast, prm, float(p_atol), float(bvn._ABS_SCREEN),
            float(rho_refine), *rules, mu, s, av, Phi, pdf, eh, nu, E1sum, alpha, beta, PW)
    parts = max(1, min(threads, n // _MIN_PART))
    cut = [n * j // parts for j in range(parts + 1)]
    clock.append(time.perf_counter())
    if parts == 1:
        outs = [_sweep(0, n, *args)]
    else:
        jobs = [_pool(parts).submit(_sweep, lo, hi, *args) for lo, hi in zip(cut[:-1], cut[1:])]
        outs = [job.result() for job in jobs]
    clock.append(time.perf_counter())
    ints = np.concatenate([o[1] for o in outs])
    flts = np.concatenate([o[2] for o in outs])
    P = np.empty(ints.shape[0])
    if ints.shape[0]:
        ref = ints[:, 3] == 1
        a1 = torch.from_numpy(c(av[ints[:, 0], ints[:, 1]]))
        a2 = torch.from_numpy(c(av[ints[:, 0], ints[:, 2]]))
        rho, q = torch.from_numpy(c(flts[:, 0])), torch.from_numpy(c(flts[:, 1]))
        tr = torch.from_numpy(ref)
        if bool(tr.any()):
            P[ref] = bvn.bvn_cdf(a1[tr], a2[tr], rho[tr], q=q[tr]).numpy()
        if not bool(tr.all()):
            g = ~tr
            P[~ref] = bvn.bvn_cdf(a1[g], a2[g], rho[g], relative=False, atol=float(p_atol)).numpy()
        clock.append(time.perf_counter())
        _finish(ints, flts, P, mu, s, pdf, Wn, sign, want_grad, E1sum, alpha, beta, PW)
    else:
        clock.append(clock[-1])
    Ef, Ef2, grad = np.empty(n), np.empty(n), np.empty((m, d))
    _assemble(mu, s, Phi, pdf, nu, Xn, yn, Wn, sign, float(kappa), want_grad, E1sum, alpha, beta, PW, Ef, Ef2, grad)
    if stats is not None:
        refined = int((ints[:, 3] == 1).sum())
        stats.update(pairs=n * m * (m - 1) // 2, deferred=int(ints.shape[0]), refined=refined,
                     general=int(ints.shape[0]) - refined, atol=sum(int(o[3]) for o in outs),
                     band=sum(int(o[4]) for o in outs), threads=parts)
        clock.append(time.perf_counter())
        stats["seconds"] = dict(zip(("prepare", "sweep", "deferred bvn_cdf", "finish and sums"), np.diff(clock)))
    return Ef, Ef2, grad
