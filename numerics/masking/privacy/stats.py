"""The tests that decide the Section 6 claims; seeds are the replicates.

Values come as arrays (S seeds, K kappas), the runs of one seed paired across kappa (common
random numbers, ``training``).  Intervals are two-sided Student-t at ``numerics.core.floors.LEVEL``
(95 %), over seeds.  Every decision reads an interval's end, never a mean's sign: each one-sided
decision errs at (1 - LEVEL)/2 = 2.5 % when the true value sits on its boundary (held by
simulation under the null in tests/masking/test_privacy_stats.py).

- ``difference``: the paired difference v(kappa) - v(0) over seeds
  (``numerics.core.floors.paired_excess``): "improves" when its interval lies above 0,
  "worsens" below, else indistinguishable; "keeps the baseline" when its lower end lies
  above -``MARGIN``, an equivalence (non-inferiority) margin of one percentage point of
  accuracy: a drop the paper's Fig. 4 would show.  ``above`` is the rule on an interval.
- ``trend`` ("falls as kappa grows", "falls monotonically"): three tests, all over seeds:
  the per-seed least-squares slope of v on kappa, with its t interval (scipy's
  ``ttest_1samp``), Page's L test for an ordered alternative (``scipy.stats.page_trend_test``:
  seeds as blocks, kappas as ordered treatments; one-sided, "decreasing"), and the paired
  steps between neighbouring kappas (``numerics.core.floors.monotonicity``).  A fall is
  shown when the slope's interval lies below 0 *and* Page's p-value is below ``ALPHA``, so a
  false fall under no trend has probability at most the slope's 2.5 %; "monotonically" adds
  that no step is up, significantly or alike in every seed (a zero-width step, below).  A
  slope interval above 0 or a step significantly up contradicts the claim; anything else is
  "not supported" at the sizes run.  On a flat curve the slope and each of the K - 1 steps can
  contradict "monotonically" at 2.5 %: together at most K x 2.5 % (``Trend.verdict``).

A zero-width interval (every seed gave the same value, as discrete accuracies on a small
test set can) gives no estimate of the spread and decides nothing: "not supported".  A NaN
(a failed run) is an error, never a verdict.
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


def _finite(values) -> np.ndarray:
    v = np.asarray(values, dtype=float)
    if not np.all(np.isfinite(v)):
        raise ValueError(f"values must be finite (a NaN is a failed run, not a replicate), got {v.tolist()}")
    return v


def difference(values: np.ndarray, kappas, kappa: float) -> Difference:
    """v(kappa) - v(0), paired over seeds; values (S, K), finite, kappas[0] == 0.  The interval
    is the two-sided t interval at LEVEL over the S per-seed differences (NaN ends with one seed)."""
    kappas = [float(k) for k in kappas]
    if kappa not in kappas[1:]:
        raise ValueError(f"kappa {kappa} is not among the non-zero kappas run, {kappas[1:]}")
    e = fl.paired_excess(_finite(values), kappas)[kappas.index(kappa) - 1]
    return Difference(kappa, e.mean, e.mean - e.half_width, e.mean + e.half_width, int(np.shape(values)[0]))


def above(lo: float, hi: float, bound: float = 0.0) -> str:
    """'The quantity exceeds bound', from its two-sided LEVEL interval [lo, hi]: supported when
    lo > bound, contradicted when hi < bound, else not supported (an end equal to the bound
    included).  With the true value at bound each of supported and contradicted errs at
    (1 - LEVEL)/2 = 2.5 %.  A zero-width interval (lo == hi: no estimate of the spread) decides
    nothing; a NaN, or lo > hi, is an error."""
    if not (math.isfinite(lo) and math.isfinite(hi) and math.isfinite(bound)) or lo > hi:
        raise ValueError(f"need a finite interval lo <= hi and a finite bound, got [{lo}, {hi}] and {bound}")
    if not hi > lo:
        return NOT_SUPPORTED
    return SUPPORTED if lo > bound else CONTRADICTED if hi < bound else NOT_SUPPORTED


def _decide(d: Difference, bound: float) -> str:
    if d.seeds < 2:                      # one seed: no interval (its ends are NaN), nothing decided
        return NOT_SUPPORTED
    if not math.isfinite(d.mean):
        raise ValueError(f"the difference at kappa = {d.kappa} is not finite: {d}")
    return above(d.lo, d.hi, bound)


def improves(d: Difference) -> str:
    """'v(kappa) > v(0)': supported when the interval lies above 0 (d.lo > 0), contradicted when
    it lies below (d.hi < 0); a positive mean whose interval reaches 0 is not supported.  Under
    no difference each errs at 2.5 %.  A zero-width interval (every seed gave the same
    difference: no estimate of the spread), or one seed, decides nothing."""
    return _decide(d, 0.0)


def keeps_baseline(d: Difference, margin: float = MARGIN) -> str:
    """'v(kappa) is not below v(0) by more than margin' (non-inferiority): supported when the
    interval's lower end lies above -margin (d.lo > -margin), contradicted when the whole
    interval lies below -margin (d.hi < -margin).  With the true drop exactly the margin each
    errs at 2.5 %.  A zero-width interval, or one seed, decides nothing."""
    if not (math.isfinite(margin) and margin >= 0):
        raise ValueError(f"the margin must be finite and >= 0, got {margin}")
    return _decide(d, -margin)


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
        """The slope's interval lies below 0 (its upper end, never the mean slope's sign) and
        Page's one-sided p-value is below ALPHA, both strictly."""
        return self.slope_hi < 0 and self.page_p < ALPHA

    @property
    def ups(self) -> tuple:
        """The steps significantly up: an interval above 0, of non-zero width."""
        return tuple(s for s in self.steps if s[4] == "up" and s[3] > 0)

    @property
    def alike_ups(self) -> tuple:
        """The zero-width steps up (every seed rose by the same amount): no estimate of the
        spread, so neither a significant rise nor the absence of one."""
        return tuple(s for s in self.steps if s[3] == 0 and s[2] > 0)

    def verdict(self, monotone: bool) -> str:
        """'v falls as kappa grows' (``monotone``: '... monotonically'): contradicted when the
        slope's interval lies above 0 (``monotone``: or a step is significantly up); supported
        when ``falls`` (``monotone``: and no step is up, significantly or alike); else not
        supported, as is a zero-width slope interval.  Under no trend a false "supported" has
        probability at most 2.5 % (the slope's interval alone; Page's test only lowers it).
        On a flat curve "contradicted" has 2.5 % (the slope's interval above 0), and with
        ``monotone`` at most K x 2.5 % (the slope or any of the K - 1 steps significantly up:
        11.9 % measured for 5 kappas and 3 seeds, against the bound's 12.5 %).  A NaN field is
        an error."""
        fields = (self.slope, self.slope_lo, self.slope_hi, self.page_p) + tuple(x for s in self.steps for x in s[2:4])
        if not all(math.isfinite(x) for x in fields) or self.slope_lo > self.slope_hi:
            raise ValueError(f"the trend's statistics must be finite, slope_lo <= slope_hi: {self}")
        if not self.slope_hi > self.slope_lo:     # identical replicates: no estimate of the spread
            return NOT_SUPPORTED
        if self.slope_lo > 0 or (monotone and self.ups):
            return CONTRADICTED
        if self.falls and not (monotone and (self.ups or self.alike_ups)):
            return SUPPORTED
        return NOT_SUPPORTED

    @property
    def text(self) -> str:
        ups = "; significant rises " + ", ".join(f"{a:g}->{b:g}" for a, b, *_ in self.ups) if self.ups else ""
        if self.alike_ups:
            ups += "; rises alike in every seed (no spread) " + ", ".join(f"{a:g}->{b:g}"
                                                                           for a, b, *_ in self.alike_ups)
        return (f"slope {self.slope:+.4f} per unit kappa [{self.slope_lo:+.4f}, {self.slope_hi:+.4f}] (95%), "
                f"Page's test p = {self.page_p:.2g} (decreasing), {self.seeds} seeds, kappa "
                f"{min(self.kappas):g}..{max(self.kappas):g}{ups}")

    def as_dict(self) -> dict:
        return dict(kappas=list(self.kappas), slope=self.slope, slope_lo=self.slope_lo, slope_hi=self.slope_hi,
                    page_p=self.page_p, seeds=self.seeds,
                    steps=[dict(kappa_from=a, kappa_to=b, mean=m, half_width=h, verdict=v)
                           for a, b, m, h, v in self.steps])


def trend(values: np.ndarray, kappas) -> Trend:
    """The tests of 'v falls as kappa grows' over the given kappas (ascending); values (S, K), finite,
    S >= 2, K >= 3.  The slope's interval is the two-sided t interval at LEVEL over the S per-seed slopes."""
    v = _finite(values)
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
