"""Univariate standard-normal helpers in torch, accurate in the *relative* sense.

Every function takes float64 tensors (CPU or CUDA), works elementwise without Python
loops, and returns a tensor of the same shape on the same device.  ``phi`` is the
standard normal density, ``Phi`` its distribution function, ``Phic(x) = Phi(-x)``.

Accuracy notes (measured against mpmath at 40 digits, see ``tests/test_bvn_kernels.py``):

* ``torch.special.ndtr`` is *not* usable in the lower tail on the CPU (it computes
  ``(1 + erf)/2`` and returns 0 below x = -10); ``0.5 * erfc(-x/sqrt 2)`` loses up to
  ~2e-13 near x = -37 because the rounding of ``x/sqrt 2`` is amplified by ``x^2``.
  :func:`cdf` therefore uses ``Phi(x) = erfcx(-x/sqrt 2) * exp(-x^2/2) / 2`` for x < 0,
  with ``exp(-x^2/2)`` evaluated from an exact (Veltkamp/Dekker) split of ``x^2``:
  relative error below 1e-15 down to the underflow threshold.
* The partial moments ``g1(a) = E[(a-Y)_+]`` and ``g2(a) = E[(a-Y)_+^2]`` are computed
  as ``phi(a) * G_j(-a)`` for a < 0, where the scaled tails ``G_j`` come from the
  Laplace continued fraction of the Mills ratio for x > 4 (no cancellation) and from
  the erfcx formula below (cancellation bounded by a factor x^2 <= 16).

Binary exponent apart (keyword ``shift``): the functions whose value carries the Gaussian
factor exp(-x^2/2) -- ``exp_half_sq``, ``pdf``, ``cdf``, the partial and interval moments --
take an optional tensor ``shift`` of integers S (broadcastable, 0 <= S <= 1000) and return
value * 2^S, the power applied inside the exponential (exp(-x^2/2 + S ln 2), ln 2 in two parts,
Cody-Waite) so that a value far below the smallest normal float64 keeps its relative accuracy
(``numerics.core.closed_form``'s scaled kernels, whose results s^k g can be normal while g is
not).  ``shift=None`` is the plain value, computed exactly as before.
"""
from __future__ import annotations

import math

import numpy as np
import torch

from .ddarith import two_sum

__all__ = [
    "pdf",
    "cdf",
    "ccdf",
    "log_cdf",
    "mills_ratio",
    "partial_moment1",
    "partial_moment2",
    "scaled_tail_moments",
    "scaled_g1",
    "interval_prob",
    "interval_moment",
]

INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
SQRT_HALF_PI = math.sqrt(0.5 * math.pi)
INV_SQRT2 = 1.0 / math.sqrt(2.0)

#: Beyond |x| = 40, exp(-x^2/2) = exp(-800) underflows to 0 in float64.
_CLAMP = 40.0
#: With a binary shift S <= 1000 the Gaussian factor underflows only beyond |x| = 54
#: (exp(-x^2/2 + 1000 ln 2) < 2^-1075): the clamp moves out to 60.
_CLAMP_SHIFTED = 60.0
#: ln 2 = _LN2_HI + _LN2_LO with _LN2_HI of 32 significant bits, so S * _LN2_HI is exact for
#: |S| < 2^21 (Cody and Waite's reduction; the values of fdlibm's ln2_hi/ln2_lo).
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
#: Backward continued fraction: depth 128 gives < 2e-16 for x >= 2 (measured); below
#: 2 the erfcx formulas lose at most a factor ~20 to cancellation.
_CF_DEPTH = 128
_CF_SWITCH = 2.0
#: Cheaper variant for G1 alone (used at quadrature nodes): depth 40 suffices for x >= 4.
_CF_DEPTH_G1 = 40
_CF_SWITCH_G1 = 4.0
#: Gauss-Legendre order for short intervals (density varies by <= e^8 there).
_GL_SHORT = 20

_GL_CACHE: dict = {}


def _legendre_mp(n: int, dps: int = 34):
    """Gauss-Legendre rule of order n: numpy's ``leggauss`` nodes polished by Newton steps
    on the three-term recurrence in mpmath (numpy's weights are off by up to ~3e-14 for
    n >= 20, measured on exp(-20(x+1)) over [-1, 1]; the polished rule is exact to 1 ulp)."""
    import mpmath as mp

    x0, _ = np.polynomial.legendre.leggauss(n)
    xs, ws = [], []
    with mp.workdps(dps):
        def ev(x):
            p0, p1 = mp.mpf(1), x
            for k in range(2, n + 1):
                p0, p1 = p1, ((2 * k - 1) * x * p1 - (k - 1) * p0) / k
            return p1, n * (x * p1 - p0) / (x * x - 1)

        for xi in x0:
            x = mp.mpf(float(xi))
            for _ in range(3):
                pn, dp = ev(x)
                x = x - pn / dp
            pn, dp = ev(x)
            xs.append(float(x))
            ws.append(float(2 / ((1 - x * x) * dp * dp)))
    return np.array(xs), np.array(ws)


_RULE_CACHE: dict = {}


def cached_rule(kind: str, n: int, make, device, dtype=torch.float64):
    """Quadrature rule (nodes, weights) built once by ``make(n)`` and cached per device."""
    key = (kind, n)
    host = _RULE_CACHE.get(key)
    if host is None:
        host = make(n)
        _RULE_CACHE[key] = host
    dkey = (kind, n, str(device), dtype)
    hit = _GL_CACHE.get(dkey)
    if hit is None:
        hit = (
            torch.as_tensor(host[0], dtype=dtype, device=device),
            torch.as_tensor(host[1], dtype=dtype, device=device),
        )
        _GL_CACHE[dkey] = hit
    return hit


def gauss_legendre(n: int, device, dtype=torch.float64):
    """Gauss-Legendre nodes and weights on [-1, 1], computed once and cached per device."""
    return cached_rule("legendre", n, _legendre_mp, device, dtype)


def _split(x: torch.Tensor):
    """Veltkamp split: x = hi + lo exactly, hi with at most 26 significant bits."""
    c = 134217729.0 * x  # 2**27 + 1
    hi = c - (c - x)
    return hi, x - hi


def exp_half_sq(x: torch.Tensor, shift=None) -> torch.Tensor:
    """exp(-x^2/2) with x^2 formed exactly (hi*hi + 2*hi*lo + lo*lo), so that the
    rounding of x^2 (worth ~x^2 ulps of the result) does not occur.

    ``shift`` S: times 2^S (``exp_scaled`` of the exact -hi^2/2 and the small rest)."""
    if shift is None:
        xc = x.clamp(-_CLAMP, _CLAMP)
        hi, lo = _split(xc)
        big = hi * hi
        small = (2.0 * hi) * lo + lo * lo
        return torch.exp(-0.5 * big) * torch.exp(-0.5 * small)
    xc = x.clamp(-_CLAMP_SHIFTED, _CLAMP_SHIFTED)
    hi, lo = _split(xc)
    return exp_scaled(-0.5 * (hi * hi), -0.5 * ((2.0 * hi) * lo + lo * lo), shift)


def exp_scaled(e_hi: torch.Tensor, e_lo: torch.Tensor, shift) -> torch.Tensor:
    """exp(e_hi + e_lo) 2^S for an exponent e_hi (exact) + e_lo (|e_lo| << ulp-scale of e_hi) and
    integers 0 <= S <= 1000: exp(t) exp(tau) with t + tau = e_hi + S ln2_hi exactly (``two_sum``;
    S ln2_hi is exact), tau absorbing e_lo + S ln2_lo: a few ulps at any S.  The small part is
    below 1e-6 wherever exp(t) is not 0; for a huge exponent (e_hi ~ -1e22, at |a| ~ 1e11) e_lo and
    tau are ~1e5 and exp of them would overflow into 0 * inf = NaN, so it is clamped to [-1, 1]."""
    t, tau = two_sum(e_hi, shift * _LN2_HI)
    return torch.exp(t) * torch.exp((tau + (shift * _LN2_LO + e_lo)).clamp(-1.0, 1.0))


def scale2(x: torch.Tensor, shift) -> torch.Tensor:
    """x 2^shift (exact; ``shift=None``: x itself) -- the factors free of exp(-x^2/2)."""
    return x if shift is None else torch.ldexp(x, shift)


def rows(shift, i):
    """The shift of the rows ``i`` (None stays None)."""
    return None if shift is None else shift[i]


def split_shift(shift, e1: torch.Tensor, e2: torch.Tensor):
    """(S1, S2), S1 + S2 = shift, for a product of two Gaussian factors with exponents ~ -e1, -e2
    (e_i >= 0): S shared in proportion to them (half each where both are 0), so that each shifted
    factor carries about its own share and neither overflows while the other is tiny (an even
    split lost g1(-50) g1(-1) entirely).  None for None."""
    if shift is None:
        return None, None
    tot = e1 + e2
    w1 = torch.where(tot > 0, e1 / torch.where(tot > 0, tot, torch.ones_like(tot)), 0.5 * torch.ones_like(tot))
    s1 = torch.floor(shift * w1)
    return s1, shift - s1


def pdf(x: torch.Tensor, shift=None) -> torch.Tensor:
    """phi(x) = exp(-x^2/2)/sqrt(2 pi); relative error ~2 ulp for all x (0 below underflow);
    times 2^shift (``exp_half_sq``)."""
    return INV_SQRT_2PI * exp_half_sq(x, shift)


def mills_ratio(x: torch.Tensor) -> torch.Tensor:
    """R(x) = Phic(x)/phi(x) = sqrt(pi/2) erfcx(x/sqrt 2) (finite for x >= -37)."""
    return SQRT_HALF_PI * torch.special.erfcx(x * INV_SQRT2)


def cdf(x: torch.Tensor, shift=None) -> torch.Tensor:
    """Phi(x).  For x < 0: erfcx(-x/sqrt2) exp(-x^2/2)/2 (relative error < 1e-15 down to
    the float64 underflow near x = -37.5); for x >= 0: 1 - Phic(x).  Times 2^shift."""
    neg = torch.minimum(x, torch.zeros((), dtype=x.dtype, device=x.device))
    lower = 0.5 * torch.special.erfcx(-neg * INV_SQRT2) * exp_half_sq(neg, shift)
    lower = torch.where(torch.isneginf(x), torch.zeros_like(lower), lower)
    pos = torch.maximum(x, torch.zeros((), dtype=x.dtype, device=x.device))
    upper = scale2(1.0 - 0.5 * torch.special.erfc(pos * INV_SQRT2), shift)
    return torch.where(x < 0, lower, upper)


def ccdf(x: torch.Tensor) -> torch.Tensor:
    """Phic(x) = 1 - Phi(x) = Phi(-x), relatively accurate in the upper tail."""
    return cdf(-x)


def log_cdf(x: torch.Tensor) -> torch.Tensor:
    """log Phi(x) (``torch.special.log_ndtr``; measured relative error < 1e-14)."""
    return torch.special.log_ndtr(x)


def _cf_tail(x: torch.Tensor, depth: int):
    """Backward Laplace continued fraction: returns (R t1, R t1 t2) = (G1, G2) at x > 0."""
    t = torch.zeros_like(x)
    for j in range(depth, 2, -1):
        t = j / (x + t)
    t2 = 2.0 / (x + t)
    t1 = 1.0 / (x + t2)
    r = 1.0 / (x + t1)
    g1 = r * t1
    return g1, g1 * t2


def scaled_tail_moments(x: torch.Tensor):
    """(G1(x), G2(x)) for x >= 0, where g1(-x) = phi(x) G1(x), g2(-x) = phi(x) G2(x).

    G1 = 1 - x R, G2 = (x^2+1) R - x with R the Mills ratio.  Above x = 2 these cancel
    (by a factor ~x^3/2 for G2), so the Laplace continued fraction R = 1/(x + t1),
    t_j = j/(x + t_{j+1}) is evaluated backward (depth 40 for x > 4, depth 128 on
    2 < x <= 4; measured < 4e-16) and G1 = R t1, G2 = R t1 t2 (all terms positive).
    At x <= 2 the erfcx formulas lose at most a factor ~20 to cancellation (< 1e-14).
    """
    xs = torch.clamp(x, min=_CF_SWITCH_G1)
    g1, g2 = _cf_tail(xs, _CF_DEPTH_G1)
    xd = torch.clamp(x, max=_CF_SWITCH)
    rd = mills_ratio(xd)
    g1 = torch.where(x > _CF_SWITCH_G1, g1, 1.0 - xd * rd)
    g2 = torch.where(x > _CF_SWITCH_G1, g2, (xd * xd + 1.0) * rd - xd)
    mid = (x > _CF_SWITCH) & (x <= _CF_SWITCH_G1)
    idx = torch.nonzero(mid.reshape(-1)).squeeze(-1)
    if idx.numel():
        m1, m2 = _cf_tail(x.reshape(-1)[idx], _CF_DEPTH)
        g1 = g1.reshape(-1).index_copy(0, idx, m1).reshape(x.shape)
        g2 = g2.reshape(-1).index_copy(0, idx, m2).reshape(x.shape)
    return g1, g2


def scaled_g1(x: torch.Tensor) -> torch.Tensor:
    """G1(x) = g1(-x)/phi(x) for x >= 0 (continued fraction of depth 40 above x = 4,
    erfcx formula below); relative error < 2e-15."""
    xs = torch.clamp(x, min=_CF_SWITCH_G1)
    t = torch.zeros_like(xs)
    for j in range(_CF_DEPTH_G1, 1, -1):
        t = j / (xs + t)
    t1 = 1.0 / (xs + t)
    g1_cf = t1 / (xs + t1)
    xd = torch.clamp(x, max=_CF_SWITCH_G1)
    g1_d = 1.0 - xd * mills_ratio(xd)
    return torch.where(x > _CF_SWITCH_G1, g1_cf, g1_d)


def partial_moment1(a: torch.Tensor, shift=None) -> torch.Tensor:
    """g1(a) = E[(a - Y)_+] = a Phi(a) + phi(a), Y ~ N(0,1) (times 2^shift).

    a >= 0: the formula (positive terms).  a < 0: phi(a) G1(-a) (see
    :func:`scaled_tail_moments`), relatively accurate down to the underflow of phi.
    """
    z = torch.zeros((), dtype=a.dtype, device=a.device)
    g1t, _ = scaled_tail_moments(torch.clamp(-a, min=0.0))
    lower = pdf(a, shift) * g1t
    ap = torch.maximum(a, z)
    upper = ap * cdf(ap, shift) + pdf(ap, shift)
    out = torch.where(a < 0, lower, upper)
    out = torch.where(torch.isneginf(a), torch.zeros_like(out), out)
    return torch.where(torch.isposinf(a), a, out)


def partial_moment2(a: torch.Tensor, shift=None) -> torch.Tensor:
    """g2(a) = E[(a - Y)_+^2] = (a^2 + 1) Phi(a) + a phi(a); a < 0 via phi(a) G2(-a) (times 2^shift)."""
    z = torch.zeros((), dtype=a.dtype, device=a.device)
    _, g2t = scaled_tail_moments(torch.clamp(-a, min=0.0))
    lower = pdf(a, shift) * g2t
    ap = torch.maximum(a, z)
    upper = (ap * ap + 1.0) * cdf(ap, shift) + ap * pdf(ap, shift)
    out = torch.where(a < 0, lower, upper)
    out = torch.where(torch.isneginf(a), torch.zeros_like(out), out)
    return torch.where(torch.isposinf(a), torch.full_like(out, math.inf), out)


# ---------------------------------------------------------------------------------------
# Interval moments  I_{m,n}(A, B) = int_A^B (B - y)^m (y - A)^n phi(y) dy,  m + n <= 2.
# ---------------------------------------------------------------------------------------


def _lower_interval_moments(A: torch.Tensor, B: torch.Tensor, pairs, shift=None):
    """I_{m,n}(A, B) for A <= B <= 0 (A may be -inf), for each (m, n) in ``pairs``.

    Short intervals (d <= 2.5 and d*|A| <= 4, d = B - A) use 20-point Gauss-Legendre on
    phi(y) = phi(B) exp(-(B-y)|B+y|/2) (the exponent varies by < 8 there).  Otherwise the
    one-sided tail moments Phi, g1, g2 at A and B are combined; outside the short zone
    each difference loses at most a factor ~3 (the subtracted lower-tail part is at most
    a third of the total because the density falls by e^2 across the interval, and the
    conditional mean excess E[B-Y | Y<=B] <= d/4).  Times 2^shift (broadcast to B).
    """
    if shift is not None:
        shift = torch.broadcast_to(shift, B.shape)
    finite_a = torch.isfinite(A)
    Af = torch.where(finite_a, A, B - 1.0)
    d = B - Af
    short = finite_a & (d <= 2.5) & (d * Af.abs() <= 4.0)
    order = max(m + n for m, n in pairs)
    zero = torch.zeros_like(B)
    inf = torch.full_like(B, math.inf)
    PB, PA = cdf(B, shift), torch.where(finite_a, cdf(Af, shift), zero)
    dA = torch.where(finite_a, d, zero)  # d multiplies only lower-end terms below
    tail = {(0, 0): PB - PA}
    if order >= 1:
        g1B = partial_moment1(B, shift)
        g1A = torch.where(finite_a, partial_moment1(Af, shift), zero)
        tail[(1, 0)] = g1B - (dA * PA + g1A)
        tail[(0, 1)] = torch.where(finite_a, (d * PB - g1B) + g1A, inf)
    if order >= 2:
        g2B = partial_moment2(B, shift)
        g2A = torch.where(finite_a, partial_moment2(Af, shift), zero)
        tail[(2, 0)] = g2B - (dA * dA * PA + 2.0 * dA * g1A + g2A)
        tail[(1, 1)] = torch.where(finite_a, (d * g1B - g2B) + (d * g1A + g2A), inf)
        tail[(0, 2)] = torch.where(finite_a, (d * d * PB - 2.0 * d * g1B + g2B) - g2A, inf)

    out = [tail[pair] for pair in pairs]
    idx = torch.nonzero(short.reshape(-1)).squeeze(-1)
    if idx.numel():
        gls = _short_gl_moments(Af.reshape(-1)[idx], B.reshape(-1)[idx], pairs,
                                None if shift is None else shift.reshape(-1)[idx])
        out = [o.reshape(-1).index_copy(0, idx, g).reshape(o.shape) for o, g in zip(out, gls)]
    return out


def interval_moment(a: torch.Tensor, b: torch.Tensor, m: int, n: int, shift=None) -> torch.Tensor:
    """I_{m,n}(a, b) = int_a^b (b - y)^m (y - a)^n phi(y) dy for a <= b, m + n <= 2
    (0 when a >= b), times 2^shift.  Relatively accurate for short and deep-tail intervals.

    Intervals in y >= 0 are reflected (y -> -y swaps m and n); intervals straddling 0
    are split at 0 and the binomial expansion about 0 keeps every term positive.
    """
    if m < 0 or n < 0 or m + n > 2:
        raise ValueError("interval_moment supports m, n >= 0 with m + n <= 2")
    a, b = torch.broadcast_tensors(a, b)
    z = torch.zeros_like(a)
    valid = a < b
    # upper half: reflect
    refl = a >= 0
    A1 = torch.where(refl, -b, a)
    B1 = torch.where(refl, -a, b)
    mm_r, nn_r = n, m
    lower_only = B1 <= 0
    # one-sided part (whole interval on one side after reflection)
    Bl = torch.where(lower_only, B1, z)
    Al = torch.where(lower_only, A1, z - 1.0)
    Al = torch.minimum(Al, Bl)
    v_direct, v_refl = _lower_interval_moments(Al, Bl, [(m, n), (mm_r, nn_r)], shift)
    one_sided = torch.where(refl, v_refl, v_direct)
    # straddling part: A < 0 < B.  int_A^0 (B-y)^m (y-A)^n = sum_j C(m,j) B^{m-j} I_{j,n}(A,0)
    # and int_0^B (B-y)^m (y-A)^n = sum_j C(n,j) |A|^{n-j} I_{m,j}(0,B) = ... I_{j,m}(-B,0).
    st = (~lower_only) & (~refl)
    As = torch.where(st, a, z - 1.0)
    Bs = torch.where(st, b, z + 1.0)
    left_pairs = [(j, n) for j in range(m + 1)]
    right_pairs = [(j, m) for j in range(n + 1)]
    left = _lower_interval_moments(As, z, left_pairs, shift)
    right = _lower_interval_moments(-Bs, z, right_pairs, shift)
    Bpos = torch.where(st & torch.isfinite(Bs), Bs, z)
    Aneg = torch.where(st & torch.isfinite(As), -As, z)
    total = z.clone()
    for j, val in zip(range(m + 1), left):
        c = math.comb(m, j)
        total = total + c * (Bpos ** (m - j) if m - j else 1.0) * val
    for j, val in zip(range(n + 1), right):
        c = math.comb(n, j)
        total = total + c * (Aneg ** (n - j) if n - j else 1.0) * val
    out = torch.where(st, total, one_sided)
    return torch.where(valid, out, z)


def interval_prob(a: torch.Tensor, b: torch.Tensor, *, masked: bool = False, shift=None) -> torch.Tensor:
    """P(a < Y <= b) for Y ~ N(0,1), a <= b (0 if a >= b); a = -inf and b = +inf allowed.

    Relatively accurate for short intervals (Gauss-Legendre on the density, used when
    d = b - a <= 2.5 and d * max(|a|, |b|) <= 4) and for intervals deep in either tail
    (differences of tail probabilities: Phi(b) - Phi(a) for b <= 0, Phic(a) - Phic(b) for
    a >= 0, 1 - Phi(a) - Phic(b) across 0; outside the short zone the subtracted part is
    at most e^-2 of the first, so at most a factor ~1.2 is lost).
    Phi_2(h, k; -1) = interval_prob(-k, h).
    ``masked``: the short-interval rule on every element, picked by ``torch.where`` (no
    ``nonzero``: no host synchronisation on a device; the same values).  Times 2^shift.
    """
    a, b = torch.broadcast_tensors(a, b)
    if shift is not None:
        shift = torch.broadcast_to(shift, a.shape)
    valid = a < b
    refl = a + b > 0
    lo = torch.where(refl, -b, a)
    hi = torch.where(refl, -a, b)          # now lo + hi <= 0: hi is the end nearer 0
    lo = torch.where(valid, lo, hi)
    Plo, Phi_ = cdf(lo, shift), cdf(hi, shift)
    direct = torch.where(hi <= 0, Phi_ - Plo, (scale2(torch.ones_like(lo), shift) - Plo) - cdf(-hi, shift))
    d = hi - lo
    short = valid & torch.isfinite(d) & (d <= 2.5) & (d * lo.abs() <= 4.0)
    out = direct
    if masked:
        zero = torch.zeros_like(lo)
        (gl,) = _short_gl_moments(torch.where(short, lo, zero), torch.where(short, hi, zero), [(0, 0)], shift)
        return torch.where(valid, torch.where(short, gl, out), zero)
    idx = torch.nonzero(short.reshape(-1)).squeeze(-1)
    if idx.numel():
        A = lo.reshape(-1)[idx]
        B = hi.reshape(-1)[idx]
        (gl,) = _short_gl_moments(A, B, [(0, 0)], None if shift is None else shift.reshape(-1)[idx])
        out = out.reshape(-1).index_copy(0, idx, gl).reshape(out.shape)
    return torch.where(valid, out, torch.zeros_like(out))


def _short_gl_moments(A, B, pairs, shift=None):
    """I_{m,n}(A, B) by 20-point Gauss-Legendre, for short intervals with A + B <= 0:
    phi(y) = phi(B) exp(-(B - y)(B + y)/2) keeps the exponent small and exact-ish
    (times 2^shift, carried by phi(B))."""
    x, w = gauss_legendre(_GL_SHORT, B.device, B.dtype)
    d = (B - A).unsqueeze(-1)
    bmy = 0.5 * d * (1.0 - x)          # B - y_i >= 0
    yma = 0.5 * d * (1.0 + x)          # y_i - A >= 0
    ypb = 2.0 * B.unsqueeze(-1) - bmy  # B + y_i
    dens = pdf(B, shift).unsqueeze(-1) * torch.exp(0.5 * bmy * ypb) * w
    out = []
    for (m, n) in pairs:
        f = dens
        if m:
            f = f * bmy ** m
        if n:
            f = f * yma ** n
        out.append(0.5 * d.squeeze(-1) * f.sum(-1))
    return out
