"""Eq. (11): the infinite-width Gram matrix H^inf, lambda_0, the finite-width Gram at
initialisation, its Monte Carlo, and a rigorous enclosure of lambda_0.

    H^inf_ij = x_i^T x_j E_{w ~ N(0, I_d)}[1{w^T x_i >= 0, w^T x_j >= 0}]
             = x_i^T x_j (pi - theta_ij)/(2 pi),   theta_ij = acos(rho_ij),
    lambda_0 = lambda_min(H^inf)

(eq. (11); Du et al. 2018, Section 3; the degree-0 arc-cosine kernel of Cho & Saul 2009,
eq. (6), times x_i^T x_j/2; ``theory.masking.ntk.EQ_11``, proved in ``theory.masking.derivations_ntk``).

- ``ntk_gram(X)``, ``lambda0(X)``: float64 (torch), numpy in -> numpy out, tensors in ->
  tensors out.  acos(rho) loses digits where |rho| -> 1 (d acos/d rho is infinite there:
  an error eps in rho becomes sqrt(2 eps) in theta, ~1e-8, exactly where two inputs are
  nearly parallel and lambda_0 is small), so the kernel does not re-type the catalogue's
  acos form: with unit u_i = x_i/||x_i||,

      (pi - theta_ij)/2 = atan2(||u_i + u_j||, ||u_i - u_j||),   H^inf_ij = x_i^T x_j atan2(..)/pi,

  both norms from differences of the unit vectors (never 2 +- 2 rho), which is accurate to
  a few eps relative for every angle (``theory.masking.derivations_ntk.gram`` proves the identity).
  Zero rows give H_ij = 0 (x_i^T x_j = 0; the probability there is 1/2, see ``theory.masking.ntk``).
  The result is symmetrised ((H + H^T)/2) so that it is exactly symmetric.
- ``ntk_gram_finite(W, X)``: H(0)_ij = (1/m) sum_r x_i^T x_j 1{w_r^T x_i >= 0, w_r^T x_j >= 0}
  for W of shape (m, d) (Du et al. 2018, the Gram matrix at initialisation); with rows w_r
  drawn from N(0, tau^2 I) it is a Monte Carlo estimate of H^inf (the indicator is scale free).
- ``monte_carlo_gram(X, samples, seed=...)``: the raw indicator averaged over w ~ N(0, I_d),
  with the standard error of every entry (``numerics.core.montecarlo.Estimate``); no closed form.
- ``ntk_gram_arb(X, prec)``, ``lambda0_enclosure(X, dps)``: Arb balls.  The inputs are the
  float64 numbers read exactly; x_i^T x_j and ||x_i||^2 are exact-or-enclosed sums, the angle
  is theta = atan2(sqrt(||x_i||^2 ||x_j||^2 - (x_i^T x_j)^2), x_i^T x_j) with the radicand as
  Lagrange's sum of squared 2 x 2 minors (non-negative by construction; a different formula
  from the float64 kernel's), and H_ij is the catalogue's closed form with acos(rho) replaced
  by that theta (generated from ``theory.masking.ntk``; a zero input gives atan2(0, 0) = 0 and H_ij = 0).
  lambda_min comes from Arb's verified eigenvalue enclosures (``acb_mat.eig``, i.e.
  acb_mat_eig_simple: van der Hoeven & Mourrain 2018) when they isolate the eigenvalues, and
  otherwise (multiple eigenvalues, e.g. inputs +-x, +-y) from an inertia certificate: H - lo I
  positive definite and H - hi I not, each shown by an LDL^T factorisation in ball arithmetic
  (Sylvester's law of inertia; Cauchy interlacing).  How rigorous: the returned (lo, hi)
  contains lambda_min(H^inf(X)) for the given float64 X, exactly, provided Arb and python-flint
  are correct -- every operation is ball arithmetic, the eigenvalue balls (and the pivots)
  are valid for every matrix in the ball matrix, hence for the exact H^inf, and the endpoints
  are rounded outward to float64.
"""
from __future__ import annotations

import math

import sympy as sp
import torch
from flint import acb_mat, arb, arb_mat

from theory.masking import ntk as T

from numerics.core.arrays import DTYPE, REAL, _as_tensor
from numerics.core.certified import _eval, workprec
from numerics.core.montecarlo import Estimate

__all__ = ["ntk_gram", "lambda0", "ntk_gram_finite", "monte_carlo_gram", "ntk_gram_arb",
           "lambda0_enclosure"]

#: the catalogue's H_ij with the angle theta_ij = acos(rho_ij) as a free symbol (for Arb)
_THETA = sp.Symbol("theta", real=True)
_GRAM_OF_THETA = T.EQ_11.equation("gram").rhs.subs(sp.acos(T.rho), _THETA)
#: precision ladder of the enclosure: start, and the most doublings before giving up
_GUARD_BITS = 32
_DOUBLINGS = 4


# =============================================================================== validation
def _inputs(X, device=None) -> tuple[torch.Tensor, bool]:
    """X as a float64 (n, d) tensor, and whether the caller passed a tensor."""
    is_torch = isinstance(X, torch.Tensor)
    X = _as_tensor("X", X, device)
    REAL.check("X", X)
    if X.ndim != 2:
        raise ValueError(f"X must have shape (n, d), got {tuple(X.shape)}")
    if X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(f"X must have n >= 1 inputs of dimension d >= 1, got {tuple(X.shape)}")
    return X, is_torch


def _back(result: torch.Tensor, is_torch: bool):
    if is_torch:
        return result
    out = result.detach().cpu().numpy()
    return out[()] if out.ndim == 0 else out


def _symmetric(A: torch.Tensor) -> torch.Tensor:
    return (A + A.T) / 2


def _finite(name: str, H: torch.Tensor) -> torch.Tensor:
    if not torch.isfinite(H).all():
        raise ValueError(f"{name}: x_i^T x_j overflows float64 (inputs too large)")
    return H


# =============================================================================== float64
def _gram(X: torch.Tensor) -> torch.Tensor:
    norms = torch.linalg.vector_norm(X, dim=1, keepdim=True)
    U = X / torch.where(norms > 0, norms, torch.ones_like(norms))   # zero rows stay 0
    exact = "donot_use_mm_for_euclid_dist"                          # differences, not 2 - 2 rho
    minus = torch.cdist(U, U, compute_mode=exact)
    plus = torch.cdist(U, -U, compute_mode=exact)
    half_gap = torch.atan2(plus, minus)                             # (pi - theta)/2
    return _finite("ntk_gram", _symmetric(X @ X.T * half_gap / math.pi))


def ntk_gram(X):
    """H^inf of eq. (11) for the rows x_i of X (shape (n, d)): float64, shape (n, n).

    H_ij = x_i^T x_j atan2(||u_i + u_j||, ||u_i - u_j||)/pi, u = x/||x||, which is
    x_i^T x_j (pi - acos rho_ij)/(2 pi) (eq. (11); Du et al. 2018; Cho & Saul 2009) computed
    without acos (accurate to a few eps relative in the angle, also for nearly parallel or
    antiparallel inputs).  numpy in -> numpy out, tensor in -> tensor out (same device).
    ValueError for NaN/inf entries, X not 2-D, or n = 0 or d = 0.
    """
    X, is_torch = _inputs(X)
    return _back(_gram(X), is_torch)


def lambda0(X):
    """lambda_0 = lambda_min(H^inf) (eq. (11)), by ``torch.linalg.eigvalsh`` in float64.

    Its absolute error is a few n eps ||H^inf||_2 (backward-stable symmetric eigensolver and
    entries accurate to a few eps), so lambda_0 below ~ n eps ||H^inf|| is not resolved:
    ``lambda0_enclosure`` gives a rigorous bracket.  Returns a numpy float64 (a 0-d tensor
    for tensor input).
    """
    X, is_torch = _inputs(X)
    return _back(torch.linalg.eigvalsh(_gram(X))[0], is_torch)


# =============================================================================== finite width
def _joint_activations(W: torch.Tensor, X: torch.Tensor) -> torch.Tensor:
    """C_ij = #{r : w_r^T x_i >= 0 and w_r^T x_j >= 0} (exact integers in float64)."""
    S = (X @ W.T >= 0).to(DTYPE)
    return S @ S.T


def ntk_gram_finite(W, X):
    """The finite-width Gram matrix H_ij = (1/m) sum_r x_i^T x_j 1{w_r^T x_i >= 0, w_r^T x_j >= 0}
    for W of shape (m, d) and X of shape (n, d) (Du et al. 2018, H(0) at initialisation; the
    raw indicator with 1{0 >= 0} = 1).  numpy in -> numpy out, tensors in -> tensors out."""
    X, is_torch = _inputs(X, W.device if isinstance(W, torch.Tensor) else None)
    is_torch = is_torch or isinstance(W, torch.Tensor)
    W = _as_tensor("W", W, X.device)
    REAL.check("W", W)
    if W.ndim != 2 or W.shape[0] == 0 or W.shape[1] != X.shape[1]:
        raise ValueError(f"W must have shape (m, d) with m >= 1 and d = {X.shape[1]}, got {tuple(W.shape)}")
    H = _symmetric(X @ X.T) * _joint_activations(W, X) / W.shape[0]
    return _back(_finite("ntk_gram_finite", H), is_torch)


def monte_carlo_gram(X, samples: int, *, seed: int, batch: int = 100_000, device="cpu") -> Estimate:
    """Mean and standard error of x_i^T x_j 1{w^T x_i >= 0, w^T x_j >= 0} over w ~ N(0, I_d),
    for every (i, j): the raw definition of eq. (11), batched, float64, seeded.

    Each entry is x_i^T x_j times a Bernoulli(p_ij) mean p_hat, so its sample variance is
    (x_i^T x_j)^2 p_hat (1 - p_hat) N/(N - 1) and the standard error that over sqrt(N)."""
    if samples < 2:
        raise ValueError(f"samples must be >= 2, got {samples}")
    X, _ = _inputs(X, device)
    gen = torch.Generator(device=X.device).manual_seed(seed)
    counts = torch.zeros(X.shape[0], X.shape[0], dtype=DTYPE, device=X.device)
    done = 0
    while done < samples:
        b = min(batch, samples - done)
        W = torch.randn(b, X.shape[1], generator=gen, dtype=DTYPE, device=X.device)
        counts += _joint_activations(W, X)
        done += b
    p = counts / samples
    G = _symmetric(X @ X.T)
    var = G**2 * (p * (1 - p)).clamp(min=0.0) * samples / (samples - 1)
    return Estimate(G * p, (var / samples).sqrt(), samples)


# =============================================================================== Arb
def _prec(dps: int) -> int:
    if dps < 1:
        raise ValueError(f"dps must be >= 1, got {dps!r}")
    return int(math.ceil(dps * math.log2(10))) + _GUARD_BITS


def _rows(X) -> list[list[arb]]:
    X, _ = _inputs(X)
    return [[arb(float(v)) for v in row] for row in X.cpu().tolist()]   # exact: doubles are dyadic


def _gram_ball(rows: list[list[arb]]) -> arb_mat:
    """H^inf in Arb at the current precision (see the module docstring)."""
    n, d = len(rows), len(rows[0])
    dot = [[sum((a * b for a, b in zip(rows[i], rows[j])), arb(0)) for j in range(n)] for i in range(n)]
    H = arb_mat(n, n)
    for i in range(n):
        H[i, i] = dot[i][i] / 2
        for j in range(i):
            x, y = rows[i], rows[j]
            minors = [x[k] * y[l] - x[l] * y[k] for k in range(d) for l in range(k + 1, d)]
            wedge = sum((t * t for t in minors), arb(0)).nonnegative_part().sqrt()
            theta = arb.atan2(wedge, dot[i][j])
            H[i, j] = H[j, i] = _eval(_GRAM_OF_THETA, {T.G_ij: dot[i][j], _THETA: theta})
    return H


def ntk_gram_arb(X, prec: int = 128) -> arb_mat:
    """H^inf of eq. (11) as an Arb ball matrix at ``prec`` bits, for the float64 X read exactly."""
    rows = _rows(X)
    with workprec(prec):
        return _gram_ball(rows)


def _exact_min(points: list[arb]) -> arb:
    """The least of exact (zero-radius) balls; their comparisons are exact."""
    least = points[0]
    for p in points[1:]:
        if p < least:
            least = p
    return least


def _outward(x: arb, down: bool) -> float:
    """The exact endpoint ``x`` rounded to float64 away from the interval's inside."""
    f = float(x)
    if down and arb(f) > x:
        f = math.nextafter(f, -math.inf)
    if not down and arb(f) < x:
        f = math.nextafter(f, math.inf)
    return f


def _ldl_sign(A: arb_mat):
    """The definiteness of the symmetric ball matrix A from its LDL^T factorisation (Cholesky
    without square roots, reading the lower triangle), in ball arithmetic:

    True   every pivot is certainly > 0: A is positive definite (Sylvester's law of inertia);
    False  pivots 1..k-1 are certainly > 0 and pivot k certainly < 0: the leading k x k block,
           hence A (Cauchy interlacing), has a negative eigenvalue;
    None   undecided (a pivot's ball contains 0)."""
    n = A.nrows()
    L = [[arb(0)] * n for _ in range(n)]
    piv = []
    for k in range(n):
        dk = A[k, k] - sum((L[k][j] * L[k][j] * piv[j] for j in range(k)), arb(0))
        if dk < 0:
            return False
        if not dk > 0:
            return None
        piv.append(dk)
        for i in range(k + 1, n):
            L[i][k] = (A[i, k] - sum((L[i][j] * L[k][j] * piv[j] for j in range(k)), arb(0))) / dk
    return True


def _shifted(H: arb_mat, shift: arb) -> arb_mat:
    A = arb_mat(H)
    for k in range(H.nrows()):
        A[k, k] = H[k, k] - shift
    return A


def _target_width(H: arb_mat, dps: int) -> arb:
    """10^-dps max_ij |H_ij|: the width a bracket at ``dps`` digits is asked to reach."""
    scale = max(abs(H[i, j]).upper() for i in range(H.nrows()) for j in range(H.ncols()))
    return scale * arb(10) ** (-dps)


def _eig_bracket(H: arb_mat, dps: int):
    """(lo, hi) exact balls from Arb's eigenvalue enclosures: lo = min_k lower(Re E_k),
    hi = min_k upper(Re E_k) (each eigenvalue lies in its own ball); None if the eigenvalues
    are not isolated or the bracket is wider than ``_target_width``."""
    try:
        re = [e.real for e in acb_mat(H).eig()]
    except ValueError:
        return None
    lo, hi = _exact_min([r.lower() for r in re]), _exact_min([r.upper() for r in re])
    return (lo, hi) if hi - lo <= _target_width(H, dps) else None


def _inertia_bracket(H: arb_mat, dps: int):
    """(lo, hi) exact balls with lambda_min(H) in [lo, hi], certified by inertia:
    H - lo I positive definite and H - hi I not (``_ldl_sign``), around Arb's approximate
    lambda_min, the half-width growing from 2^-16 to 1 times ``_target_width``; None if
    undecided."""
    guess = min((e.real.mid() for e in acb_mat(H.mid()).eig(algorithm="approx")), key=float)
    target = _target_width(H, dps)
    delta = target / 2**16
    while delta <= target:
        lo, hi = guess - delta, guess + delta
        if _ldl_sign(_shifted(H, lo)) is True and _ldl_sign(_shifted(H, hi)) is False:
            return lo.lower(), hi.upper()
        delta *= 4
    return None


def lambda0_enclosure(X, dps: int = 30) -> tuple[float, float]:
    """A rigorous bracket (lo, hi) of lambda_0 = lambda_min(H^inf(X)) (eq. (11)) for the float64
    inputs X read exactly, working at ``dps`` decimal digits: the bracket is at most
    2 10^-dps max_ij |H_ij| wide, plus the outward rounding of its ends to float64.

    H^inf is built in Arb (``ntk_gram_arb``).  Its eigenvalues are enclosed by ``acb_mat.eig``
    (isolated simple eigenvalues), and lo = min_k lower(Re E_k), hi = min_k upper(Re E_k):
    every eigenvalue lies in its ball, so lambda_min lies in [lo, hi].  Where the eigenvalues
    cannot be isolated (a multiple eigenvalue, as for inputs +-x, +-y) or the balls are too
    wide, lambda_min is bracketed by inertia instead: H - lo I positive definite and H - hi I
    indefinite, both certified by an LDL^T factorisation in ball arithmetic.  The precision is
    doubled (up to 2^4 times) until one of the two succeeds; ArithmeticError if neither does.
    """
    rows = _rows(X)
    prec = _prec(dps)
    for _ in range(_DOUBLINGS + 1):
        with workprec(prec):
            H = _gram_ball(rows)
            bracket = _eig_bracket(H, dps) or _inertia_bracket(H, dps)
            if bracket is not None:
                return _outward(bracket[0], down=True), _outward(bracket[1], down=False)
        prec *= 2
    raise ArithmeticError(f"could not enclose lambda_min(H^inf) to {dps} digits up to {prec // 2} bits")
