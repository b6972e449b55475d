r"""The fast paths of ``bvn_cdf`` compiled for the CPU: one numba loop over the points.

``numerics.core.bvn`` routes each interior row (finite h, k, |rho| < 1) of ``bvn_cdf`` to a
fast path or to its general quadrature (:func:`numerics.core.bvn._fast_p_route`,
:func:`~numerics.core.bvn._fast_paths`).  In torch that costs a dozen full-length temporaries
and index gathers per chunk: memory traffic, not the 16-48 exponentials per row, dominates.
:func:`fast_paths` does the same routing and the same rules row by row, in registers,
in parallel over the rows (threads of a pool, the loop releasing the GIL):

* the routing bounds of ``_fast_p_route`` (the exponent's range over [0, rho], the
  negligible-integral tests against e^-39 of the base, the rule from rho = -1);
* Phi(h)Phi(k) + (1/2pi) int_0^{asin rho} exp(-E) dtheta by one Gauss-Legendre rule in theta
  (16 or 24 nodes) or in s = atanh r (32 or 48 nodes), ``bvn_rules._fast_p_rule``;
* P(-k <= Y <= h) + the positive integral from rho = -1 in D = sqrt(2 (E - H^2/2)),
  ``bvn_rules._fast_p_m1``, its exponent excess F(rho) in double-double (the error-free
  transformations of ``numerics.core.ddarith``, on floats);
* Phi(x) = erfcx(-x/sqrt 2) exp(-x^2/2)/2 (x < 0), 1 - erfc(x/sqrt 2)/2 (x >= 0), with scipy's
  erfcx (``scipy.special.cython_special``) and exp(-x^2/2) from a split x, as
  ``normal.cdf``; P(a < Y <= b) as ``normal.interval_prob`` (20-node rule on short
  intervals, tail differences elsewhere).

Rows no fast path takes come back with ``done`` False and go to the general path in torch.

The loop's body is one row function, :func:`phi2_row` (routing and values of one row, Phi(h),
Phi(k) and exp(-h^2/2), exp(-k^2/2) optionally given by the caller), with the rows of
``bvn_cdf(atol=...)`` beside it: :func:`phi2_within_atol` (``bvn._within_atol``, a one-dimensional
tail) and :func:`phi2_band_within_atol` (``bvn._band_within_atol``, the rule's band).  The exact
network pass's pair kernel (``numerics.masking.pair_kernel``) calls these per pair from its own
cached code, recording this file's digest for the same cache soundness as below.
Every threshold and node table is read from ``numerics.core.bvn`` at each call and passed
in as data (never frozen into the compiled code), so the two implementations cannot drift
apart silently: tests compare them row by row (routing and values) and both against mpmath.
The same formulas, one per row: the results differ from the torch path only by rounding
(different exp implementations and summation order, a few ulps).

The node loops are vectorised (SIMD): each rule first fills a small buffer with its node
terms by one loop that calls only branch-free arithmetic (``numerics.core.vmath``'s exp and
sin, hardware sqrt and division), which LLVM turns into packed AVX2/AVX-512 code, then sums
the buffer in eight interleaved partial sums (:func:`_sum`, a fixed IEEE order).  The scalar
libm exp per node (9 ns here, the previous design's bound) is gone from every node loop;
what stays scalar is per row (erfcx, erfc, log, asin, atanh, sqrt).

Cache soundness: numba's on-disk cache of this file's functions is keyed on this file alone,
yet their machine code contains vmath's kernels inlined.  So this file records the SHA-256
of ``vmath.py`` it was last checked against (``_VMATH_SHA256``) and caches only when vmath's
source still has that digest; otherwise it compiles without the cache (correct, slower to
start) and ``tests/test_bvn_compiled.py`` fails until the digest here is updated -- which
edits this file and so invalidates its cache.
"""
from __future__ import annotations

import concurrent.futures
import hashlib
import math
import pathlib

import llvmlite.binding as llvm
import numba
import numpy as np
from numba.extending import get_cython_function_address

from . import vmath as vm

#: SHA-256 of ``numerics/core/vmath.py`` whose kernels this file's cached code inlines
_VMATH_SHA256 = "e56d6a851029977eeab6ba0a8b14c9175efe2113be609abe67ded55a3cb7686a"
_CACHE = hashlib.sha256(pathlib.Path(vm.__file__).read_bytes()).hexdigest() == _VMATH_SHA256

# scipy's erfcx (Faddeeva), called by symbol so that the compiled code can be cached
llvm.add_symbol("maskverify_erfcx",
                get_cython_function_address("scipy.special.cython_special", "__pyx_fuse_1erfcx"))
_erfcx_c = numba.types.ExternalFunction("maskverify_erfcx",
                                        numba.types.float64(numba.types.float64, numba.types.intc))

_INV_2PI = 1.0 / (2.0 * math.pi)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_INV_SQRT2 = 1.0 / math.sqrt(2.0)
_SPLITTER = 134217729.0  # 2**27 + 1

# ------------------------------------------------ double-double, as numerics.core.ddarith
# (the same error-free transformations on floats; a test checks them bit for bit against
# ddarith on tensors: this module's compiled code may be cached, and numba's cache tracks
# only this file)
@numba.njit(cache=_CACHE, error_model="numpy")
def _split(x):
    c = _SPLITTER * x
    hi = c - (c - x)
    return hi, x - hi


@numba.njit(cache=_CACHE, error_model="numpy")
def _two_sum(a, b):
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


@numba.njit(cache=_CACHE, error_model="numpy")
def _two_prod(a, b):
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


@numba.njit(cache=_CACHE, error_model="numpy")
def _dd_mul(ah, al, bh, bl):
    p, e = _two_prod(ah, bh)
    return _two_sum(p, e + (ah * bl + al * bh))


@numba.njit(cache=_CACHE, error_model="numpy")
def _dd_div(ah, al, bh, bl):
    q1 = ah / bh
    ph, pl = _dd_mul(q1, 0.0, bh, bl)
    s, e = _two_sum(ah, -ph)
    rh, _ = _two_sum(s, e + (al - pl))
    return _two_sum(q1, rh / bh)



#: positions in the parameter vector (see :func:`parameters`)
(_RHO, _HMAX, _DF, _RHO_SMALL, _DF_SMALL, _RHO_S1, _RHO_S2, _HMAX2, _DF2, _JF, _JHMAX, _JL, _NEGL,
 _CANCEL, _CLAMP, _HMAX_ATOL, _ATOL_REL) = range(17)


def parameters(bvn) -> np.ndarray:
    """The fast paths' thresholds, read from the module ``bvn`` now (so that a change there,
    a mutation test's included, reaches the compiled loop)."""
    assert len(bvn._FP_RHO_S) == 2, "the compiled loop has two tiers in s"
    return np.array([bvn._FP_RHO, bvn._FP_HMAX, bvn._FP_DF, bvn._FP_RHO_SMALL, bvn._FP_DF_SMALL,
                     bvn._FP_RHO_S[0], bvn._FP_RHO_S[1], bvn._FP_HMAX2, bvn._FP_DF2, bvn._FP_JF,
                     bvn._FP_JHMAX, bvn._FP_JL, bvn._FP_NEGL, bvn._FP_CANCEL, bvn.nm._CLAMP,
                     bvn._FP_HMAX_ATOL, bvn._FP_ATOL_REL],
                    dtype=np.float64)


@numba.njit(cache=_CACHE, error_model="numpy")
def _exp_half_sq(x, clamp):
    """exp(-x^2/2) with x^2 formed exactly (``normal.exp_half_sq``)."""
    xc = min(max(x, -clamp), clamp)
    c = _SPLITTER * xc
    hi = c - (c - xc)
    lo = xc - hi
    return math.exp(-0.5 * (hi * hi)) * math.exp(-0.5 * ((2.0 * hi) * lo + lo * lo))


@numba.njit(cache=_CACHE, error_model="numpy")
def _sum(t, n):
    """t[0] + ... + t[n-1] in eight interleaved partial sums (lane j takes t[j], t[j+8], ...),
    then (s0+s4) + (s1+s5) ... pairwise: a fixed order, so one packed add per eight terms."""
    s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = 0.0
    j = 0
    while j + 8 <= n:
        s0 += t[j]
        s1 += t[j + 1]
        s2 += t[j + 2]
        s3 += t[j + 3]
        s4 += t[j + 4]
        s5 += t[j + 5]
        s6 += t[j + 6]
        s7 += t[j + 7]
        j += 8
    while j < n:
        s0 += t[j]
        j += 1
    return ((s0 + s4) + (s2 + s6)) + ((s1 + s5) + (s3 + s7))


@numba.njit(cache=_CACHE, error_model="numpy")
def _cdf(x, clamp):
    """Phi(x) for finite x (``normal.cdf``)."""
    if x < 0.0:
        return 0.5 * _erfcx_c(-x * _INV_SQRT2, 0) * _exp_half_sq(x, clamp)
    return 1.0 - 0.5 * math.erfc(x * _INV_SQRT2)


@numba.njit(cache=_CACHE, error_model="numpy")
def _interval_prob(a, b, xs, ws, clamp, buf=None):
    """P(a < Y <= b) for finite a, b (``normal.interval_prob``); ``buf``: room for the short
    rule's node terms (allocated when omitted)."""
    if not a < b:
        return 0.0
    if a + b > 0.0:
        lo, hi = -b, -a
    else:
        lo, hi = a, b
    d = hi - lo
    if d <= 2.5 and d * abs(lo) <= 4.0:
        ph = _INV_SQRT_2PI * _exp_half_sq(hi, clamp)
        n = xs.shape[0]
        if buf is None:
            buf = np.empty(n)
        for j in range(n):
            bmy = 0.5 * d * (1.0 - xs[j])
            buf[j] = ph * vm.exp(0.5 * bmy * (2.0 * hi - bmy)) * ws[j]
        return 0.5 * d * _sum(buf, n)
    plo = _cdf(lo, clamp)
    if hi <= 0.0:
        return _cdf(hi, clamp) - plo
    return (1.0 - plo) - _cdf(-hi, clamp)


@numba.njit(cache=_CACHE, error_model="numpy")
def _log_cdf_lower(x):
    """A lower bound on log Phi(x) (``bvn._log_cdf_lower``)."""
    t = min(x, -1.0)
    return -0.5 * t * t - 0.9189385332046728 + math.log(-t / (1.0 + t * t))


@numba.njit(cache=_CACHE, error_model="numpy")
def _rule(H, K, rho, x, w, in_s, eH, buf):
    """(1/2pi) int_0^{asin rho} exp(-E) dtheta by the Gauss-Legendre rule (x, w), in theta or
    (``in_s``) in s = atanh r (``bvn_rules._fast_p_rule``; |H| >= |K|); eH = exp(-H^2/2) by
    :func:`_exp_half_sq`."""
    n = x.shape[0]
    if in_s:
        half = 0.5 * math.atanh(rho)
        habs = abs(half)
        hmk = H - K * (1.0 if rho > 0.0 else (-1.0 if rho < 0.0 else 0.0))
        for j in range(n):
            e = vm.exp(habs * (1.0 + x[j]))
            ei = 1.0 / e
            ch = (e + ei) * 0.5
            d = ch * hmk - ei * H
            buf[j] = vm.exp(-0.5 * (d * d)) / ch * w[j]
    else:
        half = 0.5 * math.asin(rho)
        for j in range(n):
            r = vm.sin_small(half * (1.0 + x[j]))  # |argument| <= pi/2
            d = r * H - K
            buf[j] = vm.exp(d * d / (((r - 1.0) * (r + 1.0)) * 2.0)) * w[j]
    return (_INV_2PI * half) * eH * _sum(buf, n)


@numba.njit(cache=_CACHE, error_model="numpy")
def _rule_m1(h, k, H, K, rho, x, w, xs, ws, jl, clamp, buf):
    """Phi2 for rho < 0 from rho = -1 (``bvn_rules._fast_p_m1``; |H| >= |K|)."""
    p, q = abs(H + K), abs(H - K)
    one = 1.0
    omr, omr_e = _two_sum(one, -rho)
    opr, opr_e = _two_sum(one, rho)
    ph, pl = _two_prod(rho, H)
    sh, sl = _two_sum(ph, -K)
    dh, dl = _two_sum(sh, sl + pl)
    d2h, d2l = _dd_mul(dh, dl, dh, dl)
    den_h, den_l = _dd_mul(omr, omr_e, opr, opr_e)
    fh, fl = _dd_div(d2h, d2l, 2.0 * den_h, 2.0 * den_l)
    du = math.sqrt(2.0 * fh)
    half = 0.5 * (math.sqrt(du * du + 2.0 * jl) - du)
    pq = p * q
    n = x.shape[0]
    for j in range(n):
        dD = half * (1.0 + x[j])
        D = dD + du
        R = math.sqrt(pq + D * D)
        u = p / (D + R)
        buf[j] = vm.exp(-0.5 * ((D + du) * dD)) * u / (R * (u * u + 1.0)) * w[j]
    J = (2.0 * _INV_2PI * half) * _exp_half_sq(H, clamp) * math.exp(-fh) * (1.0 - fl) * _sum(buf, n)
    return _interval_prob(-k, h, xs, ws, clamp, buf) + J


@numba.njit(cache=_CACHE, error_model="numpy")
def _route_terms(hi, ki, ri):
    """The terms of ``bvn._fast_p_route`` for one row: H, K (|H| >= |K|), m = max(|h|, |k|), the
    lower bound fr of F(rho), whether kappa = K/H is too close to rho to tell (amb), d H with
    d = rho H - K, the minimum lo0 of F over [0, rho] and the range rng of F there."""
    ah, ak = abs(hi), abs(ki)
    sw = ah >= ak
    m, mn = max(ah, ak), min(ah, ak)
    H = hi if sw else ki
    K = ki if sw else hi
    d = ri * H - K
    dlow = max(abs(d) - 4.5e-16 * m, 0.0)
    amb = dlow == 0.0
    den = (1.0 - ri) * (1.0 + ri)
    fr = dlow * dlow / (2.0 * den) * (1.0 - 1e-14)
    f0 = 0.5 * mn * mn
    dH = d * H
    lo0 = 0.0 if (amb or (hi * ki * ri >= 0.0 and dH * ri >= 0.0)) else min(f0, fr)
    rng = max(f0, d * d / (2.0 * den)) - lo0
    return H, K, m, fr, amb, dH, lo0, rng


@numba.njit(cache=_CACHE, error_model="numpy")
def _rule_tier(H, K, ri, arho, rng, prm, x16, w16, x24, w24, x32, w32, x48, w48, eH, buf):
    """The Plackett integral from 0 by the rule ``bvn._fast_p`` picks for the row's |rho| and range."""
    if arho <= prm[_RHO_SMALL] and rng <= prm[_DF_SMALL]:
        return _rule(H, K, ri, x16, w16, False, eH, buf)
    if arho <= prm[_RHO]:
        return _rule(H, K, ri, x24, w24, False, eH, buf)
    if arho <= prm[_RHO_S1]:
        return _rule(H, K, ri, x32, w32, True, eH, buf)
    return _rule(H, K, ri, x48, w48, True, eH, buf)


@numba.njit(cache=_CACHE, error_model="numpy")
def _e_half(hi, ki, eh, ek, clamp):
    """exp(-H^2/2) for H the larger of |h|, |k| (``_route_terms``): the caller's eh or ek when given
    (not NaN), else :func:`_exp_half_sq` here."""
    if abs(hi) >= abs(ki):
        return eh if eh == eh else _exp_half_sq(hi, clamp)
    return ek if ek == ek else _exp_half_sq(ki, clamp)


@numba.njit(cache=_CACHE, error_model="numpy", inline="always")  # numba-level inlining: ~15 % of a pair
def phi2_row(hi, ki, ri, ph, pk, eh, ek, relative, prm, x16, w16, x24, w24, x32, w32, x48, w48, xj, wj, xs,
             ws, buf):
    """(Phi2, True) for one interior row (finite h, k, |rho| < 1) that a fast path of ``bvn_cdf``
    takes, (0, False) for a row left to the general path: the routing of ``bvn._fast_p_route`` and
    the values of ``bvn._fast_paths``, row by row.  ``ph``, ``pk``: Phi(h), Phi(k) if the caller has
    them (the exact network pass has them per neuron), NaN to compute them here when needed; ``eh``,
    ``ek``: exp(-h^2/2), exp(-k^2/2) by :func:`_exp_half_sq` likewise (bit for bit the same values).
    ``buf``: room for the largest rule's node terms.  Also called from cached code of other
    modules (``numerics.masking.pair_kernel``), which record this file's digest."""
    clamp, negl = prm[_CLAMP], prm[_NEGL]
    # ---- routing: bvn._fast_p_route, row by row
    H, K, m, fr, amb, dH, lo0, rng = _route_terms(hi, ki, ri)
    arho = abs(ri)
    quad = arho <= prm[_RHO_S2] and ((m <= prm[_HMAX] and rng <= prm[_DF])
                                     or (m <= prm[_HMAX2] and rng <= prm[_DF2]))
    beyond = amb or dH * ri <= 0.0
    jm1 = ri < 0.0 and not beyond and fr >= prm[_JF] and m <= prm[_JHMAX]
    n0 = n1 = nm1 = False
    lb1 = math.inf
    if not quad:
        e0 = 0.5 * m * m
        lh, lk = _log_cdf_lower(hi), _log_cdf_lower(ki)
        n0 = math.log(math.asin(arho) * _INV_2PI) - e0 - lo0 <= lh + lk - negl
        lb1 = math.log(math.acos(arho) * _INV_2PI) - e0 - (0.0 if beyond else fr)
        jm1 = jm1 and not n0
        n1 = not n0 and ri > 0.0 and lb1 <= min(lh, lk) - negl
        nm1 = not n0 and ri < 0.0 and hi > -ki and lb1 <= max(lh, lk) - negl
    quad = quad and not jm1
    # ---- values: bvn._fast_paths, row by row
    if quad or n0 or n1:
        if ph != ph or pk != pk:
            ph, pk = _cdf(hi, clamp), _cdf(ki, clamp)
        base = ph * pk
        if quad:
            eH = _e_half(hi, ki, eh, ek, clamp)
            if arho <= prm[_RHO_SMALL] and rng <= prm[_DF_SMALL]:
                v = base + _rule(H, K, ri, x16, w16, False, eH, buf)
            elif arho <= prm[_RHO]:
                v = base + _rule(H, K, ri, x24, w24, False, eH, buf)
            elif arho <= prm[_RHO_S1]:
                v = base + _rule(H, K, ri, x32, w32, True, eH, buf)
            else:
                v = base + _rule(H, K, ri, x48, w48, True, eH, buf)
            if relative:
                if base > prm[_CANCEL] * v:
                    return 0.0, False  # the subtraction would cancel: general path
            else:
                v = max(v, 0.0)
            return v, True
        return (min(ph, pk) if n1 else base), True
    if nm1:
        v = _interval_prob(-ki, hi, xs, ws, clamp, buf)
        if lb1 <= math.log(v) - negl:
            return v, True
    if jm1:
        return _rule_m1(hi, ki, H, K, ri, xj, wj, xs, ws, prm[_JL], clamp, buf), True
    return 0.0, False


@numba.njit(cache=_CACHE, error_model="numpy")
def phi2_within_atol(hi, ki, ph, pk, atol, screen, clamp):
    """``bvn._within_atol`` for one row no fast path takes: (value, True) where a one-dimensional
    tail pins Phi2 to within ``atol`` -- Phi(min(h, k)) <= atol gives Phi(h)Phi(k),
    Phic(max(h, k)) <= atol gives Phi(min(h, k)) -- else (0, False); only rows with
    min(h, k) < -screen or max(h, k) > screen are tested.  ``ph``, ``pk``: Phi(h), Phi(k)."""
    lo, up = min(hi, ki), max(hi, ki)
    if not (lo < -screen or up > screen):
        return 0.0, False
    p_lo = ph if hi <= ki else pk
    p_hi = pk if hi <= ki else ph
    if p_lo <= atol:
        return p_lo * p_hi, True
    if _cdf(-up, clamp) <= atol:
        return p_lo, True
    return 0.0, False


@numba.njit(cache=_CACHE, error_model="numpy")
def phi2_band_within_atol(hi, ki, ri, ph, pk, eh, ek, atol, prm, x16, w16, x24, w24, x32, w32, x48, w48, buf):
    """``bvn._band_within_atol`` for one interior row that neither a fast path nor
    :func:`phi2_within_atol` took: (Phi(h)Phi(k) + the rule from 0, clamped at 0, True) in the rule's
    band where _FP_ATOL_REL times the integral's bound is <= atol, else (0, False)."""
    arho = abs(ri)
    m = max(abs(hi), abs(ki))
    if not (m > prm[_HMAX2] and m <= prm[_HMAX_ATOL] and arho <= prm[_RHO_S2]):
        return 0.0, False
    H, K, m, fr, amb, dH, lo0, rng = _route_terms(hi, ki, ri)
    if not (rng <= prm[_DF2] and prm[_ATOL_REL] * (math.asin(arho) * _INV_2PI * math.exp(-0.5 * m * m)) <= atol):
        return 0.0, False
    v = ph * pk + _rule_tier(H, K, ri, arho, rng, prm, x16, w16, x24, w24, x32, w32, x48, w48,
                             _e_half(hi, ki, eh, ek, prm[_CLAMP]), buf)
    return max(v, 0.0), True


@numba.njit(cache=_CACHE, nogil=True, error_model="numpy")
def _fast_paths(h, k, rho, interior, relative, prm, x16, w16, x24, w24, x32, w32, x48, w48,
                xj, wj, xs, ws, out, done):
    # the routing and values of :func:`phi2_row`, written out in the loop: calling the row function
    # here costs bvn_cdf's vectorised entry ~45 % (measured); tests hold the two row for row
    clamp, negl = prm[_CLAMP], prm[_NEGL]
    buf = np.empty(max(x16.shape[0], x24.shape[0], x32.shape[0], x48.shape[0], xj.shape[0],
                       xs.shape[0]))  # one rule's node terms
    for i in range(h.shape[0]):
        done[i] = False
        out[i] = 0.0
        if not interior[i]:
            continue
        hi, ki, ri = h[i], k[i], rho[i]
        # ---- routing: bvn._fast_p_route, row by row
        ah, ak = abs(hi), abs(ki)
        sw = ah >= ak
        m, mn = max(ah, ak), min(ah, ak)
        H = hi if sw else ki
        K = ki if sw else hi
        d = ri * H - K
        dlow = max(abs(d) - 4.5e-16 * m, 0.0)
        amb = dlow == 0.0
        den = (1.0 - ri) * (1.0 + ri)
        fr = dlow * dlow / (2.0 * den) * (1.0 - 1e-14)
        f0 = 0.5 * mn * mn
        dH = d * H
        lo0 = 0.0 if (amb or (hi * ki * ri >= 0.0 and dH * ri >= 0.0)) else min(f0, fr)
        rng = max(f0, d * d / (2.0 * den)) - lo0
        arho = abs(ri)
        quad = arho <= prm[_RHO_S2] and ((m <= prm[_HMAX] and rng <= prm[_DF])
                                         or (m <= prm[_HMAX2] and rng <= prm[_DF2]))
        beyond = amb or dH * ri <= 0.0
        jm1 = ri < 0.0 and not beyond and fr >= prm[_JF] and m <= prm[_JHMAX]
        n0 = n1 = nm1 = False
        lb1 = math.inf
        if not quad:
            e0 = 0.5 * m * m
            lh, lk = _log_cdf_lower(hi), _log_cdf_lower(ki)
            n0 = math.log(math.asin(arho) * _INV_2PI) - e0 - lo0 <= lh + lk - negl
            lb1 = math.log(math.acos(arho) * _INV_2PI) - e0 - (0.0 if beyond else fr)
            jm1 = jm1 and not n0
            n1 = not n0 and ri > 0.0 and lb1 <= min(lh, lk) - negl
            nm1 = not n0 and ri < 0.0 and hi > -ki and lb1 <= max(lh, lk) - negl
        quad = quad and not jm1
        # ---- values: bvn._fast_paths, row by row
        if quad or n0 or n1:
            ph, pk = _cdf(hi, clamp), _cdf(ki, clamp)
            base = ph * pk
            if quad:
                if arho <= prm[_RHO_SMALL] and rng <= prm[_DF_SMALL]:
                    v = base + _rule(H, K, ri, x16, w16, False, _exp_half_sq(H, clamp), buf)
                elif arho <= prm[_RHO]:
                    v = base + _rule(H, K, ri, x24, w24, False, _exp_half_sq(H, clamp), buf)
                elif arho <= prm[_RHO_S1]:
                    v = base + _rule(H, K, ri, x32, w32, True, _exp_half_sq(H, clamp), buf)
                else:
                    v = base + _rule(H, K, ri, x48, w48, True, _exp_half_sq(H, clamp), buf)
                if relative:
                    if base > prm[_CANCEL] * v:
                        continue  # the subtraction would cancel: general path
                else:
                    v = max(v, 0.0)
                out[i] = v
            else:
                out[i] = min(ph, pk) if n1 else base
            done[i] = True
            continue
        if nm1:
            v = _interval_prob(-ki, hi, xs, ws, clamp, buf)
            if lb1 <= math.log(v) - negl:
                out[i] = v
                done[i] = True
                continue
        if jm1:
            out[i] = _rule_m1(hi, ki, H, K, ri, xj, wj, xs, ws, prm[_JL], clamp, buf)
            done[i] = True


def fast_paths(h: np.ndarray, k: np.ndarray, rho: np.ndarray, interior: np.ndarray, relative: bool,
               prm: np.ndarray, rules: tuple, threads: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """(P, done) for contiguous float64 h, k, rho and a boolean ``interior``: P = Phi2 on the
    rows a fast path takes (``done``), 0 elsewhere.  ``prm``: :func:`parameters`; ``rules``:
    the (nodes, weights) arrays of the 16-, 24-node theta rules, the 32-, 48-node s rules, the
    rule from -1 and the short-interval rule, in that order.  ``threads`` > 1 splits the rows
    over that many threads of a pool (the loop releases the GIL).  Not numba's ``parallel``:
    its OpenMP layer would be a second OpenMP runtime beside torch's, whose idle workers spin
    and take the cores from torch (measured: the exact network pass 6x slower)."""
    out = np.empty_like(h)
    done = np.empty(h.shape, dtype=np.bool_)
    flat = [a for xw in rules for a in xw]
    n = h.shape[0]
    parts = max(1, min(int(threads), n // _MIN_PART))
    if parts == 1:
        _fast_paths(h, k, rho, interior, relative, prm, *flat, out, done)
        return out, done
    cut = [n * j // parts for j in range(parts + 1)]
    jobs = [_pool(parts).submit(_fast_paths, *(x[a:b] for x in (h, k, rho, interior)), relative, prm, *flat,
                                out[a:b], done[a:b])
            for a, b in zip(cut[:-1], cut[1:])]
    for job in jobs:
        job.result()
    return out, done


#: rows below which a call is not split over threads
_MIN_PART = 4096
_POOL = None


def _pool(workers: int):
    """The module's thread pool, grown to ``workers`` threads when needed."""
    global _POOL
    if _POOL is None or _POOL._max_workers < workers:
        _POOL = concurrent.futures.ThreadPoolExecutor(max_workers=workers, thread_name_prefix="bvn")
    return _POOL
