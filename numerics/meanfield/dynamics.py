"""Gradient flow and gradient descent of the paper's model in feature space, eq. (11).

Only the pre-activations at the training points, h_ia = h_i(x_a) (an (m, n) tensor), are
evolved: by (11), gradient flow (10) on W moves them as

    hdot_ia = -c_i sum_b G_ab r_b sigma'(h_ib),    r_b = f(x_b) - y_b,   f(x_b) = (1/m) sum_i c_i sigma(h_ib),

with G the Gram matrix (12) -- memory m n and m n^2 + O(m n) operations per evaluation, for any
embedding dimension D.  Gradient descent (9), W <- W - m delta dL/dW, moves them by exactly
delta times this velocity (h is linear in W), so GD is the Euler scheme of (11) with step delta.

``integrate`` runs classical RK4 with ``steps`` and with 2 ``steps`` steps and accepts when
the two agree (Richardson: the error of the finer run is about 1/15 of their difference,
exactly so for smooth sigma; for relu-type sigma a neuron crossing a kink lowers the order, and
the measured difference is what is reported), doubling the steps otherwise.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import torch

from numerics.core.arrays import DTYPE
from numerics.core.compile import compile_expr
from numerics.core.gaussian_kernels import Activation, parse_activation
from theory.meanfield import dynamics as th

_K_ARGS = (th.I_l, th.I_r, th.lam1, th.lam2, th.K_s)
#: kappa(lambda_1, lambda_2) of Lemma 1 as printed, and as its proof gives it (3 C_2), as functions
#: of (I_l, I_r, lambda_1, lambda_2, K_sigma')
kappa_printed = compile_expr(th.KAPPA_PRINTED, _K_ARGS)
kappa_proof = compile_expr(th.KAPPA_STAR, _K_ARGS)
#: K(I, lambda_1, lambda_2) of Lemma 3 as printed, of (I_l, I_r, lambda_1, lambda_2)
K_printed = compile_expr(th.K_PRINTED, _K_ARGS[:4])


@dataclass(frozen=True)
class Problem:
    """One instance of (11): Gram matrix ``G`` (n, n), targets ``y`` (n,), second-layer
    weights ``c`` (m,), activation, initial pre-activations ``h0`` (m, n)."""

    G: torch.Tensor
    y: torch.Tensor
    c: torch.Tensor
    act: Activation
    h0: torch.Tensor

    def __post_init__(self):
        m, n = self.h0.shape
        if self.G.shape != (n, n) or self.y.shape != (n,) or self.c.shape != (m,):
            raise ValueError(f"shapes: G {tuple(self.G.shape)}, y {tuple(self.y.shape)}, c {tuple(self.c.shape)}, "
                             f"h0 {tuple(self.h0.shape)} (need (n, n), (n,), (m,), (m, n))")
        for name in ("G", "y", "c", "h0"):
            if not torch.isfinite(getattr(self, name)).all():
                raise ValueError(f"{name} must be finite")

    @property
    def m(self) -> int:
        return self.h0.shape[0]

    @property
    def c_hat(self) -> float:
        return float(self.c.abs().max())

    def eig(self) -> tuple[float, float]:
        ev = torch.linalg.eigvalsh(self.G)
        return float(ev[0]), float(ev[-1])


def make_problem(G, y, m: int, c_hat: float, activation, *, seed: int = 0, h0=None) -> Problem:
    """c_i = +-c_hat with probability 1/2 (Assumption 1); h0 ~ N(0, G) independently per neuron
    (W^0 ~ N(0, 1), Assumption 3: h_i^0 = W_i Phi/sqrt D has covariance G) unless ``h0`` is given."""
    G = torch.as_tensor(G, dtype=DTYPE)
    y = torch.as_tensor(y, dtype=DTYPE)
    gen = torch.Generator().manual_seed(seed)
    c = c_hat * (2.0 * torch.randint(0, 2, (m,), generator=gen, dtype=DTYPE) - 1.0)
    if h0 is None:
        ev, V = torch.linalg.eigh(G)       # G = V diag(ev) V^T is PSD; a singular G is allowed
        root = V * ev.clamp(min=0.0).sqrt()
        h0 = torch.randn(m, len(y), generator=gen, dtype=DTYPE) @ root.T
    return Problem(G, y, c, parse_activation(activation), torch.as_tensor(h0, dtype=DTYPE))


def output(p: Problem, h: torch.Tensor) -> torch.Tensor:
    """f(x_a) = (1/m) sum_i c_i sigma(h_ia), eq. (2)."""
    return p.c @ p.act(h) / p.m


def loss(p: Problem, h: torch.Tensor) -> float:
    """L = (1/2) sum_a (f(x_a) - y_a)^2, eq. (6) (a sum, not a mean)."""
    r = output(p, h) - p.y
    return float(0.5 * r @ r)


def velocity(p: Problem, h: torch.Tensor) -> torch.Tensor:
    """hdot_ia = -c_i sum_b G_ab r_b sigma'(h_ib), eq. (11)."""
    r = output(p, h) - p.y
    return -p.c[:, None] * ((r[None, :] * p.act.derivative(h)) @ p.G)


def loss_rate(p: Problem, h: torch.Tensor) -> float:
    """The right side of (14)'s identity: -(c_hat^2/m) sum_i sum_ab G_ab r_a r_b sigma'_ia sigma'_ib."""
    r = output(p, h) - p.y
    v = r[None, :] * p.act.derivative(h)
    return float(-(p.c**2 / p.m) @ ((v @ p.G) * v).sum(1))


def loss_rate_bound(p: Problem, h: torch.Tensor, lam_min: float) -> float:
    """The right side of (14)'s inequality: -(c_hat^2 lambda_min/m) sum_i sum_a r_a^2 sigma'_ia^2."""
    r = output(p, h) - p.y
    v = r[None, :] * p.act.derivative(h)
    return float(-(p.c**2 / p.m) @ (v * v).sum(1) * lam_min)


def active_fraction(h: torch.Tensor, lo: float, hi: float) -> float:
    """min_a (1/m) #{i : h_ia in (lo, hi)}: eta^t of (18) for I = (lo, hi), and tilde eta^0 for its middle third."""
    inside = ((h > lo) & (h < hi)).to(DTYPE)
    return float(inside.mean(0).min())


@dataclass
class Trajectory:
    """Recorded states of one run: times (k+1,), pre-activations (k+1, m, n), and the
    measured agreement of the step-halving check (max |h_N - h_2N| over the recorded times)."""

    times: list[float]
    states: list[torch.Tensor]
    steps: int
    halving_error: float = math.nan
    losses: list[float] = field(default_factory=list)


def rk4(p: Problem, T: float, steps: int, records: int) -> Trajectory:
    """Classical RK4 on (11) from h0 over [0, T] with ``steps`` steps, ``records`` + 1 snapshots."""
    if steps % records:
        raise ValueError("steps must be a multiple of records")
    dt = T / steps
    h = p.h0.clone()
    times, states = [0.0], [h.clone()]
    every = steps // records
    for k in range(1, steps + 1):
        k1 = velocity(p, h)
        k2 = velocity(p, h + 0.5 * dt * k1)
        k3 = velocity(p, h + 0.5 * dt * k2)
        k4 = velocity(p, h + dt * k3)
        h = h + dt / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
        if k % every == 0:
            times.append(k * dt)
            states.append(h.clone())
    return Trajectory(times, states, steps, losses=[loss(p, s) for s in states])


def integrate(p: Problem, T: float, *, steps: int = 256, records: int = 64, rtol: float = 1e-8,
              max_steps: int = 2**16) -> Trajectory:
    """RK4 with step halving (module docstring): accepts when max |h_N - h_2N| <= rtol (1 + max |h|)
    at every recorded time; raises ``ArithmeticError`` if ``max_steps`` is reached first."""
    coarse = rk4(p, T, steps, records)
    while True:
        fine = rk4(p, T, 2 * steps, records)
        diff = max(float((a - b).abs().max()) for a, b in zip(coarse.states, fine.states))
        scale = 1.0 + max(float(s.abs().max()) for s in fine.states)
        fine.halving_error = diff
        if diff <= rtol * scale:
            return fine
        steps *= 2
        if 2 * steps > max_steps:
            raise ArithmeticError(f"RK4 step halving did not reach rtol={rtol:g} with {max_steps} steps "
                                  f"(last difference {diff:.3g})")
        coarse = fine


def gradient_descent(p: Problem, delta: float, steps: int, *, every: int = 1) -> list[float]:
    """The losses of GD (9) with step delta: h <- h + delta * velocity(h), every ``every`` steps."""
    h = p.h0.clone()
    out = [loss(p, h)]
    for k in range(1, steps + 1):
        h = h + delta * velocity(p, h)
        if k % every == 0:
            out.append(loss(p, h))
    return out
