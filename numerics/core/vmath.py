r"""Branch-free exp, sin and cos for numba loops that LLVM can vectorise (SIMD).

numba calls libm for ``math.exp`` and ``math.sin``: one opaque scalar call per element, which
keeps LLVM from vectorising the loop around it (and numba's wheels carry no SVML).  The
kernels here are plain arithmetic, comparisons folded into selects and integer bit patterns,
so a loop over an array that calls them (and nothing else opaque) becomes packed code (here
256-bit ymm AVX-512VL/AVX2 instructions, LLVM preferring 256-bit vectors on this CPU):

* :func:`exp`: x = k ln 2 + r + rl by Cody--Waite reduction (k = rint(x / ln 2), ln 2 split
  into a 32-bit head, so that k times it is exact for |k| <= 2^21, and a tail; rl the rounding
  error of r), |r| <= ln 2 / 2 (+ a rounding);
  e^(r+rl) = 1 + (r + (r^2 sum_{j>=2} r^{j-2}/j! + rl)) by Horner with Taylor's coefficients up
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
  bound).  :func:`sin_small`: the same polynomials after a one-step reduction by pi/2 in two
  parts, for |x| <= ``SMALL_MAX`` = 2 (<= 2 ulp, NaN beyond); the theta rules of
  ``bvn_compiled`` call it on |x| <= pi/2.

Polynomials are evaluated by Horner's rule in fused multiply-adds (:func:`fma`, LLVM's
``llvm.fma``: one rounding per step, exact IEEE semantics, no fast-math flags anywhere).

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


@intrinsic
def fma(typingctx, a, b, c):
    """a b + c with one rounding (LLVM's ``llvm.fma``: the FMA instruction where the CPU has
    one, as here; a correct but slow libm call elsewhere).  Not a fast-math contraction: the
    result is the IEEE fused multiply-add, the same on every machine."""
    f8 = numba.types.float64
    if (a, b, c) != (f8, f8, f8):
        return None

    def codegen(context, builder, signature, args):
        d = ir.DoubleType()
        fn = builder.module.declare_intrinsic("llvm.fma", [d], ir.FunctionType(d, [d, d, d]))
        return builder.call(fn, args)
    return f8(f8, f8, f8), codegen


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
    a = xc - kf * _LN2_HI  # exact (Sterbenz; the product is exact)
    r = fma(-kf, _LN2_LO, a)
    rl = fma(-kf, _LN2_LO, a - r)  # r's rounding error (a - r is exact): e^(r+rl) = e^r + rl
    q = fma(r, _E13, _E12)
    q = fma(r, q, _E11)
    q = fma(r, q, _E10)
    q = fma(r, q, _E9)
    q = fma(r, q, _E8)
    q = fma(r, q, _E7)
    q = fma(r, q, _E6)
    q = fma(r, q, _E5)
    q = fma(r, q, _E4)
    q = fma(r, q, _E3)
    q = fma(r, q, _E2)
    p = 1.0 + (r + fma(r * r, q, rl))
    k = numba.int64(kf)
    k1 = k >> 1
    k2 = k - k1
    y = (p * _f64_from_bits((k1 + 1023) << 52)) * _f64_from_bits((k2 + 1023) << 52)
    return y if x == x else x


# ------------------------------------------------------------------------------ sin, cos
REDUCE_MAX = 1048576.0  # 2^20: |x| up to which the reduction below is exact enough
SMALL_MAX = 2.0  # |x| up to which sin_small's one-step reduction serves
_TWO_OVER_PI = 0.6366197723675814
_PIO2_1 = float.fromhex("0x1.921fb54000000p+0")  # pi/2 in 30-bit parts ...
_PIO2_2 = float.fromhex("0x1.10b4611800000p-30")
_PIO2_3 = float.fromhex("0x1.313198a000000p-61")
_PIO2_4 = float.fromhex("0x1.701b839a25205p-92")  # ... and the rest, rounded
_PIO2_HI = float.fromhex("0x1.921fb54442d18p+0")  # pi/2 rounded ...
_PIO2_LO = float.fromhex("0x1.1a62633145c07p-54")  # ... and the rest, rounded
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
def _quadrant(r, rl, n, x, shift):
    """sin(x + shift pi/2) from x = q pi/2 + r + rl, n = q + shift: Taylor polynomials of sin
    and cos on |r| <= pi/4 (+ a rounding), the one of quadrant n picked by selects."""
    z = r * r
    ps = fma(z, _S8, _S7)
    ps = fma(z, ps, _S6)
    ps = fma(z, ps, _S5)
    ps = fma(z, ps, _S4)
    ps = fma(z, ps, _S3)
    ps = fma(z, ps, _S2)
    ps = fma(z, ps, _S1)
    sn = r + fma(r * z, ps, rl)  # sin(r + rl) = sin r + rl cos r, cos r = 1 - O(r^2)
    pc = fma(z, _C8, _C7)
    pc = fma(z, pc, _C6)
    pc = fma(z, pc, _C5)
    pc = fma(z, pc, _C4)
    pc = fma(z, pc, _C3)
    pc = fma(z, pc, _C2)
    cs = 1.0 + (-0.5 * z + fma(z * z, pc, -(r * rl)))  # cos(r + rl) = cos r - rl sin r
    v = cs if (n & 1) == 1 else sn
    v = -v if (n & 2) == 2 else v
    return v if (x != 0.0 or shift == 1) else x  # sin(-0) = -0


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
    v = _quadrant(r, rl, numba.int64(qf) + shift, x, shift)
    return v if inside else math.nan


@numba.njit(**_JIT)
def sin_small(x):
    """sin x for |x| <= ``SMALL_MAX`` = 2 (<= 2 ulp), NaN beyond; branch-free, cheaper than
    :func:`sin_reduced`.  There q = rint(2x/pi) is -1, 0 or 1, so no multiple of pi/2 but 0
    comes near x and r = (x - q P) - q P' (P + P' = pi/2 to 2^-107; the first difference exact)
    is accurate to half an ulp of r, which cos r, the value where q != 0, needs no better."""
    inside = abs(x) <= SMALL_MAX
    xi = x if inside else 0.0
    qf = (xi * _TWO_OVER_PI + _SHIFT) - _SHIFT
    a = xi - qf * _PIO2_HI
    r = a - qf * _PIO2_LO
    rl = (a - r) - qf * _PIO2_LO
    v = _quadrant(r, rl, numba.int64(qf), x, 0)
    return v if inside else math.nan


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


def elementwise(kernel):
    """A compiled loop ``run(x, out)``: out[i] = kernel(x[i]) over float64 arrays, the form in
    which LLVM vectorises these kernels (for tests and benchmarks; built, not cached, per
    call of this factory)."""
    @numba.njit(error_model="numpy")
    def run(x, out):
        for i in range(x.shape[0]):
            out[i] = kernel(x[i])
    return run
