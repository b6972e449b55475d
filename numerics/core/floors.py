"""Reading training curves: has a run converged, where is its floor, what does masking add.

All statistics are over seeds (independent mask streams; see ``numerics.masking.training``) with
Student-t intervals at level ``LEVEL``; nothing here looks at a single noisy curve alone.

- Convergence (``convergence``): per seed, the least-squares slope beta of log L(W_k) over
  the last ``window`` steps gives the drift D = beta * window (the change of log L across
  the window).  A run is *at its floor* when the interval for the mean drift lies inside
  (-tol, tol) (equivalence: the drift is shown to be small), or when it contains 0 and is
  narrower than +-``POWER`` (no trend, and a fall of POWER across the window would have
  been seen): "not significant" alone would let noise pass an unfinished run.
- Floor (``floors``): per seed, the mean of L(W_k) over that window.
- Paired excess (``paired_excess``): e_s(kappa) = floor_s(kappa) - floor_s(0), the same data,
  W_0 and noise for both (common random numbers); mean and interval over seeds.
- Exponent (``fit_exponent``): weighted least squares of log e(kappa) on log kappa over the
  kappas whose excess is significantly positive, weights from the delta method
  (Var log e ~ (se/e)^2), and the local exponents between neighbouring kappas.
- Rate (``rate_test``): the fitted slope of log L per step against log(1 - eta lambda_0/2)
  of Theorems 5.2/5.6, one-sided.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

LEVEL = 0.95
#: drift of log L across the window below which a run counts as at its floor (2 %)
DRIFT_TOL = 0.02
#: a trendless drift interval must be narrower than this to count (a 20 % change is detectable)
POWER = 0.2


def _interval(samples: np.ndarray, level: float = LEVEL) -> tuple[float, float, float]:
    """(mean, standard error, half-width) of the t interval over the first axis's samples."""
    x = np.asarray(samples, dtype=float)
    S = x.shape[0]
    mean = x.mean(0)
    if S < 2:
        return mean, math.nan, math.nan
    se = x.std(0, ddof=1) / math.sqrt(S)
    return mean, se, stats.t.ppf(0.5 + level / 2, S - 1) * se


def _slopes(y: np.ndarray) -> np.ndarray:
    """Least-squares slope per step of every row of y (..., T) against 0..T-1."""
    t = np.arange(y.shape[-1], dtype=float)
    t -= t.mean()
    return ((y - y.mean(-1, keepdims=True)) * t).sum(-1) / (t * t).sum()


def default_window(steps: int) -> int:
    """The last fifth of the run, at least 10 steps (and at most the whole run)."""
    return min(steps, max(10, steps // 5))


def _slope_interval(y: np.ndarray, quantile: float) -> tuple[float, float]:
    """Mean over seeds (rows of y) of the fitted slope per step, and the t quantile times its
    standard error: over seeds when there are several, from the one regression otherwise."""
    slopes = _slopes(y)
    S, T = y.shape
    if S >= 2:
        return float(slopes.mean()), float(stats.t.ppf(quantile, S - 1) * slopes.std(ddof=1) / math.sqrt(S))
    t = np.arange(T, dtype=float) - (T - 1) / 2
    resid = y[0] - y[0].mean() - slopes[0] * t
    se = math.sqrt((resid ** 2).sum() / max(1, T - 2) / (t * t).sum())
    return float(slopes[0]), float(stats.t.ppf(quantile, max(1, T - 2)) * se)


@dataclass(frozen=True)
class Convergence:
    drift: float          # mean change of log L across the window
    half_width: float     # of its t interval (nan with one seed)
    window: int
    tol: float

    @property
    def converged(self) -> bool:
        lo, hi = self.drift - self.half_width, self.drift + self.half_width
        if not math.isfinite(self.half_width):
            return False
        return (-self.tol < lo and hi < self.tol) or (lo <= 0 <= hi and self.half_width < POWER)

    def describe(self) -> str:
        hw = f" +- {self.half_width:.2g}" if math.isfinite(self.half_width) else ""
        if not self.converged:
            verdict = "NOT converged"
        elif abs(self.drift) + self.half_width < self.tol:
            verdict = f"at its floor (drift within +-{self.tol:g})"
        else:
            verdict = f"at its floor (no trend; a drift of +-{POWER:g} would show)"
        return f"log L drifts {self.drift:+.3g}{hw} over the last {self.window} steps: {verdict}"


def convergence(loss: np.ndarray, window: int | None = None, tol: float = DRIFT_TOL) -> Convergence:
    """Equivalence test of convergence for the curves ``loss`` (S, T+1) of one kappa over S seeds
    (with one seed, the regression's own standard error, which ignores autocorrelation)."""
    loss = np.asarray(loss, dtype=float)
    if window is None:
        window = default_window(loss.shape[-1] - 1)
    tail = loss[..., -window:]
    if not np.all(np.isfinite(tail)) or np.any(tail <= 0):
        return Convergence(math.nan, math.nan, window, tol)
    slope, hw = _slope_interval(np.log(tail), 0.5 + LEVEL / 2)
    return Convergence(slope * window, hw * window, window, tol)


def floors(loss: np.ndarray, window: int | None = None) -> np.ndarray:
    """Per-run floor: the mean of L(W_k) over the last ``window`` steps; loss (..., T+1) -> (...)."""
    loss = np.asarray(loss, dtype=float)
    if window is None:
        window = default_window(loss.shape[-1] - 1)
    return loss[..., -window:].mean(-1)


@dataclass(frozen=True)
class Excess:
    kappa: float
    mean: float
    se: float
    half_width: float

    @property
    def positive(self) -> bool:
        return math.isfinite(self.half_width) and self.mean - self.half_width > 0

    @property
    def negative(self) -> bool:
        return math.isfinite(self.half_width) and self.mean + self.half_width < 0


def paired_excess(floor: np.ndarray, kappas) -> list[Excess]:
    """floor(kappa) - floor(0) per seed, paired; floor (S, K) with kappas[0] == 0."""
    kappas = [float(k) for k in kappas]
    if kappas[0] != 0:
        raise ValueError(f"the first kappa must be 0 (the baseline), got {kappas[0]}")
    floor = np.asarray(floor, dtype=float)
    out = []
    for j, k in enumerate(kappas[1:], start=1):
        mean, se, hw = _interval(floor[:, j] - floor[:, 0])
        out.append(Excess(k, float(mean), float(se), float(hw)))
    return out


@dataclass(frozen=True)
class Exponent:
    p: float              # fitted exponent of e ~ kappa^p
    se: float
    kappas: tuple         # the range it was fitted over
    local: tuple          # ((kappa_1, kappa_2, exponent), ...) between neighbours
    chi2_dof: float

    def describe(self) -> str:
        if not self.kappas:
            return "no kappa with a significantly positive excess floor: no exponent fitted"
        lo, hi = min(self.kappas), max(self.kappas)
        loc = ", ".join(f"{a:g}->{b:g}: {p:.2f}" for a, b, p in self.local)
        return (f"excess floor ~ kappa^p with p = {self.p:.2f} +- {self.se:.2f} over kappa in [{lo:g}, {hi:g}] "
                f"({len(self.kappas)} points); local exponents {loc}")


def fit_exponent(excess: list[Excess]) -> Exponent:
    """Power law e(kappa) = A kappa^p through the significantly positive excess floors."""
    pts = [e for e in excess if e.positive and e.kappa > 0 and e.se > 0]   # se = 0 would get infinite weight
    local = tuple((a.kappa, b.kappa, math.log(b.mean / a.mean) / math.log(b.kappa / a.kappa))
                  for a, b in zip(pts, pts[1:]))
    if len(pts) < 2:
        return Exponent(math.nan, math.nan, tuple(e.kappa for e in pts), local, math.nan)
    x = np.log([e.kappa for e in pts])
    y = np.log([e.mean for e in pts])
    w = np.array([(e.mean / e.se) ** 2 for e in pts])
    A = np.stack([np.ones_like(x), x], 1)
    cov = np.linalg.inv(A.T @ (w[:, None] * A))
    coef = cov @ A.T @ (w * y)
    dof = len(pts) - 2
    chi2 = float((w * (y - A @ coef) ** 2).sum() / dof) if dof > 0 else math.nan
    scale = max(1.0, chi2) if math.isfinite(chi2) else 1.0      # inflate for misfit, never shrink
    return Exponent(float(coef[1]), float(math.sqrt(cov[1, 1] * scale)), tuple(e.kappa for e in pts), local, chi2)


@dataclass(frozen=True)
class Step:
    kappa_from: float
    kappa_to: float
    mean: float
    half_width: float

    @property
    def verdict(self) -> str:
        if not math.isfinite(self.half_width):
            return "undecided (one seed)"
        if self.mean - self.half_width > 0:
            return "up"
        if self.mean + self.half_width < 0:
            return "down"
        return "indistinguishable"


def monotonicity(floor: np.ndarray, kappas) -> list[Step]:
    """Paired differences floor(kappa_{j+1}) - floor(kappa_j) over seeds, kappas ascending."""
    kappas = [float(k) for k in kappas]
    order = np.argsort(kappas)
    floor = np.asarray(floor, dtype=float)[:, order]
    ks = [kappas[i] for i in order]
    out = []
    for j in range(len(ks) - 1):
        mean, _, hw = _interval(floor[:, j + 1] - floor[:, j])
        out.append(Step(ks[j], ks[j + 1], float(mean), float(hw)))
    return out


@dataclass(frozen=True)
class Rate:
    slope: float          # mean fitted slope of log L per step over seeds
    half_width: float     # one-sided interval's half-width at LEVEL
    predicted: float      # log(1 - eta lambda_0 / 2)
    steps: tuple          # (first, last) step of the fit

    @property
    def at_least_predicted(self) -> bool:
        """False only when the data show a decay significantly slower than predicted."""
        return self.slope - self.half_width <= self.predicted

    def describe(self) -> str:
        return (f"log L slope {self.slope:.4g} per step (+- {self.half_width:.2g}) over steps "
                f"{self.steps[0]}..{self.steps[1]}; predicted log(1 - eta lambda_0/2) = {self.predicted:.4g}: "
                + ("at least as fast" if self.at_least_predicted else "SLOWER than predicted"))


def rate_test(loss: np.ndarray, lr: float, lambda0: float, first: int, last: int) -> Rate:
    """One-sided test of 'L(W_k) decays at least like (1 - eta lambda_0/2)^k' over steps first..last.

    loss (S, T+1) of one kappa.  The fitted per-seed slopes of log L over the steps are
    compared with log(1 - eta lambda_0/2); the hypothesis is rejected only if the mean slope
    exceeds the prediction by more than the one-sided t half-width (with one seed, the
    regression's own standard error is used).
    """
    if not 0 <= first < last < np.shape(loss)[-1]:
        raise ValueError(f"need 0 <= first < last <= steps, got {first}, {last}")
    slope, hw = _slope_interval(np.log(np.asarray(loss, dtype=float)[:, first:last + 1]), LEVEL)
    return Rate(slope, hw, math.log1p(-lr * lambda0 / 2), (first, last))
