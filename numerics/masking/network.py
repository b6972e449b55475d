"""The two-layer network of Section 3 under Gaussian input masks: raw and exact.

Setting (Section 3; DESIGN.md's stable names).  W: (m, d), a: (m,) of +-1, X: (n, d),
y: (n,);  f(W, x) = m^{-1/2} sum_r a_r ReLU(w_r^T x);  a mask c_i ~ N(1, kappa^2 I_d) per
sample;  L_C(W) = 1/2 sum_i (f(W, x_i . c_i) - y_i)^2, and eq. (2)'s gradient.

Raw (what Monte Carlo samples):  ``masked_output``, ``surrogate_loss`` and
``surrogate_grad`` (torch autograd of L_C, one gradient per mask draw), ``monte_carlo``.

Exact (no sampling):  with u_ir = w_r . x_i, z_ir = w_r^T(x_i . c) = c^T u_ir is normal
with mean mu_ir = w_r^T x_i, standard deviation s_ir = kappa ||u_ir|| and
corr(z_ir, z_ir') = rho = u_ir^T u_ir' / (||u_ir|| ||u_ir'||) (the proof sketch of
Theorem 4.2, with the kappa^2 the sketch omits: erratum masking:E1).  Per sample i and
ordered pair of neurons (1, 2) = (r, r'), with a_j = mu_j/s_j, q = sqrt(1 - rho^2),
b_1 = (a_1 - rho a_2)/q, b_2 = (a_2 - rho a_1)/q, P = Phi_2(a_1, a_2; rho),
T_1 = varphi(a_1) Phi(b_2), T_2 = varphi(a_2) Phi(b_1), Q = q varphi(a_1) varphi(b_2):

- E[z_1 z_2 1{z_1, z_2 >= 0}] = (mu_1 mu_2 + rho s_1 s_2) P + mu_1 s_2 T_2 + mu_2 s_1 T_1
  + s_1 s_2 Q  (Rosenbaum 1961; ``lemma.relu_moment2``), so
  E_C[L_C] = 1/2 sum_i (E f_i^2 - 2 y_i E f_i + y_i^2) with E f_i from sigma_tilde and
  E f_i^2 = m^{-1} sum_{r, r'} a_r a_r' E[ReLU(z_ir) ReLU(z_ir')].
- E[c ReLU(z_2) 1{z_1 >= 0}] = F 1 + kappa H u_hat_1 + kappa^2 P u_2 by Stein's identity
  (c = 1 + kappa g; E[g h(z_1, z_2)] = kappa u_1 E[d_1 h] + kappa u_2 E[d_2 h]), with
  F = E[z_2 1{z_1, z_2 >= 0}] = mu_2 P + s_2 (T_2 + rho T_1) and
  H = s_1 p_{z_1}(0) E[ReLU(z_2) | z_1 = 0] = (mu_2 - rho s_2 a_1) T_1 + s_2 Q.
  This is mask_moment2(u_1, u_2, kappa) u_2 of the proof sketch of Theorem 4.9 in O(1)
  per pair instead of O(d^2); with mask_moment1 = Phi(a_1) 1 + kappa varphi(a_1) u_hat_1:
  E_C[grad_{w_r} L_C] = a_r m^{-1/2} sum_i x_i . (m^{-1/2} sum_r' a_r' E[c ReLU(z_ir') 1{z_ir >= 0}]
  - y_i E[c 1{z_ir >= 0}]).

Degenerate cases are exact: s = 0 (kappa = 0 or w_r . x_i = 0) means z = mu surely with
1{0 >= 0} = 1, taken as a = +-1e8 (every Gaussian factor there is 0 or 1 in float64);
a degenerate member (s = 0) gives the pair rho = 0; a pair with q = 0 (parallel neurons, forced when d = 1) takes the
q -> 0+ limits of Phi(b) (1, 1/2, 0 as the numerator is >, =, < 0).

Accuracy.  The closed forms are evaluated as written, so they are accurate normwise:
the error of each pair term is a few eps times (|mu_1 mu_2| + s_1 s_2), and of the sums
a few eps times the sums of absolute terms; P comes from ``numerics.core.bvn`` (see
below), and q from ||u_hat - v_hat|| ||u_hat + v_hat|| / 2 when |rho| > 0.9, which has
absolute error ~eps instead of the sqrt(eps) of sqrt(1 - rho^2).  The pair-level lemmas
in ``numerics.core.closed_form`` are the accurate-in-the-tails kernels; here the sums are
what matter (Theorem 4.2 is about sums), and the cost is what matters at Fig. 3's size:
P is asked for with ``relative=False`` (its error <= 1e-14 Phi(a_1)Phi(a_2), not 1e-14 P,
which is all the pair sums need and lets the fast rule take the rho < 0 pairs
whose integral cancels against Phi(a_1)Phi(a_2), ~11 % of Fig. 3's pairs), and with an absolute
error of at most 2^-60 (``atol``; P's coefficients are at most |mu_1 mu_2| + s_1 s_2), which lets the
pairs whose P a one-dimensional tail pins (a neuron almost surely off or on: at kappa = 0.05 99 % of
the pairs the general path would take) skip that path.
Work is chunked over samples so that peak memory stays near ``pair_budget`` pair
values (about 40 float64 temporaries each).

On the CPU (float64) the exact pass runs as one compiled pair kernel instead
(``numerics.masking.pair_kernel``: each pair once, in registers, on ``threads`` threads, the same
bits for every thread count), which states the pass's normwise contract (``CONTRACT``); this tensor
formulation stays the reference it is held to and the CUDA path (``_PAIR_KERNEL``).
"""
from __future__ import annotations

import functools

import math
from dataclasses import dataclass

import torch

from numerics.core import bvn
from numerics.core import normal
from numerics.core.closed_form import _plane
from numerics.core.arrays import DTYPE, NONNEG, REAL, _as_tensor, check_finite_result
from numerics.core.montecarlo import Estimate

#: |a| is clamped here: beyond, every Gaussian factor is 0 or 1 in float64, and the
#: products with a (b = (a_2 - rho a_1)/q) keep their sign without overflowing
_A_CLAMP = 1e8
#: above this |rho|, q = sqrt(1 - rho^2) is recomputed from the vectors themselves
_RHO_REFINE = 0.9
#: the pass's normwise accuracy contract (``numerics.masking.pair_kernel``'s docstring): the computed
#: E_C[L_C] within CONTRACT times ``term_sizes``' loss size of the exact value, each entry of
#: E_C[grad L_C] within CONTRACT times its gradient size; the pass's own tolerances derive from it
CONTRACT = 64 * 2.0**-52
#: P's share of the contract, as an absolute error (``bvn.bvn_cdf(atol=...)``): each pair term
#: multiplies P by at most |mu_1 mu_2| + s_1 s_2, the scale its error is judged against, so
#: CONTRACT * 2^-14 = 2^-60 is below 1/256 of a unit of that rounding; it lets the pairs of a neuron
#: that is almost surely off (or on) skip the general path
_P_SHARE = 2.0**-14
_P_ATOL = CONTRACT * _P_SHARE
#: the domain of the masked expectations: every pre-activation mean |w_r . x_i| and scale
#: kappa ||w_r (.) x_i|| at most this, so that each pair term (at most |mu_1 mu_2| + s_1 s_2 <= 1e300)
#: and a sum of m^2 n of them stay finite in float64 for m^2 n up to 1e8; beyond it a ValueError
#: (the values themselves would overflow: at kappa = 1e160 E_C[L_C] is inf - inf)
SCALE_MAX = 1e150
#: default number of pair values evaluated at once (memory ~ 40 * 8 bytes each)
PAIR_BUDGET = 2_000_000
#: CPU float64 passes take the compiled pair kernel (``numerics.masking.pair_kernel``: each pair once,
#: in registers, on ``threads`` threads); False (or a CUDA tensor, or no numba) takes the tensor
#: formulation below, the reference both are held to
_PAIR_KERNEL = True


def _validate(W, a=None, X=None, y=None, kappa=None):
    """Convert to float64 tensors and check shapes and domains; ValueError on bad input."""
    given = [v for v in (W, a, X, y) if v is not None]
    device = next((v.device for v in given if isinstance(v, torch.Tensor)), None)
    W = _as_tensor("W", W, device)
    REAL.check("W", W)
    if W.ndim != 2:
        raise ValueError(f"W must have shape (m, d), got {tuple(W.shape)}")
    m, d = W.shape
    if m == 0 or d == 0:
        raise ValueError(f"W must have m >= 1 neurons and d >= 1 inputs, got {tuple(W.shape)}")
    out = {"W": W}
    if a is not None:
        a = _as_tensor("a", a, device)
        if a.shape != (m,):
            raise ValueError(f"a must have shape (m,) = ({m},), got {tuple(a.shape)}")
        if not bool(((a == 1) | (a == -1)).all()):
            raise ValueError("a must have entries +1 or -1 (Section 3: a_r in {-1, 1})")
        out["a"] = a
    if X is not None:
        X = _as_tensor("X", X, device)
        REAL.check("X", X)
        if X.ndim != 2 or X.shape[1] != d or X.shape[0] == 0:
            raise ValueError(f"X must have shape (n, d) with d = {d} (from W), got {tuple(X.shape)}")
        out["X"] = X
    if y is not None:
        y = _as_tensor("y", y, device)
        REAL.check("y", y)
        n = X.shape[0] if X is not None else y.shape[0]
        if y.shape != (n,):
            raise ValueError(f"y must have shape (n,) = ({n},), got {tuple(y.shape)}")
        out["y"] = y
    if kappa is not None:
        kappa = _as_tensor("kappa", kappa, device)
        NONNEG.check("kappa", kappa)
        if kappa.ndim != 0:
            raise ValueError(f"kappa must be a scalar, got shape {tuple(kappa.shape)}")
        out["kappa"] = kappa
        if X is not None:
            _check_scales(W, X, kappa)
    use_torch = any(isinstance(v, torch.Tensor) for v in given)
    return out, use_torch


def _check_scales(W, X, kappa) -> None:
    """ValueError unless max |w_r . x_i| and kappa max ||w_r (.) x_i|| are at most ``SCALE_MAX``."""
    mu = float((W @ X.T).abs().max())
    s = float(kappa) * float(torch.sqrt((W**2) @ (X**2).T).max())
    if not (mu <= SCALE_MAX and s <= SCALE_MAX):
        raise ValueError(f"outside the domain of the masked expectations: max |w.x| = {mu:.3g} and "
                         f"kappa max ||w (.) x|| = {s:.3g} must be at most {SCALE_MAX:g} (float64 would overflow)")


def _back(use_torch: bool, t: torch.Tensor):
    if use_torch:
        return t
    arr = t.detach().cpu().numpy()
    return arr[()] if arr.ndim == 0 else arr


def ntk_gram(X):
    """H^inf of eq. (11) (DESIGN.md's stable name; implemented in ``numerics.masking.ntk``, imported
    lazily so that this module needs no python-flint)."""
    from .ntk import ntk_gram as gram

    return gram(X)


def lambda0(X):
    """lambda_min(H^inf) (eq. (11); ``numerics.masking.ntk.lambda0``)."""
    from .ntk import lambda0 as lam

    return lam(X)


# ----------------------------------------------------------------------------- raw network

def output(W, a, X):
    """The clean network f(W, x_i) = m^{-1/2} sum_r a_r ReLU(w_r^T x_i), shape (n,)."""
    t, use_torch = _validate(W, a, X)
    return _back(use_torch, _output(t["W"], t["a"], t["X"]))


def _output(W, a, X):
    return torch.relu(X @ W.T) @ a / math.sqrt(W.shape[0])


def clean_loss(W, a, X, y):
    """L(W) = 1/2 sum_i (f(W, x_i) - y_i)^2 (Section 3): the loss the paper trains down."""
    t, use_torch = _validate(W, a, X, y)
    return _back(use_torch, 0.5 * ((_output(t["W"], t["a"], t["X"]) - t["y"]) ** 2).sum())


def clean_grad(W, a, X, y):
    """grad_W L(W) with ReLU'(0) = 1 (eq. (2) with c = 1: the indicator 1{w_r^T x_i >= 0})."""
    t, use_torch = _validate(W, a, X, y)
    W, a, X, y = t["W"], t["a"], t["X"], t["y"]
    resid = _output(W, a, X) - y
    act = (X @ W.T >= 0).to(DTYPE)
    g = (a / math.sqrt(W.shape[0]))[:, None] * ((act * resid[:, None]).T @ X)
    return _back(use_torch, g)


def surrogate_loss(W, a, X, y, C):
    """L_C(W) = 1/2 sum_i (f(W, x_i . c_i) - y_i)^2 for masks C of shape (..., n, d).

    W may carry a batch shape (..., m, d) matching C's (used for per-mask gradients).
    """
    m = W.shape[-2]
    Z = torch.einsum("...nd,...md->...nm", X * C, W)
    f = _relu(Z) @ a / math.sqrt(m)
    return 0.5 * ((f - y) ** 2).sum(-1)


def _relu(z):
    """ReLU whose autograd derivative is eq. (2)'s indicator 1{z >= 0} (torch.relu's is 1{z > 0}).

    The two differ only where z = 0, which matters when w_r . x_i = 0: then z = 0 for every
    mask, and eq. (2) counts the neuron as active.
    """
    return torch.where(z >= 0, z, torch.zeros_like(z))


def surrogate_grad(W, a, X, y, C):
    """(L_C(W), grad_W L_C(W)) by torch autograd, one per mask draw: C (B, n, d) -> (B,), (B, m, d)."""
    Wb = W.detach().expand(C.shape[0], *W.shape).clone().requires_grad_(True)
    with torch.enable_grad():
        loss = surrogate_loss(Wb, a, X, y, C)
        (g,) = torch.autograd.grad(loss.sum(), Wb)
    return loss.detach(), g


def monte_carlo(W, a, X, y, kappa, samples, *, seed, batch=100, progress=None):
    """Mean and standard error of L_C(W) and grad_W L_C(W) over `samples` raw mask draws.

    Each draw is C = 1 + kappa G with G standard normal of shape (n, d); gradients by
    autograd (``surrogate_grad``).  Returns ``(Estimate loss, Estimate grad)``; seeded.
    """
    t, _ = _validate(W, a, X, y, kappa)
    W, a, X, y, kappa = t["W"], t["a"], t["X"], t["y"], float(t["kappa"])
    if samples < 2:
        raise ValueError(f"samples must be >= 2, got {samples}")
    gen = torch.Generator(device=W.device).manual_seed(seed)
    sums = [torch.zeros((), dtype=DTYPE, device=W.device), torch.zeros_like(W)]
    squares = [torch.zeros((), dtype=DTYPE, device=W.device), torch.zeros_like(W)]
    done = 0
    while done < samples:
        b = min(batch, samples - done)
        C = 1.0 + kappa * torch.randn(b, *X.shape, generator=gen, dtype=DTYPE, device=W.device)
        values = surrogate_grad(W, a, X, y, C)
        for k, v in enumerate(values):
            sums[k] += v.sum(0)
            squares[k] += (v * v).sum(0)
        done += b
        if progress is not None:
            progress(b)
    out = []
    for s, s2 in zip(sums, squares):
        mean = s / samples
        var = (s2 / samples - mean**2).clamp(min=0.0) * samples / (samples - 1)
        out.append(Estimate(mean, (var / samples).sqrt(), samples))
    return tuple(out)


# ----------------------------------------------------------------------------- exact moments

@dataclass
class _Neurons:
    """Per sample i and neuron r: mu = w_r^T x_i, s = kappa ||u_ir||, a = mu/s clamped,
    uh = u_ir/||u_ir|| (0 where u_ir = 0), nu = ||u_ir||."""

    mu: torch.Tensor
    s: torch.Tensor
    a: torch.Tensor
    uh: torch.Tensor
    nu: torch.Tensor
    Phi: torch.Tensor
    pdf: torch.Tensor

    @property
    def sigma_tilde(self):
        """E[ReLU(z)] = mu Phi(a) + s varphi(a); ReLU(mu) at s = 0."""
        return torch.where(self.s > 0, self.mu * self.Phi + self.s * self.pdf, self.mu.clamp(min=0))

    @property
    def square(self):
        """E[ReLU(z)^2] = (mu^2 + s^2) Phi(a) + mu s varphi(a); ReLU(mu)^2 at s = 0."""
        return torch.where(self.s > 0, (self.mu**2 + self.s**2) * self.Phi + self.mu * self.s * self.pdf,
                           self.mu.clamp(min=0) ** 2)


def _neurons(W, X, kappa) -> _Neurons:
    U = X[:, None, :] * W[None, :, :]
    nu = torch.linalg.vector_norm(U, dim=-1)
    mu = X @ W.T
    s = kappa * nu
    pos = s > 0
    a = torch.where(pos, mu / torch.where(pos, s, torch.ones_like(s)),
                    torch.where(mu >= 0, _A_CLAMP, -_A_CLAMP))
    a = a.clamp(-_A_CLAMP, _A_CLAMP)
    uh = U / torch.where(nu > 0, nu, torch.ones_like(nu))[..., None]
    return _Neurons(mu, s, a, uh, nu, normal.cdf(a), normal.pdf(a))


def _step_cdf(num, q):
    """Phi(num/q), and its q -> 0+ limit 1, 1/2, 0 as num >, =, < 0.

    Per pair, Phi and varphi come from erfc and exp directly: their relative error grows
    like b^2 eps in the lower tail, where they multiply terms that are themselves below
    eps of the sums, so the normwise accuracy is unchanged and the pairs run ~8x faster
    than ``normal.cdf``'s tail-exact form.
    """
    step = (num > 0).to(num.dtype) + 0.5 * (num == 0).to(num.dtype)
    b = num / torch.where(q > 0, q, torch.ones_like(q))
    return torch.where(q > 0, 0.5 * torch.special.erfc(-b / math.sqrt(2)), step)


def _pdf(x):
    """varphi(x) = exp(-x^2/2)/sqrt(2 pi) (see ``_step_cdf`` on accuracy)."""
    return torch.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)


def _pair_geometry(nr: _Neurons, r1, r2, kappa):
    """rho, q and the numerators n1 = q b1 = a1 - rho a2, n2 = q b2 = a2 - rho a1 for the
    pairs (r1, r2), and the index of the pairs refined because |rho| > 0.9.

    For those, rho - 1 and a_i - rho a_j cancel: they are taken from the geometry of
    span(u_hat_1, u_hat_2) with error-free 2x2 minors (``closed_form._plane``), so that an
    exactly parallel pair gets q = 0 and n = 0 exactly (the tie, where the q -> 0+ limits
    of Phi(b1) and Phi(b2) are 1/2 each and add up right).
    """
    uh, a = nr.uh, nr.a
    rho = (uh @ uh.transpose(-1, -2))[:, r1, r2].clamp(-1.0, 1.0)
    present = (nr.s[:, r1] > 0) & (nr.s[:, r2] > 0)  # a degenerate z (kappa = 0 or u = 0) has no correlation
    rho = torch.where(present, rho, torch.zeros_like(rho))
    q = torch.sqrt((1 - rho) * (1 + rho))
    a1, a2 = a[:, r1], a[:, r2]
    n1, n2 = a1 - rho * a2, a2 - rho * a1
    near = (rho.abs() > _RHO_REFINE).nonzero(as_tuple=True)
    if near[0].numel():
        rho_n, q_n, e2, f2 = _plane(uh[near[0], r1[near[1]]], uh[near[0], r2[near[1]]])
        rho, q = rho.index_put(near, rho_n), q.index_put(near, q_n)
        n1 = n1.index_put(near, q_n * f2.sum(-1) / kappa)
        n2 = n2.index_put(near, q_n * e2.sum(-1) / kappa)
    return rho, q, n1, n2, near


def _pairs(nr: _Neurons, r1, r2, kappa):
    """The pair quantities of the module docstring for pairs (r1, r2), shape (chunk, pairs):
    E1 = E[z1 z2 1{..}], F12 = E[z2 1{..}], F21 = E[z1 1{..}], H12, H21, P."""
    mu1, mu2, s1, s2 = nr.mu[:, r1], nr.mu[:, r2], nr.s[:, r1], nr.s[:, r2]
    a1, a2 = nr.a[:, r1], nr.a[:, r2]
    rho, q, n1, n2, near = _pair_geometry(nr, r1, r2, kappa)
    # normwise accuracy suffices (module docstring), so the fast rule may also take the
    # cancelling rows with rho < 0 (``relative=False``); pairs near parallel are redone with q
    P = bvn.bvn_cdf(a1, a2, rho, relative=False, atol=_P_ATOL)
    if near[0].numel():
        P = P.index_put(near, bvn.bvn_cdf(a1[near], a2[near], rho[near], q=q[near]))
    p1, p2 = nr.pdf[:, r1], nr.pdf[:, r2]
    T1, T2 = p1 * _step_cdf(n2, q), p2 * _step_cdf(n1, q)
    Q = q * p1 * _pdf(n2 / torch.where(q > 0, q, torch.ones_like(q)))
    Q = torch.where(q > 0, Q, torch.zeros_like(Q))
    E1 = (mu1 * mu2 + rho * s1 * s2) * P + mu1 * s2 * T2 + mu2 * s1 * T1 + s1 * s2 * Q
    F12 = mu2 * P + s2 * (T2 + rho * T1)
    F21 = mu1 * P + s1 * (T1 + rho * T2)
    # mu2 - rho s2 a1 = s2 n2 (and mu2 itself where s2 = 0, rho = 0 there)
    H12 = torch.where(s2 > 0, s2 * n2, mu2) * T1 + s2 * Q
    H21 = torch.where(s1 > 0, s1 * n1, mu1) * T2 + s1 * Q
    return E1, F12, F21, H12, H21, P, rho


def _chunks(n, m, pair_budget):
    step = max(1, pair_budget // max(1, m * m))
    return [(i, min(n, i + step)) for i in range(0, n, step)]


def _kernel_module():
    """``numerics.masking.pair_kernel``, or None where numba is not installed."""
    try:
        from . import pair_kernel
    except ImportError as err:
        if "numba" not in str(err) and "llvmlite" not in str(err):
            raise
        return None
    return pair_kernel


def _kernel_serves(W) -> bool:
    """Whether the pair kernel takes this pass: ``_PAIR_KERNEL``, a CPU tensor, and ``bvn_cdf``'s
    compiled formulation in force (``bvn._COMPILED`` and not ``bvn._MASKED``: forcing the tensor or
    masked formulation of the fast paths forces the tensor formulation of the pass too)."""
    return _PAIR_KERNEL and W.device.type == "cpu" and bool(bvn._COMPILED) and not bvn._masked(W)


def _moments(W, a, X, y, kappa, *, want_grad, pair_budget, threads=None):
    """E f_i and E f_i^2 (shape (n,)) and, if ``want_grad``, E_C[grad_W L_C] (module doc):
    by the compiled pair kernel on the CPU (``_PAIR_KERNEL``; ``threads`` sweep threads, the result
    the same for every count), else by the tensor formulation below in chunks of ``pair_budget``.

    Per sample i and neuron r the gradient's bracket is
    (alpha_ir - y_i Phi(a_ir)) 1 + kappa (beta_ir - y_i varphi(a_ir)) u_hat_ir + kappa^2 x_i . PW_ir
    with alpha_ir = m^{-1/2} sum_r' a_r' F(r <- r'), beta_ir = m^{-1/2} sum_r' a_r' H(r, r'),
    PW_ir = m^{-1/2} sum_r' a_r' P_irr' w_r'; the diagonal r' = r has F = sigma_tilde,
    H = 0, P = Phi(a_ir).  x_i . u_hat_ir = w_r . x_i^2 / ||u_ir||.
    """
    if _kernel_serves(W) and (pk := _kernel_module()) is not None:
        Ef, Ef2, grad = pk.moments(W, a, X, y, float(kappa), want_grad=want_grad, threads=threads,
                                   p_atol=_P_ATOL, rho_refine=_RHO_REFINE, a_clamp=_A_CLAMP)
        return torch.from_numpy(Ef), torch.from_numpy(Ef2), torch.from_numpy(grad)
    m, d = W.shape
    n = X.shape[0]
    r1, r2 = torch.triu_indices(m, m, offset=1, device=W.device)
    aa = a[r1] * a[r2]
    sqm = math.sqrt(m)
    Ef = torch.empty(n, dtype=DTYPE, device=W.device)
    Ef2 = torch.empty_like(Ef)
    grad = torch.zeros(m, d, dtype=DTYPE, device=W.device)
    for lo, hi in _chunks(n, m, pair_budget):
        nr = _neurons(W, X[lo:hi], kappa)
        Phi, pdf, sig, sq = nr.Phi, nr.pdf, nr.sigma_tilde, nr.square
        E1, F12, F21, H12, H21, P, _ = _pairs(nr, r1, r2, kappa)
        Ef[lo:hi] = sig @ a / sqm
        Ef2[lo:hi] = (sq.sum(-1) + 2 * (E1 * aa).sum(-1)) / m
        if not want_grad:
            continue
        k, yi, xi = hi - lo, y[lo:hi, None], X[lo:hi]
        alpha = _square(k, m, r1, r2, F12, F21, sig) @ a / sqm
        beta = _square(k, m, r1, r2, H12, H21, torch.zeros_like(sig)) @ a / sqm
        PW = (_square(k, m, r1, r2, P, P, Phi) * (a / sqm)) @ W
        coef1 = alpha - yi * Phi
        coefu = kappa * (beta - yi * pdf) / torch.where(nr.nu > 0, nr.nu, torch.ones_like(nr.nu))
        grad += coef1.T @ xi
        grad += W * (coefu.T @ xi**2)
        grad += kappa**2 * torch.einsum("kd,kmd->md", xi**2, PW)
    if want_grad:
        grad *= (a / sqm)[:, None]
    return Ef, Ef2, grad


def _square(k, m, r1, r2, upper, lower, diag):
    """(k, m, m) matrix with M[:, r1, r2] = upper, M[:, r2, r1] = lower, diagonal diag."""
    M = torch.empty(k, m, m, dtype=DTYPE, device=upper.device)
    M[:, r1, r2] = upper
    M[:, r2, r1] = lower
    M.diagonal(dim1=1, dim2=2).copy_(diag)
    return M


def expected_output(W, a, X, kappa):
    """E_C f(W, x_i . c_i) = m^{-1/2} sum_r a_r sigma_tilde(w_r^T x_i, kappa ||w_r . x_i||), shape (n,)."""
    t, use_torch = _validate(W, a, X, kappa=kappa)
    nr = _neurons(t["W"], t["X"], t["kappa"])
    return _back(use_torch, nr.sigma_tilde @ t["a"] / math.sqrt(t["W"].shape[0]))


def expected_loss(W, a, X, y, kappa, *, pair_budget=PAIR_BUDGET, threads=None):
    """E_C[L_C(W)] exactly (Theorem 4.2's left side): 1/2 sum_i (E f_i^2 - 2 y_i E f_i + y_i^2).

    E f_i from the exact smoothed ReLU, E f_i^2 from E_1 = E[ReLU(z_ir) ReLU(z_ir')] over all
    pairs of neurons (parallel and antiparallel ones included); see the module docstring.
    Written as 1/2 sum_i ((E f_i - y_i)^2 + Var f_i): at kappa = 0, L(W) up to rounding.
    ``threads``: CPU threads of the pair kernel (default torch's count; the value does not depend
    on it); the pass's normwise accuracy contract is ``pair_kernel``'s (module docstring).
    """
    t, use_torch = _validate(W, a, X, y, kappa)
    Ef, Ef2, _ = _moments(t["W"], t["a"], t["X"], t["y"], t["kappa"], want_grad=False,
                          pair_budget=pair_budget, threads=threads)
    value = _loss_from(Ef, Ef2, t["y"])
    return _back(use_torch, check_finite_result("expected_loss", value))


def _loss_from(Ef, Ef2, y):
    return 0.5 * (((Ef - y) ** 2).sum() + (Ef2 - Ef**2).sum())


def expected_loss_and_grad(W, a, X, y, kappa, *, pair_budget=PAIR_BUDGET, threads=None):
    """(expected_loss, expected_grad) from one pass over the pairs of neurons (``threads`` as in
    :func:`expected_loss`)."""
    t, use_torch = _validate(W, a, X, y, kappa)
    Ef, Ef2, grad = _moments(t["W"], t["a"], t["X"], t["y"], t["kappa"], want_grad=True,
                             pair_budget=pair_budget, threads=threads)
    loss = check_finite_result("expected_loss", _loss_from(Ef, Ef2, t["y"]))
    return _back(use_torch, loss), _back(use_torch, check_finite_result("expected_grad", grad))


def expected_grad(W, a, X, y, kappa, *, pair_budget=PAIR_BUDGET, threads=None):
    """E_C[grad_W L_C(W)] exactly, shape (m, d) (Theorem 4.9's left side; eq. (2)).

    From mask_moment1 and mask_moment2 contracted with u_ir' (module docstring); no sampling.
    At kappa = 0 it is the clean gradient with the indicator 1{w_r^T x_i >= 0}.  ``threads`` as in
    :func:`expected_loss`.
    """
    t, use_torch = _validate(W, a, X, y, kappa)
    _, _, grad = _moments(t["W"], t["a"], t["X"], t["y"], t["kappa"], want_grad=True,
                          pair_budget=pair_budget, threads=threads)
    return _back(use_torch, check_finite_result("expected_grad", grad))


def term_sizes(W, X, y, kappa) -> tuple[float, float]:
    """The sizes against which the float64 sums here are accurate normwise (module docstring).

    With S_i = m^{-1/2} sum_r (|w_r^T x_i| + kappa ||w_r . x_i||) (a bound on |f| for every
    typical mask), returns (1/2 sum_i (S_i + |y_i|)^2, m^{-1/2} sum_i ||x_i||_inf (1 + kappa)^2
    (S_i + |y_i|)): the sums of the absolute sizes of the terms of E_C[L_C] and of each
    coordinate of E_C[grad L_C].  A cancelled result (a loss or gradient near 0) is judged
    against these, not against itself.
    """
    t, _ = _validate(W, None, X, y, kappa)
    W, X, y, kappa = t["W"], t["X"], t["y"], float(t["kappa"])
    nr = _neurons(W, X, t["kappa"])
    S = (nr.mu.abs() + nr.s).sum(-1) / math.sqrt(W.shape[0]) + y.abs()
    loss = 0.5 * float((S**2).sum())
    grad = float((X.abs().amax(-1) * S).sum()) * (1 + kappa) ** 2 / math.sqrt(W.shape[0])
    return loss, grad


# ----------------------------------------------------------------------------- Definition 4.1, Theorem 4.2

@dataclass(frozen=True)
class Definition41:
    """The quantities of Definition 4.1 (eq. (3): phi(x) = exp(-x^2), psi(x) = |x| phi(x)).

    phi_max, psi_max are maxima over (r, i) of phi and psi at t_ir = w_r^T x_i / (2 kappa ||u_ir||)
    (note the 2 kappa).  Where kappa ||u_ir|| = 0 the argument is +-inf (phi = psi = 0) if
    w_r^T x_i != 0, and 0/0 is read as t = 0 (phi = 1, psi = 0) -- the reading of
    ``numerics.masking.reference_network``; such pairs contribute nothing to E.
    """

    B_x: float
    B_y: float
    R_w: float
    R_u: float
    phi_max: float
    psi_max: float


def definition_4_1(W, X, y, kappa) -> Definition41:
    """B_x = max_i ||x_i||_inf, B_y = max_i |y_i|, R_w = max_r ||w_r||, R_u = max ||w_r . x_i||,
    phi_max, psi_max (Definition 4.1; eq. (3))."""
    t, _ = _validate(W, None, X, y, kappa)
    W, X, y, kappa = t["W"], t["X"], t["y"], t["kappa"]
    nr = _neurons(W, X, kappa)
    live = nr.s > 0
    targ = torch.where(live, nr.mu / (2 * torch.where(live, nr.s, torch.ones_like(nr.s))), torch.zeros_like(nr.s))
    phi = torch.where(live | (nr.mu == 0), torch.exp(-targ**2), torch.zeros_like(targ))
    psi = targ.abs() * phi
    return Definition41(
        B_x=float(X.abs().max()), B_y=float(y.abs().max()),
        R_w=float(torch.linalg.vector_norm(W, dim=1).max()), R_u=float(nr.nu.max()),
        phi_max=float(phi.max()), psi_max=float(psi.max()))


@dataclass(frozen=True)
class Theorem42:
    """Theorem 4.2 on one network: E_C[L_C] = T1 + T2 + E, and bound (4) on |E|.

    ``E`` is evaluated from its closed form (``theory.masking.network``: E = sum_i [(2m)^{-1}
    sum_{r,r'} a_r a_r' Delta_irr' - y_i delta_i]), ``E_error`` estimates its float64
    rounding error (32 eps times ``term_sizes``' loss size), so |E| below
    it is unresolved in float64 (use ``numerics.masking.reference_network``).  ``hypothesis`` is
    the theorem's B_y <= 3 sqrt(m) R_w; ``holds`` is |E| <= bound.
    """

    expected_loss: float
    T1: float
    T2: float
    E: float
    E_error: float
    bound: float
    hypothesis: bool
    definition: Definition41

    @property
    def ratio(self) -> float:
        """|E| / bound (0 when both vanish, inf when only the bound does)."""
        if self.bound > 0:
            return abs(self.E) / self.bound
        return 0.0 if self.E == 0 else math.inf

    @property
    def resolved(self) -> bool:
        return abs(self.E) > self.E_error

    @property
    def holds(self) -> bool:
        return abs(self.E) <= self.bound


def bound_4(m: int, n: int, kappa: float, dfn: Definition41) -> float:
    """Theorem 4.2, eq. (4): m n (kappa^2 R_u^2 psi_max^2 + (kappa^2 R_u^2 + kappa R_w) phi_max^2),
    the catalogue's right side (``theory.masking.network.THEOREM_4_2``, part "bound") compiled,
    not re-typed (non-negative terms: stable in float64)."""
    return float(_bound_4()(m, n, kappa, dfn.R_u, dfn.R_w, dfn.phi_max, dfn.psi_max))


@functools.lru_cache(maxsize=None)
def _bound_4():
    from numerics.core.compile import compile_expr
    from theory.masking import network as T

    return compile_expr(T.THEOREM_4_2.equation("bound").rhs, (T.m, T.n, T.kappa, T.R_u, T.R_w, T.phi_max, T.psi_max),
                        "math")


def theorem_4_2(W, a, X, y, kappa, *, pair_budget=PAIR_BUDGET) -> Theorem42:
    """T1 (with the proxy f_hat), T2 (the regulariser), E and bound (4) of Theorem 4.2.

    f_hat(W, x) = m^{-1/2} sum_r a_r w_r^T x Phi(w_r^T x / (kappa ||w_r . x||));
    T1 = 1/2 sum_i (f_hat_i - y_i)^2;  T2 = kappa^2/(2m) sum_i ||sum_r a_r u_ir Phi(a_ir)||^2.
    """
    t, _ = _validate(W, a, X, y, kappa)
    W, a, X, y, kappa = t["W"], t["a"], t["X"], t["y"], t["kappa"]
    m, n = W.shape[0], X.shape[0]
    r1, r2 = torch.triu_indices(m, m, offset=1, device=W.device)
    aa = a[r1] * a[r2]
    sqm = math.sqrt(m)
    T1 = T2 = E = 0.0
    for lo, hi in _chunks(n, m, pair_budget):
        nr = _neurons(W, X[lo:hi], kappa)
        Phi, pdf = nr.Phi, nr.pdf
        yi = y[lo:hi]
        fhat = (nr.mu * Phi) @ a / sqm
        T1 += 0.5 * float(((fhat - yi) ** 2).sum())
        U = X[lo:hi, None, :] * W[None]
        T2 += 0.5 * kappa.item() ** 2 / m * float(((torch.einsum("r,krd->kd", a, U * Phi[..., None])) ** 2).sum())
        # Delta = E_1 - (mu mu' + rho s s') Phi Phi'; diagonal (rho = 1): (mu^2 + s^2) Phi (1 - Phi) + mu s varphi
        E1, *_, rho = _pairs(nr, r1, r2, kappa)
        mu1, mu2, s1, s2 = nr.mu[:, r1], nr.mu[:, r2], nr.s[:, r1], nr.s[:, r2]
        cross = (mu1 * mu2 + rho * s1 * s2) * Phi[:, r1] * Phi[:, r2]
        diag = (nr.mu**2 + nr.s**2) * Phi * normal.cdf(-nr.a) + nr.mu * nr.s * pdf
        delta = (nr.s * pdf) @ a / sqm
        E += float((diag.sum(-1) + 2 * ((E1 - cross) * aa).sum(-1)).sum()) / (2 * m) - float((yi * delta).sum())
    dfn = definition_4_1(W, X, y, kappa)
    loss = float(expected_loss(W, a, X, y, kappa, pair_budget=pair_budget))
    return Theorem42(expected_loss=loss, T1=T1, T2=T2, E=E, E_error=32 * torch.finfo(DTYPE).eps * term_sizes(W, X, y, kappa)[0],
                     bound=bound_4(m, n, float(kappa), dfn),
                     hypothesis=dfn.B_y <= 3 * math.sqrt(m) * dfn.R_w, definition=dfn)
