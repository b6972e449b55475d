r"""Standard bivariate normal CDF and orthant moments in torch, relatively accurate.

For (Y1, Y2) standard bivariate normal with correlation rho:

* ``bvn_cdf(h, k, rho)``      Phi2 = P(Y1 <= h, Y2 <= k)
* ``orthant_m1(a1, a2, rho)`` N1   = E[(a1 - Y1) 1{Y1 <= a1, Y2 <= a2}]
* ``orthant_m2(a1, a2, rho)`` M    = E[(a1 - Y1)_+ (a2 - Y2)_+]
* ``orthant_m11(a1, a2, rho)`` M11 = E[(a1 - Y1)^2 1{Y1 <= a1, Y2 <= a2}]

(``orthant_moments`` returns all four at once, sharing the work.)

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

Near |rho| = 1 every public function accepts an optional accurate q = sqrt(1 - rho^2)
(keyword ``q``): 1 - |rho| is then q^2/(1 + |rho|) in double-double and all the
cancelling differences (1 -+ rho, rho h - k, a1 - rho a2) are formed from it.  The
quadrature rules are stored precomputed (``_RULES_HEX``), so no call builds them.

Fast paths (``bvn_cdf`` only, without ``q``; ``_fast_paths``): rows where a cheap,
conservative bound shows the Plackett integral from 0, from +1 or from -1 to be below
e^-39 of its (positive) base get that base (Phi(h)Phi(k), Phi(min(h, k)),
P(-k <= Y <= h)); rows with |rho| <= 1 - 1e-6, max(|h|, |k|) <= 10 (8) and a range of the
exponent over [0, rho] of at most 15 (40) use one Gauss-Legendre rule from rho = 0 (for
rho < 0 only where Phi(h)Phi(k) <= 2 Phi2, unless ``relative=False``): 24 nodes in theta
for |rho| <= 0.9; beyond, 32 (|rho| <= 0.99) or 48 nodes in s = atanh(r), where
d theta = sech s ds and the exponent (H sinh s - K cosh s)^2/2 is entire, so that the
rule's only singularities stay at distance pi/2 as |rho| -> 1.  Rows with rho < 0 whose
peak kappa lies outside [-1, rho] with an exponent excess E(rho) - H^2/2 >= 2 (any
max(|h|, |k|) <= 1e3) are integrated from rho = -1 instead, P(-k <= Y <= h) plus a
positive integral, with one 24-node rule in the variable D = sqrt(2 (E - H^2/2)), where
the integrand is a Gaussian times a weight whose singularities sit on the imaginary axis
(``_fast_p_m1``).  Everything else takes the general path above, unchanged
(``_FAST_P = False`` switches the fast paths off).

References: R. L. Plackett (1954), Biometrika 41, 351-360; Z. Drezner & G. O.
Wesolowsky (1990), J. Statist. Comput. Simul. 35, 101-107; A. Genz (2004), Statistics
and Computing 14, 251-260 (the Gauss-Legendre-in-asin(r) scheme that this refines).
"""
from __future__ import annotations

import math
import sys
from typing import NamedTuple

import torch

from . import ddarith as dd
from . import normal as nm

__all__ = ["bvn_cdf", "orthant_m1", "orthant_m2", "orthant_m11", "orthant_moments"]

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
#: is at least _HRH_A and that extend past u = 6.2; Gauss-Laguerre in s = E - E(start)
#: for end pieces with u_s = |h| v_s >= _LAG_U that extend past s = 40.
_HRH_TIERS, _HRH_UE = ((4.0, 16),), 6.2
_LAG_TIERS, _LAG_SE = ((4.0, 16),), 40.0
_FAST = True
#: Use the fast path of ``bvn_cdf`` (see :func:`_fast_p`).
_FAST_P = True
#: On the CPU, take the fast paths from their compiled twin (``numerics.core.bvn_compiled``:
#: the same routing and rules row by row in numba, ~1.7x less CPU time than the tensor
#: formulation, which CUDA tensors and ``_COMPILED = False`` use; tests hold the two together).
_COMPILED = True
#: Run the fast paths as masks over whole chunks, without host synchronisations
#: (:func:`_fast_paths_masked`): None = on every device but the CPU; True/False force it.
_MASKED = None
_ALPHA_FLOOR = 1e-8
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


# ------------------------------------------------------------------ double-double tools
# (public in ``numerics.core.ddarith``; the private aliases keep this module's code unchanged)
_two_sum, _two_prod = dd.two_sum, dd.two_prod
_dd_add, _dd_mul, _dd_div = dd.dd_add, dd.dd_mul, dd.dd_div


def _exp_neg_dd(eh, el):
    """exp(-(eh + el)) for a double-double exponent (el << ulp(eh))."""
    return torch.exp(-eh) * (1.0 - el)


def _expm1_sinh_cosh(w):
    em = torch.expm1(w)
    ep = 1.0 + em
    sh = 0.5 * em * (em + 2.0) / ep
    ch = 0.5 * (ep + 1.0 / ep)
    return sh, ch


# ------------------------------------------------------------------------ the pieces
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


def _core(a1, a2, rho, want, q=None):
    """All requested quantities for finite a1, a2 and |rho| < 1 (1-D tensors); ``q``
    (optional, q > 0) is an accurate sqrt(1 - rho^2), see :func:`bvn_cdf`."""
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
    exp_s = _exp_neg_dd(Es_h, Es_l)
    exp_0 = _exp_neg_dd(E0_h, E0_l)
    exp_r = _exp_neg_dd(Er_h, Er_l)

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
        phi_a2 = nm.pdf(a2)
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
        F_0 = phi_a2 * nm.cdf(a1)
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
        base = based(lambda i: nm.cdf(a1[i]) * nm.cdf(a2[i]),
                     lambda A, B, i: nm.interval_prob(A, B))
        out["P"] = base + comb("P")
    if "M" in want:
        base = based(
            lambda i: nm.partial_moment1(a1[i]) * nm.partial_moment1(a2[i])
            + rho[i] * nm.cdf(a1[i]) * nm.cdf(a2[i]),
            lambda A, B, i: nm.interval_moment(A, B, 1, 1) + opr[i] * nm.interval_prob(A, B),
        )
        out["M"] = base + comb("M")
    if "N1" in want:
        base = based(lambda i: nm.partial_moment1(a1[i]) * nm.cdf(a2[i]),
                     lambda A, B, i: nm.interval_moment(A, B, 1, 0))
        bD = drD * torch.where(etD, F_rho, F_startD)
        bM = drM * torch.where(etM, F_base, F_startM)
        bnd = torch.where(exD, bD, zero) + torch.where(exM, bM, zero)
        out["N1"] = base + bnd + comb("N1")
    if "M11" in want:
        base = based(lambda i: nm.partial_moment2(a1[i]) * nm.cdf(a2[i]),
                     lambda A, B, i: nm.interval_moment(A, B, 2, 0))
        bD = drD * (ell_startD + ell_rho.abs()) * F_startD
        bM = drM * (ell_startM + ell_base.abs()) * F_startM
        bnd = torch.where(exD & ~etD, bD, zero) + torch.where(exM & ~etM, bM, zero)
        out["M11"] = base + bnd + comb("M11")
    return out


# ------------------------------------------------------------------ fast path (P only)
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
_FP_BLOCK = 4096
#: Rows whose Plackett integral is below e^-_FP_NEGL Phi(h)Phi(k) get Phi(h)Phi(k).
_FP_NEGL = 39.0


def _log_cdf_lower(x):
    """A cheap lower bound on log Phi(x): -t^2/2 - log sqrt(2 pi) + log(|t|/(1 + t^2)) at
    t = min(x, -1) (Mills ratio R(s) >= s/(1 + s^2), Phi increasing).  No ``where``
    (slow on the CPU)."""
    t = torch.clamp(x, max=-1.0)
    return -0.5 * t * t - 0.9189385332046728 + torch.log(-t / (1.0 + t * t))


def _pick(c, a, b):
    """where(c, a, b) for finite a, b, as an exact blend (``torch.where`` is slow on the
    CPU); non-finite entries give nan/inf, which only ever fail the routing tests."""
    cf = c.to(a.dtype)
    return a * cf + b * (1.0 - cf)


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


def _compiled_fast_paths(a1, a2, rho, interior, res, relative):
    """:func:`_fast_paths` by ``numerics.core.bvn_compiled`` (CPU tensors), with this module's
    thresholds and rules passed in as data."""
    bc = _compiled_module()
    rules = tuple(tuple(t.numpy() for t in nm.gauss_legendre(n, "cpu"))
                  for n in (_FP_N_SMALL, _FP_N, _FP_N_S[0], _FP_N_S[1], _FP_JN, nm._GL_SHORT))
    P, done = bc.fast_paths(a1.numpy(), a2.numpy(), rho.numpy(), interior.numpy(), relative,
                            bc.parameters(sys.modules[__name__]), rules, torch.get_num_threads())
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
        res["P"].index_copy_(0, ij, _fast_p_m1(a1[ij], a2[ij], rho[ij]))
        done[ij] = True
    return done if bool(done.any()) else None


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
    v = torch.where(first, v, torch.where(okm, vm, _fast_p_m1(a1, a2, rho, masked=True)))
    done = first | okm | dj
    res["P"] = torch.where(done, v, res["P"])
    return done


def _fast_p(h, k, rho, rng, masked=False):
    """The Plackett integral Phi2 - Phi(h)Phi(k) = (1/2pi) int_0^{asin rho} exp(-E(theta))
    dtheta with one Gauss-Legendre rule, E written as H^2/2 + F, |H| >= |K|, H, K = h, k
    or k, h (exp(-H^2/2) via ``normal.exp_half_sq``; no cancellation).  For rho >= 0 it is
    added to the positive Phi(h)Phi(k); for rho < 0 it is negative (callers check the
    cancellation).  ``rng``: the range of F over the rows' ranges (``_Route.rng``).  Two
    variables, by |rho| (:func:`_fast_p_rule`):

    * theta = asin r (|rho| <= _FP_RHO, _FP_N nodes; _FP_N_SMALL where |rho| <=
      _FP_RHO_SMALL and rng <= _FP_DF_SMALL, which on 2e5 fuzzed rows agree with the
      general path as closely as _FP_N do, ~4e-15): F = (r H - K)^2 / (2 (1 - r)(1 + r));
    * s = atanh r (|rho| up to _FP_RHO_MAX): r = tanh s, d theta = sech s ds and
      F = (H sinh s - K cosh s)^2 / 2, an entire function of s, so the only singularities
      of the integrand are the poles of sech at s = +-i pi/2, at a fixed distance from the
      range [0, atanh rho] however close |rho| is to 1 (in theta the pole of F at
      theta = pi/2 sits acos|rho| beyond the range's end and would spoil any fixed rule).

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


def _block(t) -> int:
    """Rows per (rows x nodes) block of the fixed rules: _FP_BLOCK on the CPU (temporaries
    near the caches), the whole chunk on a device (one kernel launch per operation)."""
    return _FP_BLOCK if t.device.type == "cpu" else max(1, t.shape[0])


def _fast_p_rule(h, k, rho, n, var):
    """:func:`_fast_p` with an n-node rule in ``var`` ("theta" or "s") on every row."""
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


def _fast_p_m1(h, k, rho, masked=False):
    """Phi2 for rho < 0 from rho = -1: P(-k <= Y <= h) + (1/2pi) int_{-pi/2}^{asin rho}
    exp(-E) dtheta, every term positive, for rows whose exponent excess F(rho) = E(rho) -
    H^2/2 is >= _FP_JF with the peak kappa = K/H outside [-1, rho] (``jm1`` of
    :func:`_fast_p_route`).

    With r = -tanh t, t >= T = atanh|rho|, and u = e^-t in (0, U], U = sqrt((1 - |rho|) /
    (1 + |rho|)): E = H^2/2 + D^2/2, D = (p/u - q u)/2, p = |H + K|, q = |H - K|
    (p q = H^2 - K^2 >= 0), and d theta = 2 du/(1 + u^2).  D decreases from +inf to
    D_U = sqrt(2 F(rho)) > 0, so in the variable D

        int = exp(-H^2/2) int_{D_U}^inf exp(-D^2/2) 2u / (R (1 + u^2)) dD,

    u = p/(D + R), R = sqrt(D^2 + p q) >= D (rationalised: no cancellation, no 0/0 as
    p -> 0).  The weight's singularities (R = 0 at D = +-i sqrt(pq), u = +-i at D = +-iH)
    lie on the imaginary axis, at distance >= D_U >= sqrt(2 _FP_JF) from the range, which
    one _FP_JN-node Gauss-Legendre rule covers up to exp(-(D^2 - D_U^2)/2) = e^-_FP_JL.
    exp(-E(rho)) = exp(-H^2/2) exp(-F(rho)) comes from ``normal.exp_half_sq`` and F(rho)
    in double-double (:func:`_excess_dd`), so values down to 1e-300 keep relative accuracy.
    """
    sw = h.abs() >= k.abs()
    H, K = _pick(sw, h, k), _pick(sw, k, h)
    p, q = (H + K).abs(), (H - K).abs()
    fh, fl = _excess_dd(H, K, rho)
    DU = torch.sqrt(2.0 * fh)
    half = 0.5 * (torch.sqrt(DU * DU + 2.0 * _FP_JL) - DU)
    x, w = nm.gauss_legendre(_FP_JN, h.device, h.dtype)
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


# ----------------------------------------------------------------------- public API
def _flat(*xs):
    dev = next((x.device for x in xs if torch.is_tensor(x)), None)
    xs = [x if torch.is_tensor(x) else torch.as_tensor(x, dtype=torch.float64, device=dev) for x in xs]
    xs = torch.broadcast_tensors(*xs)
    shape = xs[0].shape
    return [x.reshape(-1).to(torch.float64) for x in xs], shape


def _limits_rho1(a1, a2, sign, want):
    """Exact values at rho = +1 (sign > 0) and rho = -1 (sign < 0)."""
    out = {}
    if sign > 0:
        m = torch.minimum(a1, a2)
        d1, d2 = a1 - m, a2 - m
        zero = torch.zeros_like(m)
        Pm = nm.cdf(m)
        if "P" in want:
            out["P"] = Pm
        if want != ("P",):
            g1m = nm.partial_moment1(m)
            if "N1" in want:
                out["N1"] = torch.where(d1 > 0, d1 * Pm, zero) + g1m
            if "M" in want or "M11" in want:
                g2m = nm.partial_moment2(m)
                if "M" in want:
                    out["M"] = g2m + (d1 + d2) * g1m
                if "M11" in want:
                    out["M11"] = torch.where(d1 > 0, d1 * d1 * Pm + 2.0 * d1 * g1m, zero) + g2m
    else:
        A, B = -a2, a1
        if "P" in want:
            out["P"] = nm.interval_prob(A, B)
        if "N1" in want:
            out["N1"] = nm.interval_moment(A, B, 1, 0)
        if "M" in want:
            out["M"] = nm.interval_moment(A, B, 1, 1)
        if "M11" in want:
            out["M11"] = nm.interval_moment(A, B, 2, 0)
    return out


def _evaluate(a1, a2, rho, want, q=None, relative=True):
    want = tuple(want)
    if q is None:
        (a1, a2, rho), shape = _flat(a1, a2, rho)
    else:
        (a1, a2, rho, q), shape = _flat(a1, a2, rho, q)
    n = a1.shape[0]
    outs = {k: torch.empty(n, dtype=torch.float64, device=a1.device) for k in want}
    chunk = _CHUNK if a1.device.type == "cpu" else _CHUNK_DEVICE
    for s in range(0, n, chunk):
        sl = slice(s, s + chunk)
        vals = _evaluate_chunk(a1[sl], a2[sl], rho[sl], want, None if q is None else q[sl], relative)
        for k in want:
            outs[k][sl] = vals[k]
    return {k: v.reshape(shape) for k, v in outs.items()}


def _evaluate_chunk(a1, a2, rho, want, q=None, relative=True):
    n = a1.shape[0]
    dev, dt = a1.device, a1.dtype
    res = {k: torch.zeros(n, dtype=dt, device=dev) for k in want}
    fin = torch.isfinite(a1) & torch.isfinite(a2)
    if q is None:
        groups = (
            (fin & (rho < 1.0) & (rho > -1.0), lambda x, y, r, i: _core(x, y, r, want)),
            (fin & (rho >= 1.0), lambda x, y, r, i: _limits_rho1(x, y, +1, want)),
            (fin & (rho <= -1.0), lambda x, y, r, i: _limits_rho1(x, y, -1, want)),
        )
    else:
        # q decides: q > 0 is the interior (even where rho rounds to +-1), q = 0 the limits
        qpos = q > 0
        groups = (
            (fin & qpos, lambda x, y, r, i: _core(x, y, r, want, q[i])),
            (fin & ~qpos & (rho >= 0), lambda x, y, r, i: _limits_rho1(x, y, +1, want)),
            (fin & ~qpos & (rho < 0), lambda x, y, r, i: _limits_rho1(x, y, -1, want)),
        )
    if _FAST_P and want == ("P",) and q is None:
        interior = groups[0][0]
        done = _fast_paths(a1, a2, rho, interior, res, relative)
        if done is not None:
            groups = ((interior & ~done, groups[0][1]),) + groups[1:]
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
        _beyond_clamp(a1, a2, rho, fin, res)
    idx = torch.nonzero(~fin).squeeze(-1)
    if idx.numel():
        x, y = a1[idx], a2[idx]
        zero = torch.zeros_like(x)
        xf = torch.where(torch.isfinite(x), x, zero)
        xn, yn = torch.isneginf(x), torch.isneginf(y)
        xp, yp = torch.isposinf(x), torch.isposinf(y)
        inf = torch.full_like(x, math.inf)
        for k in want:
            if k == "P":
                v = torch.where(yp, nm.cdf(x), nm.cdf(y))  # one of them is +inf
            elif k == "N1":
                v = torch.where(xp, inf, nm.partial_moment1(xf))
            elif k == "M":
                v = inf
            else:
                v = torch.where(xp, inf, nm.partial_moment2(xf))
            v = torch.where(xn | yn, zero, v)
            res[k] = res[k].index_copy(0, idx, v)
    return res


def _beyond_clamp(a1, a2, rho, fin, res):
    """The moments on finite rows with a1 > _ARG_CLAMP (N1, M, M11) or a2 > _ARG_CLAMP (M),
    which the clamped quadrature would cap.  There {Y1 <= a1} (resp. {Y2 <= a2}) is certain to
    within Phi(-1e100), and Y1 = rho Y2 + q Z gives exactly (up to that)

        N1  = a1 Phi(a2) + rho phi(a2),
        M11 = a1^2 Phi(a2) + 2 a1 rho phi(a2) + Phi(a2) - rho^2 a2 phi(a2),
        M   = a1 g1(a2) + rho Phi(a2)   (the roles swapped when only a2 is large).

    Every term after the first is at most (|a2| + 2)/a1 < 1e-98 of it (phi(a) <= (|a| + 1)
    Phi(a), Phi(a) <= (|a| + 2) g1(a)), far below float64's resolution, so the leading terms
    are the float64 values: a1 Phi(a2), a1^2 Phi(a2) (0 where Phi(a2) underflows; inf where
    a1^2 overflows, as the value does) and a1 g1(a2)."""
    big1, big2 = fin & (a1 > _ARG_CLAMP), fin & (a2 > _ARG_CLAMP)
    if not bool((big1 | big2).any()):
        return
    i = torch.nonzero(big1).squeeze(-1)
    if i.numel() and ("N1" in res or "M11" in res):
        x, P = a1[i], nm.cdf(a2[i])
        if "N1" in res:
            res["N1"] = res["N1"].index_copy(0, i, x * P)
        if "M11" in res:
            res["M11"] = res["M11"].index_copy(0, i, torch.where(P > 0, x * x * P, torch.zeros_like(P)))
    i = torch.nonzero(big1 | big2).squeeze(-1)
    if "M" in res and i.numel():
        b = big1[i]
        x, y = torch.where(b, a1[i], a2[i]), torch.where(b, a2[i], a1[i])  # x the large one
        res["M"] = res["M"].index_copy(0, i, x * nm.partial_moment1(y))


def bvn_cdf(h: torch.Tensor, k: torch.Tensor, rho: torch.Tensor, *, q=None,
            relative: bool = True) -> torch.Tensor:
    """Phi2(h, k; rho) = P(Y1 <= h, Y2 <= k) for the standard bivariate normal.

    h, k may be +-inf; rho in [-1, 1] (Phi2(h, k; 1) = Phi(min(h, k)), Phi2(h, k; -1) =
    P(-k <= Y <= h)).  Computed as Phi(h)Phi(k) + int_0^rho phi2 dr for rho >= 0 and as
    P(-k <= Y <= h) + int_{-1}^rho phi2 dr for rho < 0 (Plackett 1954); see the module
    docstring for the quadrature.  Relative error <= 1e-13 wherever the value is a
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
    """
    return _evaluate(h, k, rho, ("P",), q, relative)["P"]


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


def orthant_moments(a1: torch.Tensor, a2: torch.Tensor, rho: torch.Tensor, *, q=None) -> dict:
    """All four quantities at once: {'P': Phi2, 'N1': N1, 'M': M, 'M11': M11}.
    ``q``: optional accurate sqrt(1 - rho^2), as in :func:`bvn_cdf`."""
    return _evaluate(a1, a2, rho, _WANT_ALL, q)
