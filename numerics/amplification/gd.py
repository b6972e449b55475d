"""Gradient descent of Section 2 on the XOR clusters, batched over seeds, with the predicates of
Section 4 evaluated on every neuron at every step (``theory.amplification.training``).

The model (Section 2): f(x; W) = sum_j a_j relu(<w_j, x>), m even, a_j = +1/sqrt(m) for the first
m/2 neurons and -1/sqrt(m) for the rest, fixed; the rows w_j^(0) ~ N(0, omega^2 I_d) i.i.d.
Training: full-batch gradient descent on the empirical logistic loss
L(W) = (1/n) sum_i log(1 + exp(-y_i f(x_i; W))) with step alpha,

    w_j^(t+1) = w_j^(t) + (alpha a_j / n) sum_i sigmoid(-y_i f(x_i; W^(t))) y_i phi'(<w_j^(t), x_i>) x_i,

with phi'(0) = ``subgradient`` in [0, 1] (Section 2: 'any subgradient value'), stopped at
T = 1 + 1/(4 alpha) (Theorem 3.1; ``alpha`` must make 1/(4 alpha) an integer).  The gradient is
written out (it is the definition's chain rule); ``verify/amplification/test_s4_dynamics.py``
checks it against torch autograd of the loss.

The sets of Lemma 4.2 (reconstructed): J_{+-mu_1} = positive neurons with <w_j^(0)/||w_j^(0)||,
+-mu_1> >= 1/(3 C_0 sqrt d), J_{+-mu_2} likewise over the negative neurons; a neuron may lie in
J_{+mu_1} or J_{-mu_1}, never both.  mu_1 = e_1, mu_2 = e_2 (``data.sample``).

``train`` returns a ``Trace`` of per-seed, per-step summaries (worst ratios of each predicate;
nothing of size m x d is kept), float64 throughout.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import torch

from numerics.core.arrays import DTYPE

from . import data

#: seed offsets of the training sample, the test sample and the initialisation of one run
DATA, TEST, INIT = 0, 1, 2


@dataclass(frozen=True)
class Setting:
    """One point (d, n, m, sigma, eta, alpha, omega) and the constant C_0 of the sets J_mu."""

    d: int
    n: int
    m: int
    sigma: float
    eta: float
    alpha: float
    omega: float
    C0: float = 2.0
    steps: int | None = None        # None: T = 1 + 1/(4 alpha)
    subgradient: float = 0.0
    n_test: int = 2000
    adversary: str | None = None    # data.ADVERSARIES: who flips the training labels (the test set: independent flips)

    def __post_init__(self):
        for name in ("d", "n", "m", "n_test"):
            v = getattr(self, name)
            if isinstance(v, bool) or int(v) != v or v < (2 if name in ("d", "m") else 1):
                raise ValueError(f"{name} must be an integer >= {2 if name in ('d', 'm') else 1}, got {v!r}")
        if self.m % 2:
            raise ValueError(f"m must be even, got {self.m}")
        if not (math.isfinite(self.sigma) and self.sigma > 0):
            raise ValueError(f"sigma must be finite and > 0, got {self.sigma!r}")
        if not 0 <= self.eta < 0.5:
            raise ValueError(f"eta must lie in [0, 1/2), got {self.eta!r}")
        if not (math.isfinite(self.alpha) and self.alpha > 0):
            raise ValueError(f"alpha must be finite and > 0, got {self.alpha!r}")
        if not (math.isfinite(self.omega) and self.omega > 0):
            raise ValueError(f"omega must be finite and > 0, got {self.omega!r}")
        if not self.C0 > 1:
            raise ValueError(f"C0 must exceed 1, got {self.C0!r}")
        if self.adversary not in data.ADVERSARIES:
            raise ValueError(f"adversary must be one of {data.ADVERSARIES}, got {self.adversary!r}")
        if not 0 <= self.subgradient <= 1:
            raise ValueError(f"subgradient must lie in [0, 1], got {self.subgradient!r}")
        if self.steps is None and abs(1 / (4 * self.alpha) - round(1 / (4 * self.alpha))) > 1e-9:
            raise ValueError(f"1/(4 alpha) must be an integer for T = 1 + 1/(4 alpha), got alpha = {self.alpha!r}")
        if self.steps is not None and (int(self.steps) != self.steps or self.steps < 1):
            raise ValueError(f"steps must be an integer >= 1, got {self.steps!r}")

    @property
    def T(self) -> int:
        """The stopping time: ``steps`` or 1 + 1/(4 alpha) (Theorem 3.1)."""
        return int(self.steps) if self.steps is not None else 1 + round(1 / (4 * self.alpha))


@dataclass
class Trace:
    """Per seed (rows) and step t = 0..T (columns) unless noted; ratios are 'measured / bound',
    so a predicate holds where its ratio is <= 1 (``nac_violations`` counts failures instead).

    - ``nac_violations``: pairs (j in J_mu, i in I_mu u I_-mu) breaking Condition 4.7 at t;
    - ``ao_ratio``: max over J_{+-mu_1} of |<w_j, mu_2>| and over J_{+-mu_2} of |<w_j, mu_1>|,
      over 3 alpha |a_j| (Condition 4.8), t >= 1;
    - ``growth_ratio``: max_j ||w_j^(t)|| / (2 |a_j| alpha t) (Lemma A.1), t >= 1;
    - ``frobenius``: ||W^(t)||_F;
    - ``subnet_ratio``: max_i |f - f^J|(x_i) / (||x_i|| sqrt(|J^c|/m) ||W_{J^c}||_F) (Lemma 4.6);
    - ``corr_min``: min over j in J_mu of <w_j/||w_j||, mu> (Lemmas 4.2, 4.10);
    - ``clean_right``, ``noisy_wrong``: fractions of clean samples with y f > 0 and of noisy ones
      with y f < 0 (Theorem 3.1's first two conclusions), at t;
    - per seed only: ``J_sizes`` (4 columns), ``count_gap`` (min over j in J_mu of
      (N_mu(j) - N_-mu(j))/n at initialisation, Lemma 4.4), ``subnet_clean``/``subnet_noisy``
      (min over clean and max over noisy of y_i f^J(x_i; W^(T)), Lemma 4.9), ``test_error``
      (fresh sample of ``n_test`` draws with the same label noise, Theorem 3.1), ``feature_change``
      (min_i ||phi(W^(T) x_i) - phi(W^(0) x_i)|| / ||phi(W^(0) x_i)||, Proposition 3.2),
      ``noisy_fraction``, ``cluster_sizes`` (4 columns), ``max_sq_dev`` (max_i ||x_i - mu||^2).
    """

    setting: Setting
    seeds: tuple[int, ...]
    nac_violations: torch.Tensor = field(repr=False)
    ao_ratio: torch.Tensor = field(repr=False)
    growth_ratio: torch.Tensor = field(repr=False)
    frobenius: torch.Tensor = field(repr=False)
    subnet_ratio: torch.Tensor = field(repr=False)
    corr_min: torch.Tensor = field(repr=False)
    clean_right: torch.Tensor = field(repr=False)
    noisy_wrong: torch.Tensor = field(repr=False)
    J_sizes: torch.Tensor = field(repr=False)
    count_gap: torch.Tensor = field(repr=False)
    subnet_clean: torch.Tensor = field(repr=False)
    subnet_noisy: torch.Tensor = field(repr=False)
    test_error: torch.Tensor = field(repr=False)
    feature_change: torch.Tensor = field(repr=False)
    noisy_fraction: torch.Tensor = field(repr=False)
    cluster_sizes: torch.Tensor = field(repr=False)
    max_sq_dev: torch.Tensor = field(repr=False)


def second_layer(m: int, device="cpu") -> torch.Tensor:
    """a_j = +1/sqrt(m) for j < m/2, -1/sqrt(m) otherwise (Section 2)."""
    a = torch.full((m,), 1 / math.sqrt(m), dtype=DTYPE, device=device)
    a[m // 2:] *= -1
    return a


def initial_weights(s: Setting, seed: int, device="cpu") -> torch.Tensor:
    """W^(0): m x d i.i.d. N(0, omega^2) from the run's own stream (seed offset ``INIT``)."""
    gen = torch.Generator(device=device).manual_seed(3 * int(seed) + INIT)
    return s.omega * torch.randn(s.m, s.d, generator=gen, dtype=DTYPE, device=device)


def network(W, X, a):
    """f(x_i; W) for batched W (S, m, d), X (S, n, d): (S, n); and the pre-activations (S, n, m)."""
    pre = X @ W.transpose(1, 2)
    return torch.relu(pre) @ a, pre


def gradient(W, X, y, a, subgradient=0.0):
    """The gradient of L(W) = (1/n) sum_i log(1 + exp(-y_i f(x_i; W))) in W, (S, m, d):
    -(1/n) sum_i sigmoid(-y_i f_i) y_i a_j phi'(<w_j, x_i>) x_i, with phi'(0) = ``subgradient``."""
    f, pre = network(W, X, a)
    g = -torch.sigmoid(-y * f) * y / X.shape[1]                     # dL/df_i
    act = (pre > 0).to(DTYPE) + subgradient * (pre == 0).to(DTYPE)
    return a[None, :, None] * ((g[:, :, None] * act).transpose(1, 2) @ X)


def cluster_sets(W0, a, C0):
    """Boolean (S, m, 4) membership of J_{+mu_1}, J_{-mu_1}, J_{+mu_2}, J_{-mu_2} (Lemma 4.2,
    threshold 1/(3 C_0 sqrt d)) from W^(0)."""
    d = W0.shape[2]
    u = W0[..., :2] / W0.norm(dim=2, keepdim=True)
    thr = 1 / (3 * C0 * math.sqrt(d))
    pos = (a > 0)[None, :]
    return torch.stack([pos & (u[..., 0] >= thr), pos & (-u[..., 0] >= thr),
                        ~pos & (u[..., 1] >= thr), ~pos & (-u[..., 1] >= thr)], dim=2)


#: for J-column k: (coordinate of its mean, sign of its mean, the cluster index of +mean, of -mean)
#: with data.CLUSTERS' order (+mu_1, -mu_1, +mu_2, -mu_2)
J_MEANS = ((0, 1.0, 0, 1), (0, -1.0, 1, 0), (1, 1.0, 2, 3), (1, -1.0, 3, 2))


def _stack_samples(s: Setting, seeds, offset, n, device):
    draws = [data.sample(n, s.d, s.sigma, s.eta, seed=3 * int(q) + offset, device=device, adversary=s.adversary)
             for q in seeds]
    return (torch.stack([dr.x for dr in draws]), torch.stack([dr.y for dr in draws]),
            torch.stack([dr.clean for dr in draws]), torch.stack([dr.cluster for dr in draws]))


def train(s: Setting, seeds, *, device="cpu", progress=None) -> Trace:
    """Run GD for every seed at once and evaluate the predicates at t = 0..T (``Trace``).
    ``progress(t)`` is called after each step."""
    seeds = tuple(int(q) for q in seeds)
    if not seeds:
        raise ValueError("at least one seed is needed")
    S, T = len(seeds), s.T
    X, y, clean, cl = _stack_samples(s, seeds, DATA, s.n, device)
    a = second_layer(s.m, device)
    W = torch.stack([initial_weights(s, q, device) for q in seeds])
    W0 = W.clone()
    J = cluster_sets(W0, a, s.C0)                                   # (S, m, 4)
    inJ = J.any(dim=2)
    noisy = y != clean
    # the clusters each J-column must capture (+mean) and leave off (-mean), (S, n, 4)
    on = torch.stack([cl == k[2] for k in J_MEANS], dim=2)
    off = torch.stack([cl == k[3] for k in J_MEANS], dim=2)
    nan = float("nan")
    rec = {k: torch.full((S, T + 1), nan, dtype=DTYPE) for k in
           ("nac_violations", "ao_ratio", "growth_ratio", "frobenius", "subnet_ratio", "corr_min",
            "clean_right", "noisy_wrong")}
    absa = a.abs()
    xnorm = X.norm(dim=2)                                           # (S, n)
    Jc = (~inJ).to(DTYPE)
    frac_c = Jc.sum(1) / s.m                                        # |J^c|/m, (S,)
    for t in range(T + 1):
        f, pre = network(W, X, a)
        onoff = pre > 0                                             # (S, n, m): phi' = 1 (phi'(0) aside)
        viol = torch.zeros(S, dtype=DTYPE)
        for k in range(4):
            jk = J[:, :, k].to(DTYPE)                               # (S, m)
            miss_on = (on[:, :, k, None] & ~onoff).to(DTYPE)        # sample on its cluster, neuron off
            hit_off = (off[:, :, k, None] & (pre >= 0)).to(DTYPE)   # sample on the opposite cluster, neuron not off
            viol += ((miss_on + hit_off) * jk[:, None, :]).sum((1, 2))
        rec["nac_violations"][:, t] = viol
        rec["frobenius"][:, t] = W.norm(dim=(1, 2))
        margin = y * f
        nclean, nnoisy = (~noisy).sum(1).clamp(min=1), noisy.sum(1)
        rec["clean_right"][:, t] = ((margin > 0) & ~noisy).sum(1) / nclean
        rec["noisy_wrong"][:, t] = torch.where(nnoisy > 0, ((margin < 0) & noisy).sum(1) / nnoisy.clamp(min=1),
                                               torch.ones_like(nnoisy, dtype=DTYPE))
        corr = torch.full((S,), math.inf, dtype=DTYPE)
        wn = W.norm(dim=2)
        for k, (coord, sign, _, _) in enumerate(J_MEANS):
            ck = torch.where(J[:, :, k], sign * W[:, :, coord] / wn, torch.full_like(wn, math.inf))
            corr = torch.minimum(corr, ck.min(1).values)
        rec["corr_min"][:, t] = corr
        # Lemma 4.6: the sub-network f^J and the Cauchy-Schwarz bound of its proof
        fJ = (torch.relu(pre) * inJ.to(DTYPE)[:, None, :]) @ a
        WJc = (W.square().sum(2) * Jc).sum(1).sqrt()
        bound = xnorm * (frac_c.sqrt() * WJc)[:, None]
        gap = (f - fJ).abs()
        rec["subnet_ratio"][:, t] = torch.where(bound > 0, gap / bound.clamp(min=1e-300),
                                                torch.where(gap > 0, math.inf, 0.0)).max(1).values
        if t >= 1:
            other = torch.where(J[:, :, 0] | J[:, :, 1], W[:, :, 1].abs(), torch.zeros_like(wn))
            other = torch.maximum(other, torch.where(J[:, :, 2] | J[:, :, 3], W[:, :, 0].abs(), torch.zeros_like(wn)))
            rec["ao_ratio"][:, t] = (other / (3 * s.alpha * absa)).max(1).values
            rec["growth_ratio"][:, t] = (wn / (2 * absa * s.alpha * t)).max(1).values
        if t == 0:
            count_gap = _count_gap(pre, J, on, off, noisy, s.n)
            feat0 = torch.relu(pre)
        if t == T:
            fJ_T, feat_T = fJ, torch.relu(pre)
            break
        W = W - s.alpha * gradient(W, X, y, a, s.subgradient)
        if progress is not None:
            progress(t + 1)
    big = torch.tensor(math.inf, dtype=DTYPE)
    subnet_clean = torch.where(~noisy, y * fJ_T, big).min(1).values
    subnet_noisy = torch.where(noisy, y * fJ_T, -big).max(1).values
    f0 = feat0.norm(dim=2)
    change = (feat_T - feat0).norm(dim=2)
    feature_change = torch.where(f0 > 0, change / f0.clamp(min=1e-300), torch.where(change > 0, math.inf, nan)).min(1).values
    test_error = torch.stack([_test_error(s, q, W[k], a, device) for k, q in enumerate(seeds)])
    means = torch.tensor([c[:2] for c in data.CLUSTERS], dtype=DTYPE, device=device)
    dev = X.clone()
    dev[..., :2] -= means[cl]
    return Trace(setting=s, seeds=seeds, J_sizes=J.sum(1).to(DTYPE), count_gap=count_gap,
                 subnet_clean=subnet_clean, subnet_noisy=subnet_noisy, test_error=test_error,
                 feature_change=feature_change, noisy_fraction=noisy.to(DTYPE).mean(1),
                 cluster_sizes=torch.stack([(cl == k).sum(1) for k in range(4)], dim=1).to(DTYPE),
                 max_sq_dev=dev.square().sum(2).max(1).values, **rec)


def _count_gap(pre0, J, on, off, noisy, n):
    """min over j in J_mu of (N_mu(j) - N_-mu(j))/n, N_mu(j) = #{clean i in I_mu : <w_j^(0), x_i> > 0}
    (Lemma 4.4); +inf for a seed with every J_mu empty."""
    act = (pre0 > 0).to(DTYPE)
    clean = (~noisy).to(DTYPE)
    out = torch.full((pre0.shape[0],), math.inf, dtype=DTYPE)
    for k in range(4):
        Non = ((on[:, :, k].to(DTYPE) * clean)[:, :, None] * act).sum(1)      # (S, m)
        Noff = ((off[:, :, k].to(DTYPE) * clean)[:, :, None] * act).sum(1)
        gap = torch.where(J[:, :, k], (Non - Noff) / n, torch.full_like(Non, math.inf))
        out = torch.minimum(out, gap.min(1).values)
    return out


def _test_error(s: Setting, seed, W, a, device):
    """P(y f(x; W) <= 0) on ``n_test`` fresh draws with the run's label noise, one seed at a time
    (a seed's test sample is n_test x d)."""
    draw = data.sample(s.n_test, s.d, s.sigma, s.eta, seed=3 * int(seed) + TEST, device=device)
    f, _ = network(W[None], draw.x[None], a)
    return (draw.y * f[0] <= 0).to(DTYPE).mean()
