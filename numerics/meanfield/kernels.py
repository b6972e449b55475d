"""The limiting Gram matrices of the P-3L network (Chen, Vanden-Eijnden, Bruna, ICLR 2022).

- ``gram_bar(X, activation)`` = Gbar^(1) of eq. (23): Gbar_ab = E_z[s(z^T x_a/sqrt d) s(z^T x_b/sqrt d)],
  z ~ N(0, I_d);
- ``gram_bar_prime(X, activation)`` = E_z[s'(z^T x_a/sqrt d) s'(z^T x_b/sqrt d)], the derivative
  kernel (with s' = 0 where s is not differentiable, as the paper defines s' below Assumption 1);
- ``gram_empirical(X, Z, activation)`` = G^(1) of eq. (22) for the fixed first-layer weights Z;
- ``gram_shallow(X)`` = G^(0) of eq. (20), X X^T / d.

(z^T x_a/sqrt d, z^T x_b/sqrt d) is the centred normal pair with standard deviations
|x_a|/sqrt d, |x_b|/sqrt d and the angle between x_a and x_b, so both kernels are the dual
activations of ``numerics.core.gaussian_kernels`` (closed forms for relu, abs, erf, leaky relu;
for tanh ``tanh_dual``'s switch: a tensor trapezoidal rule at pair scales max(a, b) <= 6, the polar
Gauss-Legendre quadrature beyond) at those arguments, with Kahan's stable angle.

Activations: "relu", "abs", "erf", "tanh", "leaky_relu:ALPHA" (0 <= ALPHA < 1).  float64; numpy in
-> numpy out, tensor in -> tensor out; ValueError for NaN or infinite entries, a shape other
than (n, d) with n, d >= 1, or an unknown activation.
"""
from __future__ import annotations

import math

import numpy as np
import torch

from numerics.core import gaussian_kernels as gk
from numerics.core.arrays import DTYPE


def as_data(X, name: str = "X") -> tuple[torch.Tensor, bool]:
    """``X`` as a float64 (n, d) tensor, and whether the caller passed a tensor."""
    is_tensor = isinstance(X, torch.Tensor)
    try:
        t = X.to(DTYPE) if is_tensor else torch.as_tensor(np.asarray(X, dtype=np.float64))
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a real (n, d) array: {exc}") from None
    if t.ndim != 2 or t.shape[0] < 1 or t.shape[1] < 1:
        raise ValueError(f"{name} must have shape (n, d) with n, d >= 1, got {tuple(t.shape)}")
    if torch.isnan(t).any():
        raise ValueError(f"{name} contains NaN")
    if torch.isinf(t).any():
        raise ValueError(f"{name} must be finite")
    return t, is_tensor


def _back(result: torch.Tensor, is_tensor: bool):
    return result if is_tensor else result.detach().cpu().numpy()


def _kernel(X, activation, derivative: bool):
    act = gk.parse_activation(activation)
    t, is_tensor = as_data(X)
    n, d = t.shape
    norms, theta, supp = gk.pair_angles(t)
    s = norms / math.sqrt(d)
    if act.name == "tanh":
        iu = torch.triu_indices(n, n, device=t.device)
        vals = gk.dual(act, s[iu[0]], s[iu[1]], theta[iu[0], iu[1]], supp[iu[0], iu[1]], derivative=derivative)
        out = torch.empty(n, n, dtype=DTYPE, device=t.device)
        out[iu[0], iu[1]] = vals
        out[iu[1], iu[0]] = vals
    else:
        full = gk.dual(act, s[:, None], s[None, :], theta, supp, derivative=derivative)
        out = torch.triu(full) + torch.triu(full, 1).T     # exactly symmetric (the upper triangle)
    return _back(out, is_tensor)


def gram_bar(X, activation):
    """Gbar^(1)_ab = E_{z ~ N(0, I_d)}[s(z^T x_a/sqrt d) s(z^T x_b/sqrt d)], eq. (23); X (n, d) -> (n, n)."""
    return _kernel(X, activation, derivative=False)


def gram_bar_prime(X, activation):
    """E_{z ~ N(0, I_d)}[s'(z^T x_a/sqrt d) s'(z^T x_b/sqrt d)] (s' = 0 where s is not
    differentiable); X (n, d) -> (n, n)."""
    return _kernel(X, activation, derivative=True)


def gram_empirical(X, Z, activation):
    """G^(1)_ab = (1/D) sum_j s(z_j^T x_a/sqrt d) s(z_j^T x_b/sqrt d), eq. (22); Z (D, d)."""
    act = gk.parse_activation(activation)
    t, is_tensor = as_data(X)
    z, _ = as_data(Z, "Z")
    if z.shape[1] != t.shape[1]:
        raise ValueError(f"Z has dimension {z.shape[1]}, X has {t.shape[1]}")
    phi = act(t @ z.T / math.sqrt(t.shape[1]))
    return _back(phi @ phi.T / z.shape[0], is_tensor)


def gram_shallow(X):
    """G^(0)_ab = x_a^T x_b / d, eq. (20)."""
    t, is_tensor = as_data(X)
    return _back(t @ t.T / t.shape[1], is_tensor)
