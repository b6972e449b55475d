"""Closed forms of Section 4's Gaussian-moment lemmas, as vectorised float64 kernels.

Public names (DESIGN.md, "Stable public names"); every function broadcasts, takes
Python scalars, numpy arrays or torch tensors and returns the same kind:

- ``bvn_cdf(h, k, rho)`` = Phi_2(h, k; rho) = P(X <= h, Y <= k), corr(X, Y) = rho.
- ``relu_moment1(mu, s)`` = E[z 1{z >= 0}], z ~ N(mu, s^2): the exact smoothed ReLU
  sigma_tilde = mu Phi(mu/s) + s varphi(mu/s) (Theorem 4.2 proof sketch, E_2).
- ``relu_square_moment(mu, s)`` = E[z^2 1{z >= 0}] = (mu^2 + s^2) Phi(mu/s) + mu s varphi(mu/s).
- ``relu_proxy(mu, s)`` = sigma_hat = mu Phi(mu/s), the paper's proxy (Theorem 4.2, Remark 4.4).
- ``orthant_prob``, ``orthant_first``, ``relu_moment2`` (mu1, mu2, s1, s2, rho) =
  P(z1 >= 0, z2 >= 0), E[z1 1{...}], E[z1 z2 1{...}] (E_1; Rosenbaum 1961).
- ``mask_moment1(u, kappa)`` = E[c 1{c^T u >= 0}], ``mask_moment2(u, v, kappa)`` =
  E[c c^T 1{c^T u >= 0, c^T v >= 0}] (``v=None``: the half-space E[c c^T 1{c^T u >= 0}]),
  c ~ N(1, kappa^2 I_d), u, v of shape (..., d) (Theorem 4.9 proof sketch).

Why these are not lambdified from ``theory.masking.gaussian``: the displayed closed forms cancel
catastrophically in the lower tails (mu/s -> -inf) and are 0/0 at s = 0 and rho = +-1.
The kernels evaluate the same functions through positive representations
(``numerics.core.normal``, ``numerics.core.bvn``) and take the exact degenerate values:
s = 0 means z = mu almost surely, so 1{z >= 0} = 1{mu >= 0} (equality included).

Accuracy promised (and tested in verify/masking/test_s4_gaussian_fast.py): the scalar kernels
relative error <= 1e-13 wherever the value is a normal float64, for s from 1e-300 to 1e300 (1e-150
to 1e150 where the value is of degree 2 in s), the rounding of fl(mu/s) corrected to first order.
The mask moments normwise, in the deep tails too (entries may cancel to 0 or change sign while
the matrix is ~1e-146): ||M - M_exact||_F <= 1e-13 ||M_exact||_F plus (d + 2) eps times the
sensitivity of M to the rounding of a = 1^T u/(kappa ||u||), ~a^2 in the lower tail and ~3 over
the standardised width in a narrow antiparallel wedge (that rounding is not corrected); u, v
are used through their directions only (``_binary_scaled``).

Below the normal range, with the binary exponent apart: ``relu_moment1`` = s g1(mu/s),
``relu_moment2`` = s1 s2 M and ``orthant_first`` = s1 N1 multiply standardised moments g1,
M(a1, a2; rho), N1 (from ``numerics.core.bvn``) by coefficients, products of |mu_i| and s_i, that
can be as large as 1e300, so the value can be a normal number while the standardised moment (or an
intermediate of a Stein branch, a_i > 39: mu_i times a one-dimensional moment of the other variable)
is below the smallest normal float64, 2.2e-308, where it would carry only a subnormal's absolute
precision (relu_moment2(-38, 1e13, 1, 1e13, 0) = 8.2145123503e-305 came out 8.2145132914e-305,
1.1e-7 off, before this).  Such rows -- standardised value q0 below 2^-960 (``_DEEP``) -- are
recomputed with every Gaussian factor scaled by 2^S inside its exponential (keyword ``shift`` of
``numerics.core.normal`` and ``bvn.orthant_moments``; the two factors of a product share S in
proportion to their exponents), S chosen to put q0 near 2^-900 (at most 1000, so values down to
2^-2022 are normal), and the result is scaled back by 2^-S exactly (``_exponent_apart``).  The
contract is therefore relative wherever the value is a normal float64:

    |E - E_exact| <= 1e-13 |E_exact| + 2 * 2^-1074

for relu_moment1, relu_square_moment, relu_proxy, relu_moment2 and orthant_first on their whole
domains (the absolute term: the rounding of the last products into the subnormal grid, where the
value itself is subnormal).  A constraint dropped as inactive in a recomputed row must be at
a_i > 56 (``_INACTIVE_DEEP``: P(Y > 56) = 2^-2270 is negligible against any such value; 39 would
cost 2e-12 at a2 = -38.3, rho = -1).  verify/masking/test_s4_gaussian_property.py pins both sides of the boundary and fuzzes
the deep tails against the mpmath references.
"""
from __future__ import annotations

import numpy as np
import torch

from . import bvn
from . import normal
from .ddarith import two_prod
from .arrays import CORRELATION, EXTENDED_REAL, NONNEG, REAL, check_finite_result, ldexp_exact, prepare

#: beyond this standardised mean the constraint is inactive: P(Y > a) < 5e-333, below the smallest
#: subnormal, so dropping it is invisible even where the other constraint confines Y to its far tail
#: (rho -> -1 with the other a < 0).  At 38 (P ~ 3e-316) relu_moment2(38.05, -37.3, 1, 1, -1) = 1.5e-306
#: came out 6e-13 off, orthant_first(38.05, -37.45, 1, 1, -1) = 1.7e-307 6.5e-12 off, and
#: relu_moment2(39, -38.328125, 1, 1, -1) negative (-8e-323), the Stein branch's two terms cancelling
_INACTIVE = 39.0
#: The same for the rows recomputed with the exponent apart (``_exponent_apart``), whose standardised
#: values go down to 2^-2022: P(Y > 56) = 2^-2270 is below 1e-16 of each of them.
_INACTIVE_DEEP = 56.0
#: A standardised moment below this is recomputed with its binary exponent apart (``_exponent_apart``);
#: above it the subnormal parts of a sum are < 2^-60 of it.
_DEEP = 2.0**-960
#: The recomputation puts a standardised value near 2^-900 (2^S with S <= _SHIFT_MAX: then any value
#: down to 2^-2022 is normal, every Gaussian factor stays below 2^1000 and the coefficients s_i, mu_i
#: multiply a value <= 2^100 without overflow).
_TARGET, _SHIFT_MAX = -900.0, 1000.0


def _inactive(shift) -> float:
    return _INACTIVE if shift is None else _INACTIVE_DEEP


def _exponent_apart(kernel, args, out, q0):
    """Recompute the rows whose standardised intermediate q0 (M, N1, g1, g2 or Phi: the value s1 s2 M,
    s1 N1, s g1, s^2 g2 or mu Phi divided by its coefficients) is below _DEEP, with every Gaussian factor scaled by 2^S
    (``kernel(*args, shift=S)``, S = _TARGET - log2 q0, or _SHIFT_MAX where q0 underflowed), and
    scale the result back by 2^-S exactly (``ldexp_exact``, one rounding where it is subnormal).

    Without it such a value carries only a subnormal's absolute precision while s1 s2 M may be a
    normal number: relu_moment2(-38, 1e13, 1, 1e13, 0) = 8.2145123503e-305 came out 8.2145132914e-305."""
    deep = (q0 < _DEEP).reshape(-1)
    if not bool(deep.any()):
        return out
    idx = deep.nonzero().squeeze(-1)
    q = q0.reshape(-1)[idx]
    lg = torch.log2(torch.where(q > 0, q, torch.ones_like(q)))
    S = torch.where(q > 0, torch.clamp(torch.floor(_TARGET - lg), 0.0, _SHIFT_MAX), torch.full_like(q, _SHIFT_MAX))
    val = kernel(*(a.expand(out.shape).reshape(-1)[idx] for a in args), shift=S)[0]
    return out.reshape(-1).index_copy(0, idx, ldexp_exact(val, -S)).reshape(out.shape)


def _standardise(mu: torch.Tensor, s: torch.Tensor) -> torch.Tensor:
    """a = mu/s, with the degenerate s = 0 mapped to +inf (mu >= 0) or -inf (mu < 0)."""
    pos = s > 0
    a = mu / torch.where(pos, s, torch.ones_like(s))
    inf = torch.full_like(mu, float("inf"))
    return torch.where(pos, a, torch.where(mu >= 0, inf, -inf))


def _rounding(a: torch.Tensor, mu: torch.Tensor, s: torch.Tensor) -> torch.Tensor:
    """The rounding error of a = fl(mu/s): mu/s = a + delta to ~1 ulp of delta.

    In the lower tail the lemmas behave like exp(-a^2/2), whose relative condition number
    in a is ~a^2; the rounding of mu/s alone would cost a^2 eps ~ 1.5e-13 at a = -37.
    The kernels add the first-order term f'(a) delta, with mu - a s formed exactly.
    """
    ok = (s > 0) & (a.abs() < 1e100)  # beyond, every lemma has underflowed or saturated
    # Dekker's split overflows for operands beyond ~1e300 (a NaN at mu = -1e300, s = 2e300):
    # scale mu and s by 2^-200 where s is large, exactly, which leaves a and delta unchanged
    f = torch.where(s > 2.0**900, torch.full_like(s, 2.0**-200), torch.ones_like(s))
    mu, s = mu * f, s * f
    sa = torch.where(ok, s, torch.ones_like(s))
    af = torch.where(ok, a, torch.zeros_like(a))
    p, e = two_prod(af, sa)
    return torch.where(ok, ((mu - p) - e) / sa, torch.zeros_like(a))


def _finite(x: torch.Tensor) -> torch.Tensor:
    """Replace infinities by 0 where the branch that uses them is masked out anyway."""
    return torch.where(torch.isfinite(x), x, torch.zeros_like(x))


def _g1(a: torch.Tensor, shift=None) -> torch.Tensor:
    """E[(a + X)_+] = a Phi(a) + varphi(a) for every real a, including a = +-inf (times 2^shift)."""
    af = _finite(a)
    lower = normal.partial_moment1(torch.minimum(af, torch.zeros_like(af)), shift)
    upper = normal.scale2(af, shift) + normal.partial_moment1(-torch.maximum(af, torch.zeros_like(af)), shift)
    out = torch.where(af <= 0, lower, upper)
    return torch.where(a == -float("inf"), torch.zeros_like(a), out)


def bvn_cdf(h, k, rho):
    """Phi_2(h, k; rho) = P(X <= h, Y <= k) for a standard bivariate normal, corr rho.

    Relative accuracy ~1e-14 down to the float64 underflow threshold; exact at
    rho = +-1 (Phi(min(h, k)) and P(-k <= Y <= h)); h, k may be +-inf.
    """
    (h, k, rho), back = prepare({"h": (h, EXTENDED_REAL), "k": (k, EXTENDED_REAL),
                                 "rho": (rho, CORRELATION)})
    return back(check_finite_result("bvn_cdf", bvn.bvn_cdf(h, k, rho)))


def relu_moment1(mu, s):
    """sigma_tilde(mu, s) = E[z 1{z >= 0}] = mu Phi(mu/s) + s varphi(mu/s), z ~ N(mu, s^2).

    Computed as s * g1(mu/s) for mu <= 0 (tail-stable g1) and mu + s * g1(-mu/s) for
    mu > 0; at s = 0 it is ReLU(mu) exactly.

    Accuracy: 1e-13 relative wherever the value is a normal float64, g1(mu/s) below the normal
    range included (recomputed with its binary exponent apart, module docstring; relu_moment1(-3.8e25,
    1e24) = 7.5827518145e-294 was 6.5e-7 off before that); + 2 * 2^-1074 where the value is subnormal.
    """
    (mu, s), back = prepare({"mu": (mu, REAL), "s": (s, NONNEG)})
    a = _standardise(mu, s)
    out = _exponent_apart(_relu1_shifted, (mu, s, a), _relu1(mu, s, a), torch.where(s > 0, _g1(a), torch.ones_like(a)))
    return back(check_finite_result("relu_moment1", out))


def _relu1(mu, s, a, shift=None, coef=None):
    """relu_moment1 at a = _standardise(mu, s), with the rounding of a corrected (g1' = Phi);
    times 2^shift, and times ``coef`` (a Stein branch's mu_i) formed as (coef s) g1: coef (s g1)
    would let s g1 underflow where the product is normal (s = 7.6e-86, g1 = 1e-293, coef = 4.6e104)."""
    delta = torch.where(a < 0, _rounding(a, mu, s), torch.zeros_like(a))
    c = torch.ones_like(s) if coef is None else coef
    return torch.where(s > 0, (c * s) * (_g1(a, shift) + normal.cdf(_finite(a), shift) * delta),
                       c * normal.scale2(torch.clamp(mu, min=0.0), shift))


def _relu1_shifted(mu, s, a, shift):
    """``_relu1`` as a kernel of ``_exponent_apart`` (which takes the first of a tuple)."""
    return (_relu1(mu, s, a, shift),)


def _cdf_corrected(a, mu, s, shift=None):
    """Phi(a) at a = _standardise(mu, s), with the rounding of a corrected (Phi' = varphi); times 2^shift."""
    fa = _finite(a)
    return normal.cdf(fa, shift) + normal.pdf(fa, shift) * _rounding(a, mu, s)


def relu_square_moment(mu, s):
    """E[z^2 1{z >= 0}] = (mu^2 + s^2) Phi(mu/s) + mu s varphi(mu/s), z ~ N(mu, s^2).

    Equals s^2 g2(mu/s) with g2(a) = E[(a + X)_+^2]; for mu > 0 written as
    mu^2 + s^2 - s^2 g2(-mu/s) so nothing cancels.  At s = 0: ReLU(mu)^2.
    """
    (mu, s), back = prepare({"mu": (mu, REAL), "s": (s, NONNEG)})
    out = _exponent_apart(_square_moment, (mu, s), *_square_moment(mu, s))
    return back(check_finite_result("relu_square_moment", out))


def _square_moment(mu, s, shift=None):
    """(relu_square_moment, g2(-|a|) where mu <= 0), both times 2^shift (g2 decides which rows
    ``_exponent_apart`` recomputes; for mu > 0 the value exceeds mu^2 and is never recomputed)."""
    a = _finite(_standardise(mu, s))
    delta = torch.where(a < 0, _rounding(a, mu, s), torch.zeros_like(a))
    neg = -a.abs()
    g2 = normal.partial_moment2(neg, shift)
    tail = s**2 * (g2 + 2 * normal.partial_moment1(neg, shift) * delta)
    out = torch.where(mu <= 0, tail, normal.scale2(mu**2 + s**2, shift) - tail)
    out = torch.where(s > 0, out, normal.scale2(torch.clamp(mu, min=0.0) ** 2, shift))
    return out, torch.where((mu <= 0) & (s > 0), g2, torch.ones_like(g2))


def relu_proxy(mu, s):
    """The paper's proxy sigma_hat = mu Phi(mu/s) (Theorem 4.2); at s = 0, ReLU(mu)."""
    (mu, s), back = prepare({"mu": (mu, REAL), "s": (s, NONNEG)})
    out = _exponent_apart(_proxy, (mu, s), *_proxy(mu, s))
    return back(check_finite_result("relu_proxy", out))


def _proxy(mu, s, shift=None):
    """(relu_proxy, Phi(a)), both times 2^shift (Phi(a) decides which rows ``_exponent_apart`` recomputes)."""
    a = _finite(_standardise(mu, s))
    delta = torch.where(a < 0, _rounding(a, mu, s), torch.zeros_like(a))
    P = normal.cdf(a, shift)
    out = torch.where(s > 0, mu * (P + normal.pdf(a, shift) * delta), normal.scale2(torch.clamp(mu, min=0.0), shift))
    return out, torch.where(s > 0, P, torch.ones_like(P))


def _bivariate_args(mu1, mu2, s1, s2, rho):
    return prepare({"mu1": (mu1, REAL), "mu2": (mu2, REAL), "s1": (s1, NONNEG),
                    "s2": (s2, NONNEG), "rho": (rho, CORRELATION)})


def _pdf_times(x, y, rho, q, conditional, shift):
    """varphi(x) times a conditional function of Y given X = x at (y - rho x)/q (``_cond_cdf``,
    ``_cond_g1``), times 2^shift: both factors can be far below the normal range (varphi(1)
    Phi(-46.8) at x = 1, y = -45, rho = -0.3), so the shift is shared between them in proportion to
    their exponents x^2/2 and min(b, 0)^2/2 (as ``bvn_general._core`` shares it in its products)."""
    if shift is None:
        return normal.pdf(x) * conditional(x, y, rho, q)
    b = (y - rho * x) / torch.where(q > 0, q, torch.ones_like(q))
    sx, sb = normal.split_shift(shift, x * x, torch.where(q > 0, torch.clamp(b, max=0.0) ** 2, torch.zeros_like(b)))
    return normal.pdf(x, sx) * conditional(x, y, rho, q, sb)


def _cond_cdf(x, y, rho, q, shift=None):
    """P(Y <= y | X = x) = Phi((y - rho x)/q) for a standard pair (X, Y).  At q = 0 its limit
    q -> 0+: 1, 1/2, 0 as y - rho x is >, =, < 0 (the tie matters: at rho = 1, a1 = a2 the
    two one-sided derivatives of Phi(min(a1, a2)) must add up to varphi(a), not twice it).
    Times 2^shift."""
    r = y - rho * x
    step = (r > 0).to(r.dtype) + 0.5 * (r == 0).to(r.dtype)
    return torch.where(q > 0, normal.cdf(r / torch.where(q > 0, q, torch.ones_like(q)), shift),
                       normal.scale2(step, shift))


def _cond_g1(x, y, rho, q, shift=None):
    """E[(y - Y)_+ | X = x] = q g1((y - rho x)/q); q = 0: (y - rho x)_+.  Times 2^shift."""
    r = y - rho * x
    qs = torch.where(q > 0, q, torch.ones_like(q))
    return torch.where(q > 0, qs * _g1(r / qs, shift), normal.scale2(torch.clamp(r, min=0.0), shift))


def _orthant(mu1, mu2, s1, s2, rho, shift=None):
    """Standardised orthant quantities at a_i = mu_i/s_i, clamped to the active range:
    P = Phi_2(a1, a2; rho), N1 = E[(a1 - Y1) 1{Y <= a}], M = E[(a1 - Y1)_+ (a2 - Y2)_+]
    (each times 2^shift: ``bvn.orthant_moments``).

    Each is corrected to first order for the rounding delta_i of a_i = fl(mu_i/s_i)
    (``_rounding``), with dP/da1 = varphi(a1) Phi(b2), dN1/da1 = P,
    dN1/da2 = varphi(a2) E[(a1 - Y1)_+ | Y2 = a2], dM/da1 = N2, dM/da2 = N1.  N2 is taken
    from Rosenbaum's closed form a2 P + varphi(a2) Phi(b1) + rho varphi(a1) Phi(b2): in the
    tails it cancels to ~a^2 eps relative, harmless in a term of relative size ~a^2 eps.
    """
    a1, a2 = _standardise(mu1, s1), _standardise(mu2, s2)
    top = _inactive(shift)
    c1, c2 = (torch.clamp(_finite(a), max=top) for a in (a1, a2))
    d1, d2 = (torch.where(a > top, torch.zeros_like(a), _rounding(a, mu, sd))
              for a, mu, sd in ((a1, mu1, s1), (a2, mu2, s2)))
    m = bvn.orthant_moments(c1, c2, rho, shift=shift, want=("P", "N1", "M"))
    P, N1, M = m["P"], m["N1"], m["M"]
    q = torch.sqrt((1 - rho) * (1 + rho))
    F1 = _pdf_times(c1, c2, rho, q, _cond_cdf, shift)
    F2 = _pdf_times(c2, c1, rho, q, _cond_cdf, shift)
    N2 = c2 * P + F2 + rho * F1
    G2 = _pdf_times(c2, c1, rho, q, _cond_g1, shift)
    P_corr = P + F1 * d1 + F2 * d2
    # rho = 1: P = Phi(min(a1, a2)) has a kink on a1 = a2, where no linear correction is
    # right; take the smaller of the corrected arguments instead (M and N1 are C^1 there)
    first = (c1 - c2) + (d1 - d2) <= 0
    P_kink = torch.where(first, normal.cdf(c1, shift) + normal.pdf(c1, shift) * d1,
                         normal.cdf(c2, shift) + normal.pdf(c2, shift) * d2)
    P_corr = torch.where((q == 0) & (rho > 0), P_kink, P_corr)
    N1_corr, M_corr = N1 + P * d1 + G2 * d2, M + N2 * d1 + N1 * d2
    # rho = -1: the moments are integrals over -a2 <= y <= a1, of width w = a1 + a2, and vanish
    # like w, w^2, w^3; where w is not large against the roundings d_i the linear corrections
    # fail (a width of 8e-16 at a1 = 10 gave relu_moment2 = -6.5e-57 for the true 7.4e-72)
    anti = (q == 0) & (rho < 0)
    if bool(anti.any()):
        P_a, N1_a, M_a = _narrow_interval(c1, c2, d1, d2, shift)
        narrow = anti & ((c1 + c2) + (d1 + d2) <= 1.0 / (1.0 + c2.abs()))
        P_corr, N1_corr, M_corr = (torch.where(narrow, x, y) for x, y in
                                   ((P_a, P_corr), (N1_a, N1_corr), (M_a, M_corr)))
    return a1, a2, P_corr, N1_corr, M_corr


def _narrow_interval(c1, c2, d1, d2, shift=None):
    """P, N1, M at rho = -1 for a narrow interval: Y1 in [A, B] with A = -(c2 + d2),
    B = c1 + d1 (the d_i the roundings of a_i, ``_rounding``), width w = (c1 + c2) + (d1 + d2)
    (exact where it is small: c1 + c2 then cancels exactly).  With y = A + t,
    int_A^B (B - y)^m (y - A)^n varphi(y) dy = varphi(-c2) w^(m+n+1) int_0^1 (1 - x)^m x^n
    exp(c2 t - t^2/2) dx, t = w x - d2: a 12-node Gauss-Legendre rule, exact to rounding for
    w (1 + |c2|) <= 1.  w <= 0 (the interval is empty): all three vanish.  Times 2^shift.
    """
    xg, wg = normal.gauss_legendre(12, c1.device, c1.dtype)
    x, om = 0.5 * (1.0 + xg), 0.5 * wg
    w = torch.clamp((c1 + c2) + (d1 + d2), min=0.0)[..., None]
    t = w * x - d2[..., None]
    f = om * torch.exp(c2[..., None] * t - 0.5 * t * t) * normal.pdf(-c2, shift)[..., None]
    # an empty interval (w = 0) is 0 exactly: its nodes sit at t = -d2, where for |c2| ~ 1e26 the
    # exponent c2 t overflows against varphi(c2) = 0 (0 * inf = NaN at a2 = -1.8e26, rho = -1)
    w0, empty = w[..., 0], w[..., 0] == 0
    return tuple(torch.where(empty, torch.zeros_like(w0), v) for v in
                 (w0 * f.sum(-1), w0 ** 2 * (f * (1.0 - x)).sum(-1), w0 ** 3 * (f * (1.0 - x) * x).sum(-1)))


def orthant_prob(mu1, mu2, s1, s2, rho):
    """P(z1 >= 0, z2 >= 0) = Phi_2(mu1/s1, mu2/s2; rho) (exact for s_i = 0: a_i = +-inf)."""
    (mu1, mu2, s1, s2, rho), back = _bivariate_args(mu1, mu2, s1, s2, rho)
    a1, a2, P, _, _ = _orthant(mu1, mu2, s1, s2, rho)
    # one constraint inactive: Phi_2 = Phi(a) of the other to 5e-333, with the rounding of that
    # a corrected as everywhere else (without it: a^2 eps ~ 1.4e-13 at a = -36)
    second = a2 <= _INACTIVE
    a, mu, sd = (torch.where(second, x, y) for x, y in ((a2, a1), (mu2, mu1), (s2, s1)))
    corr = torch.where(a <= _INACTIVE, normal.pdf(_finite(a)) * _rounding(a, mu, sd), torch.zeros_like(a))
    out = torch.where((a1 > _INACTIVE) | (a2 > _INACTIVE), bvn.bvn_cdf(a1, a2, rho) + corr, P)
    return back(check_finite_result("orthant_prob", out))


def _orthant_first(mu1, mu2, s1, s2, rho, shift=None):
    """(E[z1 1{z1 >= 0, z2 >= 0}] = s1 N1(a1, a2; rho), N1), N1 = E[(a1 - Y1) 1{Y <= a}], both
    times 2^shift (N1 decides which rows ``_exponent_apart`` recomputes).

    Degenerate/inactive branches, by Stein's identity E[Y1 h(Y2)] = rho E[h'(Y2)]:
    constraint 1 inactive (a1 > 39, 56 in a recomputed row, or s1 = 0, mu1 >= 0): mu1 Phi(a2) +
    rho s1 varphi(a2); constraint 2 inactive (the same for a2): relu_moment1(mu1, s1);
    z1 or z2 surely negative (a_i = -inf): 0.
    """
    a1, a2, _, N1, _ = _orthant(mu1, mu2, s1, s2, rho, shift)
    f2 = _finite(a2)
    free1, free2 = a1 > _inactive(shift), a2 > _inactive(shift)
    # with the rounding of the active a corrected (Phi' = varphi, varphi' = -a varphi)
    only2 = (mu1 * _cdf_corrected(a2, mu2, s2, shift)
             + rho * s1 * normal.pdf(f2, shift) * (1 - f2 * _rounding(a2, mu2, s2)))
    only1 = _relu1(mu1, s1, a1, shift)
    out = torch.where(free1, only2, s1 * N1)
    out = torch.where(free2, only1, out)
    out = torch.where(free1 & free2, normal.scale2(mu1, shift), out)
    dead = (a1 == -float("inf")) | (a2 == -float("inf"))
    # z1 >= 0 on the event, so E >= 0: a negative value is the rounding of subnormal terms that
    # cancel (orthant_first(40, -38.5, 1, 1, -1) gave -5.4e-323, exactly 2.1e-324)
    return torch.where(dead, torch.zeros_like(out), out.clamp_min(0.0)), N1


def orthant_first(mu1, mu2, s1, s2, rho):
    """E[z1 1{z1 >= 0, z2 >= 0}] (Rosenbaum 1961): mu1 P + s1 (varphi(a1) Phi(b2) + rho varphi(a2) Phi(b1)).

    Accuracy: 1e-13 relative wherever the value is a normal float64, N1 below the normal range
    included (module docstring, "Below the normal range"); + 2 * 2^-1074 where the value is
    subnormal.  Never negative."""
    args, back = _bivariate_args(mu1, mu2, s1, s2, rho)
    out = _exponent_apart(_orthant_first, args, *_orthant_first(*args))
    return back(check_finite_result("orthant_first", out))


def relu_moment2(mu1, mu2, s1, s2, rho):
    """E_1 = E[z1 z2 1{z1 >= 0, z2 >= 0}] = s1 s2 M(a1, a2; rho), M = E[(a1 - Y1)_+ (a2 - Y2)_+].

    Closed form (Rosenbaum 1961): (mu1 mu2 + rho s1 s2) Phi_2 + mu1 s2 varphi(a2) Phi(b1)
    + mu2 s1 varphi(a1) Phi(b2) + s1 s2 q varphi(a1) varphi(b2).  When constraint 1 is
    inactive (a1 > 39, or s1 = 0 with mu1 >= 0), E[Y1 h(Y2)] = rho E[h'(Y2)] gives
    mu1 relu_moment1(mu2, s2) + rho s1 s2 Phi(a2), and symmetrically.

    Accuracy: 1e-13 relative wherever the value is a normal float64, however small M is (rows with
    M < 2^-960 are recomputed with the binary exponent apart: module docstring, "Below the normal
    range"); + 2 * 2^-1074 where the value is subnormal.
    """
    args, back = _bivariate_args(mu1, mu2, s1, s2, rho)
    out = _exponent_apart(_relu_moment2, args, *_relu_moment2(*args))
    return back(check_finite_result("relu_moment2", out))


def _relu_moment2(mu1, mu2, s1, s2, rho, shift=None):
    """(relu_moment2, M), both times 2^shift (M decides which rows ``_exponent_apart`` recomputes)."""
    a1, a2, _, _, M = _orthant(mu1, mu2, s1, s2, rho, shift)
    free1, free2 = a1 > _inactive(shift), a2 > _inactive(shift)
    # the free branches keep the rounding correction of the active a (as relu_moment1 does)
    only2 = _relu1(mu2, s2, a2, shift, coef=mu1) + rho * s1 * s2 * _cdf_corrected(a2, mu2, s2, shift)
    only1 = _relu1(mu1, s1, a1, shift, coef=mu2) + rho * s1 * s2 * _cdf_corrected(a1, mu1, s1, shift)
    out = torch.where(free1, only2, s1 * s2 * M)
    out = torch.where(free2 & ~free1, only1, out)
    out = torch.where(free1 & free2, normal.scale2(mu1 * mu2 + rho * s1 * s2, shift), out)
    dead = (a1 == -float("inf")) | (a2 == -float("inf"))
    return torch.where(dead, torch.zeros_like(out), out), M


def _mask_args(spec: dict):
    tensors, back = prepare(spec, broadcast=False)
    *vecs, kappa = tensors
    for name, t in zip(spec, vecs):
        if t.ndim == 0:
            raise ValueError(f"{name} must be a vector of shape (..., d), got a scalar")
    d = vecs[0].shape[-1]
    for name, t in zip(spec, vecs):
        if t.shape[-1] != d:
            raise ValueError(f"{name} has last dimension {t.shape[-1]}, expected d = {d}")
    try:
        lead = torch.broadcast_shapes(*(t.shape[:-1] for t in vecs), kappa.shape)
    except RuntimeError:
        shapes = ", ".join(f"{n}{tuple(t.shape)}" for n, t in zip(spec, tensors))
        raise ValueError(f"shapes do not broadcast: {shapes} (u, v: (..., d); kappa: (...))") from None
    vecs = [t.expand(*lead, d) for t in vecs]
    return vecs, kappa.expand(lead), back


def _binary_scaled(x: torch.Tensor) -> torch.Tensor:
    """x / 2^e, 2^e the binary exponent of max_i |x_i| (exact: only exponents change; 0 stays 0).

    The mask moments depend on the directions only, and the geometry (``_plane``) forms products
    of up to three entries whose squares are summed: u = 1e52 e3 - 1e52 e4 against v = 1e50 e1 overflowed
    there (a wedge moment off by 0.12 in a norm of 4.8)."""
    _, e = torch.frexp(x.abs().amax(-1, keepdim=True))
    return ldexp_exact(x, -e)


def _unit(x: torch.Tensor):
    n = torch.linalg.vector_norm(x, dim=-1)
    safe = torch.where(n > 0, n, torch.ones_like(n))
    return x / safe[..., None], n


def mask_moment1(u, kappa):
    """E[c 1{c^T u >= 0}] = Phi(a) 1 + kappa varphi(a) u_hat, c ~ N(1, kappa^2 I_d).

    a = 1^T u / (kappa ||u||), u_hat = u/||u|| (Stein's identity on c = 1 + kappa g:
    E[g 1{z >= 0}] = kappa u varphi(a)/s with s = kappa ||u||).  Evaluated as
    kappa g1(a) u_hat + Phi(a) w, w = 1 - (1^T u_hat) u_hat (``_half_space``): along u_hat the
    display cancels like a^2 in the lower tail.  Degenerate cases are exact:
    u = 0 or kappa = 0 give 1{1^T u >= 0} 1.
    """
    (u,), kappa, back = _mask_args({"u": (u, REAL), "kappa": (kappa, NONNEG)})
    u = _binary_scaled(u)
    uh, nu = _unit(u)
    a = _standardise(uh.sum(-1), kappa)
    ones = torch.ones_like(u)
    P, g1k, w = _along(uh, kappa, a)[:3]
    out = g1k[..., None] * uh + P[..., None] * w
    degenerate = (nu == 0) | (kappa == 0)
    step = ((u.sum(-1) >= 0) | (nu == 0)).to(u.dtype)[..., None] * ones
    out = torch.where(degenerate[..., None], step, out)
    return back(check_finite_result("mask_moment1", out))


def _outer(x, y):
    return x[..., :, None] * y[..., None, :]


def _along(uh, kappa, a):
    """Phi(a), kappa g1(a), w = 1 - (1^T u) u and kappa^2 g2(a) for a unit u, a = 1^T u / kappa
    (kappa > 0; a may be +-inf): the moments of Z = c^T u = kappa (X + a) on {Z >= 0}, see
    ``_half_space``."""
    s = uh.sum(-1)
    P = normal.cdf(a)
    neg = torch.clamp(_finite(a), max=0.0)
    p = normal.pdf(_finite(a))
    pos = a > 0
    g1k = torch.where(pos, s * P + kappa * p, kappa * normal.partial_moment1(neg))
    g2k = torch.where(pos, (s * s + kappa * kappa) * P + s * kappa * p, kappa**2 * normal.partial_moment2(neg))
    return P, g1k, 1.0 - s[..., None] * uh, g2k


def _half_space(uh, kappa, a):
    """E[c c^T 1{c^T u >= 0}] = Phi(a) 1 1^T + kappa varphi(a)(1 u^T + u 1^T) + kappa^2 (Phi(a) I - a varphi(a) u u^T)
    for a unit u and a = 1^T u / kappa, evaluated without the cancellation of that display.

    With c = 1 + kappa g, X = u^T g, Z = c^T u = kappa (X + a) (>= 0 on the event) and
    w = 1 - (1^T u) u (the part of 1 orthogonal to u), c = Z u + w + kappa g_perp with g_perp
    independent of X, so
      E[c c^T 1] = kappa^2 g2(a) u u^T + kappa g1(a) (u w^T + w u^T) + Phi(a) (w w^T + kappa^2 (I - u u^T)),
    g1(a) = E[(a + X)_+], g2(a) = E[(a + X)_+^2] (``normal.partial_moment1/2``, tail-stable for
    a <= 0; for a > 0 kappa g1 = s Phi + kappa varphi and kappa^2 g2 = (s^2 + kappa^2) Phi + s kappa varphi,
    s = 1^T u, all terms positive and free of overflow).  The display, expanded along u, cancels
    like a^4: a 1 x 1 moment at a = -34.7 came out with relative error 2.5e-10.
    """
    P, g1k, w, g2k = _along(uh, kappa, a)
    eye = torch.eye(uh.shape[-1], dtype=uh.dtype, device=uh.device)
    c = lambda x: x[..., None, None]  # noqa: E731 - broadcast a batch scalar over (d, d)
    uu = _outer(uh, uh)
    return (c(g2k) * uu + c(g1k) * (_outer(uh, w) + _outer(w, uh))
            + c(P) * (_outer(w, w) + c(kappa**2) * (eye - uu)))


def _plane(u, v):
    """Geometry of span(u, v) for nonzero u, v, accurate also when they are nearly parallel.

    Returns rho = u^T v/(||u|| ||v||), q = sqrt(1 - rho^2) (the sine of the angle),
    e2 = unit vector of v's component orthogonal to u, f2 = that of u orthogonal to v.
    Computing q as sqrt(1 - rho^2), or e2 by Gram-Schmidt, loses digits as eps/q; instead
    q^2 ||u||^2 ||v||^2 = sum_{i<j} m_ij^2 (Lagrange's identity) and
    ||u||^2 v - (u^T v) u = sum_j u_j m_j. with the 2x2 minors m_ij = u_i v_j - u_j v_i
    formed from error-free products (Dekker), so each is accurate to a few ulps.
    """
    ph, pl = two_prod(u[..., :, None], v[..., None, :])  # u_i v_j = ph + pl exactly
    m = (ph - ph.transpose(-1, -2)) + (pl - pl.transpose(-1, -2))  # m[j, i] = u_j v_i - u_i v_j
    nu2, nv2 = (u * u).sum(-1), (v * v).sum(-1)
    q = torch.sqrt(0.5 * (m * m).sum((-1, -2)) / (nu2 * nv2)).clamp(max=1.0)
    rho = ((u * v).sum(-1) / torch.sqrt(nu2 * nv2)).clamp(-1.0, 1.0)
    e2, _ = _unit(torch.einsum("...j,...ji->...i", u, m))
    f2, _ = _unit(-torch.einsum("...j,...ji->...i", v, m))
    return rho, q, e2, f2


def _wedge(u, v, kappa):
    """E[c c^T 1{c^T u >= 0, c^T v >= 0}] for nonzero u, v not parallel, kappa > 0.

    In the orthonormal basis e1 = u_hat, e2 (v's component orthogonal to u) of span(u, v),
    with X1 = e1^T g, X2 = rho X1 + q (e2^T g) and F = 1{X1 >= -a1} 1{X2 >= -a2}, Stein's
    identity gives E[g 1_A] = t1 e1 + t2 e2 and E[g g^T 1_A] = P I + sum_ij D_ij e_i e_j^T:
      t1 = varphi(a1) Phi(b2) + rho varphi(a2) Phi(b1),   t2 = q varphi(a2) Phi(b1),
      D11 = -a1 varphi(a1) Phi(b2) - rho^2 a2 varphi(a2) Phi(b1) + rho q varphi(a1) varphi(b2),
      D12 = q^2 varphi(a1) varphi(b2) - q rho a2 varphi(a2) Phi(b1),
      D22 = -q^2 a2 varphi(a2) Phi(b1) - q rho varphi(a2) varphi(b1),
    the 1/q terms of the (u_hat, v_hat) form having cancelled analytically.  The b_i are
    taken from the geometry, b2 = (a2 - rho a1)/q = 1^T e2 / kappa and b1 = 1^T f2 / kappa,
    and Phi_2 is given q as well as rho (``_plane``), so nothing is divided by a small q.
    """
    rho, q, e2, f2 = _plane(u, v)
    uh, _ = _unit(u)
    vh, _ = _unit(v)
    a1, a2 = uh.sum(-1) / kappa, vh.sum(-1) / kappa
    b1, b2 = f2.sum(-1) / kappa, e2.sum(-1) / kappa
    P = bvn.bvn_cdf(a1, a2, rho, q=q)
    p1, p2 = normal.pdf(a1), normal.pdf(a2)
    C1, C2 = normal.cdf(b1), normal.cdf(b2)
    pp = p1 * normal.pdf(b2)
    t1 = p1 * C2 + rho * p2 * C1
    t2 = q * p2 * C1
    D11 = -a1 * p1 * C2 - rho**2 * a2 * p2 * C1 + rho * q * pp
    D12 = q**2 * pp - q * rho * a2 * p2 * C1
    D22 = -q**2 * a2 * p2 * C1 - q * rho * pp
    ones = torch.ones_like(uh)
    eye = torch.eye(uh.shape[-1], dtype=uh.dtype, device=uh.device)
    t = t1[..., None] * uh + t2[..., None] * e2
    k = kappa[..., None, None]
    c = lambda x: x[..., None, None]  # noqa: E731 - broadcast a batch scalar over (d, d)
    second = (c(P) * eye + c(D11) * _outer(uh, uh) + c(D12) * (_outer(uh, e2) + _outer(e2, uh))
              + c(D22) * _outer(e2, e2))
    out = c(P) * _outer(ones, ones) + k * (_outer(ones, t) + _outer(t, ones)) + k**2 * second
    # error scale: the norms of the three terms, each from the sizes of the products it sums
    # before they cancel (the terms cancel in the lower tail; t1 and D11 cancel within themselves
    # in a narrow antiparallel wedge, rho -> -1, where |t| ~ P: ``_wedge_tail``)
    d = uh.shape[-1]
    t_size = p1 * C2 + rho.abs() * p2 * C1 + t2
    D_size = (a1.abs() * p1 * C2 + (rho**2 + q**2 + 2 * q * rho.abs()) * a2.abs() * p2 * C1
              + (2 * q**2 + 2 * q * rho.abs()) * pp)
    scale = P * d + 2 * kappa * t_size * d**0.5 + kappa**2 * (P * d**0.5 + D_size)
    return _wedge_tail(u, v, kappa, out, scale), q, rho


def _cone(u, v, kappa):
    """E[c c^T 1{c^T u >= 0, c^T v >= 0}] from the coordinates that are non-negative on the event,
    for nonzero u, v not parallel, kappa > 0, |a_i| <= 1e50; returns it with its error scale.

    With z_i = c^T u_hat, c^T v_hat = kappa s_i, s_i = a_i + X_i >= 0 on the event, the part of c in
    span(u, v) is (z1 f2 + z2 e2)/q (f2, e2 the dual directions of ``_plane``: u_hat^T f2 = q,
    v_hat^T f2 = 0, u_hat^T e2 = 0, v_hat^T e2 = q), so with w = 1 - (1^T u_hat) u_hat - (1^T e2) e2
    and the orthant moments N_i = E[s_i 1], M = E[s1 s2 1], M_ii = E[s_i^2 1] (``bvn``, all >= 0):
      E[c c^T 1] = (kappa/q)^2 (M11 f2 f2^T + M (f2 e2^T + e2 f2^T) + M22 e2 e2^T)
                   + (kappa/q) (n w^T + w n^T) + P (w w^T + kappa^2 (I - u_hat u_hat^T - e2 e2^T)),
    n = N1 f2 + N2 e2.  Every coefficient is non-negative: the only cancellation is between
    entries of f2 and e2 (f2^T e2 = -rho), so the error is ~eps times the returned scale
    (sum of the coefficients' norms), within 2/(1 - rho) of the result's norm.
    """
    rho, q, e2, f2 = _plane(u, v)
    uh, _ = _unit(u)
    vh, _ = _unit(v)
    a1, a2 = uh.sum(-1) / kappa, vh.sum(-1) / kappa
    # both orders in one call (N2, M22 are N1, M11 with the arguments swapped)
    both = bvn.orthant_moments(torch.cat([a1, a2]), torch.cat([a2, a1]), torch.cat([rho, rho]), q=torch.cat([q, q]))
    r = len(a1)
    P, N1, M, M11 = (both[k][:r] for k in ("P", "N1", "M", "M11"))
    N2, M22 = both["N1"][r:], both["M11"][r:]
    ones = torch.ones_like(uh)
    w = ones - uh.sum(-1)[..., None] * uh - e2.sum(-1)[..., None] * e2
    eye = torch.eye(uh.shape[-1], dtype=uh.dtype, device=uh.device)
    c = lambda x: x[..., None, None]  # noqa: E731 - broadcast a batch scalar over (d, d)
    kq = kappa / q
    n = kq[..., None] * (N1[..., None] * f2 + N2[..., None] * e2)
    out = (c(kq**2) * (c(M11) * _outer(f2, f2) + c(M) * (_outer(f2, e2) + _outer(e2, f2)) + c(M22) * _outer(e2, e2))
           + _outer(n, w) + _outer(w, n) + c(P) * (_outer(w, w) + c(kappa**2) * (eye - _outer(uh, uh) - _outer(e2, e2))))
    out = 0.5 * (out + out.transpose(-1, -2))  # exactly symmetric (the sum above is only to rounding)
    nw = torch.linalg.vector_norm(w, dim=-1)
    scale = kq**2 * (M11 + 2 * M + M22) + 2 * kq * (N1 + N2) * nw + P * (nw**2 + kappa**2 * uh.shape[-1])
    return out, scale


def _wedge_tail(u, v, kappa, out, scale):
    """Where the Stein form ``out`` of ``_wedge`` cancels (its error scale ``scale`` above 4 times its
    norm: in the lower tail, min(a1, a2) < 0, and in a narrow antiparallel wedge at any a, where
    t1 and D11 cancel within themselves: u = (-0.6168, 0.6047), v ~ -u at an angle 3.1e-9,
    kappa = 0.528, a = (-0.03, 0.03): normwise error 2.5e-6, 40 times what the rounding of the
    inputs can cause), take whichever of it and two cancellation-free
    forms has the smallest error scale: ``_cone`` directly (error within
    2/(1 - rho) eps), or, for rho > 0.9 and with u the more restrictive direction (smaller a), the
    half-space of u minus the cone {c^T u >= 0, c^T v < 0} = ``_cone(u, -v)`` (correlation -rho;
    good when the event is most of the half-space, as it is for rho -> 1).  In the lower tail
    P 1 1^T, kappa (1 t^T + t 1^T) and kappa^2 D are each ~a^2 times the result (u = (-3.1e-5,
    -1.2e-5), v = e1, kappa = 10^-1.25, a = (-23.0, 17.8): normwise error 6.8e-10).  Only these
    rows pay for the orthant moments (one ``bvn.orthant_moments`` call for all of them).
    """
    shape, d = out.shape, u.shape[-1]
    u, v, kappa, out, scale = u.reshape(-1, d), v.reshape(-1, d), kappa.reshape(-1), out.reshape(-1, d, d), scale.reshape(-1)
    (uh, nu), (vh, nv) = _unit(u), _unit(v)
    a1, a2 = uh.sum(-1) / kappa, vh.sum(-1) / kappa
    rho, q = _plane(u, v)[:2]  # q > 0 (not |rho| < 1): a wedge at an angle below 1e-8 has fl(rho) = -1 or 1
    cancels = scale > 4 * torch.linalg.matrix_norm(out)  # the Stein form lost more than 2 bits
    rows = (torch.maximum(a1.abs(), a2.abs()) <= 1e50) & (nu > 0) & (nv > 0) & (q > 0) & cancels
    if not bool(rows.any()):
        return out.reshape(shape)
    idx = rows.nonzero(as_tuple=True)
    ur, vr, kr = u[idx], v[idx], kappa[idx]
    first = (a1[idx] <= a2[idx])[..., None]
    um, vo = torch.where(first, ur, vr), torch.where(first, vr, ur)
    near = rho[idx] > 0.9  # these also try the difference form
    jn = near.nonzero(as_tuple=True)
    cones, s_cones = _cone(torch.cat([ur, um[jn]]), torch.cat([vr, -vo[jn]]), torch.cat([kr, kr[jn]]))
    r = len(kr)
    direct, s_direct = cones[:r], s_cones[:r]
    umh, _ = _unit(um[jn])
    half = _half_space(umh, kr[jn], umh.sum(-1) / kr[jn])
    s_diff = torch.full_like(s_direct, float("inf"))
    s_diff[jn] = torch.linalg.matrix_norm(half) + s_cones[r:]
    diff = direct.clone()
    diff[jn] = half - cones[r:]
    best = torch.where((s_direct <= s_diff)[..., None, None], direct, diff)
    best_scale = torch.minimum(s_direct, s_diff)
    out = out.clone()
    out[idx] = torch.where((best_scale <= scale[idx])[..., None, None], best, out[idx])
    return out.reshape(shape)


def mask_moment2(u, v=None, kappa=None):
    """E[c c^T 1{c^T u >= 0, c^T v >= 0}] for c ~ N(1, kappa^2 I_d); ``v=None``: E[c c^T 1{c^T u >= 0}].

    Theorem 4.9's proof sketch.  Exact degenerate cases: kappa = 0 gives
    1{1^T u >= 0} 1{1^T v >= 0} 1 1^T; a zero direction imposes no constraint
    (1{0 >= 0} = 1); u || v (same direction) is the half-space; u = -beta v (beta > 0)
    confines c to a hyperplane, probability 0.
    """
    if kappa is None:
        raise ValueError("kappa is required: mask_moment2(u, v, kappa) or mask_moment2(u, None, kappa)")
    if v is None:  # a zero direction imposes no constraint: 1{c^T 0 >= 0} = 1
        v = torch.zeros_like(u) if isinstance(u, torch.Tensor) else np.zeros(np.shape(u))
    (u, v), kappa, back = _mask_args({"u": (u, REAL), "v": (v, REAL), "kappa": (kappa, NONNEG)})
    u, v = _binary_scaled(u), _binary_scaled(v)
    uh, nu = _unit(u)
    vh, nv = _unit(v)
    kpos = kappa > 0
    ksafe = torch.where(kpos, kappa, torch.ones_like(kappa))
    # half-space along whichever direction is present (or along u when u || v)
    w_dir = torch.where((nu > 0)[..., None], uh, vh)
    half = _half_space(w_dir, ksafe, w_dir.sum(-1) / ksafe)
    wedge, q, rho = _wedge(u, v, ksafe)
    both = (nu > 0) & (nv > 0)
    parallel = q == 0  # exactly parallel: every 2x2 minor vanishes
    out = torch.where((both & ~parallel)[..., None, None], wedge, half)
    anti = both & parallel & (rho < 0)
    out = torch.where(anti[..., None, None], torch.zeros_like(out), out)
    ones = torch.ones_like(u)
    free = (nu == 0) & (nv == 0)
    d = u.shape[-1]
    eye = torch.eye(d, dtype=u.dtype, device=u.device)
    out = torch.where(free[..., None, None], _outer(ones, ones) + ksafe[..., None, None] ** 2 * eye, out)
    step = ((u.sum(-1) >= 0) & (v.sum(-1) >= 0)).to(u.dtype)
    out = torch.where(kpos[..., None, None], out, step[..., None, None] * _outer(ones, ones))
    return back(check_finite_result("mask_moment2", out))
