"""The masking pack's Hypothesis domains, composed from ``numerics.core.strategies``.

Each range is the one the kernels promise (``numerics.core.closed_form``), the whole float64
range that the quantity's degree in the scale leaves finite:

- ``FIRST``, 1e-300 .. 1e300: quantities of degree 1 in the scale (relu_moment1, relu_proxy)
  and probabilities;
- ``SECOND``, 1e-150 .. 1e150: degree 2 (relu_square_moment, relu_moment2 = s1 s2 M, and
  kappa, which enters the mask moments as kappa^2);
- ``GEOMETRY``, 1e-75 .. 1e75: direction vectors u, v, whose geometry forms
  ||u||^2 ||v||^2 (``closed_form._plane``), of degree 4.

Standardised means reach the underflow of Phi (a = -38.5), correlations both endpoints and
points within 1e-15 of them, dimensions d = 1 (parallel neurons) to 5, kappa is 0 or any
magnitude of ``SECOND``.
"""
from __future__ import annotations

import pytest
from hypothesis import settings
from hypothesis import strategies as st

from numerics.core import strategies as core

FIRST = (1e-300, 1e300)
SECOND = (1e-150, 1e150)
GEOMETRY = (1e-75, 1e75)

correlations = core.correlations()
kappas = core.scales(*SECOND)
positive_kappas = core.magnitudes(*SECOND)


def normal_params(degree: int = 2):
    """(mu, s) with mu/s down to the underflow of Phi and s over the range of that degree."""
    return core.normal_params(*(FIRST if degree == 1 else SECOND))


def bivariate_params():
    """(mu1, mu2, s1, s2, rho) for the degree-2 orthant moments."""
    return core.bivariate_params(*SECOND)


def directions(d=None):
    """A nonzero direction of dimension d (drawn from 1..5 when None), magnitude over ``GEOMETRY``."""
    dims = st.integers(1, 5) if d is None else st.just(d)
    return dims.flatmap(lambda n: core.vectors(n, *GEOMETRY))


def tiers(default: int):
    """Parametrize a heavy campaign by ``examples``: ``default`` in the default tier, the profile's
    full count (None) in the slow tier, so the default tier stays fast and ``-m slow`` loses nothing;
    marked ``property`` (the campaign runs inside the test, where the plugin does not see ``@given``)."""
    param = pytest.mark.parametrize("examples", [pytest.param(default, id="default"),
                                                 pytest.param(None, id="full", marks=pytest.mark.slow)])
    return lambda test: pytest.mark.property(param(test))


def limit(examples):
    """``settings(max_examples=examples)``, or the profile's settings when ``examples`` is None."""
    return settings(max_examples=examples) if examples else (lambda f: f)
