"""Witnesses of Lemma 4.10's population first step and Lemma 4.4's expected count gap
(``numerics.amplification.onestep``; both ours, in the reconstructed statements):

- symbolic: the two Gaussian integrals behind them, from the definition, E[1{b + sigma z > 0}] =
  Phi(b/sigma) and E[z 1{b + sigma z > 0}] = phi(b/sigma), z ~ N(0, 1);
- montecarlo: the finite-sample first GD step of a neuron at a tiny initialisation (the raw data and
  the code's gradient, ``gd.gradient``) against the closed form, component by component, and the
  count gap N_mu - N_-mu of raw samples against (1 - eta)/4 (2 Phi(b/sigma) - 1) n.
"""
from __future__ import annotations

import math

import pytest
import sympy as sp
import torch

from numerics.amplification import data, gd, onestep
from numerics.core.tolerance import ZTest
from theory.core.derivation import normal_pdf
from theory.core.functions import Phi, to_elementary, varphi

CASES = [(0.05, 0.6, 0.1, 0.0), (-0.02, 0.3, 0.03, 0.15), (0.3, -0.4, 1.0, 0.3), (0.01, 0.0, 0.002, 0.1)]
Z = ZTest(alpha=1e-6, comparisons=3 * len(CASES))
N = 20_000


@pytest.mark.slow
@pytest.mark.statement("lemma.4.10")
@pytest.mark.statement("lemma.4.4")
@pytest.mark.witness("symbolic")
def test_gaussian_integrals_of_the_first_step():
    z = sp.Symbol("z", real=True)
    bb = sp.Symbol("b", real=True)
    s = sp.Symbol("sigma", positive=True)
    dens = normal_pdf(z, 0, 1)
    on = sp.integrate(dens, (z, -bb / s, sp.oo))
    first = sp.integrate(z * dens, (z, -bb / s, sp.oo))
    assert sp.simplify(on - to_elementary(Phi(bb / s))) == 0
    assert sp.simplify(first - to_elementary(varphi(bb / s))) == 0


def _unit(b1, b2, d, seed):
    """A unit u with <u, e_1> = b1, <u, e_2> = b2 and the rest along a random direction of e_3..e_d."""
    gen = torch.Generator().manual_seed(seed)
    rest = torch.randn(d - 2, generator=gen, dtype=torch.float64)
    u = torch.cat([torch.tensor([b1, b2], dtype=torch.float64), rest / rest.norm() * math.sqrt(1 - b1 * b1 - b2 * b2)])
    return u


@pytest.mark.statement("lemma.4.10")
@pytest.mark.witness("montecarlo")
@pytest.mark.parametrize("b1, b2, sigma, eta", CASES)
def test_finite_sample_first_step_against_the_population_step(b1, b2, sigma, eta, record):
    d = 12
    u = _unit(b1, b2, d, 5)
    draw = data.sample(N, d, sigma, eta, seed=21)
    a = gd.second_layer(2)
    W = torch.stack([u, -u])[None] * 1e-13            # omega -> 0: f(x; W^(0)) ~ 1e-13, -l'(y f) = 1/2 - O(1e-13)
    step = -gd.gradient(W, draw.x[None], draw.y[None], a)[0, 0] / a[0]     # (w^(1) - w^(0))/(alpha a_j)
    # per-sample terms of that mean, for the standard errors: sigmoid(-y f) y phi' x
    f, pre = gd.network(W, draw.x[None], a)
    terms = (torch.sigmoid(-draw.y * f[0]) * draw.y * (pre[0, :, 0] > 0))[:, None] * draw.x
    c1, c2, cu = onestep.population_step(b1, b2, sigma, eta)
    rest = u.clone()
    rest[:2] = 0
    perp = rest / rest.norm() if rest.norm() > 0 else rest
    exact = torch.tensor([c1 + cu * b1, c2 + cu * b2, cu * float(u @ perp)], dtype=torch.float64)
    basis = torch.stack([torch.eye(d, dtype=torch.float64)[0], torch.eye(d, dtype=torch.float64)[1], perp])
    est = basis @ step
    se = (terms @ basis.T).std(0) / math.sqrt(N)
    zs = (est - exact) / se
    record(ratio=float(zs.abs().max()) / Z.z, detail=f"step components {est.tolist()} vs {exact.tolist()}")
    assert float(zs.abs().max()) <= Z.z, (zs, Z)


@pytest.mark.statement("lemma.4.4")
@pytest.mark.witness("montecarlo")
@pytest.mark.parametrize("b, sigma, eta", [(0.02, 0.05, 0.1), (0.005, 0.01, 0.3), (0.2, 1.0, 0.0)])
def test_count_gap_against_its_mean(b, sigma, eta, record):
    d = 12
    u = _unit(b, 0.0, d, 9)
    draw = data.sample(N, d, sigma, eta, seed=33)
    on = (draw.x @ u > 0) & ~draw.noisy
    gap = on.double() * ((draw.cluster == 0).double() - (draw.cluster == 1).double())   # +mu_1 minus -mu_1
    exact = onestep.expected_count_gap(b, sigma, eta)
    z = (float(gap.mean()) - exact) / (float(gap.std()) / math.sqrt(N))
    record(ratio=abs(z) / ZTest(alpha=1e-6, comparisons=3).z, detail=f"(N_mu - N_-mu)/n = {float(gap.mean()):.5f} vs {exact:.5f}")
    assert abs(z) <= ZTest(alpha=1e-6, comparisons=3).z


def test_population_step_rejects_a_non_unit_direction():
    with pytest.raises(ValueError):
        onestep.population_step(0.9, 0.9, 0.1, 0.0)
    with pytest.raises(ValueError):
        onestep.population_step(0.1, 0.1, 0.0, 0.0)
