"""Embeddings Phi of the model (2)-(3) for Experiments 2 and 3, and the feature-space problem of a
network with a given embedding.

- ``quadratic(X)``: Phi(x) = vec(x x^T) in R^(d^2) (Exp. 2, Section 4.2), whose kernel (12) is
  G(x, x') = (x^T x')^2 / d^2 (``gram_quadratic``);
- ``linear(X)``: Phi(x) = x (D = d), the plain shallow net (1), G = G^(0) of (20);
- ``random_features(X, Z, activation)``: phi_j(x) = s(z_j^T x / sqrt d), the first hidden layer of
  the P-3L net (5) (Exp. 3).

``embedded_problem`` draws the raw parameters, W^0_ij ~ N(0, 1) (m x D; for a symmetric scaling
m/2 rows, each used twice with opposite c_i) and c_i = +-c_hat, and returns the problem (11) of
``numerics.meanfield.dynamics`` at the training points with G = Phi Phi^T / D, eq. (12), together
with the cross kernel G(x_test, x_a) and h^0 at the test points: both from the same W^0, so the
joint law of the features at training and test points is the network's.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from numerics.core.arrays import DTYPE

from . import dynamics as dy
from .kernels import as_data


def quadratic(X) -> torch.Tensor:
    """Phi(x) = vec(x x^T), (n, d) -> (n, d^2) (Section 4.2)."""
    t, _ = as_data(X)
    return (t[:, :, None] * t[:, None, :]).reshape(t.shape[0], -1)


def gram_quadratic(X) -> torch.Tensor:
    """G_ab = (x_a^T x_b)^2 / d^2: the kernel (12) of ``quadratic`` (D = d^2), (n, d) -> (n, n)."""
    t, _ = as_data(X)
    return (t @ t.T) ** 2 / t.shape[1] ** 2


def linear(X) -> torch.Tensor:
    """Phi(x) = x (D = d): the shallow net (1)."""
    t, _ = as_data(X)
    return t


def random_features(X, Z, activation) -> torch.Tensor:
    """phi_j(x_a) = s(z_j^T x_a / sqrt d), (n, d), (D, d) -> (n, D): the random embedding (5)."""
    t, _ = as_data(X)
    z, _ = as_data(Z, "Z")
    return dy.parse_activation(activation)(t @ z.T / math.sqrt(t.shape[1]))


@dataclass(frozen=True)
class Embedded:
    """A network (2)-(3) with a given embedding, in feature space: the problem at the training points,
    the cross kernel ``G_test`` (n_test, n) and ``h0_test`` (m, n_test); ``W0`` the raw weights."""

    problem: dy.Problem
    G_test: torch.Tensor
    h0_test: torch.Tensor
    W0: torch.Tensor


def embedded_problem(Phi, Phi_test, y, m: int, scaling: dy.Scaling, activation, *, seed: int,
                     c_hat: float = 1.0) -> Embedded:
    """The network f = m^-a sum_i c_i s(h_i), h_i = D^-b W_i Phi (``scaling``) on the embedded
    training inputs ``Phi`` (n, D) and test inputs ``Phi_test`` (n_test, D), from raw W^0 and c drawn
    with ``seed`` (module docstring).  Memory m D for W^0: use a moderate m D."""
    Phi = torch.as_tensor(Phi, dtype=DTYPE)
    Phi_test = torch.as_tensor(Phi_test, dtype=DTYPE)
    D = Phi.shape[1]
    if Phi_test.shape[1] != D:
        raise ValueError(f"Phi has D = {D}, Phi_test {Phi_test.shape[1]}")
    if scaling.symmetric and m % 2:
        raise ValueError(f"the symmetrised initialisation needs an even width, got m = {m}")
    gen = torch.Generator().manual_seed(seed)
    half = torch.randn(m // 2 if scaling.symmetric else m, D, generator=gen, dtype=DTYPE)
    W0 = torch.cat([half, half]) if scaling.symmetric else half
    scale = D ** -scaling.b
    p = dy.make_problem(Phi @ Phi.T / D, y, m, c_hat, activation, seed=seed + 1, h0=scale * (W0 @ Phi.T),
                        scaling=scaling, D=D)
    return Embedded(p, Phi_test @ Phi.T / D, scale * (W0 @ Phi_test.T), W0)
