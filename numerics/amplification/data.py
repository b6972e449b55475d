"""The XOR cluster distribution of Section 2 (``theory.amplification.distribution.DISTRIBUTION``,
our reading of the lost display) and the closed forms of its prose claims, in float64.

``sample(n, d, sigma, eta, seed)`` draws the raw randomness: a cluster index uniform on
{+mu_1, -mu_1, +mu_2, -mu_2}, Gaussian in-cluster noise sigma g, g ~ N(0, I_d), the clean label
(+1 on +-mu_1, -1 on +-mu_2) and independent label flips of probability eta.  mu_1, mu_2 are the
first two standard basis vectors: the noise is isotropic, so any orthonormal pair gives the same
law up to a rotation.  Nothing here calls a closed form; ``affine_error`` and ``bayes_error``
evaluate theory's expressions (``numerics.core.compile``), for the witnesses to judge.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch

from numerics.core.arrays import DTYPE
from numerics.core.compile import compile_expr
from theory.amplification import distribution as D

#: (coordinate along mu_1, coordinate along mu_2, clean label) of clusters 0..3
CLUSTERS = ((1.0, 0.0, 1.0), (-1.0, 0.0, 1.0), (0.0, 1.0, -1.0), (0.0, -1.0, -1.0))


@dataclass(frozen=True)
class Sample:
    """n draws: inputs x (n, d), clean labels, observed labels (after flips), cluster indices."""

    x: torch.Tensor
    clean: torch.Tensor
    y: torch.Tensor
    cluster: torch.Tensor

    @property
    def noisy(self) -> torch.Tensor:
        """The flipped samples (the set N of the paper)."""
        return self.y != self.clean


def _check(n, d, sigma, eta):
    if isinstance(n, bool) or int(n) != n or n < 1:
        raise ValueError(f"n must be an integer >= 1, got {n!r}")
    if isinstance(d, bool) or int(d) != d or d < 2:
        raise ValueError(f"d must be an integer >= 2, got {d!r}")
    if not (sigma >= 0 and sigma < float("inf")):
        raise ValueError(f"sigma must be finite and >= 0, got {sigma!r}")
    if not (0 <= eta <= 1):
        raise ValueError(f"eta must lie in [0, 1], got {eta!r}")


#: the label adversaries: None (independent flips of probability eta) or a rule choosing
#: k = round(eta n) samples to flip after the draw (Section 2 allows an adversary):
#: "cluster" the first k samples of the +mu_1 cluster (all of it if it has fewer), "margin" the k
#: samples closest to the Bayes boundary, smallest ||<mu_1, x>| - |<mu_2, x>||
ADVERSARIES = (None, "cluster", "margin")


def sample(n: int, d: int, sigma: float, eta: float = 0.0, *, seed: int, device="cpu", adversary=None) -> Sample:
    """n i.i.d. draws of the (noisy) distribution, reproducible from ``seed``; labels flipped
    independently or by an ``adversary`` (``ADVERSARIES``)."""
    _check(n, d, sigma, eta)
    if adversary not in ADVERSARIES:
        raise ValueError(f"adversary must be one of {ADVERSARIES}, got {adversary!r}")
    gen = torch.Generator(device=device).manual_seed(int(seed))
    cluster = torch.randint(0, 4, (int(n),), generator=gen, device=device)
    table = torch.tensor(CLUSTERS, dtype=DTYPE, device=device)
    x = sigma * torch.randn(int(n), int(d), generator=gen, dtype=DTYPE, device=device)
    x[:, 0] += table[cluster, 0]
    x[:, 1] += table[cluster, 1]
    clean = table[cluster, 2]
    flip = torch.rand(int(n), generator=gen, dtype=DTYPE, device=device) < eta
    k = round(eta * n)
    if adversary == "cluster":
        flip = (cluster == 0) & (torch.cumsum((cluster == 0).to(torch.int64), 0) <= k)
    elif adversary == "margin":
        flip = torch.zeros_like(flip)
        flip[torch.argsort((x[:, 0].abs() - x[:, 1].abs()).abs())[:k]] = True
    y = torch.where(flip, -clean, clean)
    return Sample(x, clean, y, cluster)


def affine_error(sigma: float) -> float:
    """P(sgn(1/2 - <mu_2, x>) != y) = (3 Phi(-1/(2 sigma)) + Phi(3/(2 sigma)))/4 (``prose.linear``)."""
    return compile_expr(D.AFFINE_ERROR, (D.sigma,), "math")(float(sigma))


def bayes_error(sigma: float) -> float:
    """The noiseless Bayes error 2 Phi(1/(sqrt 2 sigma)) Phi(-1/(sqrt 2 sigma)) (``prose.bayes``)."""
    return compile_expr(D.BAYES_ERROR, (D.sigma,), "math")(float(sigma))
