"""Synthetic data and initialisation for the experiments (Assumption 3.1, Theorem 5.2).

Data (``synthetic_data``): inputs x_i = g_i / ||g_i|| with g_i ~ N(0, I_d) i.i.d., so
||x_i|| = 1 and no two inputs are parallel (almost surely, for d >= 2), as Assumption 3.1
asks.  The paper does not say how Fig. 3's labels were made, so two kinds are offered:

- ``"random"``: y_i ~ Uniform[-1, 1] i.i.d., independent of x_i (bounded, |y_i| <= 1);
  a network can fit them only by memorising.
- ``"teacher"``: y_i = f(W*, x_i) = m*^{-1/2} sum_r a*_r ReLU(w*_r^T x_i) for a teacher
  of the student's form, w*_r ~ N(0, I_d), a*_r uniform on {-1, 1}, m* = ``teacher_width``;
  realizable labels, |y_i| <= sqrt(m*) (typically O(1): Var f = 1/2 for unit inputs).

Initialisation (``initialisation``): w_{0,r} ~ N(0, tau^2 I_d), a_r uniform on {-1, 1}
(Theorem 5.2); the paper does not state tau.  Everything is seeded and float64.
"""
from __future__ import annotations

import math

import torch

LABELS = ("random", "teacher")


def _generator(seed: int) -> torch.Generator:
    if int(seed) != seed or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    return torch.Generator().manual_seed(int(seed))


def _signs(m: int, g: torch.Generator) -> torch.Tensor:
    return torch.where(torch.rand(m, generator=g) < 0.5, -1.0, 1.0).to(torch.float64)


def synthetic_data(n: int, d: int, seed: int, labels: str = "random", teacher_width: int = 100):
    """Assumption 3.1 data (X (n, d) numpy, y (n,) numpy); see the module docstring."""
    for name, v in (("n", n), ("d", d), ("teacher_width", teacher_width)):
        if int(v) != v or v < 1:
            raise ValueError(f"{name} must be a positive integer, got {v!r}")
    if labels not in LABELS:
        raise ValueError(f"labels must be one of {LABELS}, got {labels!r}")
    g = _generator(seed)
    X = torch.randn(n, d, generator=g, dtype=torch.float64)
    X /= torch.linalg.vector_norm(X, dim=1, keepdim=True)
    if labels == "random":
        y = 2 * torch.rand(n, generator=g, dtype=torch.float64) - 1
    else:
        Wt = torch.randn(teacher_width, d, generator=g, dtype=torch.float64)
        at = _signs(teacher_width, g)
        y = torch.relu(X @ Wt.T) @ at / math.sqrt(teacher_width)
    return X.numpy(), y.numpy()


def initialisation(m: int, d: int, tau: float, seed: int):
    """w_{0,r} ~ N(0, tau^2 I), a_r uniform on {-1, 1} (Theorem 5.2); (W (m, d), a (m,)) numpy."""
    for name, v in (("m", m), ("d", d)):
        if int(v) != v or v < 1:
            raise ValueError(f"{name} must be a positive integer, got {v!r}")
    if not (tau > 0 and math.isfinite(tau)):
        raise ValueError(f"tau must be a positive finite number, got {tau!r}")
    g = _generator(seed)
    W = tau * torch.randn(m, d, generator=g, dtype=torch.float64)
    return W.numpy(), _signs(m, g).numpy()
