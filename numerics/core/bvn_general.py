r"""The general path of ``numerics.core.bvn``: Phi2 and the orthant moments N1, M, M11 for
finite arguments and |rho| < 1 (:func:`_core`), accurate relative to the value down to
1e-300 and as |rho| -> 1.  It serves every row of ``bvn_cdf`` that no fast path takes and
every moment; the quantities are defined in ``numerics.core.bvn``.  Its node tables and the
exponent excess F(rho) in double-double come from ``numerics.core.bvn_rules``.

Method
------
Plackett (1954): d Phi2/d rho = phi2(h, k; rho) = exp(-E(rho)) / (2 pi sqrt(1-rho^2)),
E(r) = (h^2 - 2 r h k + k^2) / (2 (1 - r^2)).  Gaussian integration by parts,
d/d rho E f(Y) = E[d1 d2 f(Y)], gives the analogous derivatives of the moments:
dM/drho = Phi2, dN1/drho = phi(a2) Phi(b1(rho)), dM11/drho = 2 q phi(a2) g1(b1(rho)),
b1(r) = (a1 - r a2)/q, q = sqrt(1 - r^2), g1(z) = E[(z - Z)_+].  Each quantity is
integrated from a base correlation where it is known in closed form, so that every term
is non-negative and nothing cancels:

* rho >= 0 from r = 0:  Phi(a1)Phi(a2), g1(a1)Phi(a2), g1(a1)g1(a2), g2(a1)Phi(a2);
* rho <  0 from r = -1 (Y2 = -Y1): int_{-a2}^{a1} w(y) phi(y) dy with w = 1, a1 - y,
  (a1 - y)(a2 + y), (a1 - y)^2 (``normal.interval_moment``).

The moment integrands are reduced to the Plackett kernel exp(-E) d theta (r = sin theta)
times a smooth non-negative weight: M uses int (rho - r) phi2 dr (integration by parts of
dM/drho = Phi2); N1 and M11 split the r-range at the point where b1 changes sign and
integrate by parts there (on the side b1 >= 0 the integrand is a plateau, on the side
b1 <= 0 it carries exp(-E)); M11 on the b1 <= 0 side uses the weight 2 q^2 G1(|b1|) with
g1(-x) = phi(x) G1(x) from the continued fraction (``normal.scaled_g1``).

Quadrature.  exp(-E) is unimodal in r with its peak at kappa = k/h (|h| >= |k|, the
roles of h and k swapped if needed), E(kappa) = h^2/2; the r-range is split there into
at most two monotone pieces.  On a piece, with v = (r - kappa)/sqrt(2(1 - r^2)) one has
exactly E(r) = h^2/2 + h^2 v^2 and d theta/dv = sqrt(2)(1 - r^2)/(1 - r kappa), while r,
1 - r, 1 + r, r - kappa and r - r_start are explicit, cancellation-free functions of v
(roots of quadratics, rationalised), so that nothing loses digits as |rho| -> 1.  The
singularities of d theta/dv sit at v = +-i alpha, alpha = sqrt((1 - kappa^2)/2), which
can be ~1e-8: the integrand then has boundary layers down to 1e-16 in r.  Rules:

* fast paths with the Gaussian weight built in: half-range Gauss-Hermite in u = |h| v
  (interior pieces with |h| alpha >= 4) and Gauss-Laguerre in s = E - E(start) (pieces
  starting at an end point with |h| v_start >= 4), 16 nodes;
* otherwise Gauss-Legendre (nodes of numpy's ``leggauss`` polished in mpmath) on panels:
  linear in v (or v' = sqrt(v^2 - v_start^2)) where the Gaussian is the finest scale;
  else in w with v = alpha sinh(w) (or v = v_start cosh(w)), which resolves the boundary
  layers on a logarithmic scale and puts the singularities at Im w = pi/2 next to the
  start of the range, up to u = 1 (split after 3 units of w), then linear in v beyond
  u = 1 where exp(-u^2) is a plain Gaussian.  Ranges stop where exp(-(E - E_peak)) <
  e^-40 and 38 e-folds of the w-measure beyond its bulk.

The exponential factor is exp(-E_ref) exp(-(E - E_ref)): E_ref (h^2/2, (h^2 + k^2)/2 or
E(rho)) is formed in double-double arithmetic (Dekker products) and the remainder is
exact by construction, so relative accuracy survives values down to 1e-300 (a plain
exp(-E) with E ~ 700 would lose ~E ulps).  The numbers of nodes were chosen by comparing
with a 96/128-node version on 10^5 fuzzed points (differences < 4e-15).

An accurate q = sqrt(1 - rho^2) (keyword ``q`` of the public functions) gives 1 - |rho| as
q^2/(1 + |rho|) in double-double, and :func:`_core` forms every cancelling difference
(1 -+ rho, rho h - k, a1 - rho a2) from it.

References: R. L. Plackett (1954), Biometrika 41, 351-360; A. Genz (2004), Statistics and
Computing 14, 251-260 (the Gauss-Legendre-in-asin(r) scheme that this refines).
"""
from __future__ import annotations

import math

import torch

from . import ddarith as dd
from . import normal as nm
from .bvn_rules import _excess_from_dd, _half_hermite_mp, _laguerre_mp, _rho_terms_dd

_SQRT2 = math.sqrt(2.0)
_INV_SQRT2 = 1.0 / _SQRT2
_INV_2PI = 1.0 / (2.0 * math.pi)
#: Truncation of the Gaussian factor: exp(-(E - E_peak)) < e^-_L is dropped.
_L = 40.0
#: Half-width (in e-folds of the w-measure) kept around the bulk of the piece.
_WIN = 38.0
#: Gauss-Legendre orders: panel A1 (first _A1_LEN units of w), A2 (rest of the w-range),
#: B (linear in v or v', Gaussian factor, u' from 1 (or from the start) to at most 6.3).
_A1_LEN = 3.0
_N_A1, _N_A2, _N_B = 24, 48, 32
_A2_MAX, _A2_SUB = 16.0, 12.0
_N_B1, _N_B2 = 12, 20
_LIN_A = 1.5
#: Fast paths (both measured against the general rule, see tests): half-range
#: Gauss-Hermite in u = |h| v for interior pieces whose Lorentzian scale a = |h| alpha
#: is at least the tier's first number (``_HRH_TIERS``: (minimum a, nodes)) and that extend
#: past u = _HRH_UE; Gauss-Laguerre in s = E - E(start) for end pieces with u_s = |h| v_s at
#: least the tier's first number (``_LAG_TIERS``) that extend past s = _LAG_SE.
_HRH_TIERS, _HRH_UE = ((4.0, 16),), 6.2
_LAG_TIERS, _LAG_SE = ((4.0, 16),), 40.0
#: Use those two rules where they apply (False: the Gauss-Legendre panels everywhere).
_FAST = True
_ALPHA_FLOOR = 1e-8


# ------------------------------------------------------------------ double-double tools
# (public in ``numerics.core.ddarith``; the private aliases keep this module's code unchanged)
_two_sum, _two_prod = dd.two_sum, dd.two_prod
_dd_add, _dd_div = dd.dd_add, dd.dd_div


def _exp_neg_dd(eh, el, shift=None):
    """exp(-(eh + el)) for a double-double exponent (el << ulp(eh)); with ``shift`` S, times 2^S,
    the power folded into the exponent exactly as in ``normal.exp_half_sq``."""
    if shift is None:
        return torch.exp(-eh) * (1.0 - el)
    return nm.exp_scaled(-eh, -el, shift)


def _expm1_sinh_cosh(w):
    em = torch.expm1(w)
    ep = 1.0 + em
    sh = 0.5 * em * (em + 2.0) / ep
    ch = 0.5 * (ep + 1.0 / ep)
    return sh, ch


# ------------------------------------------------------------------------ the pieces
def _eval_nodes(pc, v, dvd, dc, qw, want, with_exp=True):
    """Quadrature sums over node arrays (shape [P, n]) of one group of pieces.

    v: node values of v; dvd: d v / d(variable); dc: v^2 - v_s^2 (formed without
    cancellation); qw: quadrature weights in the variable.  The Gaussian factor
    exp(-|h|^2 dc) is applied unless ``with_exp`` is False (rules with that weight built
    in).  Returns {quantity: tensor [P]}.
    """
    c = lambda z: z[:, None]
    kp, omk, opk, alpha = pc["kp"], pc["omk"], pc["opk"], pc["alpha"]
    if want == ("P",):
        return {"P": _eval_nodes_p(kp, omk, opk, alpha, pc["Ha"], v, dvd, dc, qw, with_exp)}
    cc = v * v
    a2 = c(alpha * alpha)
    S = 2.0 * torch.sqrt(a2 + cc)
    vS = v * S
    tc = 2.0 * cc + vS
    kpc = c(kp)
    p = c(omk * omk) / (c(omk) + tc)
    qq = (c(opk) + tc) / (1.0 + 2.0 * cc)
    kpos = kpc >= 0
    omrk = torch.where(kpos, c(omk) + kpc * p, c(opk) - kpc * qq)
    pq = p * qq
    base = pq / omrk  # d theta = sqrt2 pq/(1 - r kappa) dv
    base *= qw
    base *= dvd
    if with_exp:
        base *= torch.exp(-c(pc["Ha"] * pc["Ha"]) * dc)
    base *= _SQRT2
    out = {}
    if "P" in want:
        out["P"] = base.sum(-1)
    if want == ("P",):
        return out
    rk = torch.where(kpos, 4.0 * v * a2 / (S + 2.0 * v * kpc), v * (S - 2.0 * v * kpc) / (1.0 + 2.0 * cc))
    # distance from the start of the piece, X = r - r_s (stable root of a quadratic)
    rs, pqs, vs = pc["rs"], pc["pqs"], pc["vs"]
    rsmk = _SQRT2 * vs * torch.sqrt(pqs)
    beta = c(rsmk) + 2.0 * cc * c(rs)
    A = 1.0 + 2.0 * cc
    sD = torch.sqrt(beta * beta + 2.0 * A * dc * c(pqs))
    Xend = torch.where(beta >= 0, 2.0 * dc * c(pqs) / (beta + sD), (sD - beta) / A)
    X = torch.where(c(pc["interior"]), rk, Xend)
    if "M" in want:
        out["M"] = (base * (c(pc["m_c0"]) + c(pc["m_s"]) * X)).sum(-1)
    if "N1" in want or "M11" in want:
        swap = c(pc["swap"])
        Hc = c(pc["Ha"])
        ell = Hc * torch.where(swap, rk, omrk)       # |a1 - r a2|
        ellp = Hc * torch.where(swap, omrk, rk)      # |r a1 - a2|
        etype = c(pc["etype"])
        dist_far = torch.where(c(pc["to_one"]), p, c(pc["dr"]) - X)
        if "N1" in want:
            wN = torch.where(etype, X, dist_far) * ellp / pq
            out["N1"] = (base * wN).sum(-1)
        if "M11" in want:
            b1 = ell / torch.sqrt(pq)
            wE = 2.0 * pq * nm.scaled_g1(b1)
            lam = dist_far * 0.5 * (ell + c(pc["ell_e"]))
            wP = 2.0 * pq + 2.0 * lam * ellp / pq
            out["M11"] = (base * torch.where(etype, wE, wP)).sum(-1)
    return out


_KEYS_P = ("kp", "omk", "opk", "alpha", "Ha")
_KEYS_MOM = _KEYS_P + ("rs", "pqs", "vs", "interior", "m_c0", "m_s", "swap", "etype",
                       "to_one", "dr", "ell_e")


def _eval_nodes_p(kp, omk, opk, alpha, Ha, v, dvd, dc, qw, with_exp):
    """The weight-1 case of :func:`_eval_nodes` with in-place arithmetic (speed)."""
    c = lambda z: z[:, None]
    kpos = kp >= 0
    zero = torch.zeros_like(kp)
    # 1 - r kappa = A + B p + C q with per-piece coefficients
    A = c(torch.where(kpos, omk, opk))
    B = c(torch.where(kpos, kp, zero))
    C = c(torch.where(kpos, zero, -kp))
    cc = v * v
    t = torch.add(cc, c(alpha * alpha)).sqrt_().mul_(v).mul_(2.0)  # v S
    t.add_(cc, alpha=2.0)                                           # 2c + v S
    p = torch.add(t, c(omk)).reciprocal_().mul_(c(omk * omk))
    q = t.add_(c(opk)).div_(cc.mul_(2.0).add_(1.0))
    om = torch.mul(p, B).add_(A).addcmul_(q, C)
    base = p.mul_(q).div_(om).mul_(dvd)
    if with_exp:
        base.mul_(torch.mul(dc, c(-(Ha * Ha))).exp_())
    return (base * qw).sum(-1) * _SQRT2


def _subset(pc, idx, extra=()):
    keys = (_KEYS_P if pc.get("_p_only", False) else _KEYS_MOM) + tuple(extra)
    out = {k: pc[k][idx] for k in keys if k in pc}
    out["_p_only"] = pc.get("_p_only", False)
    return out


def _accumulate(out, idx, part):
    for k, val in part.items():
        out[k] = out[k].index_add(0, idx, val)


def _piece_quadrature(pc, want, dev, dt):
    """Integrate exp(-(E - E_ref)) * weight d theta over every piece in ``pc``.

    ``pc`` holds 1-D tensors (one entry per existing piece) in normalised coordinates:
    the piece runs from r_s up to r_e (r_s >= kappa) on the '+' side of its peak kappa;
    mirrored pieces have been mapped by r -> -r, kappa -> -kappa.  Returns a dict of the
    integrals (without the factor exp(-E_ref)/(2 pi)) for each requested weight.

    General rule: panel A in w (v = alpha sinh w, or v = v_s cosh w); when that range is
    long and reaches the Gaussian cut-off, the part beyond u = |h| v' = 1 is panel B,
    linear in v (resp. v' = sqrt(v^2 - v_s^2)), where exp(-u^2) is a plain Gaussian (in
    w it would fall doubly exponentially, which Gauss-Legendre resolves poorly).
    """
    alpha = pc["alpha"]
    Ha, vs, ve, dv = pc["Ha"], pc["vs"], pc["ve"], pc["dv"]
    P = vs.shape[0]
    out = {k: torch.zeros(P, dtype=dt, device=dev) for k in want}
    if P == 0:
        return out
    one = torch.ones_like(vs)
    inf = torch.full_like(vs, math.inf)
    c = lambda z: z[:, None]
    H2 = Ha * Ha
    hpos = H2 > 0
    Hinv = torch.where(hpos, 1.0 / torch.where(hpos, Ha, one), inf)
    Lh = _L * Hinv * Hinv
    interior = vs == 0
    us = Ha * vs
    rest = torch.ones(P, dtype=torch.bool, device=dev)
    if _FAST:
        a_ = Ha * alpha
        se = H2 * dv * (ve + vs)
        full_h = interior & (Ha * ve >= _HRH_UE)
        full_l = (~interior) & (se >= _LAG_SE)
        done = torch.zeros_like(interior)
        for amin, n in _HRH_TIERS:
            # ---- half-range Gauss-Hermite in u (interior pieces, smooth d theta/du)
            sel = full_h & ~done & (a_ >= amin)
            done = done | sel
            idx = torch.nonzero(sel).squeeze(-1)
            if idx.numel():
                xr, wr = nm.cached_rule("half_hermite", n, _half_hermite_mp, dev, dt)
                hi_ = Hinv[idx]
                v = c(hi_) * xr
                part = _eval_nodes(_subset(pc, idx), v, c(hi_).expand_as(v), v * v, wr, want,
                                   with_exp=False)
                _accumulate(out, idx, part)
        for umin, n in _LAG_TIERS:
            # ---- Gauss-Laguerre in s = |h|^2 (v^2 - v_s^2) (end pieces, steep decay)
            sel = full_l & ~done & (us >= umin)
            done = done | sel
            idx = torch.nonzero(sel).squeeze(-1)
            if idx.numel():
                xr, wr = nm.cached_rule("laguerre", n, _laguerre_mp, dev, dt)
                hi_ = Hinv[idx]
                dcn = c(hi_ * hi_) * xr
                v = torch.sqrt(c(vs[idx] ** 2) + dcn)
                dvd = 0.5 * c(hi_ * hi_) / v
                part = _eval_nodes(_subset(pc, idx), v, dvd, dcn, wr, want, with_exp=False)
                _accumulate(out, idx, part)
        rest = ~done
    mode2 = rest & (vs > 0) & ((vs > alpha) | (us >= 1.0))
    for m2 in (False, True):
        idx = torch.nonzero(mode2 if m2 else (rest & ~mode2)).squeeze(-1)
        if idx.numel():
            _general_pieces(pc, idx, m2, Hinv[idx], Lh[idx], want, out, dev, dt)
    return out


def _general_pieces(pc, idx, mode2, Hinv, Lh, want, out, dev, dt):
    """General rule for the pieces ``idx``, all in mode I (v = alpha sinh w) or all in
    mode II (v = v_s cosh w, v' = v_s sinh w); see :func:`_piece_quadrature`."""
    c = lambda z: z[:, None]
    pcg = _subset(pc, idx)
    omk, alpha, Ha = pcg["omk"], pcg["alpha"], pcg["Ha"]
    vs, ve, dv = pc["vs"][idx], pc["ve"][idx], pc["dv"][idx]
    one = torch.ones_like(vs)
    inf = torch.full_like(vs, math.inf)
    vc = torch.sqrt(omk)
    hpos = torch.isfinite(Hinv)
    if not mode2:
        # w-range, bulk centre, window, and the point u = 1
        am = torch.clamp(alpha, min=_ALPHA_FLOOR)
        Vg = torch.sqrt(vs * vs + Lh)
        useg = Vg < ve
        V = torch.where(useg, Vg, ve)
        VmVs = torch.where(useg, Lh / (Vg + vs), dv)
        x = V / am
        y = vs / am
        fin = torch.isfinite(x)
        xf = torch.where(fin, x, one)
        # asinh(x) - asinh(y) = asinh((x - y) * ratio); hypot, not sqrt(1 + x^2): for |h| ~ 1e-154
        # the Gaussian cut-off V ~ sqrt(40)/|h| is finite but x^2 overflows (ratio -> 0, no range)
        ratio = (xf + y) / (xf * torch.hypot(one, y) + y * torch.hypot(one, xf))
        wlo = torch.asinh(y)
        whi = wlo + torch.where(fin, torch.asinh(VmVs / am * ratio), inf)
        wm = torch.asinh(torch.minimum(vc, V) / am)
        lo = torch.maximum(wlo, wm - _WIN)
        hi = torch.minimum(whi, wm + _WIN)
        cut = hi < whi
        vhi = torch.where(cut, am * torch.sinh(torch.clamp(hi, max=700.0)), V)
        v_end, dc_end = vhi, (vhi - vs) * (vhi + vs)
        wc = torch.asinh(Hinv / am)
        lin = Ha * alpha >= _LIN_A
        lin_lo, lin_hi = vs, V
        scale = am
    else:
        vp_e = torch.sqrt(dv * (ve + vs))  # sqrt(ve^2 - vs^2), may be inf
        Vp = torch.minimum(vp_e, torch.sqrt(Lh))
        Vp = torch.where(torch.isfinite(Vp), Vp, torch.full_like(Vp, 1e300))
        W2 = torch.asinh(Vp / vs)
        vm = torch.maximum(torch.minimum(vc, torch.sqrt(vs * vs + Vp * Vp)), vs)
        wm = torch.asinh(torch.sqrt((vm - vs) * (vm + vs)) / vs)
        lo = torch.clamp(wm - _WIN, min=0.0)
        hi = torch.minimum(W2, wm + _WIN)
        cut = hi < W2
        vhi = torch.where(cut, vs * torch.sinh(torch.clamp(hi, max=700.0)), Vp)
        v_end, dc_end = torch.hypot(vs, vhi), vhi * vhi
        wc = torch.asinh(Hinv / vs)
        lin = Ha * vs >= _LIN_A
        lin_lo, lin_hi = torch.zeros_like(vs), Vp
        scale = vs
    # LIN: one panel linear in v (mode I, from v_s) or v' (mode II, from 0) when the
    # Gaussian scale is the finest one; otherwise panel A in w up to u' = 1 (split
    # _A1_LEN units of w after its start) and panel B linear beyond u' = 1.
    hasB = (~lin) & hpos & (wc < hi)
    hiA = torch.where(hasB, wc, hi)
    hiA = torch.where(torch.isfinite(hiA) & ~lin, torch.maximum(hiA, lo), lo)
    midA = torch.minimum(hiA, lo + _A1_LEN)
    loB = torch.where(lin, lin_lo, Hinv)
    hiB = torch.where(lin, lin_hi, vhi)
    useB = hasB | lin
    hiB = torch.where(useB, torch.maximum(hiB, loB), loB)

    def panel_w(gi, a, b, n):
        xg, wg = nm.gauss_legendre(n, dev, dt)
        half = 0.5 * (b - a)
        w = c(a) + c(half) * (1.0 + xg)
        sh, ch = _expm1_sinh_cosh(w)
        sc = c(scale[gi])
        if mode2:
            vp = sc * sh
            v, dvd, dc = sc * ch, vp, vp * vp
        else:
            v = sc * sh
            vsg = c(vs[gi])
            dvd, dc = sc * ch, (v - vsg) * (v + vsg)
        part = _eval_nodes(_subset(pcg, gi), v, dvd, dc, c(half) * wg, want)
        _accumulate(out, idx[gi], part)

    gi = torch.nonzero(midA > lo).squeeze(-1)
    if gi.numel():
        panel_w(gi, lo[gi], midA[gi], _N_A1)
    # panel A2; w-ranges longer than _A2_MAX (only when v_s or alpha are tiny, e.g. an
    # accurate q ~ 1e-12 with rho -> 1) are cut into sub-panels of _A2_SUB units
    lenA2 = hiA - midA
    gi = torch.nonzero((lenA2 > 0) & (lenA2 <= _A2_MAX)).squeeze(-1)
    if gi.numel():
        panel_w(gi, midA[gi], hiA[gi], _N_A2)
    gl = torch.nonzero(lenA2 > _A2_MAX).squeeze(-1)
    if gl.numel():
        nsub = int(math.ceil(float(lenA2[gl].max()) / _A2_SUB))
        for j in range(nsub):
            a = midA[gl] + j * _A2_SUB
            b = torch.minimum(a + _A2_SUB, hiA[gl])
            sel = torch.nonzero(b > a).squeeze(-1)
            if sel.numel():
                panel_w(gl[sel], a[sel], b[sel], _N_A2)
    if "N1" in want:
        # |h| > 0, not hpos: for |h| < 1e-154 the cut-off sees |h|^2 = 0, the tail does not
        gi = torch.nonzero(cut & pcg["to_one"] & (Ha > 0)).squeeze(-1)
        if gi.numel():
            _accumulate(out, idx[gi], _n1_far_tail(_subset(pcg, gi), v_end[gi], dc_end[gi]))
    uB = Ha * (hiB - loB)  # length of panel B in units of u = |h| v
    lower = -1.0
    for bound, nB in ((1.0, _N_B1), (3.0, _N_B2), (math.inf, _N_B)):
        bi = torch.nonzero(useB & (hiB > loB) & (uB > lower) & (uB <= bound)).squeeze(-1)
        lower = bound
        if bi.numel() == 0:
            continue
        xb, wb = nm.gauss_legendre(nB, dev, dt)
        lb, hb, vsb = loB[bi], hiB[bi], c(vs[bi])
        halfb = 0.5 * (hb - lb)
        z = c(lb) + c(halfb) * (1.0 + xb)      # v (mode I) or v' (mode II)
        if mode2:
            vB = torch.sqrt(vsb * vsb + z * z)
            dvdB, dcB = z / vB, z * z
        else:
            vB, dvdB, dcB = z, torch.ones_like(z), (z - vsb) * (z + vsb)
        part = _eval_nodes(_subset(pcg, bi), vB, dvdB, dcB, c(halfb) * wb, want)
        _accumulate(out, idx[bi], part)


def _n1_far_tail(pc, v_end, dc_end):
    """The part v > v_end of the N1 integral of pieces that run to r = +-1 and were cut by the
    w-window (|h| < ~1e-16), which the window would drop.

    There the N1 integrand is |h| f(v) exp(-|h|^2 (v^2 - v_s^2)) dv with f -> f_inf + O(1/v^2):
    unlike P and M (~1/v^2) it does not decay, and its mass sits at the Gaussian scale
    v ~ 1/|h| (r within ~h^2 of -+1, where b1 changes sign), far beyond the window (v_end
    ~ 1e16).  With f constant to O(1/v_end^2) beyond v_end the tail is
    |h| f(v_end) int_{v_end}^inf exp(-|h|^2 (v^2 - v_s^2)) dv
    = f(v_end) (sqrt(pi)/2) erfcx(|h| v_end) exp(-|h|^2 (v_end^2 - v_s^2)),
    f evaluated with |h| = 1 in the weight (no 1/|h| overflows for tiny |h|).
    """
    unit = dict(pc, Ha=torch.ones_like(pc["Ha"]))
    v = v_end[:, None]
    one = torch.ones_like(v)
    f = _eval_nodes(unit, v, one, dc_end[:, None], one, ("N1",), with_exp=False)["N1"]
    Ha = pc["Ha"]
    return {"N1": f * (0.5 * math.sqrt(math.pi)) * torch.special.erfcx(Ha * v_end) * torch.exp(-(Ha * Ha) * dc_end)}


def _core(a1, a2, rho, want, q=None, shift=None):
    """All requested quantities for finite a1, a2 and |rho| < 1 (1-D tensors); ``q``
    (optional, q > 0) is an accurate sqrt(1 - rho^2), see :func:`bvn_cdf`.

    ``shift`` (optional, integers 0 <= S <= 1000): every quantity times 2^S, the power carried
    inside the Gaussian factors (``normal``'s ``shift``) so that values far below the smallest
    normal float64 keep their relative accuracy.  Each term of every sum is a product of
    non-negative factors; a term with one Gaussian factor carries all of S, a product
    f(a1) f(a2) carries S1 = floor(S w1) on the first and S - S1 on the second,
    w1 = a1-^2/(a1-^2 + a2-^2) (a- = min(a, 0); 1/2 where both are >= 0), so that each factor
    is shifted by about its own share of the exponent and none overflows or underflows."""
    dev, dt = a1.device, a1.dtype
    one = torch.ones_like(a1)
    zero = torch.zeros_like(a1)
    swap = a1.abs() < a2.abs()
    H = torch.where(swap, a2, a1)
    K = torch.where(swap, a1, a2)
    Hz = H == 0
    Hs = torch.where(Hz, one, H)
    kap = torch.where(Hz, zero, K / Hs)
    omk = torch.where(Hz, one, (H - K) / Hs)
    opk = torch.where(Hz, one, (H + K) / Hs)
    alpha = torch.sqrt(0.5 * omk * opk)
    Ha = H.abs()
    pos = rho >= 0
    if q is None:
        omr, omr_e, opr, opr_e, sh_, sl_ = _rho_terms_dd(H, K, rho)
        qr = torch.sqrt(omr * opr)
    else:
        # accurate q = sqrt(1 - rho^2) supplied: d = 1 - |rho| = q^2/(1 + |rho|) in
        # double-double, rho = sgn (1 - d), and every difference that cancels as |rho| -> 1
        # is rewritten through d (rho X - Y = (sgn X - Y) - sgn d X).
        sgn = torch.where(pos, one, -one)
        big_h, big_l = _two_sum(one, rho.abs())
        q2h, q2l = _two_prod(q, q)
        d_h, d_l = _dd_div(q2h, q2l, big_h, big_l)
        omr, omr_e = torch.where(pos, d_h, big_h), torch.where(pos, d_l, big_l)
        opr, opr_e = torch.where(pos, big_h, d_h), torch.where(pos, big_l, d_l)
        qr = q

        def rho_x_minus_y(x, y):
            xh, xl = _two_sum(sgn * x, -y)
            ph, pl = _two_prod(d_h, x)
            pl = pl + d_l * x
            s, e = _two_sum(xh, -sgn * ph)
            return s, e + (xl - sgn * pl)

        sh_, sl_ = rho_x_minus_y(H, K)
    rmk = torch.where(Hz, rho, (sh_ + sl_) / Hs)
    # exponents (double-double): E* = H^2/2, E(0) = (H^2+K^2)/2, E(rho)
    hh, hl = _two_prod(H, H)
    kh, kl = _two_prod(K, K)
    Es_h, Es_l = 0.5 * hh, 0.5 * hl
    E0_h, E0_l = _dd_add(Es_h, Es_l, 0.5 * kh, 0.5 * kl)
    uh, ul = _excess_from_dd(sh_, sl_, omr, omr_e, opr, opr_e)
    Er_h, Er_l = _dd_add(Es_h, Es_l, uh, ul)
    exp_s = _exp_neg_dd(Es_h, Es_l, shift)
    exp_0 = _exp_neg_dd(E0_h, E0_l, shift)
    exp_r = _exp_neg_dd(Er_h, Er_l, shift)
    # f(a_i) ~ exp(-a_i^2/2) in the lower tail: a product f(a1) f(a2) shares S by a_i-^2
    S1, S2 = nm.split_shift(shift, *(torch.clamp(a, max=0.0) ** 2 for a in (a1, a2)))
    sub = nm.rows

    # ---------------- pieces
    # D: r from max(kappa, base) up to rho (exists iff kappa < rho)
    exD = rmk > 0
    intD = ~(pos & (kap < 0))
    vsD = torch.where(intD, zero, -kap * _INV_SQRT2)
    veD = torch.clamp(rmk, min=0.0) / (_SQRT2 * qr)
    # v(rho) - v(0) for an end piece: rho (1 + q - kappa rho) / ((1 + q) sqrt2 q); for
    # kappa > 0 (the M piece when rho < kappa) 1 - kappa rho = (1 - kappa) + kappa (1 - rho)
    # is formed without cancellation (it can be ~q with rho, kappa -> 1).
    num_end = torch.where(kap > 0, (omk + kap * omr) + qr, (1.0 + qr) - kap * rho)
    dvD_end = rho * num_end / ((1.0 + qr) * _SQRT2 * qr)
    dvD = torch.where(intD, veD, dvD_end)
    drD = torch.where(intD, rmk, rho)
    # M: original r from min(kappa, rho) down to base (exists iff kappa > base)
    exM = torch.where(pos, kap > 0, opk > 0)
    intM = rmk >= 0
    vsM = torch.where(intM, zero, -rmk / (_SQRT2 * qr))
    veM = torch.where(pos, kap * _INV_SQRT2, torch.full_like(kap, math.inf))
    dvM_end = torch.where(pos, dvD_end, veM)
    dvM = torch.where(intM, veM, dvM_end)
    drM = torch.where(pos, torch.where(intM, kap, rho), torch.where(intM, opk, opr))

    pc = {
        "kp": torch.cat([kap, -kap]),
        "omk": torch.cat([omk, opk]),
        "opk": torch.cat([opk, omk]),
        "alpha": torch.cat([alpha, alpha]),
        "Ha": torch.cat([Ha, Ha]),
        "vs": torch.cat([vsD, vsM]),
        "ve": torch.cat([veD, veM]),
        "dv": torch.cat([dvD, dvM]),
        "ex": torch.cat([exD, exM]),
        "interior": torch.cat([intD, intM]),
        "rs": torch.cat([torch.where(intD, kap, zero), torch.where(intM, -kap, -rho)]),
        "pqs": torch.cat([torch.where(intD, omk * opk, one), torch.where(intM, omk * opk, omr * opr)]),
        "dr": torch.cat([drD, drM]),
        "to_one": torch.cat([torch.zeros_like(pos), ~pos]),
        "swap": torch.cat([swap, swap]),
        "m_c0": torch.cat([drD, torch.where(intM, rmk, zero)]),
        "m_s": torch.cat([-one, one]),
    }
    # N1 / M11 piece types and end values
    need_nm = ("N1" in want) or ("M11" in want)
    if need_nm:
        # E-type (b1 <= 0 on the piece) or plateau (b1 >= 0)
        etD = torch.where(swap, H >= 0, H <= 0)
        etM = H <= 0
        pc["etype"] = torch.cat([etD, etM])
        phi_a2 = nm.pdf(a2, shift)
        # ell = a1 - r a2 at the far ends (r = rho for D, base for M); >= 0 on plateaus
        if q is None:
            lh, ll = _two_prod(rho, a2)
            ell_rho_h, ell_rho_l = _two_sum(a1, -lh)
            ell_rho = ell_rho_h + (ell_rho_l - ll)
        else:
            eh_, el_ = rho_x_minus_y(a2, a1)
            ell_rho = -(eh_ + el_)
        ell_base = torch.where(pos, a1, a1 + a2)
        pc["ell_e"] = torch.cat([ell_rho.abs(), ell_base.abs()])
        # F(r) = phi(a2) Phi(b1(r)) at the points needed
        b1_rho = ell_rho / qr
        F_rho_neg = exp_r * nm.mills_ratio(torch.clamp(-b1_rho, min=0.0)) * _INV_2PI
        F_rho = torch.where(b1_rho <= 0, F_rho_neg, phi_a2 * nm.cdf(b1_rho))
        F_0 = nm.pdf(a2, S2) * nm.cdf(a1, S1)
        s12 = a1 + a2
        F_m1 = torch.where(s12 > 0, phi_a2, torch.where(s12 == 0, 0.5 * phi_a2, zero))
        F_base = torch.where(pos, F_0, F_m1)
        b1k = torch.sqrt(torch.clamp(omk * opk, min=0.0)) * Ha  # b1(kappa) when H = a1 > 0
        F_kap = torch.where(swap, 0.5 * phi_a2, phi_a2 * nm.cdf(b1k))
        ell_kap = torch.where(swap, zero, Ha * omk * opk)
        # E-type: boundary F(far end); plateau: F(start)
        F_startD = torch.where(intD, F_kap, F_0)
        F_startM = torch.where(intM, F_kap, F_rho)
        ell_startD = torch.where(intD, ell_kap, a1.abs())
        ell_startM = torch.where(intM, ell_kap, ell_rho.abs())
    # --------------- quadrature over the existing pieces only
    N = a1.shape[0]
    ex = pc.pop("ex")
    pc["_p_only"] = want == ("P",)
    pidx = torch.nonzero(ex).squeeze(-1)
    part = _piece_quadrature(_subset(pc, pidx, ("vs", "ve", "dv", "interior")), want, dev, dt)
    E_D = torch.where(intD, exp_s, exp_0) * _INV_2PI
    E_M = torch.where(intM, exp_s, exp_r) * _INV_2PI
    Efac = torch.cat([E_D, E_M])

    def comb(key):
        full = torch.zeros(2 * N, dtype=dt, device=dev)
        full = full.index_copy(0, pidx, part[key] * Efac[pidx])
        return full[:N] + full[N:]

    out = {}
    A_, B_ = -a2, a1

    def based(fpos, fneg):
        """Base value: fpos() on rho >= 0 rows, fneg(A, B) on rho < 0 rows (subsets)."""
        res = torch.zeros(N, dtype=dt, device=dev)
        ip = torch.nonzero(pos).squeeze(-1)
        ineg = torch.nonzero(~pos).squeeze(-1)
        if ip.numel():
            res = res.index_copy(0, ip, fpos(ip))
        if ineg.numel():
            res = res.index_copy(0, ineg, fneg(A_[ineg], B_[ineg], ineg))
        return res

    if "P" in want:
        base = based(lambda i: nm.cdf(a1[i], sub(S1, i)) * nm.cdf(a2[i], sub(S2, i)),
                     lambda A, B, i: nm.interval_prob(A, B, shift=sub(shift, i)))
        out["P"] = base + comb("P")
    if "M" in want:
        base = based(
            lambda i: nm.partial_moment1(a1[i], sub(S1, i)) * nm.partial_moment1(a2[i], sub(S2, i))
            + rho[i] * nm.cdf(a1[i], sub(S1, i)) * nm.cdf(a2[i], sub(S2, i)),
            lambda A, B, i: nm.interval_moment(A, B, 1, 1, sub(shift, i))
            + opr[i] * nm.interval_prob(A, B, shift=sub(shift, i)),
        )
        out["M"] = base + comb("M")
    if "N1" in want:
        base = based(lambda i: nm.partial_moment1(a1[i], sub(S1, i)) * nm.cdf(a2[i], sub(S2, i)),
                     lambda A, B, i: nm.interval_moment(A, B, 1, 0, sub(shift, i)))
        bD = drD * torch.where(etD, F_rho, F_startD)
        bM = drM * torch.where(etM, F_base, F_startM)
        bnd = torch.where(exD, bD, zero) + torch.where(exM, bM, zero)
        out["N1"] = base + bnd + comb("N1")
    if "M11" in want:
        base = based(lambda i: nm.partial_moment2(a1[i], sub(S1, i)) * nm.cdf(a2[i], sub(S2, i)),
                     lambda A, B, i: nm.interval_moment(A, B, 2, 0, sub(shift, i)))
        bD = drD * (ell_startD + ell_rho.abs()) * F_startD
        bM = drM * (ell_startM + ell_base.abs()) * F_startM
        bnd = torch.where(exD & ~etD, bD, zero) + torch.where(exM & ~etM, bM, zero)
        out["M11"] = base + bnd + comb("M11")
    return out
