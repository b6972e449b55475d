"""GD on the raw parameters of the P-3L net (4)-(5) with D = m, under the abc-parameterisations of
Table 1 and Appendix C (``theory.meanfield.scalings.ABC``) and under Xavier's (Appendix B).

A net holds raw weights w1 (m, d), w2 (m, m), w3 (m,) and multipliers (mu1, mu2, mu3):

    phi(x) = sigma(mu1 w1 x / sqrt d),   h(x) = mu2 w2 phi(x),   f(x) = mu3 w3 . sigma(h(x)),

the abc-parameterisation [73] sets mu_l = m^-a_l, w^l = m^-b_l times a standard draw (z, W ~ N(0, 1),
c = +-1 Rademacher, Appendix I) and GD step delta m^-c on w2 (only layer 2 is trained); Xavier's
(25)-(26) is mu = 1 with w1 ~ N(0, 1/(m + d)), w2 ~ N(0, 1/(2m)), w3 ~ N(0, 1/(m + 1)) and step delta.
Gradients are torch autograd of L = (1/2) sum_a (f(x_a) - y_a)^2 (6): nothing of (11) is used.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

import torch

from numerics.core.arrays import DTYPE
from numerics.core.gaussian_kernels import parse_activation
from theory.meanfield.scalings import ABC


@dataclass(frozen=True)
class Net:
    """Raw weights, multipliers, GD step on w2, activation name."""

    w1: torch.Tensor
    w2: torch.Tensor
    w3: torch.Tensor
    mult: tuple[float, float, float]
    lr: float
    activation: str = "relu"

    @property
    def m(self) -> int:
        return self.w2.shape[0]


def standard_draws(m: int, d: int, seed: int):
    """z ~ N(0, I) (m, d), W ~ N(0, 1) (m, m), c = +-1 (m,) from one seeded generator."""
    gen = torch.Generator().manual_seed(seed)
    z = torch.randn(m, d, generator=gen, dtype=DTYPE)
    W = torch.randn(m, m, generator=gen, dtype=DTYPE)
    c = 2.0 * torch.randint(0, 2, (m,), generator=gen, dtype=DTYPE) - 1.0
    return z, W, c


def abc_net(name: str, draws, delta: float, activation: str = "relu", c_hat: float = 1.0) -> Net:
    """The net of parameterisation ``name`` ('ours', 'ntk', 'mf', 'mup') from standard draws."""
    a, b, c = ABC[name]
    z, W, cc = draws
    m = W.shape[0]
    w = [float(m) ** -float(bl) * t for bl, t in zip(b, (z, W, c_hat * cc))]
    return Net(*w, mult=tuple(float(m) ** -float(al) for al in a), lr=delta * float(m) ** -float(c), activation=activation)


def xavier_net(m: int, d: int, seed: int, delta: float, activation: str = "relu") -> Net:
    """(25)-(26) with the variances Appendix B prints: theta1 ~ N(0, 1/(m + d)), theta2 ~ N(0, 1/(2m)),
    theta3 ~ N(0, 1/(m + 1)) (Gaussian: Xavier has no Rademacher layer), multipliers 1, step delta."""
    gen = torch.Generator().manual_seed(seed)
    t1 = torch.randn(m, d, generator=gen, dtype=DTYPE) / math.sqrt(m + d)
    t2 = torch.randn(m, m, generator=gen, dtype=DTYPE) / math.sqrt(2 * m)
    t3 = torch.randn(m, generator=gen, dtype=DTYPE) / math.sqrt(m + 1)
    return Net(t1, t2, t3, mult=(1.0, 1.0, 1.0), lr=delta, activation=activation)


def xavier_to_ours(net: Net) -> Net:
    """Appendix B's reparameterisation c = sqrt(m) theta3, W = sqrt(m) theta2, z = sqrt(m) theta1,
    into the net (4)-(5) (multipliers 1, m^-1/2, m^-1) with GD step m delta (9)."""
    s = math.sqrt(net.m)
    return Net(s * net.w1, s * net.w2, s * net.w3, mult=(1.0, 1.0 / s, 1.0 / net.m), lr=net.m * net.lr,
               activation=net.activation)


def forward(net: Net, X: torch.Tensor, w2: torch.Tensor | None = None):
    """(h, f): h (n, m) the hidden pre-activations, f (n,) the outputs, at the inputs X (n, d)."""
    act = parse_activation(net.activation)
    w2 = net.w2 if w2 is None else w2
    phi = act(net.mult[0] * (X @ net.w1.T) / math.sqrt(X.shape[1]))
    h = net.mult[1] * (phi @ w2.T)
    return h, net.mult[2] * (act(h) @ net.w3)


def gd(net: Net, X, y, steps: int) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """(h, f) at the training inputs after 0, 1, ..., ``steps`` GD steps on w2 (autograd)."""
    X = torch.as_tensor(X, dtype=DTYPE)
    y = torch.as_tensor(y, dtype=DTYPE)
    out = []
    for _ in range(steps):
        w2 = net.w2.clone().requires_grad_(True)
        h, f = forward(net, X, w2)
        (g,) = torch.autograd.grad(0.5 * ((f - y) ** 2).sum(), w2)
        out.append((h.detach(), f.detach()))
        net = replace(net, w2=net.w2 - net.lr * g)
    out.append(forward(net, X))
    return out


def step_sizes(names, m: int, X, y, delta: float, seed: int, steps: int = 1, activation: str = "relu"):
    """For each parameterisation of ``names``: the RMS sizes (h^0, f^0, h^k - h^0, f^k - f^0) after
    k = ``steps`` GD steps at width m, all from the standard draws of ``seed``; RMS over neurons and
    training points for h, over training points for f."""
    draws = standard_draws(m, X.shape[1], seed)
    rms = lambda t: float(t.pow(2).mean().sqrt())
    out = {}
    for name in names:
        traj = gd(abc_net(name, draws, delta, activation), X, y, steps)
        (h0, f0), (hk, fk) = traj[0], traj[-1]
        out[name] = (rms(h0), rms(f0), rms(hk - h0), rms(fk - f0))
    return out
