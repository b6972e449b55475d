r"""The fixed quadrature rules of ``bvn_cdf``'s fast paths, and the node tables of every rule.

``numerics.core.bvn`` routes each row of ``bvn_cdf`` to one of these rules or to the general
path (``numerics.core.bvn_general``); the thresholds that admit a row and the rules' node
counts are data there and come in here as arguments, as they go to the compiled twin
(``numerics.core.bvn_compiled``).  With |H| >= |K| (h, k swapped if needed), the Plackett
exponent is E(r) = H^2/2 + F(r), F(r) = (r H - K)^2 / (2 (1 - r^2)):

* :func:`_fast_p_rule`: the Plackett integral from rho = 0 by one Gauss-Legendre rule, in
  theta = asin r, or in s = atanh(r), where d theta = sech s ds and the exponent
  (H sinh s - K cosh s)^2/2 is entire, so that the rule's only singularities stay at
  distance pi/2 as |rho| -> 1;
* :func:`_fast_p_m1`: Phi2 for rho < 0 integrated from rho = -1 instead, P(-k <= Y <= h)
  plus a positive integral, with one Gauss-Legendre rule in the variable
  D = sqrt(2 (E - H^2/2)), where the integrand is a Gaussian times a weight whose
  singularities sit on the imaginary axis;
* F(rho) in double-double (:func:`_excess_dd`, from :func:`_rho_terms_dd` and
  :func:`_excess_from_dd`, which the general path also uses);
* the quadrature rules of both paths, stored precomputed (``_RULES_HEX``, installed into
  ``normal``'s rule cache at import), so no call builds them, with the mpmath builders of
  the half-range Gauss-Hermite and the Gauss-Laguerre rules that wrote them.

References: Z. Drezner & G. O. Wesolowsky (1990), J. Statist. Comput. Simul. 35, 101-107;
A. Genz (2004), Statistics and Computing 14, 251-260 (Gauss-Legendre in asin(r)).
"""
from __future__ import annotations

import math

import torch

from . import ddarith as dd
from . import normal as nm

_INV_2PI = 1.0 / (2.0 * math.pi)
#: Rows per (rows x nodes) block of the fixed rules on the CPU (see :func:`_block`).
_BLOCK = 4096

# (public in ``numerics.core.ddarith``; the private aliases keep the moved code unchanged)
_two_sum, _two_prod = dd.two_sum, dd.two_prod
_dd_mul, _dd_div = dd.dd_mul, dd.dd_div


# ------------------------------------------------------------ the rules from rho = 0 and -1
def _pick(c, a, b):
    """where(c, a, b) for finite a, b, as an exact blend (``torch.where`` is slow on the
    CPU); non-finite entries give nan/inf, which only ever fail the routing tests."""
    cf = c.to(a.dtype)
    return a * cf + b * (1.0 - cf)


def _block(t) -> int:
    """Rows per (rows x nodes) block of the fixed rules: _BLOCK on the CPU (temporaries
    near the caches), the whole chunk on a device (one kernel launch per operation)."""
    return _BLOCK if t.device.type == "cpu" else max(1, t.shape[0])


def _fast_p_rule(h, k, rho, n, var):
    """The Plackett integral Phi2 - Phi(h)Phi(k) = (1/2pi) int_0^{asin rho} exp(-E(theta))
    dtheta on every row with one n-node Gauss-Legendre rule in ``var``, E written as
    H^2/2 + F, |H| >= |K|, H, K = h, k or k, h (exp(-H^2/2) via ``normal.exp_half_sq``; no
    cancellation); ``numerics.core.bvn._fast_p`` picks n and ``var`` for each row:

    * "theta", theta = asin r: F = (r H - K)^2 / (2 (1 - r)(1 + r));
    * "s", s = atanh r: r = tanh s, d theta = sech s ds and
      F = (H sinh s - K cosh s)^2 / 2, an entire function of s, so the only singularities
      of the integrand are the poles of sech at s = +-i pi/2, at a fixed distance from the
      range [0, atanh rho] however close |rho| is to 1 (in theta the pole of F at
      theta = pi/2 sits acos|rho| beyond the range's end and would spoil any fixed rule).
    """
    sw = h.abs() >= k.abs()
    H, K = _pick(sw, h, k), _pick(sw, k, h)
    x, w = nm.gauss_legendre(n, h.device, h.dtype)
    half = 0.5 * (torch.asin(rho) if var == "theta" else torch.atanh(rho))
    # in s: F is even under (s, K) -> (-s, -K), so the rule runs over |s| with K sign(rho),
    # and H sinh s - K cosh s = (H - K) cosh s - H e^-s has no cancellation of two terms
    # ~ |H| e^|s| (the peak's own cancellation, H ~ K, is exact by Sterbenz)
    HmK = H - K * torch.sign(rho)
    habs = half.abs()
    s = torch.empty_like(half)
    blk = _block(h)
    for a in range(0, half.shape[0], blk):
        b = a + blk
        # in-place chains on (rows, nodes) blocks
        t = torch.outer(half[a:b] if var == "theta" else habs[a:b], 1.0 + x)
        if var == "theta":  # exp(-(r H - K)^2 / (2 (1 - r)(1 + r))), r = sin theta
            r = t.sin_()
            d = torch.addcmul(-K[a:b, None], r, H[a:b, None])
            den = torch.sub(r, 1.0)
            den.mul_(r.add_(1.0)).mul_(2.0)  # -2 (1 - r^2)
            f = d.mul_(d).div_(den).exp_()
        else:  # exp(-(H sinh s - K cosh s)^2 / 2) / cosh s from e = exp(|s|)
            e = t.exp_()
            ei = torch.reciprocal(e)
            ch = e.add_(ei).mul_(0.5)
            d = torch.mul(ch, HmK[a:b, None]).sub_(ei.mul_(H[a:b, None]))
            f = d.mul_(d).mul_(-0.5).exp_().div_(ch)
        s[a:b] = f @ w
    return (_INV_2PI * half) * nm.exp_half_sq(H) * s


def _fast_p_m1(h, k, rho, n, cover, masked=False):
    """Phi2 for rho < 0 from rho = -1: P(-k <= Y <= h) + (1/2pi) int_{-pi/2}^{asin rho}
    exp(-E) dtheta, every term positive, for rows whose exponent excess F(rho) = E(rho) -
    H^2/2 is >= ``bvn._FP_JF`` with the peak kappa = K/H outside [-1, rho] (``jm1`` of
    ``numerics.core.bvn._fast_p_route``).

    With r = -tanh t, t >= T = atanh|rho|, and u = e^-t in (0, U], U = sqrt((1 - |rho|) /
    (1 + |rho|)): E = H^2/2 + D^2/2, D = (p/u - q u)/2, p = |H + K|, q = |H - K|
    (p q = H^2 - K^2 >= 0), and d theta = 2 du/(1 + u^2).  D decreases from +inf to
    D_U = sqrt(2 F(rho)) > 0, so in the variable D

        int = exp(-H^2/2) int_{D_U}^inf exp(-D^2/2) 2u / (R (1 + u^2)) dD,

    u = p/(D + R), R = sqrt(D^2 + p q) >= D (rationalised: no cancellation, no 0/0 as
    p -> 0).  The weight's singularities (R = 0 at D = +-i sqrt(pq), u = +-i at D = +-iH)
    lie on the imaginary axis, at distance >= D_U >= sqrt(2 _FP_JF) from the range, which
    one n-node Gauss-Legendre rule covers up to exp(-(D^2 - D_U^2)/2) = e^-cover (``bvn``
    passes n = _FP_JN and cover = _FP_JL).
    exp(-E(rho)) = exp(-H^2/2) exp(-F(rho)) comes from ``normal.exp_half_sq`` and F(rho)
    in double-double (:func:`_excess_dd`), so values down to 1e-300 keep relative accuracy.
    """
    sw = h.abs() >= k.abs()
    H, K = _pick(sw, h, k), _pick(sw, k, h)
    p, q = (H + K).abs(), (H - K).abs()
    fh, fl = _excess_dd(H, K, rho)
    DU = torch.sqrt(2.0 * fh)
    half = 0.5 * (torch.sqrt(DU * DU + 2.0 * cover) - DU)
    x, w = nm.gauss_legendre(n, h.device, h.dtype)
    pq = p * q
    s = torch.empty_like(half)
    blk = _block(h)
    for a in range(0, half.shape[0], blk):
        b = a + blk
        # in-place chain on (rows, nodes) blocks
        dD = torch.outer(half[a:b], 1.0 + x)  # D - D_U
        D = dD + DU[a:b, None]
        R = torch.addcmul(pq[a:b, None], D, D).sqrt_()
        u = torch.add(D, R).reciprocal_().mul_(p[a:b, None])
        f = D.add_(DU[a:b, None]).mul_(dD).mul_(-0.5).exp_()  # exp(-(D^2 - D_U^2)/2)
        f.mul_(u).div_(R.mul_(u.mul_(u).add_(1.0)))  # ... u / (R (1 + u^2))
        s[a:b] = f @ w
    J = (2.0 * _INV_2PI * half) * nm.exp_half_sq(H) * torch.exp(-fh) * (1.0 - fl) * s
    return nm.interval_prob(-k, h, masked=masked) + J


# --------------------------------------------------- the exponent excess in double-double
def _rho_terms_dd(H, K, rho):
    """1 - rho, 1 + rho and rho H - K in double-double (pairs hi, lo), from rho itself."""
    one = torch.ones_like(rho)
    omr, omr_e = _two_sum(one, -rho)
    opr, opr_e = _two_sum(one, rho)
    ph, pl = _two_prod(rho, H)
    sh, sl = _two_sum(ph, -K)
    return omr, omr_e, opr, opr_e, sh, sl + pl


def _excess_from_dd(sh, sl, omr, omr_e, opr, opr_e):
    """F(rho) = (rho H - K)^2 / (2 (1 - rho)(1 + rho)) in double-double, from those terms."""
    dh, dl = _two_sum(sh, sl)
    d2h, d2l = _dd_mul(dh, dl, dh, dl)
    den_h, den_l = _dd_mul(omr, omr_e, opr, opr_e)
    return _dd_div(d2h, d2l, 2.0 * den_h, 2.0 * den_l)


def _excess_dd(H, K, rho):
    """F(rho) = E(rho) - H^2/2 in double-double (hi, lo)."""
    omr, omr_e, opr, opr_e, sh, sl = _rho_terms_dd(H, K, rho)
    return _excess_from_dd(sh, sl, omr, omr_e, opr, opr_e)


# ------------------------------------------------------------------------- node tables
def _laguerre_mp(n: int, dps: int = 34):
    """Gauss-Laguerre rule (weight e^-s on [0, inf)): numpy nodes polished in mpmath."""
    import mpmath as mp
    import numpy as np

    x0, _ = np.polynomial.laguerre.laggauss(n)
    xs, ws = [], []
    with mp.workdps(dps):
        def ev(x, m):
            p0, p1 = mp.mpf(1), 1 - x
            for k in range(1, m):
                p0, p1 = p1, ((2 * k + 1 - x) * p1 - k * p0) / (k + 1)
            return p0, p1  # L_{m-1}, L_m

        for xi in x0:
            x = mp.mpf(float(xi))
            for _ in range(4):
                lm1, ln = ev(x, n)
                x = x - ln / (n * (ln - lm1) / x)
            _, ln1 = ev(x, n + 1)
            xs.append(float(x))
            ws.append(float(x / ((n + 1) ** 2 * ln1 ** 2)))
    return np.array(xs), np.array(ws)


def _half_hermite_mp(n: int, dps: int = 120):
    """Gauss rule for the weight e^{-u^2} on [0, inf) (moments Gamma((k+1)/2)/2; Chebyshev
    algorithm and Golub-Welsch in mpmath at 120 digits)."""
    import mpmath as mp
    import numpy as np

    with mp.workdps(dps):
        N = 2 * n
        mu = [mp.gamma(mp.mpf(k + 1) / 2) / 2 for k in range(N)]
        a = [mp.mpf(0)] * n
        b = [mp.mpf(0)] * n
        sig_prev, sig = [mp.mpf(0)] * N, mu[:]
        a[0], b[0] = mu[1] / mu[0], mu[0]
        for k in range(1, n):
            new = [mp.mpf(0)] * N
            for l in range(k, N - k):
                new[l] = sig[l + 1] - a[k - 1] * sig[l] - b[k - 1] * sig_prev[l]
            a[k] = new[k + 1] / new[k] - sig[k] / sig[k - 1]
            b[k] = new[k] / sig[k - 1]
            sig_prev, sig = sig, new
        J = mp.matrix(n, n)
        for i in range(n):
            J[i, i] = a[i]
            if i + 1 < n:
                J[i, i + 1] = J[i + 1, i] = mp.sqrt(b[i + 1])
        E, Q = mp.eigsy(J)
        xs = np.array([float(E[i]) for i in range(n)])
        ws = np.array([float(b[0] * Q[0, i] ** 2) for i in range(n)])
    o = np.argsort(xs)
    return xs[o], ws[o]


#: Quadrature rules used by the kernels, precomputed by the ``*_mp`` builders above (and
#: :func:`normal._legendre_mp`) and stored as exact float64 hex, so that no call pays for
#: building them in mpmath (``tests/test_bvn_kernels.py`` checks them against the builders).
_RULES_HEX = {
    ("legendre", 12): (
        (
            "-0x1.f68f1d8e42e81p-1", "-0x1.cee874ffb88b4p-1", "-0x1.8a30aeed88f36p-1",
            "-0x1.2cb4f05c077f9p-1", "-0x1.78a8d20a8b19dp-2", "-0x1.007a5f8f630e4p-3",
            "0x1.007a5f8f630e4p-3", "0x1.78a8d20a8b19dp-2", "0x1.2cb4f05c077f9p-1",
            "0x1.8a30aeed88f36p-1", "0x1.cee874ffb88b4p-1", "0x1.f68f1d8e42e81p-1",
        ),
        (
            "0x1.8275d9dea6d8fp-5", "0x1.b60602bce6181p-4", "0x1.47d7258f22d8fp-3",
            "0x1.a0163e6b1ab72p-3", "0x1.de3155c256ab5p-3", "0x1.fe40ce6d4f025p-3",
            "0x1.fe40ce6d4f025p-3", "0x1.de3155c256ab5p-3", "0x1.a0163e6b1ab72p-3",
            "0x1.47d7258f22d8fp-3", "0x1.b60602bce6181p-4", "0x1.8275d9dea6d8fp-5",
        ),
    ),
    ("legendre", 20): (
        (
            "-0x1.fc7b5a0c71ce0p-1", "-0x1.ed8dba7bd769fp-1", "-0x1.d31064173fd92p-1",
            "-0x1.ada0bd5efd6e7p-1", "-0x1.7e1f37346a54ep-1", "-0x1.45a8d3fa710dbp-1",
            "-0x1.05905c13f7ff7p-1", "-0x1.7eaccf15652c4p-2", "-0x1.d281636928bc0p-3",
            "-0x1.3973df98b86b0p-4", "0x1.3973df98b86b0p-4", "0x1.d281636928bc0p-3",
            "0x1.7eaccf15652c4p-2", "0x1.05905c13f7ff7p-1", "0x1.45a8d3fa710dbp-1",
            "0x1.7e1f37346a54ep-1", "0x1.ada0bd5efd6e7p-1", "0x1.d31064173fd92p-1",
            "0x1.ed8dba7bd769fp-1", "0x1.fc7b5a0c71ce0p-1",
        ),
        (
            "0x1.209680274e8afp-6", "0x1.4c9b5ea53b67fp-5", "0x1.00b467df7e475p-4",
            "0x1.5519fe196e24ap-4", "0x1.a1817a317a821p-4", "0x1.e41ff31573b48p-4",
            "0x1.0db2c5db26dffp-3", "0x1.230348f34a535p-3", "0x1.31819b52c5992p-3",
            "0x1.38d6c490a3370p-3", "0x1.38d6c490a3370p-3", "0x1.31819b52c5992p-3",
            "0x1.230348f34a535p-3", "0x1.0db2c5db26dffp-3", "0x1.e41ff31573b48p-4",
            "0x1.a1817a317a821p-4", "0x1.5519fe196e24ap-4", "0x1.00b467df7e475p-4",
            "0x1.4c9b5ea53b67fp-5", "0x1.209680274e8afp-6",
        ),
    ),
    ("legendre", 24): (
        (
            "-0x1.fd892de691982p-1", "-0x1.f30f9f0cbf876p-1", "-0x1.e06585a70aa4dp-1",
            "-0x1.c5d841864d0f5p-1", "-0x1.a3d74ce0d3700p-1", "-0x1.7af18edb9ddd6p-1",
            "-0x1.4bd2ee5fa1086p-1", "-0x1.17417bac4d72bp-1", "-0x1.bc345d81e24b5p-2",
            "-0x1.429a8c588e910p-2", "-0x1.8769542b94f8dp-3", "-0x1.0660853eda2e8p-4",
            "0x1.0660853eda2e8p-4", "0x1.8769542b94f8dp-3", "0x1.429a8c588e910p-2",
            "0x1.bc345d81e24b5p-2", "0x1.17417bac4d72bp-1", "0x1.4bd2ee5fa1086p-1",
            "0x1.7af18edb9ddd6p-1", "0x1.a3d74ce0d3700p-1", "0x1.c5d841864d0f5p-1",
            "0x1.e06585a70aa4dp-1", "0x1.f30f9f0cbf876p-1", "0x1.fd892de691982p-1",
        ),
        (
            "0x1.9465bd3112202p-7", "0x1.d375514486f1dp-6", "0x1.6ab884f57c979p-5",
            "0x1.e5c6255d25edap-5", "0x1.2c6d5c2eff064p-4", "0x1.6108ef504463ap-4",
            "0x1.8fd8936444b16p-4", "0x1.b8177ba4a68dcp-4", "0x1.d91c78acb1b2dp-4",
            "0x1.f25cbce1d1ff6p-4", "0x1.01b7117cf8bd8p-3", "0x1.060475e763736p-3",
            "0x1.060475e763736p-3", "0x1.01b7117cf8bd8p-3", "0x1.f25cbce1d1ff6p-4",
            "0x1.d91c78acb1b2dp-4", "0x1.b8177ba4a68dcp-4", "0x1.8fd8936444b16p-4",
            "0x1.6108ef504463ap-4", "0x1.2c6d5c2eff064p-4", "0x1.e5c6255d25edap-5",
            "0x1.6ab884f57c979p-5", "0x1.d375514486f1dp-6", "0x1.9465bd3112202p-7",
        ),
    ),
    ("legendre", 32): (
        (
            "-0x1.fe995e70409b6p-1", "-0x1.f8a212714bcdcp-1", "-0x1.edf5518053baap-1",
            "-0x1.deac0259f7f42p-1", "-0x1.caea9b4574cb9p-1", "-0x1.b2e04fd686a13p-1",
            "-0x1.96c69481c4bc5p-1", "-0x1.76e0931d693bap-1", "-0x1.537a89c487f8ap-1",
            "-0x1.2ce9146962ca4p-1", "-0x1.038862866b29dp-1", "-0x1.af76b57c6f8f1p-2",
            "-0x1.53d55ce57bdf6p-2", "-0x1.ea0f7e19c094bp-3", "-0x1.27e0ea717f237p-3",
            "-0x1.8bbc8488cc499p-5", "0x1.8bbc8488cc499p-5", "0x1.27e0ea717f237p-3",
            "0x1.ea0f7e19c094bp-3", "0x1.53d55ce57bdf6p-2", "0x1.af76b57c6f8f1p-2",
            "0x1.038862866b29dp-1", "0x1.2ce9146962ca4p-1", "0x1.537a89c487f8ap-1",
            "0x1.76e0931d693bap-1", "0x1.96c69481c4bc5p-1", "0x1.b2e04fd686a13p-1",
            "0x1.caea9b4574cb9p-1", "0x1.deac0259f7f42p-1", "0x1.edf5518053baap-1",
            "0x1.f8a212714bcdcp-1", "0x1.fe995e70409b6p-1",
        ),
        (
            "0x1.cbf8bc743cc5cp-8", "0x1.0aa3c248696c9p-6", "0x1.a0060a8531ffap-6",
            "0x1.18c5800a355d9p-5", "0x1.5ee963a335495p-5", "0x1.a1c6ae961fbfap-5",
            "0x1.e0bd76c924981p-5", "0x1.0d9b9a62cac10p-4", "0x1.2854103b35e0cp-4",
            "0x1.40483e126fd14p-4", "0x1.553ee25ebebc6p-4", "0x1.6705e18e13ed1p-4",
            "0x1.7572bdb3f6e51p-4", "0x1.8062fc0f6fef9p-4", "0x1.87bc776f8c6d7p-4",
            "0x1.8b6d9eaec77adp-4", "0x1.8b6d9eaec77adp-4", "0x1.87bc776f8c6d7p-4",
            "0x1.8062fc0f6fef9p-4", "0x1.7572bdb3f6e51p-4", "0x1.6705e18e13ed1p-4",
            "0x1.553ee25ebebc6p-4", "0x1.40483e126fd14p-4", "0x1.2854103b35e0cp-4",
            "0x1.0d9b9a62cac10p-4", "0x1.e0bd76c924981p-5", "0x1.a1c6ae961fbfap-5",
            "0x1.5ee963a335495p-5", "0x1.18c5800a355d9p-5", "0x1.a0060a8531ffap-6",
            "0x1.0aa3c248696c9p-6", "0x1.cbf8bc743cc5cp-8",
        ),
    ),
    ("legendre", 48): (
        (
            "-0x1.ff5ee9d8af2e2p-1", "-0x1.fcaffc9af24a4p-1", "-0x1.f7df2d6c8eed7p-1",
            "-0x1.f0f161978472fp-1", "-0x1.e7ee011520dfbp-1", "-0x1.dcdeb7610754bp-1",
            "-0x1.cfcf63e4a4e84p-1", "-0x1.c0ce0c3f55453p-1", "-0x1.afeaccf5eeb9ep-1",
            "-0x1.9d37c81006d1dp-1", "-0x1.88c91196f8e2dp-1", "-0x1.72b49a0302d99p-1",
            "-0x1.5b1216aac49a1p-1", "-0x1.41fae84d5a001p-1", "-0x1.2789ffd1f24a0p-1",
            "-0x1.0bdbc159f3714p-1", "-0x1.de1bcb894046ap-2", "-0x1.a27eb589dea3bp-2",
            "-0x1.65204357a6389p-2", "-0x1.26425a1527d42p-2", "-0x1.cc50f5488fbefp-3",
            "-0x1.4a2ef25599831p-3", "-0x1.8d54ccaa9b7b4p-4", "-0x1.094223ea6196dp-5",
            "0x1.094223ea6196dp-5", "0x1.8d54ccaa9b7b4p-4", "0x1.4a2ef25599831p-3",
            "0x1.cc50f5488fbefp-3", "0x1.26425a1527d42p-2", "0x1.65204357a6389p-2",
            "0x1.a27eb589dea3bp-2", "0x1.de1bcb894046ap-2", "0x1.0bdbc159f3714p-1",
            "0x1.2789ffd1f24a0p-1", "0x1.41fae84d5a001p-1", "0x1.5b1216aac49a1p-1",
            "0x1.72b49a0302d99p-1", "0x1.88c91196f8e2dp-1", "0x1.9d37c81006d1dp-1",
            "0x1.afeaccf5eeb9ep-1", "0x1.c0ce0c3f55453p-1", "0x1.cfcf63e4a4e84p-1",
            "0x1.dcdeb7610754bp-1", "0x1.e7ee011520dfbp-1", "0x1.f0f161978472fp-1",
            "0x1.f7df2d6c8eed7p-1", "0x1.fcaffc9af24a4p-1", "0x1.ff5ee9d8af2e2p-1",
        ),
        (
            "0x1.9d50bc55d2d99p-9", "0x1.e037f45d9bd00p-8", "0x1.781605954a639p-7",
            "0x1.fe80c5c315c9dp-7", "0x1.416423e8cba8ep-6", "0x1.822eefbc97517p-6",
            "0x1.c15b1e8f69969p-6", "0x1.fea4d40fed235p-6", "0x1.1ce51f31f701fp-5",
            "0x1.3945ed05d7d70p-5", "0x1.54565a91a8406p-5", "0x1.6df9583af719dp-5",
            "0x1.86135edf0aa09p-5", "0x1.9c8a8d5861892p-5", "0x1.b146c443c7e24p-5",
            "0x1.c431bfe4b31a0p-5", "0x1.d537300bfd4dfp-5", "0x1.e444cde6d0026p-5",
            "0x1.f14a6f9e10ad4p-5", "0x1.fc3a19b11a2a4p-5", "0x1.028406fc86d37p-4",
            "0x1.05d56c2248c44p-4", "0x1.080dac3f3725fp-4", "0x1.092a652a0fbb7p-4",
            "0x1.092a652a0fbb7p-4", "0x1.080dac3f3725fp-4", "0x1.05d56c2248c44p-4",
            "0x1.028406fc86d37p-4", "0x1.fc3a19b11a2a4p-5", "0x1.f14a6f9e10ad4p-5",
            "0x1.e444cde6d0026p-5", "0x1.d537300bfd4dfp-5", "0x1.c431bfe4b31a0p-5",
            "0x1.b146c443c7e24p-5", "0x1.9c8a8d5861892p-5", "0x1.86135edf0aa09p-5",
            "0x1.6df9583af719dp-5", "0x1.54565a91a8406p-5", "0x1.3945ed05d7d70p-5",
            "0x1.1ce51f31f701fp-5", "0x1.fea4d40fed235p-6", "0x1.c15b1e8f69969p-6",
            "0x1.822eefbc97517p-6", "0x1.416423e8cba8ep-6", "0x1.fe80c5c315c9dp-7",
            "0x1.781605954a639p-7", "0x1.e037f45d9bd00p-8", "0x1.9d50bc55d2d99p-9",
        ),
    ),
    ("half_hermite", 16): (
        (
            "0x1.43a4d943fe202p-6", "0x1.a513f794091f6p-4", "0x1.faaba11b3d42fp-3",
            "0x1.c96abc47021adp-2", "0x1.62da8f04d40a1p-1", "0x1.f57476a245e32p-1",
            "0x1.4cbefe32932d1p+0", "0x1.a65cd8f5ac84ep+0", "0x1.036e73146a6dcp+1",
            "0x1.36f83bd457568p+1", "0x1.6ddbad77ac21bp+1", "0x1.a86b20aaafb93p+1",
            "0x1.e758222400af8p+1", "0x1.15fda5781f84ap+2", "0x1.3c9171b14455dp+2",
            "0x1.6b337e6bbb1b4p+2",
        ),
        (
            "0x1.9de5d5459379ep-5", "0x1.d15734c67f866p-4", "0x1.4da9adb281143p-3",
            "0x1.77efc61c73918p-3", "0x1.52d17e153db77p-3", "0x1.dd7b1da8a6283p-4",
            "0x1.fbe6c963733b1p-5", "0x1.87e688a2b126dp-6", "0x1.a41484d24acf2p-8",
            "0x1.29b738deda19bp-10", "0x1.06be8724dcf32p-13", "0x1.0ac63cfb09ad7p-17",
            "0x1.1619965bdfaf8p-22", "0x1.f05e16b84ec08p-29", "0x1.0e82db5e0a329p-36",
            "0x1.38856a2f9e53bp-47",
        ),
    ),
    ("laguerre", 16): (
        (
            "0x1.6703117854af1p-4", "0x1.d9cd1102ad99ap-2", "0x1.241c5cc1bf249p+0",
            "0x1.108c5dd1cd77bp+1", "0x1.b7f2746f0b86bp+1", "0x1.44fe41c97e1c6p+2",
            "0x1.c4806d32eb90dp+2", "0x1.2e06abc9857b7p+3", "0x1.86daeaf76a361p+3",
            "0x1.ee20fe0126976p+3", "0x1.32e1ec27fe7a6p+4", "0x1.78412654383f3p+4",
            "0x1.c9427a1e6e6bap+4", "0x1.14aaccf056cc9p+5", "0x1.4f860c09aa106p+5",
            "0x1.9d9bf9f3bcba0p+5",
        ),
        (
            "0x1.a632dece1086ap-3", "0x1.5300d490644f7p-2", "0x1.102cc4b1964f8p-2",
            "0x1.1722d8dac8b57p-3", "0x1.83b7f51cabe64p-5", "0x1.72466ea58524dp-7",
            "0x1.e4b90cebf5ad2p-10", "0x1.ac63a643813dap-13", "0x1.f21a07c144324p-17",
            "0x1.6e97b4ced0cefp-21", "0x1.432858eef37a0p-26", "0x1.3ab7ff2e255d4p-32",
            "0x1.2b5c194674c55p-39", "0x1.c5d0fc486cbfep-48", "0x1.74a8c03aa1b9ep-58",
            "0x1.f71705b29bc99p-72",
        ),
    ),
}


def _install_rules():
    """Seed ``normal``'s rule cache with the precomputed rules (no mpmath at run time)."""
    import numpy as np

    for key, (xs, ws) in _RULES_HEX.items():
        nm._RULE_CACHE.setdefault(key, (np.array([float.fromhex(v) for v in xs]),
                                        np.array([float.fromhex(v) for v in ws])))


_install_rules()
