"""High-precision references for the network-level quantities of Section 4, from raw definitions.

Setting (Section 3): f(W, x) = (1/sqrt m) sum_r a_r ReLU(w_r^T x), W (m, d), a (m,) of +-1,
data X (n, d), y (n,); masks c_i ~ N(1, kappa^2 I_d) independent per sample; surrogate loss
L_C(W) = 1/2 sum_i (f(W, x_i . c_i) - y_i)^2 and its gradient, eq. (2),

    grad_{w_r} L_C = (a_r/sqrt m) sum_i (f(W, x_i . c_i) - y_i) (x_i . c_i) 1{w_r^T (x_i . c_i) >= 0}.

The one reduction used (the paper's key trick, Section 4) is exact: w_r^T (x . c) = c^T u_r with
u_r = w_r . x, so for one sample z_r = c^T u_r is jointly Gaussian, E z_r = mu_r = w_r^T x,
Cov(z_r, z_r') = kappa^2 u_r^T u_r' (s_r^2 = kappa^2 ||u_r||^2, correlation rho_rr').  Every
expectation is then an integral of a raw integrand done by ``numerics.core.reference`` (quadrature
of indicator x polynomial x Gaussian density).  No closed form (``numerics.core.closed_form``,
``theory``) and no other float64 kernel is called: these values judge those.

- ``expected_loss`` = E_C[L_C(W)] = 1/2 sum_i (E f_i^2 - 2 y_i E f_i + y_i^2) with
  E f_i = (1/sqrt m) sum_r a_r E[ReLU(z_r)] and
  E f_i^2 = (1/m) sum_{r, r'} a_r a_r' E[ReLU(z_r) ReLU(z_r')]   (diagonal: E[z_r^2 1{z_r >= 0}]).
- ``expected_grad`` = E_C[grad_W L_C], from eq. (2) with f_i written out:
  E[grad_{w_r}] = (a_r/sqrt m) sum_i x_i . ( (1/sqrt m) sum_r' a_r' M2(u_r, u_r') u_r'
  - y_i M1(u_r) ),  M2(u, v) = E[c c^T 1{c^T u >= 0, c^T v >= 0}] (M2(u, u) the half-space
  moment), M1(u) = E[c 1{c^T u >= 0}].
- ``theorem_4_2``: the decomposition of Theorem 4.2, E_C[L_C] = E + T1 + T2, and the bound
  (4) on |E| (fields of ``Theorem42``).

Theorem 4.2, and how E is resolved.  sigma_hat(mu, s) = mu Phi(mu/s) (Phi the standard normal
CDF; ReLU(mu) at s = 0), f_hat_i = (1/sqrt m) sum_r a_r sigma_hat(mu_ir, s_ir),
T1 = 1/2 sum_i (f_hat_i - y_i)^2,
T2 = kappa^2/(2m) sum_i || sum_r a_r u_ir Phi(mu_ir/s_ir) ||^2.
For small kappa, E is exponentially small (about exp(-(mu/s)^2/2): 1e-22 at mu/s = 10,
1e-2000 at mu/s = 100) while the loss is O(1), so E is NOT formed as the difference
expected_loss - T1 - T2 (that would need thousands of digits).  It is the same expectation,
regrouped exactly so that every term is itself small.  Per sample and neuron let
b = 1{mu >= 0}, eps = 1 - 2b, t = eps z (so t ~ N(-|mu|, s^2), a tail variable) and
P = P(t >= 0) = Phi(-|mu|/s) (P = 0 when s = 0).  Then 1{z >= 0} = b + chi with
z chi = ReLU(t) (chi = 1{t >= 0} if b = 0, -1{t > 0} if b = 1) and Phi(mu/s) = b + eps P, and

    E = sum_i [ 1/(2m) sum_{r, r'} a_r a_r' K_rr' - (y_i/sqrt m) sum_r a_r g_r ],
    g_r    = E[ReLU(t_r)] - E[t_r] P_r                   (= E[(t_r - E t_r) 1{t_r >= 0}] >= 0),
    K_rr'  = H_rr' - b_r G_{r|r'} - b_r' G_{r'|r},
    H_rr'  = E[ReLU(t_r) ReLU(t_r')] - E[t_r t_r'] P_r P_r',
    G_r|r' = E[t_r t_r' 1{t_r' >= 0}] - E[t_r t_r'] P_r',

with E[t_r t_r'] = mu_r mu_r' + kappa^2 u_r^T u_r' (exact second moment) and
E[t t' 1{t' >= 0}] = E[t t' 1{t >= 0, t' >= 0}] - E[(-t) t' 1{-t >= 0, t' >= 0}] (two raw
orthant moments); for r = r' the orthant moments are the univariate E[t^2 1{t >= 0}].  (Derivation:
insert 1 = b + chi and Phi = b + eps P into E f_i^2 - f_hat_i^2 - 2 T2_i and E f_i - f_hat_i;
the b b' terms cancel identically; the same formula holds on the diagonal because
(b + chi)^2 = b + chi.)  All raw moments here are orthant moments of tail variables, computed
by ``numerics.core.reference`` to full relative precision however small, so E is resolved to the
working precision even at 1e-2000.  The tests check E = expected_loss - T1 - T2 where the
subtraction is affordable.

Bound (4): |E| <= m n (kappa^2 R_u^2 psi_max^2 + (kappa^2 R_u^2 + kappa R_w) phi_max^2) with the
paper's phi(x) = exp(-x^2) (NOT the Gaussian density), psi(x) = |x| phi(x), phi_max / psi_max
the maxima over (r, i) of phi / psi at x_ir = w_r^T x_i / (2 kappa ||u_ir||) (note the 2 kappa),
R_w = max_r ||w_r||, R_u = max_{r,i} ||u_ir|| (Definition 4.1, eq. (3)).  Convention where the
ratio is not a number: kappa ||u_ir|| = 0 and w_r^T x_i != 0 is x = +-inf, phi = psi = 0 (the
limits); kappa ||u_ir|| = 0 and w_r^T x_i = 0 (0/0) is read as x = 0: phi = 1, which is also the
sup of phi over nearby points, and psi = psi(0) = 0, whereas the sup of psi over nearby points
would be 1/sqrt(2e).  Such a pair (r, i) has z_r = 0 surely and contributes nothing to E.

Degenerate inputs (the reference functions treat them exactly; this module feeds them exact
data): inputs are converted exactly to mpf, and u_ir, mu_ir = w_r^T x_i, ||u_ir||^2 and
u_ir^T u_ir' are exact (unrounded) sums of exact products, so the decisions below are exact.
s_ir = 0 (kappa = 0 or u_ir = 0) is the point mass z = mu with 1{mu >= 0} (equality
included; so at kappa = 0 every quantity is the clean one); the correlation is then
irrelevant and passed as 0.  Parallel pairs (always the case when d = 1) are detected by
Cauchy-Schwarz equality (u^T v)^2 = ||u||^2 ||v||^2 in exact arithmetic and passed as
rho = +-1 exactly; otherwise rho is rounded with enough extra bits that 1 - |rho| keeps full
relative precision.  The mask moments get the exact u_ir, where u = 0, kappa = 0 and parallel
(or antiparallel: a null event) normals are exact branches of ``numerics.core.reference``.

Precision ladder (DESIGN.md): each public function evaluates the whole quantity at ``dps`` and
``2 dps`` (``numerics.core.reference.ladder``; every raw moment at that precision, with its own
quadrature rule and ``GUARD_DPS`` guard digits) and returns the 2 dps value rounded to ``dps``
digits only if they agree to 10^-(dps-3) relative (the gradient relative to its largest entry;
an exact zero must be exactly zero on both rungs).  Cancellation in the final sums (a loss near
0, a gradient near a stationary point) makes the ladder fail; it is then retried with
``EXTRA_DPS`` more working digits on both rungs (same tolerance), and ``LadderError`` is raised
if none agrees.  Inputs whose quantities cancel exactly without being identically zero at
the working precision (e.g. two identical neurons with opposite a_r) can end there.
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass

import mpmath as mp
import numpy as np

from numerics.core import reference as ref
from numerics.core.reference import GUARD_DPS, LadderError, ladder

__all__ = ["EXTRA_DPS", "Theorem42", "expected_loss", "expected_grad", "theorem_4_2"]

#: extra working digits tried in turn when the ladder fails (cancellation in the final sums)
EXTRA_DPS = (0, 20, 60)


# =============================================================================== input
def _exact(name, x):
    """``x`` as an mpf equal to it exactly (floats, ints, numpy scalars, mpf)."""
    if isinstance(x, mp.mpf):
        v = x
    elif hasattr(x, "item") and getattr(x, "ndim", None) == 0:   # numpy / torch 0-d
        return _exact(name, x.item())
    elif isinstance(x, bool):
        raise ValueError(f"{name} must be a real number, got {x!r}")
    elif isinstance(x, numbers.Integral):
        with mp.workprec(max(53, int(x).bit_length())):
            v = mp.mpf(int(x))
    elif isinstance(x, (float, np.floating)):
        with mp.workprec(53):
            v = mp.mpf(float(x))
    else:
        raise ValueError(f"{name} must be a float, int or mpf, got {type(x).__name__} {x!r}")
    if not mp.isfinite(v):
        raise ValueError(f"{name} must be finite, got {x!r}")
    return v


def _array(name, A, ndim):
    """Nested tuples of exact mpf from a numpy array, torch tensor, mp.matrix or nested list."""
    if isinstance(A, mp.matrix):
        A = A.tolist()
        if ndim == 1:
            if min(len(A), len(A[0])) != 1:
                raise ValueError(f"{name} must be one-dimensional")
            A = [x for row in A for x in row]
    elif hasattr(A, "tolist"):
        A = A.tolist()

    def conv(v, depth, where):
        if depth == 0:
            return _exact(f"{name}{where}", v)
        if isinstance(v, (str, bytes)) or not hasattr(v, "__len__"):
            raise ValueError(f"{name} must be {ndim}-dimensional, got {v!r} at {name}{where}")
        return tuple(conv(w, depth - 1, f"{where}[{k}]") for k, w in enumerate(v))

    out = conv(A, ndim, "")
    if not out:
        raise ValueError(f"{name} must not be empty")
    if ndim == 2 and (not out[0] or any(len(row) != len(out[0]) for row in out)):
        raise ValueError(f"{name} must be a non-empty rectangular 2-d array")
    return out


def _xsum(terms):
    """Exact (unrounded) sum of mpfs."""
    acc = mp.mpf(0)
    for t in terms:
        acc = mp.fadd(acc, t, exact=True)
    return acc


def _xdot(u, v):
    """Exact inner product of two mpf vectors."""
    return _xsum(mp.fmul(p, q, exact=True) for p, q in zip(u, v))


class _Net:
    """Validated exact inputs and the exact data of the reduction z_r = c^T u_ir.

    u[i][r] = w_r . x_i, mu[i][r] = w_r^T x_i, nu2[i][r] = ||u_ir||^2 and
    dot[i][r][r'] = u_ir^T u_ir' are exact; precision enters only in ``scales``.
    """

    def __init__(self, W, a, X, y, kappa):
        self.W, self.a = _array("W", W, 2), _array("a", a, 1)
        self.X, self.y = _array("X", X, 2), _array("y", y, 1)
        self.kappa = _exact("kappa", kappa)
        self.m, self.d = len(self.W), len(self.W[0])
        self.n = len(self.X)
        if len(self.a) != self.m:
            raise ValueError(f"a must have m = {self.m} entries (rows of W), got {len(self.a)}")
        if len(self.X[0]) != self.d:
            raise ValueError(f"X must have d = {self.d} columns (as W), got {len(self.X[0])}")
        if len(self.y) != self.n:
            raise ValueError(f"y must have n = {self.n} entries (rows of X), got {len(self.y)}")
        if any(abs(ar) != 1 for ar in self.a):
            raise ValueError(f"a must have entries +-1, got {[mp.nstr(ar, 17) for ar in self.a]}")
        if self.kappa < 0:
            raise ValueError(f"kappa must be >= 0, got {mp.nstr(self.kappa, 17)}")
        self.u = [[tuple(mp.fmul(w, x, exact=True) for w, x in zip(wr, xi)) for wr in self.W]
                  for xi in self.X]
        self.mu = [[_xsum(ur) for ur in ui] for ui in self.u]
        self.nu2 = [[_xdot(ur, ur) for ur in ui] for ui in self.u]
        self.dot = [[[_xdot(ur, uq) for uq in ui] for ur in ui] for ui in self.u]

    def __repr__(self):
        return (f"<network n={self.n} m={self.m} d={self.d} "
                f"kappa={mp.nstr(self.kappa, 17)}>")

    def scales(self, i):
        """(s_ir, rho_i) at the working precision: s_ir = kappa ||u_ir|| and rho_i[r][r'] the
        correlation of z_r, z_r' (0 where a scale vanishes, exactly +-1 for parallel u's)."""
        s = [self.kappa * mp.sqrt(q) for q in self.nu2[i]]
        rho = [[mp.mpf(0) if s[r] == 0 or s[q] == 0 else
                _corr(self.dot[i][r][q], self.nu2[i][r], self.nu2[i][q])
                for q in range(self.m)] for r in range(self.m)]
        return s, rho


def _corr(dot, n1, n2):
    """dot / sqrt(n1 n2) for exact dot = u^T v, n1 = ||u||^2 > 0, n2 = ||v||^2 > 0.

    Exactly sign(dot) when (u^T v)^2 = ||u||^2 ||v||^2 (parallel, tested exactly); otherwise
    rounded with the bits that 1 - |rho| would lose added, so it keeps full relative precision.
    """
    prod = mp.fmul(n1, n2, exact=True)
    gap = mp.fsub(prod, mp.fmul(dot, dot, exact=True), exact=True)
    if gap == 0:
        return mp.mpf(1 if dot > 0 else -1)
    lost = max(0, mp.mag(prod) - mp.mag(gap))
    with mp.workprec(mp.mp.prec + lost + 10):
        return dot / mp.sqrt(prod)


def _resolve(fn, net, dps):
    """``ladder(fn, net, dps=dps, extra=e)`` for e in ``EXTRA_DPS``: the first that agrees."""
    failures = []
    for extra in EXTRA_DPS:
        try:
            return ladder(fn, net, dps=dps, extra=extra)
        except LadderError as exc:
            failures.append(f"extra={extra}: {exc}")
    raise LadderError(f"{fn.__name__} unresolved even with {EXTRA_DPS[-1]} extra digits:\n"
                      + "\n".join(failures))


# =============================================================================== raw moments
def _rm2(mu1, mu2, s1, s2, rho, D):
    """E[z1 z2 1{z1 >= 0, z2 >= 0}], raw orthant moment; arguments put in a canonical order
    (the quantity is symmetric) so that the reference's cache serves both orders."""
    if (mu2, s2) < (mu1, s1):
        mu1, mu2, s1, s2 = mu2, mu1, s2, s1
    return ref.relu_moment2(mu1, mu2, s1, s2, rho, dps=D, ladder=False)


def _relu1(mu, s, D):
    return ref.relu_moment1(mu, s, dps=D, ladder=False)


def _relu1_second(mu, s, D):
    return ref.relu_moment1_second(mu, s, dps=D, ladder=False)


# =============================================================================== loss
def _loss_eval(net, *, dps, extra):
    """E_C[L_C] at dps + extra digits (module docstring)."""
    D = dps + extra
    with mp.workdps(D + GUARD_DPS):
        m, a = net.m, net.a
        total = mp.mpf(0)
        for i in range(net.n):
            mu, y = net.mu[i], net.y[i]
            s, rho = net.scales(i)
            Ef = mp.fsum(a[r] * _relu1(mu[r], s[r], D) for r in range(m)) / mp.sqrt(m)
            Ef2 = mp.fsum(_relu1_second(mu[r], s[r], D) for r in range(m))
            Ef2 += 2 * mp.fsum(a[r] * a[q] * _rm2(mu[r], mu[q], s[r], s[q], rho[r][q], D)
                               for r in range(m) for q in range(r + 1, m))
            total += Ef2 / m - 2 * y * Ef + y * y
        return total / 2


def expected_loss(W, a, X, y, kappa, *, dps=30):
    """E_C[L_C(W)] = 1/2 sum_i (E f_i^2 - 2 y_i E f_i + y_i^2), c_i ~ N(1, kappa^2 I_d) (Section 3).

    E f_i = (1/sqrt m) sum_r a_r E[ReLU(z_r)], E f_i^2 = (1/m) sum_{r,r'} a_r a_r'
    E[ReLU(z_r) ReLU(z_r')], z_r = c^T (w_r . x_i) (the reduction of Section 4); each moment
    is a raw quadrature of ``numerics.core.reference``.  Ladder-checked mpf, ``dps`` digits.
    """
    return _resolve(_loss_eval, _Net(W, a, X, y, kappa), dps)


# =============================================================================== gradient
def _grad_eval(net, *, dps, extra):
    """E_C[grad_W L_C] as an (m x d) mp.matrix at dps + extra digits (module docstring)."""
    D = dps + extra
    with mp.workdps(D + GUARD_DPS):
        m, d, a, kappa = net.m, net.d, net.a, net.kappa
        sm = mp.sqrt(m)
        G = mp.zeros(m, d)
        for i in range(net.n):
            u = net.u[i]
            cols = [mp.matrix(list(ur)) for ur in u]
            M2 = {}
            for r in range(m):
                for q in range(r, m):
                    M2[r, q] = ref.mask_moment2(u[r], None if q == r else u[q], kappa,
                                                dps=D, ladder=False)
            for r in range(m):
                acc = -net.y[i] * ref.mask_moment1(u[r], kappa, dps=D, ladder=False)
                for q in range(m):
                    acc += (a[q] / sm) * (M2[min(r, q), max(r, q)] * cols[q])
                for k in range(d):
                    G[r, k] += (a[r] / sm) * net.X[i][k] * acc[k]
        return G


def expected_grad(W, a, X, y, kappa, *, dps=30):
    """E_C[grad_W L_C(W)], eq. (2), as a list of m rows of d mpf.

    E[grad_{w_r}] = (a_r/sqrt m) sum_i x_i . ( (1/sqrt m) sum_r' a_r' E[c c^T 1{c^T u_ir >= 0,
    c^T u_ir' >= 0}] u_ir' - y_i E[c 1{c^T u_ir >= 0}] ), u_ir = w_r . x_i, the mask moments
    raw quadratures of ``numerics.core.reference`` (r' = r: the half-space moment).  Ladder-checked
    as a matrix (relative to its largest entry), ``dps`` digits.
    """
    G = _resolve(_grad_eval, _Net(W, a, X, y, kappa), dps)
    return [[G[r, k] for k in range(G.cols)] for r in range(G.rows)]


# =============================================================================== Theorem 4.2
@dataclass(frozen=True)
class Theorem42:
    """The quantities of Theorem 4.2: expected_loss = E + T1 + T2 and |E| <= bound (eq. (4)),
    with the Definition 4.1 constants the bound is built from."""

    expected_loss: mp.mpf
    T1: mp.mpf
    T2: mp.mpf
    E: mp.mpf
    bound: mp.mpf
    phi_max: mp.mpf
    psi_max: mp.mpf
    R_w: mp.mpf
    R_u: mp.mpf


class _Sample:
    """One sample's terms of Theorem 4.2 at the working precision (module docstring):
    b_r = 1{mu_r >= 0}, eps_r = 1 - 2 b_r, t_r = eps_r z_r, E t_r = -|mu_r|, P_r = P(t_r >= 0)
    (0 when s_r = 0) and Phi_r = Phi(mu_r/s_r) = b_r + eps_r P_r."""

    def __init__(self, net, i, D):
        self.net, self.i, self.D = net, i, D
        self.mu = net.mu[i]
        self.s, self.rho = net.scales(i)
        self.b = [mu_r >= 0 for mu_r in self.mu]
        self.eps = [-1 if br else 1 for br in self.b]
        self.mt = [-abs(mu_r) for mu_r in self.mu]
        self.P = [mp.ncdf(mt / s) if s > 0 else mp.mpf(0) for mt, s in zip(self.mt, self.s)]
        self.Phi = [br + e * p for br, e, p in zip(self.b, self.eps, self.P)]

    def T1_T2(self):
        """(1/2 (f_hat_i - y_i)^2, kappa^2/(2m) ||sum_r a_r u_ir Phi_r||^2)."""
        net, a, m = self.net, self.net.a, self.net.m
        f_hat = mp.fsum(a[r] * self.mu[r] * self.Phi[r] for r in range(m)) / mp.sqrt(m)
        v = [mp.fsum(a[r] * net.u[self.i][r][k] * self.Phi[r] for r in range(m))
             for k in range(net.d)]
        return (f_hat - net.y[self.i]) ** 2 / 2, net.kappa ** 2 * mp.fsum(x * x for x in v) / (2 * m)

    def _tail(self, r, q):
        """(E[ReLU(t_r) ReLU(t_q)], E[t_r t_q 1{t_q >= 0}]) from raw orthant moments."""
        mt, s, D = self.mt, self.s, self.D
        if r == q:
            v = _relu1_second(mt[r], s[r], D)
            return v, v
        rt = self.eps[r] * self.eps[q] * self.rho[r][q]
        both = _rm2(mt[r], mt[q], s[r], s[q], rt, D)
        return both, both - _rm2(-mt[r], mt[q], s[r], s[q], -rt, D)

    def _K(self, r, q):
        """K_rq = H_rq - b_r G_{r|q} - b_q G_{q|r}."""
        P = self.P
        ett = (self.mt[r] * self.mt[q]
               + self.eps[r] * self.eps[q] * self.net.kappa ** 2 * self.net.dot[self.i][r][q])
        both, t_q = self._tail(r, q)
        K = both - ett * P[r] * P[q]
        if self.b[r]:
            K -= t_q - ett * P[q]
        if self.b[q]:
            K -= (t_q if r == q else self._tail(q, r)[1]) - ett * P[r]
        return K

    def E(self):
        """E_i = 1/(2m) sum_{r,r'} a_r a_r' K_rr' - (y_i/sqrt m) sum_r a_r g_r."""
        a, m, mt, P = self.net.a, self.net.m, self.mt, self.P
        quad = mp.fsum(self._K(r, r) for r in range(m))
        quad += 2 * mp.fsum(a[r] * a[q] * self._K(r, q) for r in range(m) for q in range(r + 1, m))
        lin = mp.fsum(a[r] * (_relu1(mt[r], self.s[r], self.D) - mt[r] * P[r]) for r in range(m))
        return quad / (2 * m) - self.net.y[self.i] * lin / mp.sqrt(m)

    def phi_psi(self):
        """(max_r phi(x_ir), max_r psi(x_ir)), x_ir = mu_r/(2 s_r); 0/0 read as x = 0."""
        phi, psi = [], []
        for mu, s in zip(self.mu, self.s):
            if s > 0:
                x = mu / (2 * s)
                phi.append(mp.exp(-x * x))
                psi.append(abs(x) * phi[-1])
            else:                                  # x = +-inf (phi = psi = 0) or 0/0 (x = 0)
                phi.append(mp.mpf(1 if mu == 0 else 0))
                psi.append(mp.mpf(0))
        return max(phi), max(psi)


def _theorem_eval(net, *, dps, extra):
    """(T1, T2, E, bound, phi_max, psi_max, R_w, R_u) at dps + extra digits (module docstring)."""
    D = dps + extra
    with mp.workdps(D + GUARD_DPS):
        samples = [_Sample(net, i, D) for i in range(net.n)]
        T1s, T2s = zip(*(smp.T1_T2() for smp in samples))
        phis, psis = zip(*(smp.phi_psi() for smp in samples))
        T1, T2, phi_max, psi_max = mp.fsum(T1s), mp.fsum(T2s), max(phis), max(psis)
        E = mp.fsum(smp.E() for smp in samples)
        R_w = max(mp.sqrt(_xdot(wr, wr)) for wr in net.W)
        R_u = max(mp.sqrt(q) for row in net.nu2 for q in row)
        kR2 = net.kappa ** 2 * R_u ** 2
        bound = net.m * net.n * (kR2 * psi_max ** 2 + (kR2 + net.kappa * R_w) * phi_max ** 2)
        return T1, T2, E, bound, phi_max, psi_max, R_w, R_u


def theorem_4_2(W, a, X, y, kappa, *, dps=30):
    """Theorem 4.2: E_C[L_C(W)] = E + T1 + T2 with |E| <= m n (kappa^2 R_u^2 psi_max^2
    + (kappa^2 R_u^2 + kappa R_w) phi_max^2) (eq. (4), Definition 4.1), as a ``Theorem42``.

    T1 = 1/2 sum_i (f_hat_i - y_i)^2 with f_hat_i = (1/sqrt m) sum_r a_r w_r^T x_i
    Phi(w_r^T x_i / (kappa ||u_ir||)); T2 = kappa^2/(2m) sum_i ||sum_r a_r u_ir Phi(.)||^2;
    E computed directly as a sum of small raw moments (module docstring), so it is resolved
    to ``dps`` digits however small; phi(x) = exp(-x^2), psi(x) = |x| phi(x), arguments
    w_r^T x_i / (2 kappa ||u_ir||), 0/0 read as 0 (phi = 1, psi = 0).  ``expected_loss`` is
    the independent direct value of ``expected_loss()``.  Every field is ladder-checked on
    its own (E relative to E).  The hypothesis B_y <= 3 sqrt(m) R_w is not checked here.
    """
    net = _Net(W, a, X, y, kappa)
    T1, T2, E, bound, phi_max, psi_max, R_w, R_u = _resolve(_theorem_eval, net, dps)
    return Theorem42(expected_loss=_resolve(_loss_eval, net, dps), T1=T1, T2=T2, E=E,
                     bound=bound, phi_max=phi_max, psi_max=psi_max, R_w=R_w, R_u=R_u)
