"""Hypothesis strategies over the lemmas' parameter domains, spanning orders of magnitude.

Per DESIGN.md the domains are the whole of what the hypotheses allow: means of either
sign from 1e-6 to 1e6 (and 0), scales from 1e-6 to 1e6 (and exactly 0), standardised
means mu/s out to +-40 (deep tails), correlations on all of [-1, 1] including the
endpoints, dimensions d = 1 (parallel neurons) to 5, kappa in {0} U [1e-3, 1e2].
"""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from numerics.masking.instances import networks  # noqa: F401  (Assumption 3.1 networks; maskverify fuzz draws them too)

magnitudes = st.floats(-6, 6).map(lambda e: 10.0**e)
scales = st.one_of(st.just(0.0), magnitudes)
positive_scales = magnitudes
standardised = st.one_of(st.floats(-40, 40), st.sampled_from([-37.0, -8.0, 0.0, 8.0]))
correlations = st.one_of(st.floats(-1, 1), st.sampled_from([-1.0, -0.999999, 0.0, 0.999999, 1.0]))
kappas = st.one_of(st.just(0.0), st.floats(-3, 2).map(lambda e: 10.0**e))
positive_kappas = st.floats(-3, 2).map(lambda e: 10.0**e)


@st.composite
def normal_params(draw):
    """(mu, s) with mu/s anywhere in [-40, 40] and s over 12 orders of magnitude."""
    s = draw(positive_scales)
    return draw(standardised) * s, s


@st.composite
def bivariate_params(draw):
    (mu1, s1), (mu2, s2) = draw(normal_params()), draw(normal_params())
    return mu1, mu2, s1, s2, draw(correlations)


@st.composite
def directions(draw, d=None, nonzero=True):
    d = draw(st.integers(1, 5)) if d is None else d
    entries = st.floats(-1, 1, allow_subnormal=False).filter(lambda x: x == 0 or abs(x) > 1e-3)
    u = np.array(draw(st.lists(entries, min_size=d, max_size=d)))
    if nonzero and not np.any(u):
        u[0] = 1.0
    scale = draw(magnitudes)
    return u * scale
