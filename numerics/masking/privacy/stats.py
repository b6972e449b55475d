"""The tests that decide the Section 6 claims; seeds are the replicates.

Values come as arrays (S seeds, K kappas), the runs of one seed paired across kappa (common
random numbers, ``training``).  Intervals are Student-t at ``numerics.core.floors.LEVEL``
(95 %), over seeds.

- ``difference``: the paired difference v(kappa) - v(0) over seeds
  (``numerics.core.floors.paired_excess``): "improves" when its interval lies above 0,
  "worsens" below, else indistinguishable; "keeps the baseline" when its lower end lies
  above -``MARGIN``, an equivalence (non-inferiority) margin of one percentage point of
  accuracy: a drop the paper's Fig. 4 would show.
- ``trend`` ("falls as kappa grows", "falls monotonically"): three tests, all over seeds:
  the per-seed least-squares slope of v on kappa, with its t interval (scipy's
  ``ttest_1samp``), Page's L test for an ordered alternative (``scipy.stats.page_trend_test``:
  seeds as blocks, kappas as ordered treatments; one-sided, "decreasing"), and the paired
  steps between neighbouring kappas (``numerics.core.floors.monotonicity``).  A fall is
  shown when the slope's interval lies below 0 *and* Page's p-value is below ``ALPHA``;
  "monotonically" adds that no step is significantly up.  A slope interval above 0 or a
  step significantly up contradicts the claim; anything else is "not supported" at the
  sizes run.

A zero-width interval (every seed gave the same value, as discrete accuracies on a small
test set can) gives no estimate of the spread and decides nothing: "not supported".
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from numerics.core import floors as fl

ALPHA = 1 - fl.LEVEL
MARGIN = 0.01

SUPPORTED, NOT_SUPPORTED, CONTRADICTED = "supported", "not supported", "contradicted"


@dataclass(frozen=True)
class Difference:
    kappa: float
    mean: float
    lo: float
    hi: float
    seeds: int

    def as_dict(self) -> dict:
        return dict(kappa=self.kappa, mean=self.mean, lo=self.lo, hi=self.hi, seeds=self.seeds)

    @property
    def text(self) -> str:
        return f"{self.mean:+.4f} [{self.lo:+.4f}, {self.hi:+.4f}] (95%, {self.seeds} seeds)"


def difference(values: np.ndarray, kappas, kappa: float) -> Difference:
    """v(kappa) - v(0), paired over seeds; values (S, K), kappas[0] == 0."""
    kappas = [float(k) for k in kappas]
    if kappa not in kappas[1:]:
        raise ValueError(f"kappa {kappa} is not among the non-zero kappas run, {kappas[1:]}")
    e = fl.paired_excess(values, kappas)[kappas.index(kappa) - 1]
    return Difference(kappa, e.mean, e.mean - e.half_width, e.mean + e.half_width, int(np.shape(values)[0]))


def improves(d: Difference) -> str:
    """'v(kappa) > v(0)': supported when the interval lies above 0, contradicted below; a
    zero-width interval (every seed gave the same difference: no estimate of the spread) decides nothing."""
    if not d.hi > d.lo:
        return NOT_SUPPORTED
    return SUPPORTED if d.lo > 0 else CONTRADICTED if d.hi < 0 else NOT_SUPPORTED


def keeps_baseline(d: Difference, margin: float = MARGIN) -> str:
    """'v(kappa) is not below v(0) by more than margin': non-inferiority; contradicted when the
    whole interval lies below -margin (a zero-width interval decides nothing)."""
    if not d.hi > d.lo:
        return NOT_SUPPORTED
    return SUPPORTED if d.lo > -margin else CONTRADICTED if d.hi < -margin else NOT_SUPPORTED


@dataclass(frozen=True)
class Trend:
    kappas: tuple
    slope: float             # mean per-seed slope dv/dkappa
    slope_lo: float
    slope_hi: float
    page_p: float            # Page's L test, one-sided, decreasing
    steps: tuple             # ((kappa_from, kappa_to, mean, half_width, verdict), ...)
    seeds: int

    @property
    def falls(self) -> bool:
        return self.slope_hi < 0 and self.page_p < ALPHA

    @property
    def ups(self) -> tuple:
        return tuple(s for s in self.steps if s[4] == "up")

    def verdict(self, monotone: bool) -> str:
        if not self.slope_hi > self.slope_lo:     # identical replicates: no estimate of the spread
            return NOT_SUPPORTED
        if self.slope_lo > 0 or (monotone and self.ups):
            return CONTRADICTED
        if self.falls and not (monotone and self.ups):
            return SUPPORTED
        return NOT_SUPPORTED

    @property
    def text(self) -> str:
        ups = "; significant rises " + ", ".join(f"{a:g}->{b:g}" for a, b, *_ in self.ups) if self.ups else ""
        return (f"slope {self.slope:+.4f} per unit kappa [{self.slope_lo:+.4f}, {self.slope_hi:+.4f}] (95%), "
                f"Page's test p = {self.page_p:.2g} (decreasing), {self.seeds} seeds, kappa "
                f"{min(self.kappas):g}..{max(self.kappas):g}{ups}")

    def as_dict(self) -> dict:
        return dict(kappas=list(self.kappas), slope=self.slope, slope_lo=self.slope_lo, slope_hi=self.slope_hi,
                    page_p=self.page_p, seeds=self.seeds,
                    steps=[dict(kappa_from=a, kappa_to=b, mean=m, half_width=h, verdict=v)
                           for a, b, m, h, v in self.steps])


def trend(values: np.ndarray, kappas) -> Trend:
    """The tests of 'v falls as kappa grows' over the given kappas (ascending); values (S, K), S >= 2, K >= 3."""
    v = np.asarray(values, dtype=float)
    ks = np.asarray([float(k) for k in kappas])
    if v.ndim != 2 or v.shape[1] != ks.size or v.shape[0] < 2 or ks.size < 3 or np.any(np.diff(ks) <= 0):
        raise ValueError(f"need values (S >= 2, K >= 3) over ascending kappas, got {v.shape} and {ks.tolist()}")
    t = ks - ks.mean()
    slopes = ((v - v.mean(1, keepdims=True)) * t).sum(1) / (t * t).sum()
    if np.all(slopes == slopes[0]):          # identical replicates: a zero-width interval, undecided
        lo = hi = float(slopes[0])
    else:
        lo, hi = stats.ttest_1samp(slopes, 0.0).confidence_interval(fl.LEVEL)
    page = stats.page_trend_test(-v, predicted_ranks=np.arange(1, ks.size + 1))
    steps = tuple((s.kappa_from, s.kappa_to, s.mean, s.half_width, s.verdict) for s in fl.monotonicity(v, ks))
    return Trend(tuple(ks.tolist()), float(slopes.mean()), float(lo), float(hi), float(page.pvalue), steps,
                 int(v.shape[0]))


def finite(x) -> float | None:
    """x as a float, None when not finite (JSON has no NaN)."""
    x = float(x)
    return x if math.isfinite(x) else None
