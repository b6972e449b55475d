"""Lemmas 2, 3 and 4 numerically.

Lemma 2 (55): the widths as printed (its Omega as C) and repaired, the exact law of L^0 for the
linear activation on orthogonal inputs (a noncentral chi-square), the sides of (64)'s union bound,
and raw samples of L^0 for any activation.  Lemma 4 (84): raw samples of |G^(1) - Gbar^(1)|.

Lemma 3 (56): its constants (as printed, and the repaired K* of (71)), the
Gaussian interval probabilities pi(J; G) = P(N(0, G) in J), and the exact probability of the
lemma's event for data whose pre-activations are independent across points.

With W^0 ~ N(0, 1) (Assumption 3), h_i^0(x_a) ~ N(0, G_aa) independently over i; for pairwise
orthogonal embeddings (G diagonal) they are independent over a too, so
P(eta > K) = prod_a P(Binomial(m, pi(J; G_aa)) > m K) exactly (J = I for eta^0, the middle
third I_0 for tilde eta^0), by ``numerics.core.binomial``.
"""
from __future__ import annotations

import math

import mpmath as mp

from numerics.core.binomial import binomial_sf
from numerics.core.compile import compile_expr
from theory.meanfield import dynamics as th
from theory.meanfield import theorems as _thm

#: K(I, lambda_1, lambda_2) as printed and K*(I, G_min, G_max), of (I_l, I_r, G_min, G_max)
K_printed = compile_expr(th.K_PRINTED.subs({th.lam1: th.G_min, th.lam2: th.G_max}), (th.I_l, th.I_r, th.G_min, th.G_max))
K_star = compile_expr(th.K_STAR, (th.I_l, th.I_r, th.G_min, th.G_max))


def interval_prob(lo, hi, G, *, dps=30):
    """P(lo < N(0, G) < hi), G > 0, by mpmath's normal CDF (differences taken on the side of the
    tail that keeps them accurate)."""
    with mp.workdps(dps + 10):
        s = mp.sqrt(mp.mpf(G))
        a, b = mp.mpf(lo) / s, mp.mpf(hi) / s
        if a >= 0:
            return mp.ncdf(-a) - mp.ncdf(-b)
        return mp.ncdf(b) - mp.ncdf(a)


def middle_third(lo, hi):
    xi = (hi - lo) / 3
    return lo + xi, hi - xi


def event_probability(lo, hi, diag, m: int, K: float, *, tilde: bool, dps: int = 30):
    """P(eta > K) (``tilde``: P(tilde eta^0 > K)) for independent rows with variances ``diag``."""
    J = middle_third(lo, hi) if tilde else (lo, hi)
    with mp.workdps(dps + 10):
        out = mp.mpf(1)
        for g in diag:
            out *= binomial_sf(mp.mpf(m) * mp.mpf(K), m, interval_prob(*J, g, dps=dps), dps=dps)
        return out


def log_required_width(n: int, delta: float, K: float) -> int:
    """ceil(log(n/delta)/(2 K^2)): the width a Hoeffding union bound over n events asks for (K > 0)."""
    if not K > 0:
        raise ValueError(f"K must be > 0, got {K!r}")
    return max(1, math.ceil(math.log(n / delta) / (2 * K * K)))


# ------------------------------------------------------------------------------------ Lemma 2
#: the width Lemma 2 asks for with its Omega as C, and the repaired width of ``lemma.2.proof``,
#: of (n, delta, c_hat, G_max, |y|, C) and (n, delta, c_hat, G_max, |y|, L_sigma)

width_printed = compile_expr(_thm.WIDTH_LEMMA2, (th.n, th.delta, th.c_hat, th.G_max, _thm.y_norm, _thm.C_w))
width_repaired = compile_expr(_thm.WIDTH_LEMMA2_STAR, (th.n, th.delta, th.c_hat, th.G_max, _thm.y_norm, _thm.L_s))


def noncentral_chi2_sf(x, k, lam, *, dps=30):
    """P(chi'^2_k(lam) > x) = sum_j e^{-lam/2} (lam/2)^j / j! Q(k/2 + j, x/2), the Poisson mixture of
    central chi-squares (Q the regularised upper incomplete gamma), summed from the Poisson mode
    outward until the remaining Poisson mass (both sides) is below 10^-(dps + 5)."""
    with mp.workdps(dps + 10):
        x, k, half = mp.mpf(x), mp.mpf(k), mp.mpf(lam) / 2
        if half == 0:
            return mp.gammainc(k / 2, x / 2, mp.inf, regularized=True)
        tol = mp.mpf(10) ** -(dps + 5)
        mode = int(mp.floor(half))

        def term(j):
            w = mp.exp(-half + j * mp.log(half) - mp.loggamma(j + 1))
            return w, w * mp.gammainc(k / 2 + j, x / 2, mp.inf, regularized=True)

        total, mass = mp.mpf(0), mp.mpf(0)
        for direction in (range(mode, -1, -1), range(mode + 1, 10**9)):
            for j in direction:
                w, v = term(j)
                total += v
                mass += w
                if j != mode and w < tol * (1 - mass + tol):
                    break
        return total


def lemma2_failure_linear(n: int, m: int, c_hat, g, y_norm, *, dps=30):
    """P(L^0 > |y|^2) exactly, for sigma(t) = t and G = g I_n (orthogonal inputs of one norm).

    f^0 = (1/m) sum_i c_i h_i with h_i ~ N(0, g I_n) iid and c_i = +-c_hat independent of them, so
    c_i h_i ~ N(0, c^2 g I_n) and f^0 ~ N(0, s^2 I_n), s^2 = c^2 g/m; |f^0 - y|^2/s^2 ~ chi'^2_n(lam),
    lam = |y|^2/s^2, and L^0 = |f^0 - y|^2/2 > |y|^2 iff chi'^2_n(lam) > 2 lam."""
    with mp.workdps(dps + 10):
        lam = mp.mpf(m) * mp.mpf(y_norm) ** 2 / (mp.mpf(c_hat) ** 2 * mp.mpf(g))
        return noncentral_chi2_sf(2 * lam, n, lam, dps=dps)


def union_bound_sides(n: int, m: int, c_hat, g, y_norm, *, dps=30):
    """(64)'s first inequality for sigma(t) = t, G = g I_n, exactly: (P(sum_a f_a^2 >= |y|^2),
    sum_a P(|f_a| >= |y|) as printed, sum_a P(|f_a| >= |y|/sqrt n) repaired).  With lam as in
    ``lemma2_failure_linear``: Q(n/2, lam/2), n erfc(sqrt(lam/2)), n erfc(sqrt(lam/(2n)))."""
    with mp.workdps(dps + 10):
        lam = mp.mpf(m) * mp.mpf(y_norm) ** 2 / (mp.mpf(c_hat) ** 2 * mp.mpf(g))
        lhs = mp.gammainc(mp.mpf(n) / 2, lam / 2, mp.inf, regularized=True)
        return lhs, n * mp.erfc(mp.sqrt(lam / 2)), n * mp.erfc(mp.sqrt(lam / (2 * n)))


def smallest_width(failure, delta, *, hi: int = 2) -> int:
    """The smallest m >= 1 with failure(m) <= delta, for failure non-increasing in m (bisection)."""
    while failure(hi) > delta:
        hi *= 2
    lo = 0                                  # failure(0) is 1 by convention: no neurons, no fit
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if failure(mid) <= delta:
            hi = mid
        else:
            lo = mid
    return hi


def initial_loss_samples(G, y, m: int, c_hat: float, activation, samples: int, *, seed: int):
    """``samples`` draws of L^0 = (1/2) sum_a (f^0(x_a) - y_a)^2 from the raw initialisation:
    c_i = +-c_hat (Assumption 1), h_i^0 ~ N(0, G) (Assumption 3; W^0 ~ N(0, 1) gives h_i = W_i Phi/sqrt D
    with covariance G), f^0 = (1/m) sum_i c_i sigma(h_i^0)."""
    import torch

    from numerics.core.arrays import DTYPE
    from numerics.core.gaussian_kernels import parse_activation

    act = parse_activation(activation)
    G = torch.as_tensor(G, dtype=DTYPE)
    y = torch.as_tensor(y, dtype=DTYPE)
    ev, V = torch.linalg.eigh(G)
    root = V * ev.clamp(min=0.0).sqrt()
    gen = torch.Generator().manual_seed(seed)
    out = torch.empty(samples, dtype=DTYPE)
    chunk = max(1, 2**20 // (m * len(y)))
    for s in range(0, samples, chunk):
        k = min(chunk, samples - s)
        h = torch.randn(k, m, len(y), generator=gen, dtype=DTYPE) @ root.T
        c = c_hat * (2.0 * torch.randint(0, 2, (k, m, 1), generator=gen, dtype=DTYPE) - 1.0)
        f = (c * act(h)).mean(1)
        out[s:s + k] = 0.5 * ((f - y) ** 2).sum(1)
    return out


# ------------------------------------------------------------------------------------ Lemma 4
def gram_deviations(X, activation, D: int, reps: int, *, seed: int):
    """``reps`` draws of (|G^(1) - Gbar^(1)|_2, |G^(1) - Gbar^(1)|_F^2, G^(1)) for z_j ~ N(0, I_d),
    j <= D: G^(1) = (1/D) sum_j s(z_j^T x_a/sqrt d) s(z_j^T x_b/sqrt d) (eq. (22)), all draws in one
    batched product; Gbar^(1) from the closed forms of ``numerics.meanfield.kernels``."""
    import numpy as np
    import torch

    from numerics.core.arrays import DTYPE
    from numerics.core.gaussian_kernels import parse_activation

    from .kernels import gram_bar

    act = parse_activation(activation)
    X = np.asarray(X, dtype=np.float64)
    Gbar = torch.as_tensor(gram_bar(X, activation))
    gen = torch.Generator().manual_seed(seed)
    Z = torch.randn(reps, D, X.shape[1], generator=gen, dtype=DTYPE)
    phi = act(torch.as_tensor(X) @ Z.transpose(1, 2) / math.sqrt(X.shape[1]))        # (reps, n, D)
    G = phi @ phi.transpose(1, 2) / D
    E = G - Gbar
    spec = torch.linalg.matrix_norm(E, ord=2)
    return spec.numpy(), (E * E).sum((1, 2)).numpy(), G.numpy()
