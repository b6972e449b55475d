"""Tolerances as data with a reason, and the z-test used to judge Monte Carlo estimates.

DESIGN.md: tolerances are never bare literals.  A ``Tol`` carries its reason, is printed
on failure, and reports the digits of agreement an error corresponds to.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from scipy.special import ndtri

EPS = 2.0**-52


@dataclass(frozen=True)
class Tol:
    rtol: float
    why: str
    atol: float = 0.0

    def bound(self, reference: float) -> float:
        return self.atol + self.rtol * abs(reference)

    def __str__(self) -> str:
        a = f", atol={self.atol:.1e}" if self.atol else ""
        return f"rtol={self.rtol:.1e}{a} ({self.why})"


def digits(rel_err: float) -> float:
    """Decimal digits of agreement for a relative error (capped at 99 for exact agreement)."""
    if rel_err <= 0:
        return 99.0
    return max(0.0, -math.log10(rel_err))


def rel_err(value: float, reference: float) -> float:
    """|value - reference| / |reference|, and the absolute error when reference == 0."""
    err = abs(value - reference)
    return err / abs(reference) if reference != 0 else err


@dataclass(frozen=True)
class ZTest:
    """Two-sided z-test |estimate - exact| <= z * stderr at a declared false-alarm rate.

    ``alpha`` is the family-wise false-alarm rate of one test run; with ``m`` comparisons
    (Bonferroni) each uses alpha/m.  Runs are seeded, so a pass is reproducible; the rate
    says how often an honest formula would fail over fresh seeds.
    """

    alpha: float = 1e-6
    comparisons: int = 1

    @property
    def z(self) -> float:
        return float(-ndtri(self.alpha / (2 * self.comparisons)))

    def __str__(self) -> str:
        return f"z={self.z:.2f} (family-wise false-alarm rate {self.alpha:g} over {self.comparisons} comparisons)"
