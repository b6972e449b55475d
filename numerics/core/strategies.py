"""Hypothesis strategies over whole float64 domains, for every pack's property witnesses.

DESIGN.md asks each statement to be fuzzed over the whole domain its hypotheses allow.  A draw
that is uniform in the value never reaches 1e-250 or 1e250, and one that is uniform in the
exponent over a narrow window (10^-6 .. 10^6) never exercises the code that only large or tiny
arguments run (the rounding of fl(mu/s) matters once |mu| >> s; products underflow to
subnormals).  So every magnitude here is 10^e with e uniform over the promised range, mixed
with the exact boundaries (the ends of the range, 0, 1) that a uniform draw never hits;
standardised arguments reach the point where the Gaussian tail underflows.

Each strategy takes the range the kernel under test promises; the defaults are the whole
float64 range that leaves room for a few products (1e-300 .. 1e300).  A pack composes these
(``verify/<pack>/``); the core names no paper.

- ``magnitudes(lo, hi)``: positive x, log-uniform on [lo, hi], with lo, hi, 1 exactly;
- ``scales(lo, hi)``: the same, and 0 (degenerate laws);
- ``standardised(lower, upper)``: a = mu/s on [lower, upper] with the tail breakpoints;
- ``correlations()``: [-1, 1] with both endpoints and points within 1e-15 .. 1e-3 of them;
- ``normal_params(lo, hi)``: (mu, s) = (a s, s);
- ``bivariate_params(lo, hi)``: (mu1, mu2, s1, s2, rho);
- ``unit_entries()``: entries of a direction in [-1, 1], zero or at least 1e-3 in size;
- ``vectors(d, lo, hi)``: a nonzero (unless asked) d-vector of unit entries times a magnitude.
"""
from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st

#: the default range of a magnitude: products of two stay finite and normal-or-subnormal
LO, HI = 1e-300, 1e300
#: Phi(a) underflows below the smallest subnormal at a ~ -38.5; below the smallest normal at
#: a ~ -37.5; closed_form treats a > 39 as an inactive constraint (P(Y > a) < 5e-333; 38 was its
#: cut-off before, 1e-316, too coarse where rho -> -1 confines the other variable to its far tail)
UNDERFLOW = -38.5
TAIL_POINTS = (-38.5, -38.0, -37.5, -37.0, -8.0, -1.0, 0.0, 1.0, 8.0, 38.0, 38.5, 39.0, 39.5)


def magnitudes(lo: float = LO, hi: float = HI):
    """x = 10^e, e uniform on [log10 lo, log10 hi]; lo, hi (and 1 when inside) exactly."""
    if not 0 < lo <= hi < math.inf:
        raise ValueError(f"need 0 < lo <= hi < inf, got lo={lo!r}, hi={hi!r}")
    edges = [lo, hi] + ([1.0] if lo <= 1.0 <= hi else [])
    # 10.0**e may round past the ends: clip to the range
    body = st.floats(math.log10(lo), math.log10(hi)).map(lambda e: min(max(10.0**e, lo), hi))
    return st.one_of(body, st.sampled_from(edges))


def scales(lo: float = LO, hi: float = HI):
    """magnitudes(lo, hi) and exactly 0 (the degenerate law)."""
    return st.one_of(st.just(0.0), magnitudes(lo, hi))


def standardised(lower: float = UNDERFLOW, upper: float = 40.0):
    """a in [lower, upper] (default: down to the underflow of Phi), with the tail points of
    ``TAIL_POINTS`` inside the range."""
    points = [p for p in TAIL_POINTS + (lower, upper) if lower <= p <= upper]
    return st.one_of(st.floats(lower, upper), st.sampled_from(sorted(set(points))))


def correlations():
    """rho in [-1, 1]: uniform, the endpoints and 0, and +-(1 - 10^-k) for k in [3, 15]."""
    near = st.tuples(st.sampled_from([-1.0, 1.0]), st.floats(3, 15)).map(lambda t: t[0] * (1.0 - 10.0**-t[1]))
    return st.one_of(st.floats(-1, 1), st.sampled_from([-1.0, 0.0, 1.0]), near)


@st.composite
def normal_params(draw, lo: float = LO, hi: float = HI, *, lower: float = UNDERFLOW, upper: float = 40.0):
    """(mu, s) = (a s, s), s in magnitudes(lo, hi), a in standardised(lower, upper)."""
    s = draw(magnitudes(lo, hi))
    return draw(standardised(lower, upper)) * s, s


@st.composite
def bivariate_params(draw, lo: float = LO, hi: float = HI, *, lower: float = UNDERFLOW, upper: float = 40.0):
    """(mu1, mu2, s1, s2, rho): two ``normal_params`` and a correlation."""
    (mu1, s1), (mu2, s2) = (draw(normal_params(lo, hi, lower=lower, upper=upper)) for _ in range(2))
    return mu1, mu2, s1, s2, draw(correlations())


def unit_entries():
    """Entries of a direction: in [-1, 1], either 0 or of size >= 1e-3 (normal floats)."""
    return st.floats(-1, 1, allow_subnormal=False).filter(lambda x: x == 0 or abs(x) > 1e-3)


@st.composite
def vectors(draw, d, lo: float = LO, hi: float = HI, *, nonzero: bool = True):
    """A d-vector of ``unit_entries`` times one magnitude in [lo, hi] (nonzero unless asked)."""
    u = np.array(draw(st.lists(unit_entries(), min_size=d, max_size=d)))
    if nonzero and not np.any(u):
        u[0] = 1.0
    return u * draw(magnitudes(lo, hi))
