"""Monte Carlo witnesses: torch samples of the raw mask c ~ N(1, kappa^2 I_d).

Nothing here calls a closed form: each estimator evaluates the raw integrand of a
definition on sampled masks (the ReLU of the masked pre-activation w^T (x . c), the
indicator of c^T u >= 0, ...) and returns the sample mean with its standard error.
The judge is ``numerics.core.tolerance.ZTest``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import torch

from .arrays import DTYPE


@dataclass(frozen=True)
class Estimate:
    mean: torch.Tensor
    stderr: torch.Tensor
    samples: int

    def z_scores(self, exact) -> torch.Tensor:
        """(mean - exact)/stderr.  A zero-variance estimate (a degenerate law) must equal
        ``exact`` up to rounding: its z is 0 if so and +inf otherwise."""
        exact = torch.as_tensor(exact, dtype=self.mean.dtype, device=self.mean.device)
        diff = self.mean - exact
        degenerate = self.stderr == 0
        z = diff / torch.where(degenerate, torch.ones_like(self.stderr), self.stderr)
        rounding = diff.abs() <= 64 * torch.finfo(DTYPE).eps * exact.abs().clamp(min=1.0)
        return torch.where(degenerate, torch.where(rounding, 0.0, float("inf")), z)


def mask_mean(statistic: Callable[[torch.Tensor], torch.Tensor], d: int, kappa: float,
              samples: int, *, seed: int, batch: int = 200_000, device="cpu") -> Estimate:
    """Mean and standard error of ``statistic(c)`` over c ~ N(1, kappa^2 I_d).

    ``statistic`` maps a (batch, d) tensor of masks to (batch, ...) values.  Batched so
    that memory stays bounded; float64; reproducible from ``seed``.
    """
    if samples < 2:
        raise ValueError(f"samples must be >= 2, got {samples}")
    if kappa < 0:
        raise ValueError(f"kappa must be >= 0, got {kappa}")
    gen = torch.Generator(device=device).manual_seed(seed)
    total = total_sq = None
    done = 0
    while done < samples:
        b = min(batch, samples - done)
        c = 1.0 + kappa * torch.randn(b, d, generator=gen, dtype=DTYPE, device=device)
        x = statistic(c)
        s, s2 = x.sum(0), (x * x).sum(0)
        total = s if total is None else total + s
        total_sq = s2 if total_sq is None else total_sq + s2
        done += b
    mean = total / samples
    var = (total_sq / samples - mean**2).clamp(min=0.0) * samples / (samples - 1)
    return Estimate(mean, (var / samples).sqrt(), samples)


def relu_moment1(w, x, kappa, samples, *, seed, **kw) -> Estimate:
    """E_c[ReLU(w^T (x . c))]: the smoothed ReLU sigma_tilde, by sampling the raw mask."""
    w, x = torch.as_tensor(w, dtype=DTYPE), torch.as_tensor(x, dtype=DTYPE)
    return mask_mean(lambda c: torch.relu((c * x) @ w), x.shape[-1], kappa, samples, seed=seed, **kw)


def relu_moment2(w1, w2, x, kappa, samples, *, seed, **kw) -> Estimate:
    """E_c[ReLU(w1^T (x . c)) ReLU(w2^T (x . c))] (E_1 of Theorem 4.2's proof sketch)."""
    w1, w2, x = (torch.as_tensor(t, dtype=DTYPE) for t in (w1, w2, x))
    return mask_mean(lambda c: torch.relu((c * x) @ w1) * torch.relu((c * x) @ w2),
                     x.shape[-1], kappa, samples, seed=seed, **kw)


def mask_moment1(u, kappa, samples, *, seed, **kw) -> Estimate:
    """E[c 1{c^T u >= 0}] by sampling c."""
    u = torch.as_tensor(u, dtype=DTYPE)
    return mask_mean(lambda c: c * (c @ u >= 0).to(DTYPE)[:, None], u.shape[-1], kappa, samples,
                     seed=seed, **kw)


def mask_moment2(u, v, kappa, samples, *, seed, **kw) -> Estimate:
    """E[c c^T 1{c^T u >= 0, c^T v >= 0}] by sampling c (``v=None``: one constraint)."""
    u = torch.as_tensor(u, dtype=DTYPE)
    v = torch.zeros_like(u) if v is None else torch.as_tensor(v, dtype=DTYPE)

    def stat(c):
        ind = ((c @ u >= 0) & (c @ v >= 0)).to(DTYPE)
        return c[:, :, None] * c[:, None, :] * ind[:, None, None]

    return mask_mean(stat, u.shape[-1], kappa, samples, seed=seed, **kw)
