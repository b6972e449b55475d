r"""Branch-free exp, sin and cos for numba loops that LLVM can vectorise (SIMD).

numba calls libm for ``math.exp`` and ``math.sin``: one opaque scalar call per element, which
keeps LLVM from vectorising the loop around it (and numba's wheels carry no SVML).  The
kernels here are plain arithmetic, comparisons folded into selects and integer bit patterns,
so a loop over an array that calls them (and nothing else opaque) becomes AVX-512/AVX2 code:

* :func:`exp`: x = k ln 2 + r by Cody--Waite reduction (k = rint(x / ln 2), ln 2 split into a
  32-bit head, so that k times it is exact for |k| <= 2^21, and a tail), |r| <= ln 2 / 2 (+ a
  rounding); e^r = 1 + (r + r^2 sum_{j>=2} r^{j-2}/j!) by Horner with Taylor's coefficients up
  to r^13 (remainder r^14/14! < 5e-18); 2^k applied as two powers 2^{k1} 2^{k2}, k1 = k >> 1,
  built from their bit patterns, so that results down to the subnormal range (gradual
  underflow: one rounding, in the last product) and up to the overflow threshold need no
  branch.  Overflow to inf, underflow to 0 and NaN fall out of the arithmetic and two selects.
  Contract: <= 1 ulp over the whole float64 range (subnormal results: 1 ulp = 2^-1074),
  exp(+-0) = 1, exp(-inf) = 0, exp(inf) = inf, exp(NaN) = NaN.
* :func:`sin_reduced`, :func:`cos_reduced`: x = q pi/2 + r with q = rint(2x/pi) and pi/2 split
  into three 30-bit parts and a tail (products exact for |q| <= 2^23; the reduction in
  error-free two-sums, so r is accurate to ~2^-120 absolute for |x| <= ``REDUCE_MAX``), then
  Taylor polynomials of sin r (to r^17) and cos r (to r^16) on |r| <= pi/4 and the quadrant by
  selects.  Contract: |x| <= ``REDUCE_MAX`` = 2^20; <= 2 ulp there; NaN outside it (a misuse
  shows, it is never silently wrong).  :func:`sin` and :func:`cos` route |x| > ``REDUCE_MAX``,
  inf and NaN to libm by a branch (so they vectorise only where a caller's loop keeps to the
  bound; the kernels of ``bvn_compiled`` call :func:`sin_reduced` on |x| <= pi/2).

All coefficients are Taylor's, 1/j!; the split constants were derived with mpmath (60 digits)
by truncating the binary expansions of ln 2 and pi/2 (``tests/test_vmath.py`` re-derives them).
Accuracy is checked in ulps against mpmath in ``tests/test_vmath.py`` over the whole range.
"""
from __future__ import annotations

import math

import numba
from llvmlite import ir
from numba.extending import intrinsic

_JIT = dict(cache=True, fastmath=False, error_model="numpy")


@intrinsic
def _f64_from_bits(typingctx, bits):
    """The float64 whose bit pattern is the int64 ``bits`` (an LLVM bitcast)."""
    if bits != numba.types.int64:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.DoubleType())
    return numba.types.float64(numba.types.int64), codegen


# ---------------------------------------------------------------------------------- exp
_INV_LN2 = 1.4426950408889634  # 1/ln 2 rounded (only picks k: its rounding moves r by < 1e-13)
_LN2_HI = float.fromhex("0x1.62e42fee00000p-1")  # ln 2 to 32 bits
_LN2_LO = float.fromhex("0x1.a39ef35793c76p-33")  # ln 2 - _LN2_HI rounded
_SHIFT = 6755399441055744.0  # 1.5 * 2^52: (y + _SHIFT) - _SHIFT = rint(y) for |y| < 2^51
_E = [1.0 / math.factorial(j) for j in range(14)]
(_E2, _E3, _E4, _E5, _E6, _E7, _E8, _E9, _E10, _E11, _E12, _E13) = _E[2:]
_EXP_HI = 710.0  # above ln(DBL_MAX) = 709.78...: clamped, the product overflows to inf
_EXP_LO = -746.0  # below ln(2^-1075) = -745.13...: clamped, the product rounds to 0


@numba.njit(**_JIT)
def exp(x):
    """e^x, <= 1 ulp for every float64 x (module docstring); branch-free."""
    xc = x if x < _EXP_HI else _EXP_HI  # NaN -> _EXP_HI, restored below
    xc = xc if xc > _EXP_LO else _EXP_LO
    kf = (xc * _INV_LN2 + _SHIFT) - _SHIFT
    r = (xc - kf * _LN2_HI) - kf * _LN2_LO
    q = _E12 + r * _E13
    q = _E11 + r * q
    q = _E10 + r * q
    q = _E9 + r * q
    q = _E8 + r * q
    q = _E7 + r * q
    q = _E6 + r * q
    q = _E5 + r * q
    q = _E4 + r * q
    q = _E3 + r * q
    q = _E2 + r * q
    p = 1.0 + (r + (r * r) * q)
    k = numba.int64(kf)
    k1 = k >> 1
    k2 = k - k1
    y = (p * _f64_from_bits((k1 + 1023) << 52)) * _f64_from_bits((k2 + 1023) << 52)
    return y if x == x else x


# ------------------------------------------------------------------------------ sin, cos
REDUCE_MAX = 1048576.0  # 2^20: |x| up to which the reduction below is exact enough
_TWO_OVER_PI = 0.6366197723675814
_PIO2_1 = float.fromhex("0x1.921fb54000000p+0")  # pi/2 in 30-bit parts ...
_PIO2_2 = float.fromhex("0x1.10b4611800000p-30")
_PIO2_3 = float.fromhex("0x1.313198a000000p-61")
_PIO2_4 = float.fromhex("0x1.701b839a25205p-92")  # ... and the rest, rounded
_S = [(-1.0) ** j / math.factorial(2 * j + 1) for j in range(9)]  # sin: r^(2j+1)/(2j+1)!
_C = [(-1.0) ** j / math.factorial(2 * j) for j in range(9)]  # cos: r^(2j)/(2j)!
(_S1, _S2, _S3, _S4, _S5, _S6, _S7, _S8) = _S[1:]
(_C2, _C3, _C4, _C5, _C6, _C7, _C8) = _C[2:]


@numba.njit(**_JIT)
def _two_sum(a, b):
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


@numba.njit(**_JIT)
def _sin_cos_quadrant(x, shift):
    """sin(x + shift pi/2) for |x| <= REDUCE_MAX (shift 0: sin, 1: cos), NaN beyond."""
    inside = abs(x) <= REDUCE_MAX
    xi = x if inside else 0.0
    qf = (xi * _TWO_OVER_PI + _SHIFT) - _SHIFT
    a = xi - qf * _PIO2_1  # exact (Sterbenz; the product is exact)
    s1, e1 = _two_sum(a, -(qf * _PIO2_2))
    r0, e2 = _two_sum(s1, -(qf * _PIO2_3))
    t = (e1 + e2) - qf * _PIO2_4
    r = r0 + t
    rl = t - (r - r0)  # r + rl = the reduced argument to ~2^-120 absolute
    z = r * r
    ps = _S7 + z * _S8
    ps = _S6 + z * ps
    ps = _S5 + z * ps
    ps = _S4 + z * ps
    ps = _S3 + z * ps
    ps = _S2 + z * ps
    ps = _S1 + z * ps
    sn = r + (rl + (r * z) * ps)  # sin(r + rl) = sin r + rl cos r, cos r = 1 - O(r^2)
    pc = _C7 + z * _C8
    pc = _C6 + z * pc
    pc = _C5 + z * pc
    pc = _C4 + z * pc
    pc = _C3 + z * pc
    pc = _C2 + z * pc
    cs = 1.0 + (-0.5 * z + ((z * z) * pc - r * rl))  # cos(r + rl) = cos r - rl sin r
    n = numba.int64(qf) + shift
    v = cs if (n & 1) == 1 else sn
    v = -v if (n & 2) == 2 else v
    v = v if (x != 0.0 or shift == 1) else x  # sin(-0) = -0
    v = v if inside else math.nan
    return v


@numba.njit(**_JIT)
def sin_reduced(x):
    """sin x for |x| <= ``REDUCE_MAX`` (<= 2 ulp), NaN beyond; branch-free."""
    return _sin_cos_quadrant(x, 0)


@numba.njit(**_JIT)
def cos_reduced(x):
    """cos x for |x| <= ``REDUCE_MAX`` (<= 2 ulp), NaN beyond; branch-free."""
    return _sin_cos_quadrant(x, 1)


@numba.njit(**_JIT)
def sin(x):
    """sin x for every float64 x: :func:`sin_reduced` where |x| <= ``REDUCE_MAX``, libm beyond."""
    if abs(x) <= REDUCE_MAX:
        return sin_reduced(x)
    return math.sin(x)


@numba.njit(**_JIT)
def cos(x):
    """cos x for every float64 x: :func:`cos_reduced` where |x| <= ``REDUCE_MAX``, libm beyond."""
    if abs(x) <= REDUCE_MAX:
        return cos_reduced(x)
    return math.cos(x)
