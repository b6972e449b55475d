"""Lemma 4.1's probability: the tail of one neuron's normalised correlation with a fixed unit
vector at Gaussian initialisation (Frei, Chatterji, Bartlett 2022, Lemma 4.1 and its proof in
Appendix A.1.1; the display is lost, ``theory.amplification.initialisation.CORRELATION_TAIL``
is our reconstruction).

For w ~ N(0, omega^2 I_d) and a unit vector mu, t = <w/||w||, mu> does not depend on omega and
has the density (1 - t^2)^((d-3)/2) / B(1/2, (d-1)/2) on [-1, 1] (t^2 ~ Beta(1/2, (d-1)/2)), so
for c >= 0, with x = c^2/d and y = 1 - x,

    P(t >= c/sqrt d) = I_y((d-1)/2, 1/2) / 2 = Q_x(1/2, (d-1)/2) / 2 = (1 - I_x(1/2, (d-1)/2)) / 2,

I the regularised incomplete beta function and Q = 1 - I its complement (DLMF 8.17.2, 8.17.4),
and P(t >= -c/sqrt d) = 1 - P(t >= c/sqrt d).  c >= sqrt d gives 0, c <= -sqrt d gives 1.

Evaluation (float64; scipy.special's ``betainc``/``betaincc``, Boost's ``ibeta``): c^2 is formed
exactly as a double-double (Dekker's product, ``numerics.core.ddarith``) so that x and y each
carry one rounding, also where y = 1 - x is tiny (c near sqrt d; forming 1 - x in float64 would
lose every digit there).  Three branches, each free of cancellation:

- the value is >= 1/4 (I_x(1/2, (d-1)/2) <= 1/2): (1 - I_x(1/2, (d-1)/2))/2, which keeps the
  digits of 1/2 - P near c = 0 (``betaincc`` there loses them: 8e-13 relative at d = 2, c = 1e-8);
- otherwise with x < 1/2: Q_x(1/2, (d-1)/2)/2;
- otherwise (x >= 1/2): I_y((d-1)/2, 1/2)/2 with the accurate y.

For c < 0 the value 1 - P(|c|) >= 1/2 has no cancellation.  What remains is the rounding of the
one argument passed to Boost (x or y, relative error <= ~2 eps) times the condition number of
the value in that argument, plus Boost's own error: ``error_budget`` gives the bound the
witnesses judge against.  Values below the smallest normal float64 (2.2e-308) may come back
as 0 although their exact value is positive: Boost's incomplete beta flushes subnormal results
(correlation_tail(0.875 sqrt(1000), 1000) = 2.689e-317 exactly, 0 here; found by the deep
Hypothesis profile); the certified witness records where that happens.
"""
from __future__ import annotations

import numpy as np
import scipy.special as sc
import torch

from numerics.core.arrays import DTYPE, REAL, Domain, prepare
from numerics.core.ddarith import two_prod

__all__ = ["correlation_tail"]

_DIM = Domain(lower=2.0)


def _check_dimension(d: torch.Tensor) -> None:
    if (d != torch.floor(d)).any():
        bad = d[d != torch.floor(d)].flatten()[0].item()
        raise ValueError(f"d must be an integer >= 2, got {bad!r}")


def correlation_tail(c, d):
    """P(<w/||w||, mu> >= c/sqrt(d)) for w ~ N(0, I_d) and a fixed unit vector mu (Lemma 4.1's
    probability p, reconstructed; see the module docstring for the formula).

    ``c``: real (any sign, any magnitude; NaN raises), ``d``: integer >= 2 (floats holding an
    integer are accepted), broadcast against each other.  numpy (or Python scalars) in -> numpy
    out; torch tensors in -> a float64 tensor on the input's device (computed on the CPU: the
    incomplete beta function is scipy's).  Raises ``ValueError`` for d < 2, non-integer d, NaN
    or infinite d, and for shapes that do not broadcast; c = +-inf gives 0 and 1.
    """
    (c_t, d_t), back = prepare({"c": (c, Domain(finite=False)), "d": (d, _DIM)})
    REAL.check("d", d_t)
    _check_dimension(d_t)
    device = c_t.device
    c_np = c_t.detach().cpu().numpy()
    d_np = d_t.detach().cpu().numpy()
    out = _tail(c_np, d_np)
    return back(torch.from_numpy(np.asarray(out, dtype=np.float64)).to(device=device, dtype=DTYPE))


def _tail(c: np.ndarray, d: np.ndarray) -> np.ndarray:
    """The kernel on validated float64 arrays of one shape."""
    a = (d - 1.0) / 2.0
    mag = np.abs(c)
    # clamp |c| so that the exact square stays finite; |c| > 2 sqrt d is decided as 'beyond'
    cm = np.asarray(np.minimum(mag, 2.0 * np.sqrt(d)))
    p_t, e_t = two_prod(torch.from_numpy(cm), torch.from_numpy(cm))
    p, e = p_t.numpy(), e_t.numpy()                     # c^2 = p + e exactly
    beyond = (mag >= 2.0 * np.sqrt(d)) | (p > d) | ((p == d) & (e >= 0))
    x = np.where(beyond, 0.0, (p + e) / d)
    y = np.where(beyond, 0.0, ((d - p) - e) / d)        # d - p exact (Sterbenz) where it matters
    with np.errstate(all="ignore"):
        lower = sc.betainc(0.5, a, x)                   # I_x(1/2, a) = P(|t| < |c|/sqrt d)
        upper_x = 0.5 * sc.betaincc(0.5, a, x)
        upper_y = 0.5 * sc.betainc(a, 0.5, y)
    small = 0.5 * (1.0 - lower)
    right = np.where(lower <= 0.5, small, np.where(x < 0.5, upper_x, upper_y))
    right = np.where(beyond, 0.0, right)
    right = np.where(mag == 0.0, 0.5, right)
    out = np.where(c >= 0.0, right, 1.0 - right)
    if np.isnan(out).any():
        raise FloatingPointError("correlation_tail produced NaN for valid input (kernel bug)")
    return out


def error_budget(c, d, condition):
    """The relative error the kernel is allowed at (c, d), in units of the float64 epsilon:
    ``ARG_ULPS`` roundings of the one argument passed to Boost, each amplified by the value's
    condition number in that argument, plus ``BOOST_EPS`` for Boost's own ``ibeta`` and the final
    halving and subtraction.

    ``condition`` is kappa_c = |c f'(c) / f(c)| from a reference (f the tail; f' = minus the
    density of t at c/sqrt d, over sqrt d).  Since x = c^2/d, kappa_x = kappa_c / 2; the y-branch
    (x >= 1/2) passes y = 1 - x, with kappa_y = kappa_x y / x <= kappa_x.  For c < 0 the value
    1 - f(|c|) >= 1/2 is no worse conditioned than f(|c|) itself."""
    c, d, condition = (np.asarray(v, dtype=np.float64) for v in (c, d, condition))
    x = np.minimum(c * c / d, 1.0)
    kappa_x = condition / 2.0
    kappa_arg = np.where(x < 0.5, kappa_x, kappa_x * (1.0 - x) / np.maximum(x, 0.5))
    return BOOST_EPS + ARG_ULPS * kappa_arg


#: roundings of the argument: x = (p + e)/d, or y = ((d - p) - e)/d (a sum and a division)
ARG_ULPS = 2.0
#: the allowance for Boost's own ibeta error, in eps (our choice, not a documented bound: the certified
#: witness measures the kernel against it over the whole domain)
BOOST_EPS = 100.0
