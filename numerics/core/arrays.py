"""Input validation and numpy/torch plumbing shared by every float64 kernel.

The kernels are written once, in torch (float64 on the CPU by default, CUDA if the
inputs live there).  Callers may pass Python scalars, numpy arrays or torch tensors; the
result comes back as the same kind: a torch tensor for tensor input, a numpy array (or a
numpy float64 scalar for 0-d input) otherwise.  Bad input raises ``ValueError`` naming
the parameter, so that no NaN is ever returned silently.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

DTYPE = torch.float64


@dataclass(frozen=True)
class Domain:
    """Closed bounds for a parameter; ``None`` means unbounded on that side."""

    lower: float | None = None
    upper: float | None = None
    finite: bool = True

    def check(self, name: str, x: torch.Tensor) -> None:
        if torch.isnan(x).any():
            raise ValueError(f"{name} contains NaN")
        if self.finite and torch.isinf(x).any():
            raise ValueError(f"{name} must be finite, got an infinite value")
        if self.lower is not None and (x < self.lower).any():
            bad = x[x < self.lower].flatten()[0].item()
            raise ValueError(f"{name} must be >= {self.lower}, got {bad!r}")
        if self.upper is not None and (x > self.upper).any():
            bad = x[x > self.upper].flatten()[0].item()
            raise ValueError(f"{name} must be <= {self.upper}, got {bad!r}")


REAL = Domain()
NONNEG = Domain(lower=0.0)
CORRELATION = Domain(lower=-1.0, upper=1.0)
#: Arguments of a CDF may be infinite (Phi_2(h, +inf; rho) = Phi(h) is meaningful).
EXTENDED_REAL = Domain(finite=False)


def _as_tensor(name: str, x, device) -> torch.Tensor:
    if isinstance(x, torch.Tensor):
        t = x.to(dtype=DTYPE, device=device if device is not None else x.device)
    else:
        try:
            arr = np.asarray(x, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{name} must be real numbers: {exc}") from None
        t = torch.from_numpy(np.array(arr, dtype=np.float64, copy=True))
        if device is not None:
            t = t.to(device)
    return t


def prepare(spec: dict, *, broadcast: bool = True):
    """Validate and convert inputs.

    ``spec`` maps a parameter name to ``(value, Domain)``.  Returns ``(tensors, back)``:
    the float64 tensors (broadcast against each other when ``broadcast``) in the order
    given, and a function that converts a result tensor back to the callers' kind.
    """
    values = list(spec.values())
    use_torch = any(isinstance(v, torch.Tensor) for v, _ in values)
    device = next((v.device for v, _ in values if isinstance(v, torch.Tensor)), None)
    tensors = []
    for name, (value, domain) in spec.items():
        t = _as_tensor(name, value, device)
        domain.check(name, t)
        tensors.append(t)
    if broadcast:
        try:
            tensors = list(torch.broadcast_tensors(*tensors))
        except RuntimeError:
            shapes = ", ".join(f"{n}{tuple(t.shape)}" for n, t in zip(spec, tensors))
            raise ValueError(f"shapes do not broadcast: {shapes}") from None

    def back(result):
        if isinstance(result, tuple):
            return tuple(back(r) for r in result)
        if use_torch:
            return result
        out = result.detach().cpu().numpy()
        return out[()] if out.ndim == 0 else out

    return tensors, back


def check_finite_result(name: str, result: torch.Tensor) -> torch.Tensor:
    """Raise instead of returning a NaN: a NaN here is a bug in the kernel."""
    if torch.isnan(result).any():
        raise FloatingPointError(f"{name} produced NaN for valid input (kernel bug)")
    return result


def ldexp_exact(x: torch.Tensor, e: torch.Tensor) -> torch.Tensor:
    """x 2^e, exact wherever the result is representable, for |e| up to 2 x 1074: torch.ldexp
    multiplies by 2^e, which overflows (or underflows) beyond |e| = 1023, e.g. when scaling
    subnormal entries up to [1/2, 1), so the power is applied in two halves."""
    e = e.to(x.dtype)
    half = torch.trunc(e / 2)
    return torch.ldexp(torch.ldexp(x, half), e - half)
