r"""Standard bivariate normal CDF and orthant moments in torch, relatively accurate.

For (Y1, Y2) standard bivariate normal with correlation rho:

* ``bvn_cdf(h, k, rho)``      Phi2 = P(Y1 <= h, Y2 <= k)
* ``orthant_m1(a1, a2, rho)`` N1   = E[(a1 - Y1) 1{Y1 <= a1, Y2 <= a2}]
* ``orthant_m2(a1, a2, rho)`` M    = E[(a1 - Y1)_+ (a2 - Y2)_+]
* ``orthant_m11(a1, a2, rho)`` M11 = E[(a1 - Y1)^2 1{Y1 <= a1, Y2 <= a2}]

(``orthant_moments`` returns all four at once, sharing the work.)

Where the code lives
--------------------
This module holds the public functions, the routing of each row, and the thresholds of that
routing as module-level data (``_FP_*`` for the fast paths of ``bvn_cdf``; ``_FAST_P``
switches them on, ``_COMPILED`` and ``_MASKED`` choose their formulation; ``_CHUNK``,
``_ARG_CLAMP``), together with the exact values at rho = +-1, at infinite arguments and
beyond the argument clamp.  The rows are computed by

* ``numerics.core.bvn_rules``: the fixed rules of the fast paths (Gauss-Legendre in theta
  or in s = atanh r from rho = 0, the rule from rho = -1) and the node tables of every rule;
  their node counts and coverage are passed in from here;
* ``numerics.core.bvn_compiled``: the same fast paths compiled for the CPU, every threshold
  and node table passed in from here at each call;
* ``numerics.core.bvn_general``: the general path (Plackett's identity integrated from a
  base correlation where the value is known in closed form, every term non-negative, by a
  quadrature that keeps relative accuracy down to 1e-300 and as |rho| -> 1), which serves
  every row no fast path takes and every moment.

Near |rho| = 1 every public function accepts an optional accurate q = sqrt(1 - rho^2)
(keyword ``q``): 1 - |rho| is then q^2/(1 + |rho|) in double-double and all the
cancelling differences (1 -+ rho, rho h - k, a1 - rho a2) are formed from it.

Fast paths (``bvn_cdf`` only, without ``q``; ``_fast_paths``): rows where a cheap,
conservative bound shows the Plackett integral from 0, from +1 or from -1 to be below
e^-39 of its (positive) base get that base (Phi(h)Phi(k), Phi(min(h, k)),
P(-k <= Y <= h)); rows with |rho| <= 1 - 1e-6, max(|h|, |k|) <= 10 (8) and a range of the
exponent over [0, rho] of at most 15 (40) use one Gauss-Legendre rule from rho = 0 (for
rho < 0 only where Phi(h)Phi(k) <= 2 Phi2, unless ``relative=False``): 24 nodes in theta
for |rho| <= 0.9; beyond, 32 (|rho| <= 0.99) or 48 nodes in s = atanh(r).  Rows with
rho < 0 whose peak kappa = K/H (|H| >= |K|) lies outside [-1, rho] with an exponent excess
E(rho) - H^2/2 >= 2 (any max(|h|, |k|) <= 1e3) are integrated from rho = -1 instead,
P(-k <= Y <= h) plus a positive integral (``bvn_rules._fast_p_m1``).  Everything else takes
the general path, unchanged (``_FAST_P = False`` switches the fast paths off).

References: R. L. Plackett (1954), Biometrika 41, 351-360; Z. Drezner & G. O.
Wesolowsky (1990), J. Statist. Comput. Simul. 35, 101-107; A. Genz (2004), Statistics
and Computing 14, 251-260 (the Gauss-Legendre-in-asin(r) scheme that this refines).
"""
from __future__ import annotations

import math
import sys
from typing import NamedTuple

import torch

from . import normal as nm
from .bvn_general import _core
from .bvn_rules import _fast_p_m1, _fast_p_rule, _pick

__all__ = ["bvn_cdf", "orthant_m1", "orthant_m2", "orthant_m11", "orthant_moments"]

_INV_2PI = 1.0 / (2.0 * math.pi)

# ------------------------------------------- thresholds of the routing (data, read at each call)
# (the tensor rules of ``bvn_rules`` get their node counts from here as arguments, and the
# compiled twin every threshold: ``bvn_compiled.parameters(bvn)``)
#: Fast path of ``bvn_cdf``: rows with |rho| <= _FP_RHO_MAX, |h|, |k| <= _FP_HMAX and a
#: range of the Plackett exponent over [0, rho] of at most _FP_DF use a single
#: Gauss-Legendre rule (see :func:`_fast_p`): _FP_N nodes in theta for |rho| <= _FP_RHO
#: (_FP_N_SMALL where also |rho| <= _FP_RHO_SMALL and the range is <= _FP_DF_SMALL),
#: else in s = atanh(r), _FP_N_S[j] nodes for |rho| <= _FP_RHO_S[j]; for rho < 0 the row
#: also needs Phi(h)Phi(k) <= _FP_CANCEL * Phi2 (the one subtraction loses < 2 bits).
_FP_RHO, _FP_HMAX, _FP_DF, _FP_N, _FP_CANCEL = 0.9, 10.0, 15.0, 24, 2.0
_FP_RHO_SMALL, _FP_DF_SMALL, _FP_N_SMALL = 0.7, 5.0, 16
_FP_RHO_S, _FP_N_S = (0.99, 1.0 - 1e-6), (32, 48)
_FP_RHO_MAX = _FP_RHO_S[-1]
#: rho < 0 rows whose exponent excess F(rho) is >= _FP_JF with the peak outside [-1, rho]
#: and max(|h|, |k|) <= _FP_JHMAX are integrated from rho = -1 (:func:`_fast_p_m1`), with
#: _FP_JN nodes; the rule covers the Gaussian in D up to _FP_JL e-folds past its start.
_FP_JF, _FP_JHMAX, _FP_JN, _FP_JL = 2.0, 1e3, 24, 40.0
#: ... or max(|h|, |k|) <= _FP_HMAX2 and range <= _FP_DF2.
_FP_HMAX2, _FP_DF2 = 8.0, 40.0
#: Rows whose Plackett integral is below e^-_FP_NEGL Phi(h)Phi(k) get Phi(h)Phi(k).
_FP_NEGL = 39.0
#: ``bvn_cdf(atol=...)``: only rows with min(h, k) < -_ABS_SCREEN or max(h, k) > _ABS_SCREEN are
#: tested against atol (Phi(-8) = 6.2e-16: a cheap screen, not a bound; the test is exact).
_ABS_SCREEN = 8.0
#: ``bvn_cdf(atol=...)``, the rule's band (:func:`_band_within_atol`): rows with _FP_HMAX2 <
#: max(|h|, |k|) <= _FP_HMAX_ATOL, |rho| <= _FP_RHO_MAX and a range <= _FP_DF2 (the second window
#: of the rule from 0, widened in max(|h|, |k|)) take that rule where _FP_ATOL_REL times the bound
#: (asin|rho|/2pi) exp(-max(|h|, |k|)^2/2) on its integral is <= atol.  _FP_ATOL_REL is a margin
#: on the rule's measured error there beyond the rounding, <= 2e-13 of that bound (4e5 fuzzed rows
#: against the general path, verify/masking/test_s4_network_kernel.py against mpmath).
_FP_HMAX_ATOL, _FP_ATOL_REL = 10.0, 1e-9

#: Use the fast path of ``bvn_cdf`` (see :func:`_fast_p`).
_FAST_P = True
#: On the CPU, take the fast paths from their compiled twin (``numerics.core.bvn_compiled``:
#: the same routing and rules row by row in numba, ~1.7x less CPU time than the tensor
#: formulation, which CUDA tensors and ``_COMPILED = False`` use; tests hold the two together).
_COMPILED = True
#: Run the fast paths as masks over whole chunks, without host synchronisations
#: (:func:`_fast_paths_masked`): None = on every device but the CPU; True/False force it.
_MASKED = None
#: Points evaluated at once: on the CPU a size whose temporaries stay near the caches
#: (measured: 16k-64k points run alike, smaller chunks pay Python overhead); on a device
#: a much larger one, since there every chunk costs its kernel launches and the host
#: synchronisations of its ``nonzero`` routing whatever its size.  Peak temporaries per
#: 2^20 points, measured on the CPU: ~0.9 GiB for ``bvn_cdf``, ~3.6 GiB for all four
#: ``orthant_moments``; 2^19 keeps the exact network pass under 2 GiB.
_CHUNK = 65536
_CHUNK_DEVICE = 1 << 19
#: Finite arguments are clamped to +-_ARG_CLAMP inside the quadrature (harmless for Phi2, whose
#: value saturates far below it); the moments that grow with an argument beyond +_ARG_CLAMP are
#: then taken from their exact large-argument forms (:func:`_beyond_clamp`).
_ARG_CLAMP = 1e100

_WANT_ALL = ("P", "N1", "M", "M11")


# ------------------------------------------------------ the routing of bvn_cdf's fast paths
def _log_cdf_lower(x):
    """A cheap lower bound on log Phi(x): -t^2/2 - log sqrt(2 pi) + log(|t|/(1 + t^2)) at
    t = min(x, -1) (Mills ratio R(s) >= s/(1 + s^2), Phi increasing).  No ``where``
    (slow on the CPU)."""
    t = torch.clamp(x, max=-1.0)
    return -0.5 * t * t - 0.9189385332046728 + torch.log(-t / (1.0 + t * t))


class _Route(NamedTuple):
    quad: torch.Tensor
    n0: torch.Tensor
    n1: torch.Tensor
    nm1: torch.Tensor
    jm1: torch.Tensor
    lb1: torch.Tensor
    rng: torch.Tensor


def _route_bounds(h, k, rho, m, lo0, fr, beyond):
    """The negligible-integral tests of :func:`_fast_p_route` on the given rows: (n0, lb1,
    n1, nm1) before masking by ``quad``."""
    e0 = 0.5 * m * m
    lh, lk = _log_cdf_lower(h), _log_cdf_lower(k)
    ar = rho.abs()
    n0 = torch.log(torch.asin(ar) * _INV_2PI) - e0 - lo0 <= lh + lk - _FP_NEGL
    # from the end point rho = sign(rho): theta-length acos|rho|
    lb1 = torch.log(torch.acos(ar) * _INV_2PI) - e0 - fr.masked_fill(beyond, 0.0)
    n1 = ~n0 & (rho > 0) & (lb1 <= torch.minimum(lh, lk) - _FP_NEGL)
    nm1 = ~n0 & (rho < 0) & (h > -k) & (lb1 <= torch.maximum(lh, lk) - _FP_NEGL)
    return n0, lb1, n1, nm1


def _fast_p_route(h, k, rho, masked=False):
    """Cheap, conservative routing for the fast paths of ``bvn_cdf`` (1-D tensors, only
    rows with finite h, k and |rho| < 1 are meaningful; ``masked``: computed on every row,
    without a host synchronisation, for :func:`_fast_paths_masked`).  Returns a :class:`_Route`: five
    masks, disjoint but for ``nm1`` and ``jm1`` (a row of both takes the base value if the
    caller's check of nm1 passes, else the rule), the bound lb1 that ``nm1`` is checked
    against, and rng, the range of F over [0, rho] that picks the ``quad`` rule's nodes.

    With |H| >= |K| (h, k swapped if needed), E(r) = H^2/2 + F(r),
    F(r) = (r H - K)^2 / (2 (1 - r^2)) >= 0, which vanishes at r = kappa = K/H and is
    monotone on either side of it; so its minimum over an r-interval is 0 if kappa lies
    in it, else its value at the end point nearer kappa (F(0) = K^2/2, F(rho), F(+-1) =
    inf).  F(rho) is bounded below through |rho H - K| minus its rounding bound
    (4 eps max(|h|, |k|)), and kappa is taken as inside whenever that bound is reached, so
    that the minima below are never over-estimated.  With I_[a, b] = (1/2pi) int exp(-E)
    dtheta over theta in [asin a, asin b] <= (length) exp(-H^2/2 - Fmin) / (2 pi):

    * quad: |rho| <= _FP_RHO_MAX and the range of F over [0, rho] is <= _FP_DF with
      max(|h|, |k|) <= _FP_HMAX, or <= _FP_DF2 with max(|h|, |k|) <= _FP_HMAX2: one
      Gauss-Legendre rule from rho = 0 (:func:`_fast_p`).  The rule resolves the peak of
      exp(-F) (width ~ 1/|H| in r) when the range is bounded; the bounds were set on
      4e5-point fuzzes against the general path (worst difference ~5e-15 inside, errors
      growing past 1e-14 only beyond them) and checked against mpmath (tests);
    * n0:  I_[0, rho] < e^-_FP_NEGL Phi(h)Phi(k)      ->  Phi2 = Phi(h) Phi(k);
    * n1:  rho > 0, I_[rho, 1] < e^-_FP_NEGL Phi(min(h, k))  ->  Phi2 = Phi(min(h, k));
    * jm1: rho < 0, not n0, kappa outside [-1, rho] and F(rho) >= _FP_JF (its lower
      bound), max(|h|, |k|) <= _FP_JHMAX: the Gauss-Legendre rule from rho = -1
      (:func:`_fast_p_m1`), whose terms are all positive;
    * nm1: rho < 0, not quad or n0, h > -k, I_[-1, rho] < e^-_FP_NEGL Phi(max(h, k)) (a
      pre-filter; the caller checks against the base P(-k <= Y <= h) itself)  ->  Phi2 =
      P(-k <= Y <= h).
    (log Phi is bounded below by :func:`_log_cdf_lower`; e^-_FP_NEGL ~ 1e-17 leaves a
    margin against the ~1e-16 that would matter.)  F(rho) for ``quad`` is the plain one
    (a routing decision, validated by the fuzzes).
    """
    ah, ak = h.abs(), k.abs()
    sw = ah >= ak
    m = torch.maximum(ah, ak)
    mn = torch.minimum(ah, ak)
    H = _pick(sw, h, k)
    d = rho * H - _pick(sw, k, h)  # H (rho - kappa)
    dlow = (d.abs() - 4.5e-16 * m).clamp_min(0.0)
    amb = dlow == 0.0
    den = (1.0 - rho) * (1.0 + rho)
    fr = dlow * dlow / (2.0 * den) * (1.0 - 1e-14)
    f0 = 0.5 * mn * mn
    dh = d * H
    between0 = amb | ((h * k * rho >= 0) & (dh * rho >= 0))  # kappa between 0 and rho
    lo0 = torch.minimum(f0, fr).masked_fill_(between0, 0.0)
    frq = d * d / (2.0 * den)
    rng0 = torch.maximum(f0, frq) - lo0
    quad = (rho.abs() <= _FP_RHO_MAX) & (
        ((m <= _FP_HMAX) & (rng0 <= _FP_DF)) | ((m <= _FP_HMAX2) & (rng0 <= _FP_DF2)))
    # kappa in the end range [rho, sign(rho)] (or too close to tell)
    beyond = amb | (dh * rho <= 0)
    jm1 = (rho < 0) & ~beyond & (fr >= _FP_JF) & (m <= _FP_JHMAX)
    if masked:  # every row, then only those the rule from 0 does not take (no nonzero)
        n0, lb1, n1, nm1 = _route_bounds(h, k, rho, m, lo0, fr, beyond)
        off = ~quad
        n0, n1, nm1 = n0 & off, n1 & off, nm1 & off
        lb1 = lb1.masked_fill(quad, math.inf)
        jm1 = jm1 & ~n0
    else:  # the bounds that need logarithms, only on the rows the rule from 0 does not take
        n0, n1, nm1 = (torch.zeros_like(quad) for _ in range(3))
        lb1 = torch.full_like(h, math.inf)
        i = torch.nonzero(~quad).squeeze(-1)
        if i.numel():
            n0i, lb1i, n1i, nm1i = _route_bounds(h[i], k[i], rho[i], m[i], lo0[i], fr[i], beyond[i])
            n0[i], lb1[i], n1[i], nm1[i] = n0i, lb1i, n1i, nm1i
            jm1[i] = jm1[i] & ~n0i
    quad = quad & ~jm1
    return _Route(quad, n0, n1, nm1, jm1, lb1, rng0)


def _compiled_module():
    """``numerics.core.bvn_compiled``, or None where numba is not installed (a device
    machine's own environment, say): the tensor formulation then serves the CPU too."""
    global _BC
    if _BC is None:
        try:
            from . import bvn_compiled
        except ImportError as err:
            if "numba" not in str(err) and "llvmlite" not in str(err):
                raise
            bvn_compiled = False
        _BC = bvn_compiled
    return _BC or None


_BC = None


def _compiled_rules() -> tuple:
    """The (nodes, weights) numpy arrays the compiled twin takes, from this module's node counts:
    the 16-, 24-node theta rules, the 32-, 48-node s rules, the rule from -1, the short-interval
    rule (``bvn_compiled.fast_paths``; also ``numerics.masking.pair_kernel``)."""
    return tuple(tuple(t.numpy() for t in nm.gauss_legendre(n, "cpu"))
                 for n in (_FP_N_SMALL, _FP_N, _FP_N_S[0], _FP_N_S[1], _FP_JN, nm._GL_SHORT))


def _compiled_fast_paths(a1, a2, rho, interior, res, relative):
    """:func:`_fast_paths` by ``numerics.core.bvn_compiled`` (CPU tensors), with this module's
    thresholds and rules passed in as data."""
    bc = _compiled_module()
    P, done = bc.fast_paths(a1.numpy(), a2.numpy(), rho.numpy(), interior.numpy(), relative,
                            bc.parameters(sys.modules[__name__]), _compiled_rules(), torch.get_num_threads())
    res["P"].copy_(torch.from_numpy(P))
    done = torch.from_numpy(done)
    return done if bool(done.any()) else None


def _fast_paths(a1, a2, rho, interior, res, relative=True):
    """Fill res["P"] on the rows of ``interior`` that a fast path of ``bvn_cdf`` covers
    (see :func:`_fast_p_route`); returns the mask of the rows done (None if none).
    ``relative=False`` keeps the rows (rho < 0) where the rule's integral cancels against
    Phi(h)Phi(k) by more than _FP_CANCEL, the result clamped at 0 (see ``bvn_cdf``).
    On the CPU with ``_COMPILED``: :func:`_compiled_fast_paths`; on a device (or with
    ``_MASKED``): :func:`_fast_paths_masked`."""
    if _masked(a1):
        return _fast_paths_masked(a1, a2, rho, interior, res, relative)
    if _COMPILED and a1.device.type == "cpu" and _compiled_module() is not None:
        return _compiled_fast_paths(a1, a2, rho, interior, res, relative)
    quad, n0, n1, nm1, jm1, lb1, rng = _fast_p_route(a1, a2, rho)
    done = torch.zeros_like(interior)
    iu = torch.nonzero((quad | n0 | n1) & interior).squeeze(-1)
    n = iu.numel()
    if n:
        h, k = a1[iu], a2[iu]
        pp = nm.cdf(torch.cat((h, k)))
        ph, pk = pp[:n], pp[n:]
        base = ph * pk
        v = torch.where(n1[iu], torch.minimum(ph, pk), base)  # Phi(min(h, k)) or PhiPhi
        iq = torch.nonzero(quad[iu]).squeeze(-1)
        if iq.numel():
            bq = base[iq]
            vq = bq + _fast_p(h[iq], k[iq], rho[iu[iq]], rng[iu[iq]])
            v[iq] = vq if relative else vq.clamp_min_(0.0)
            bad = bq > _FP_CANCEL * vq  # only rho < 0 can fail (vq >= bq otherwise)
            if relative and bool(bad.any()):
                keep = torch.ones(n, dtype=torch.bool, device=iu.device)
                keep[iq[bad]] = False
                iu, v = iu[keep], v[keep]
        res["P"].index_copy_(0, iu, v)
        done[iu] = True
    im = torch.nonzero(nm1 & interior).squeeze(-1)
    if im.numel():
        v = nm.interval_prob(-a2[im], a1[im])
        ok = lb1[im] <= torch.log(v) - _FP_NEGL
        im, v = im[ok], v[ok]
        res["P"].index_copy_(0, im, v)
        done[im] = True
    # the rule from -1 on its rows that the cheaper base value did not serve
    ij = torch.nonzero(jm1 & interior & ~done).squeeze(-1)
    if ij.numel():
        res["P"].index_copy_(0, ij, _fast_p_m1(a1[ij], a2[ij], rho[ij], _FP_JN, _FP_JL))
        done[ij] = True
    return done if bool(done.any()) else None


def _within_atol(h, k, interior, res, atol):
    """``bvn_cdf(atol=...)``: fill res["P"] on the rows of ``interior`` whose Phi2 is pinned to
    within atol by a one-dimensional tail, and return their mask (None if none):

    * Phi(min(h, k)) <= atol: 0 <= Phi2 <= Phi(min(h, k)), and Phi(h)Phi(k) lies in the same
      interval, so it is within atol of Phi2;
    * Phic(max(h, k)) <= atol: Phi2 = Phi(min(h, k)) - P(Y_max > max(h, k), Y_min <= min(h, k))
      with the subtracted probability in [0, Phic(max(h, k))], so Phi(min(h, k)) is within atol.

    Only rows beyond the screen |x| > _ABS_SCREEN are tested (``nonzero`` on the CPU; masks over
    the whole chunk on a device, as :func:`_fast_paths_masked`)."""
    lo, hi = torch.minimum(h, k), torch.maximum(h, k)
    cand = interior & ((lo < -_ABS_SCREEN) | (hi > _ABS_SCREEN))
    if _masked(h):
        i = None
    else:
        i = torch.nonzero(cand).squeeze(-1)
        if i.numel() == 0:
            return None
        lo, hi, cand = lo[i], hi[i], cand[i]
    p_lo, p_hi, q_hi = nm.cdf(torch.cat((lo, hi, -hi))).chunk(3)
    low = p_lo <= atol
    ok = cand & (low | (q_hi <= atol))
    v = torch.where(low, p_lo * p_hi, p_lo)
    if i is None:
        res["P"] = torch.where(ok, v, res["P"])
        return ok
    i, v = i[ok], v[ok]
    if i.numel() == 0:
        return None
    res["P"].index_copy_(0, i, v)
    done = torch.zeros_like(interior)
    done[i] = True
    return done


def _band_within_atol(h, k, rho, interior, res, atol):
    """``bvn_cdf(atol=...)``, after :func:`_within_atol`: fill res["P"] on the rows of ``interior``
    in the rule's band (``_FP_HMAX_ATOL``: _FP_HMAX2 < max(|h|, |k|) <= _FP_HMAX_ATOL, |rho| <=
    _FP_RHO_MAX, range <= _FP_DF2) whose Plackett integral is bounded by B = (asin|rho|/2pi)
    exp(-max(|h|, |k|)^2/2) with _FP_ATOL_REL B <= atol, by Phi(h)Phi(k) plus the rule from 0
    (:func:`_fast_p`, clamped at 0); return their mask (None if none).  There the rule's error beyond
    the rounding of its value is <= 2e-13 B (measured), so within atol; B <= 3.2e-15 in the band.
    (``nonzero`` on the CPU; masks over the whole chunk on a device.)"""
    M = torch.maximum(h.abs(), k.abs())
    cand = interior & (M > _FP_HMAX2) & (M <= _FP_HMAX_ATOL) & (rho.abs() <= _FP_RHO_MAX)
    if _masked(h):
        i = None
        hh, kk, rr, MM = h, k, rho, M
    else:
        i = torch.nonzero(cand).squeeze(-1)
        if i.numel() == 0:
            return None
        hh, kk, rr, MM, cand = h[i], k[i], rho[i], M[i], cand[i]
    rng = _fast_p_route(hh, kk, rr, masked=True).rng
    bound = torch.asin(rr.abs()) * _INV_2PI * torch.exp(-0.5 * MM * MM)
    ok = cand & (rng <= _FP_DF2) & (_FP_ATOL_REL * bound <= atol)
    if i is None:
        v = (nm.cdf(hh) * nm.cdf(kk) + _fast_p(hh, kk, rr, rng, masked=True)).clamp_min(0.0)
        res["P"] = torch.where(ok, v, res["P"])
        return ok
    i, hh, kk, rr, rng = i[ok], hh[ok], kk[ok], rr[ok], rng[ok]
    if i.numel() == 0:
        return None
    v = (nm.cdf(hh) * nm.cdf(kk) + _fast_p(hh, kk, rr, rng)).clamp_min(0.0)
    res["P"].index_copy_(0, i, v)
    done = torch.zeros_like(interior)
    done[i] = True
    return done


def _masked(t) -> bool:
    """Whether the fast paths run as masks over whole chunks (:func:`_fast_paths_masked`):
    ``_MASKED`` if set, else on every device but the CPU."""
    return t.device.type != "cpu" if _MASKED is None else bool(_MASKED)


def _fast_paths_masked(a1, a2, rho, interior, res, relative=True):
    """:func:`_fast_paths` without a host synchronisation: every rule on every row of the
    chunk, each row's value picked by its route (``torch.where``; no ``nonzero``, no
    ``.item()``, no data-dependent shapes), the mask of the rows done returned even if
    empty.  The same formulas on the same rows as the routed version (which computes each
    only where it is picked), so the values agree but for the summation order of the node
    sums; on a GPU the ~5x redundant arithmetic is cheaper than the synchronisations."""
    quad, n0, n1, nm1, jm1, lb1, rng = _fast_p_route(a1, a2, rho, masked=True)
    n = a1.shape[0]
    pp = nm.cdf(torch.cat((a1, a2)))
    ph, pk = pp[:n], pp[n:]
    base = ph * pk
    vq = base + _fast_p(a1, a2, rho, rng, masked=True)
    if relative:
        okq = ~(base > _FP_CANCEL * vq)
    else:
        vq, okq = vq.clamp_min(0.0), torch.ones_like(quad)
    first = interior & ((quad & okq) | n0 | n1)
    v = torch.where(quad, vq, torch.where(n1, torch.minimum(ph, pk), base))
    vm = nm.interval_prob(-a2, a1, masked=True)
    okm = interior & ~first & nm1 & (lb1 <= torch.log(vm) - _FP_NEGL)
    dj = interior & ~first & ~okm & jm1
    vj = _fast_p_m1(a1, a2, rho, _FP_JN, _FP_JL, masked=True)
    v = torch.where(first, v, torch.where(okm, vm, vj))
    done = first | okm | dj
    res["P"] = torch.where(done, v, res["P"])
    return done


def _fast_p(h, k, rho, rng, masked=False):
    """The Plackett integral Phi2 - Phi(h)Phi(k) = (1/2pi) int_0^{asin rho} exp(-E(theta))
    dtheta with one Gauss-Legendre rule per row (:func:`_fast_p_rule` of
    ``numerics.core.bvn_rules``), picked by |rho| and ``rng``, the range of F over the rows'
    ranges (``_Route.rng``).  For rho >= 0 it is added to the positive Phi(h)Phi(k); for
    rho < 0 it is negative (callers check the cancellation).  Two variables, by |rho|:

    * theta = asin r (|rho| <= _FP_RHO, _FP_N nodes; _FP_N_SMALL where |rho| <=
      _FP_RHO_SMALL and rng <= _FP_DF_SMALL, which on 2e5 fuzzed rows agree with the
      general path as closely as _FP_N do, ~4e-15);
    * s = atanh r (|rho| up to _FP_RHO_MAX, _FP_N_S[j] nodes for |rho| <= _FP_RHO_S[j]).

    ``masked``: every tier's rule on every row, each row keeping its own tier's value
    (:func:`_fast_paths_masked`).
    """
    out = torch.empty_like(h)
    arho = rho.abs()
    small = (arho <= _FP_RHO_SMALL) & (rng <= _FP_DF_SMALL)
    tiers = [(small, _FP_N_SMALL, "theta"), (~small & (arho <= _FP_RHO), _FP_N, "theta")]
    lo = _FP_RHO
    for hi, n in zip(_FP_RHO_S, _FP_N_S):
        tiers.append(((arho > lo) & (arho <= hi), n, "s"))
        lo = hi
    for sel, n, var in tiers:
        if masked:
            out = torch.where(sel, _fast_p_rule(h, k, rho, n, var), out)
            continue
        i = torch.nonzero(sel).squeeze(-1)
        if i.numel():
            out[i] = _fast_p_rule(h[i], k[i], rho[i], n, var)
    return out


# ----------------------------------------------------------------------- public API
def _flat(*xs):
    dev = next((x.device for x in xs if torch.is_tensor(x)), None)
    xs = [x if torch.is_tensor(x) else torch.as_tensor(x, dtype=torch.float64, device=dev) for x in xs]
    xs = torch.broadcast_tensors(*xs)
    shape = xs[0].shape
    return [x.reshape(-1).to(torch.float64) for x in xs], shape


def _limits_rho1(a1, a2, sign, want, shift=None):
    """Exact values at rho = +1 (sign > 0) and rho = -1 (sign < 0), times 2^shift."""
    out = {}
    if sign > 0:
        m = torch.minimum(a1, a2)
        d1, d2 = a1 - m, a2 - m
        zero = torch.zeros_like(m)
        Pm = nm.cdf(m, shift)
        if "P" in want:
            out["P"] = Pm
        if want != ("P",):
            g1m = nm.partial_moment1(m, shift)
            if "N1" in want:
                out["N1"] = torch.where(d1 > 0, d1 * Pm, zero) + g1m
            if "M" in want or "M11" in want:
                g2m = nm.partial_moment2(m, shift)
                if "M" in want:
                    out["M"] = g2m + (d1 + d2) * g1m
                if "M11" in want:
                    out["M11"] = torch.where(d1 > 0, d1 * d1 * Pm + 2.0 * d1 * g1m, zero) + g2m
    else:
        A, B = -a2, a1
        if "P" in want:
            out["P"] = nm.interval_prob(A, B, shift=shift)
        if "N1" in want:
            out["N1"] = nm.interval_moment(A, B, 1, 0, shift)
        if "M" in want:
            out["M"] = nm.interval_moment(A, B, 1, 1, shift)
        if "M11" in want:
            out["M11"] = nm.interval_moment(A, B, 2, 0, shift)
    return out


def _evaluate(a1, a2, rho, want, q=None, relative=True, shift=None, atol=0.0):
    want = tuple(want)
    extra = [t for t in (q, shift) if t is not None]
    (a1, a2, rho, *extra), shape = _flat(a1, a2, rho, *extra)
    q = extra.pop(0) if q is not None else None
    shift = extra.pop(0) if shift is not None else None
    n = a1.shape[0]
    outs = {k: torch.empty(n, dtype=torch.float64, device=a1.device) for k in want}
    chunk = _CHUNK if a1.device.type == "cpu" else _CHUNK_DEVICE
    for s in range(0, n, chunk):
        sl = slice(s, s + chunk)
        vals = _evaluate_chunk(a1[sl], a2[sl], rho[sl], want, None if q is None else q[sl], relative,
                               None if shift is None else shift[sl], atol)
        for k in want:
            outs[k][sl] = vals[k]
    return {k: v.reshape(shape) for k, v in outs.items()}


def _evaluate_chunk(a1, a2, rho, want, q=None, relative=True, shift=None, atol=0.0):
    n = a1.shape[0]
    sub = lambda i: nm.rows(shift, i)  # noqa: E731 - the shift of a subset of rows
    dev, dt = a1.device, a1.dtype
    res = {k: torch.zeros(n, dtype=dt, device=dev) for k in want}
    fin = torch.isfinite(a1) & torch.isfinite(a2)
    if q is None:
        groups = (
            (fin & (rho < 1.0) & (rho > -1.0), lambda x, y, r, i: _core(x, y, r, want, shift=sub(i))),
            (fin & (rho >= 1.0), lambda x, y, r, i: _limits_rho1(x, y, +1, want, sub(i))),
            (fin & (rho <= -1.0), lambda x, y, r, i: _limits_rho1(x, y, -1, want, sub(i))),
        )
    else:
        # q decides: q > 0 is the interior (even where rho rounds to +-1), q = 0 the limits
        qpos = q > 0
        groups = (
            (fin & qpos, lambda x, y, r, i: _core(x, y, r, want, q[i], sub(i))),
            (fin & ~qpos & (rho >= 0), lambda x, y, r, i: _limits_rho1(x, y, +1, want, sub(i))),
            (fin & ~qpos & (rho < 0), lambda x, y, r, i: _limits_rho1(x, y, -1, want, sub(i))),
        )
    if _FAST_P and want == ("P",) and q is None and shift is None:
        interior = groups[0][0]
        done = _fast_paths(a1, a2, rho, interior, res, relative)
        if done is not None:
            interior = interior & ~done
        if atol > 0:  # on the rows the general path would take
            done = _within_atol(a1, a2, interior, res, atol)
            if done is not None:
                interior = interior & ~done
            done = _band_within_atol(a1, a2, rho, interior, res, atol)
            if done is not None:
                interior = interior & ~done
        groups = ((interior, groups[0][1]),) + groups[1:]
    for mask, fn in groups:
        idx = torch.nonzero(mask).squeeze(-1)
        if idx.numel() == 0:
            continue
        x = a1[idx].clamp(-_ARG_CLAMP, _ARG_CLAMP)
        y = a2[idx].clamp(-_ARG_CLAMP, _ARG_CLAMP)
        vals = fn(x, y, rho[idx], idx)
        for k in want:
            res[k] = res[k].index_copy(0, idx, vals[k])
    if want != ("P",):
        _beyond_clamp(a1, a2, rho, fin, res, shift)
    idx = torch.nonzero(~fin).squeeze(-1)
    if idx.numel():
        x, y, sh = a1[idx], a2[idx], sub(idx)
        zero = torch.zeros_like(x)
        xf = torch.where(torch.isfinite(x), x, zero)
        xn, yn = torch.isneginf(x), torch.isneginf(y)
        xp, yp = torch.isposinf(x), torch.isposinf(y)
        inf = torch.full_like(x, math.inf)
        for k in want:
            if k == "P":
                v = torch.where(yp, nm.cdf(x, sh), nm.cdf(y, sh))  # one of them is +inf
            elif k == "N1":
                v = torch.where(xp, inf, nm.partial_moment1(xf, sh))
            elif k == "M":
                v = inf
            else:
                v = torch.where(xp, inf, nm.partial_moment2(xf, sh))
            v = torch.where(xn | yn, zero, v)
            res[k] = res[k].index_copy(0, idx, v)
    return res


def _beyond_clamp(a1, a2, rho, fin, res, shift=None):
    """The moments on finite rows with a1 > _ARG_CLAMP (N1, M, M11) or a2 > _ARG_CLAMP (M),
    which the clamped quadrature would cap.  There {Y1 <= a1} (resp. {Y2 <= a2}) is certain to
    within Phi(-1e100), and Y1 = rho Y2 + q Z gives exactly (up to that)

        N1  = a1 Phi(a2) + rho phi(a2),
        M11 = a1^2 Phi(a2) + 2 a1 rho phi(a2) + Phi(a2) - rho^2 a2 phi(a2),
        M   = a1 g1(a2) + rho Phi(a2)   (the roles swapped when only a2 is large).

    Every term after the first is at most (|a2| + 2)/a1 < 1e-98 of it (phi(a) <= (|a| + 1)
    Phi(a), Phi(a) <= (|a| + 2) g1(a)), far below float64's resolution, so the leading terms
    are the float64 values: a1 Phi(a2), a1^2 Phi(a2) (0 where Phi(a2) underflows; inf where
    a1^2 overflows, as the value does) and a1 g1(a2) (times 2^shift)."""
    big1, big2 = fin & (a1 > _ARG_CLAMP), fin & (a2 > _ARG_CLAMP)
    if not bool((big1 | big2).any()):
        return
    i = torch.nonzero(big1).squeeze(-1)
    if i.numel() and ("N1" in res or "M11" in res):
        x, P = a1[i], nm.cdf(a2[i], nm.rows(shift, i))
        if "N1" in res:
            res["N1"] = res["N1"].index_copy(0, i, x * P)
        if "M11" in res:
            res["M11"] = res["M11"].index_copy(0, i, torch.where(P > 0, x * x * P, torch.zeros_like(P)))
    i = torch.nonzero(big1 | big2).squeeze(-1)
    if "M" in res and i.numel():
        b = big1[i]
        x, y = torch.where(b, a1[i], a2[i]), torch.where(b, a2[i], a1[i])  # x the large one
        res["M"] = res["M"].index_copy(0, i, x * nm.partial_moment1(y, nm.rows(shift, i)))


def bvn_cdf(h: torch.Tensor, k: torch.Tensor, rho: torch.Tensor, *, q=None,
            relative: bool = True, atol: float = 0.0) -> torch.Tensor:
    """Phi2(h, k; rho) = P(Y1 <= h, Y2 <= k) for the standard bivariate normal.

    h, k may be +-inf; rho in [-1, 1] (Phi2(h, k; 1) = Phi(min(h, k)), Phi2(h, k; -1) =
    P(-k <= Y <= h)).  Computed as Phi(h)Phi(k) + int_0^rho phi2 dr for rho >= 0 and as
    P(-k <= Y <= h) + int_{-1}^rho phi2 dr for rho < 0 (Plackett 1954); see
    ``numerics.core.bvn_general`` for the quadrature.  Relative error <= 1e-13 wherever the value is a
    normal float64.

    ``q`` (optional, keyword): an accurate q = sqrt(1 - rho^2) >= 0, broadcastable with
    rho, for correlations near +-1 that the caller knows better than their rounding to
    float64 (e.g. rho = cos t from nearly parallel vectors, q = sin t from 2x2 minors):
    rho rounded to float64 carries 1 - |rho| only to absolute eps, which near |rho| = 1
    is a large relative error that Phi2 inherits (phi2 ~ 1/q).  When q is given, 1 - |rho|
    is taken as q^2/(1 + |rho|) (double-double) and every quantity that cancels as
    |rho| -> 1 (1 -+ rho, rho h - k, a1 - rho a2, sqrt(1 - rho^2)) is formed from it;
    rho itself then only fixes the sign and enters where its relative rounding is
    harmless.  q > 0 is treated as |rho| < 1 even where rho rounds to +-1; q = 0 gives
    the exact limits at rho = sign(rho) * 1.  Without q the results are unchanged.

    ``relative=False`` (keyword; without ``q`` only): accuracy relative to
    max(Phi2, Phi(h) Phi(k)) instead of Phi2 itself, for callers whose sums are accurate
    normwise anyway (``numerics.masking.network``: each pair term's error is judged
    against |mu_1 mu_2| + s_1 s_2, not against the term).  Then the fixed Gauss-Legendre
    rule also serves the rows with rho < 0 where Phi2 = Phi(h)Phi(k) + (a negative
    integral) cancels (Phi(h)Phi(k) > 2 Phi2, which otherwise take the general path): their
    absolute error is the rule's relative error of the integral (<= 1e-14, measured ~5e-15)
    times Phi(h)Phi(k), and the result is clamped at 0.
    Every other row is computed exactly as with ``relative=True``.

    ``atol`` (keyword, >= 0; without ``q`` only): an absolute error the caller accepts.  Rows that
    no fast path takes and whose Phi2 a one-dimensional tail pins to within atol -- Phi(min(h, k))
    <= atol (then Phi(h)Phi(k) is returned) or Phic(max(h, k)) <= atol (then Phi(min(h, k))) --
    skip the general path, their error at most atol plus the rounding of the value returned
    (:func:`_within_atol`; only |h| or |k| > 8 are tested); so do the rows of the rule's band
    (8 < max(|h|, |k|) <= 10, range <= 40: :func:`_band_within_atol`), by the rule from 0, whose error
    there is far below atol = 2^-60 (<= 2e-13 of a bound <= 3.2e-15 on the integral).  For callers whose sums are judged
    normwise, as ``relative=False``'s: rows with an argument far in either tail, which can be most
    of the general path's rows (``bench/bench_bvn.py``'s workload sets).  Every other row is
    computed as without it; atol = 0 (the default) changes nothing.
    """
    if atol < 0 or not math.isfinite(atol):
        raise ValueError(f"atol must be a finite number >= 0, got {atol!r}")
    if atol > 0 and q is not None:
        raise ValueError("atol is for calls without q (the fast paths' calls)")
    return _evaluate(h, k, rho, ("P",), q, relative, atol=atol)["P"]


def orthant_m1(a1: torch.Tensor, a2: torch.Tensor, rho: torch.Tensor, *, q=None) -> torch.Tensor:
    """N1 = E[(a1 - Y1) 1{Y1 <= a1, Y2 <= a2}] >= 0  (N2: swap the first two arguments).

    dN1/drho = phi(a2) Phi((a1 - rho a2)/sqrt(1-rho^2)); N1(0) = g1(a1) Phi(a2),
    N1(-1) = int_{-a2}^{a1} (a1 - y) phi(y) dy.  Closed form (used only in tests):
    N1 = a1 P + phi(a1) Phi(b2) + rho phi(a2) Phi(b1).
    """
    return _evaluate(a1, a2, rho, ("N1",), q)["N1"]


def orthant_m2(a1: torch.Tensor, a2: torch.Tensor, rho: torch.Tensor, *, q=None) -> torch.Tensor:
    """M = E[(a1 - Y1)_+ (a2 - Y2)_+] >= 0.

    dM/drho = Phi2(a1, a2; rho), so M = g1(a1) g1(a2) + rho Phi(a1)Phi(a2)
    + int_0^rho (rho - r) phi2 dr (rho >= 0), and M = M(-1) + (rho+1) Phi2(a1,a2;-1)
    + int_{-1}^rho (rho - r) phi2 dr (rho < 0), M(-1) = int_{-a2}^{a1} (a1-y)(a2+y) phi.
    """
    return _evaluate(a1, a2, rho, ("M",), q)["M"]


def orthant_m11(a1: torch.Tensor, a2: torch.Tensor, rho: torch.Tensor, *, q=None) -> torch.Tensor:
    """E[(a1 - Y1)^2 1{Y1 <= a1, Y2 <= a2}] >= 0.

    d/drho = 2 q phi(a2) g1((a1 - rho a2)/q) (q = sqrt(1 - rho^2)); base g2(a1) Phi(a2) at
    rho = 0 and int_{-a2}^{a1} (a1 - y)^2 phi(y) dy at rho = -1.
    """
    return _evaluate(a1, a2, rho, ("M11",), q)["M11"]


def orthant_moments(a1: torch.Tensor, a2: torch.Tensor, rho: torch.Tensor, *, q=None, shift=None,
                    want=_WANT_ALL) -> dict:
    """The quantities ``want`` (default all four) at once: {'P': Phi2, 'N1': N1, 'M': M, 'M11': M11}.
    ``q``: optional accurate sqrt(1 - rho^2), as in :func:`bvn_cdf`.  ``shift``: optional integers
    0 <= S <= 1000 (broadcastable): every quantity times 2^S, the power carried inside its Gaussian
    factors, so that values below the smallest normal float64 keep their relative accuracy
    (``numerics.core.normal``, "Binary exponent apart")."""
    return _evaluate(a1, a2, rho, tuple(want), q, shift=shift)
