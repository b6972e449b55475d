"""Witnesses of the readings of ``eq.23.prime`` (the derivative kernel E_z[s'(z^T x_a/sqrt d) s'(z^T x_b/sqrt d)],
reconstructed from (13)'s tangent kernel; readings in its provenance): Monte Carlo of the raw z ~ N(0, I_d)
for the step kernels (relu, abs) against ``numerics.meanfield.kernels.gram_bar_prime``.

- 'positive-inputs': at nonzero inputs the value s'(0) is immaterial (z^T x = 0 has probability 0): the
  samples under s'(0) = 0 and s'(0) = 1 coincide, and agree with the closed form;
- 'zero-input': with the paper's convention s'(0) = 0 (below Assumption 1) a zero input gives the kernel 0,
  which the closed form returns; another convention (s'(0) = 1/2) would give 1/4 for relu.
"""
from __future__ import annotations

import math

import pytest
import torch

from numerics.core.arrays import DTYPE
from numerics.core.tolerance import ZTest
from numerics.meanfield import kernels as K

pytestmark = [pytest.mark.statement("eq.23.prime"), pytest.mark.witness("montecarlo")]

#: two kernels, six entries each in the positive-inputs test and three sampled in the zero-input one
Z_TEST = ZTest(alpha=1e-6, comparisons=2 * (6 + 3))
SAMPLES = 100_000


def _step(u, name: str, at_zero: float):
    """relu' = 1{u > 0}, abs' = sgn u, with the value ``at_zero`` at u = 0."""
    base = (u > 0).to(DTYPE) if name == "relu" else torch.sign(u)
    return torch.where(u == 0, torch.full_like(u, at_zero), base)


def _raw(X, name: str, at_zero: float, seed: int):
    """Per-sample products s'(u_a) s'(u_b), u = Z X^T/sqrt d: (SAMPLES, n, n)."""
    gen = torch.Generator().manual_seed(seed)
    Z = torch.randn(SAMPLES, X.shape[1], generator=gen, dtype=DTYPE)
    s = _step(Z @ X.T / math.sqrt(X.shape[1]), name, at_zero)
    return s[:, :, None] * s[:, None, :]


@pytest.mark.reading("positive-inputs")
@pytest.mark.parametrize("name", ["relu", "abs"])
def test_step_kernels_at_nonzero_inputs(name, record):
    X = torch.tensor([[1.0, 0.5], [-0.3, 2.0], [0.7, -0.7]], dtype=DTYPE)
    p0, p1 = _raw(X, name, 0.0, seed=23), _raw(X, name, 1.0, seed=23)
    assert torch.equal(p0, p1)                               # no sample hits z^T x = 0
    mean, se = p0.mean(0), p0.std(0) / math.sqrt(SAMPLES)
    z = ((mean - K.gram_bar_prime(X, name)).abs() / se.clamp(min=1e-12)).max()
    record(ratio=float(z) / Z_TEST.z, detail=f"{name}: max |MC - closed form|/se = {float(z):.2f} over 6 entries "
                                             f"({SAMPLES:,} samples)", judged=6)
    assert float(z) <= Z_TEST.z


@pytest.mark.reading("zero-input")
@pytest.mark.parametrize("name", ["relu", "abs"])
def test_step_kernels_at_a_zero_input(name, record):
    """Zero inputs among nonzero ones (d = 2).  With s'(0) = 0, s'(z^T x_a/sqrt d) = 0 for every z when
    x_a = 0, so the raw kernel's row and column a are 0 in every sample: there the closed form is
    judged exactly (no sampling error; another convention would not give 0: relu'(0) = 1/2 gives 1/4
    at (a, a)); at the other entries by the z-test of the positive-inputs reading, and they must be
    what the closed form gives without the zero rows.  judged: the distinct entries compared."""
    X = torch.tensor([[0.0, 0.0], [1.0, 0.5], [0.0, 0.0], [-0.3, 2.0]], dtype=DTYPE)
    zero = (X == 0).all(1)
    p = _raw(X, name, 0.0, seed=24)
    mean, se = p.mean(0), p.std(0) / math.sqrt(SAMPLES)
    closed = K.gram_bar_prime(X, name)
    exact = zero[:, None] | zero[None, :]
    assert torch.equal(closed[exact], torch.zeros_like(closed[exact])), f"{name}: closed form at the zero inputs {closed[exact].tolist()}"
    assert torch.equal(closed[~zero][:, ~zero], K.gram_bar_prime(X[~zero], name))
    z = float(((mean - closed).abs()[~exact] / se[~exact].clamp(min=1e-12)).max())
    n, nz = len(X), int(zero.sum())
    entries = n * (n + 1) // 2
    other = float(_raw(X, "relu", 0.5, seed=24).mean(0)[0, 0]) if name == "relu" else None
    record(ratio=z / Z_TEST.z, judged=entries,
           detail=f"{name}: the {entries - (n - nz) * (n - nz + 1) // 2} entries of the {nz} zero inputs exactly 0 "
                  f"(as the raw kernel), the other {(n - nz) * (n - nz + 1) // 2} within {z:.2f} se of Monte Carlo"
                  + (f"; with relu'(0) = 1/2 the zero input's diagonal would be {other:.4f}" if other is not None else ""))
    assert z <= Z_TEST.z
