"""Meta-tests: the suite must be able to fail.

Each plant replaces one closed-form kernel by a deliberately wrong formula (the errors a
derivation most plausibly makes) and runs every fast, Monte Carlo and property witness
that can see it; each must then fail.  The symbolic and reference witnesses are planted
in their own meta-tests (tests/test_derivations.py, tests/test_reference.py).
"""
from __future__ import annotations

import numpy as np
import pytest
import torch

import numerics.core.closed_form as cf
from numerics.core import normal
from numerics.core.arrays import prepare, REAL, NONNEG, CORRELATION
from verify.masking import test_s4_gaussian_fast as fast
from verify.masking import test_s4_gaussian_montecarlo as mc
from verify.masking import test_s4_gaussian_property as prop

_relu_moment2, _bvn_cdf, _mask_moment1 = cf.relu_moment2, cf.bvn_cdf, cf.mask_moment1


#: the default tier's example count of the property campaigns run in two tiers (``S.tiers``)
DEFAULT_EXAMPLES = 20


def _no_record(**_):
    return None


def drop_s_varphi(mu, s):
    """sigma_tilde without its s varphi(mu/s) term: the paper's proxy mu Phi(mu/s)."""
    return cf.relu_proxy(mu, s)


def flip_rho(mu1, mu2, s1, s2, rho):
    return _relu_moment2(mu1, mu2, s1, s2, -np.asarray(rho) if not isinstance(rho, torch.Tensor) else -rho)


def flip_rho_bvn(h, k, rho):
    return _bvn_cdf(h, k, -np.asarray(rho, dtype=float))


def swap_b(mu1, mu2, s1, s2, rho):
    """Rosenbaum's E_1 with b1 and b2 swapped inside the Phi's (a transcription slip)."""
    (mu1, mu2, s1, s2, rho), back = prepare({"mu1": (mu1, REAL), "mu2": (mu2, REAL), "s1": (s1, NONNEG),
                                             "s2": (s2, NONNEG), "rho": (rho, CORRELATION)})
    a1, a2 = mu1 / s1, mu2 / s2
    q = torch.sqrt((1 - rho) * (1 + rho)).clamp(min=1e-300)
    b1, b2 = (a1 - rho * a2) / q, (a2 - rho * a1) / q
    P = torch.as_tensor(_bvn_cdf(a1, a2, rho))
    out = ((mu1 * mu2 + rho * s1 * s2) * P + mu1 * s2 * normal.pdf(a2) * normal.cdf(b2)
           + mu2 * s1 * normal.pdf(a1) * normal.cdf(b1) + s1 * s2 * q * normal.pdf(a1) * normal.pdf(b2))
    return back(out)


def drop_kappa_term(u, kappa):
    """E[c 1{c^T u >= 0}] without the Stein term kappa varphi(a) u_hat (from kappa^2 u varphi(a)/s);
    the degenerate cases (u = 0, kappa = 0), where that term is absent anyway, are left exact."""
    exact = _mask_moment1(u, kappa)
    u, kappa = np.asarray(u, dtype=float), np.asarray(kappa, dtype=float)
    nu = np.linalg.norm(u, axis=-1)
    live = (nu > 0) & (kappa > 0)
    a = u.sum(-1) / np.where(live, kappa * nu, 1.0)
    planted = normal.cdf(torch.as_tensor(a)).numpy()[..., None] * np.ones_like(u)
    return np.where(live[..., None], planted, exact)


PLANTS = {
    "drop s varphi from relu_moment1": ("relu_moment1", drop_s_varphi, [
        lambda: fast.test_relu_moment1_relative_accuracy(_no_record),
        lambda: mc.test_smoothed_relu_matches_raw_masks(mc.N, _no_record),
        prop.test_smoothed_relu_dominates_relu_and_proxy,
        prop.test_mask_moment1_projects_to_smoothed_relu,
    ]),
    "flip the sign of rho in relu_moment2": ("relu_moment2", flip_rho, [
        lambda: fast.test_relu_moment2_relative_accuracy(_no_record),
        lambda: mc.test_two_neuron_moment_matches_raw_masks(mc.N, _no_record),
        lambda: prop.test_increasing_in_correlation(DEFAULT_EXAMPLES),
        lambda: prop.test_independent_and_comonotone_limits(DEFAULT_EXAMPLES),
        lambda: prop.test_mask_moment2_projects_to_relu_moment2(DEFAULT_EXAMPLES),
    ]),
    "flip the sign of rho in Phi_2": ("bvn_cdf", flip_rho_bvn, [
        lambda: fast.test_bvn_cdf_famous_tail_value(_no_record),
        lambda: fast.test_bvn_cdf_relative_accuracy(fast.BVN_SPECIAL, _no_record),
    ]),
    "swap b1 and b2 in relu_moment2": ("relu_moment2", swap_b, [
        lambda: fast.test_relu_moment2_relative_accuracy(_no_record),
        lambda: mc.test_two_neuron_moment_matches_raw_masks(mc.N, _no_record),
        lambda: prop.test_mask_moment2_projects_to_relu_moment2(DEFAULT_EXAMPLES),
    ]),
    "drop the kappa^2 term of mask_moment1": ("mask_moment1", drop_kappa_term, [
        lambda: fast.test_mask_moment1_normwise_accuracy(_no_record),
        lambda: mc.test_mask_moment1_matches_raw_masks(mc.N, _no_record),
        prop.test_mask_moment1_projects_to_smoothed_relu,
    ]),
}

CASES = [pytest.param(name, i, id=f"{name} / witness {i}")
         for name, (_, _, witnesses) in PLANTS.items() for i in range(len(witnesses))]


@pytest.mark.parametrize("plant,index", CASES)
def test_planted_error_is_caught(plant, index, monkeypatch):
    attr, wrong, witnesses = PLANTS[plant]
    monkeypatch.setattr(cf, attr, wrong)
    # the witness must fail; Hypothesis may report several distinct failures as a group
    with pytest.raises((AssertionError, ExceptionGroup)):
        witnesses[index]()
