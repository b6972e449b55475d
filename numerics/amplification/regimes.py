"""Where the assumptions (A1)-(A7) hold (with the reconstructed (A3), (A4), (A6) of
``theory.amplification.training``), the smallest setting inside them for an explicit C, and the
outcome rates of Theorem 3.1 and Proposition 3.2 over seeds with exact (Clopper-Pearson)
intervals (``scipy.stats.binomtest``: a kept library rather than our own interval code).
"""
from __future__ import annotations

import math
from dataclasses import replace

from scipy.stats import binomtest

from .gd import Setting, Trace, train


def assumptions(s: Setting, C: float, delta: float) -> dict[str, bool]:
    """Which of (A1)-(A7) the setting satisfies for the constant C and failure probability delta."""
    if not C > 1 or not 0 < delta < 0.5:
        raise ValueError(f"need C > 1 and 0 < delta < 1/2, got C={C!r}, delta={delta!r}")
    return {
        "A1": s.d >= C * max(math.log(s.n / delta) ** 2, math.log(s.m / delta)),
        "A2": s.sigma**2 <= 1 / (C**2 * s.d),
        "A3": s.n >= C * math.log(s.m / delta),
        "A4": s.eta <= 1 / C,
        "A5": s.m >= C * math.log(1 / delta),
        "A6": s.omega <= s.alpha / (C * math.sqrt(s.m * s.d)),
        "A7": 1 / (2 * math.sqrt(C)) <= s.alpha <= 1 / math.sqrt(C),
    }


def inside(C: float, delta: float, **override) -> Setting:
    """The smallest (m, n, d) satisfying (A1)-(A7) for C and delta, with sigma = 1/(C sqrt d) and
    eta = 1/C at their edges, alpha the smallest step of (A7) with 1/(4 alpha) an integer, omega at
    a thousandth of (A6)'s edge; ``override`` replaces fields afterwards (to step outside)."""
    m = 2 * math.ceil(C * math.log(1 / delta) / 2)
    n = math.ceil(C * math.log(m / delta))
    d = math.ceil(C * max(math.log(n / delta) ** 2, math.log(m / delta)))
    K = math.floor(math.sqrt(C) / 2)                      # alpha = 1/(4K) >= 1/(2 sqrt C)
    if K < 1 or 1 / (4 * K) > 1 / math.sqrt(C):
        raise ValueError(f"(A7) admits no alpha with 1/(4 alpha) an integer for C = {C}")
    alpha = 1 / (4 * K)
    s = Setting(d=d, n=n, m=m, sigma=1 / (C * math.sqrt(d)), eta=1 / C, alpha=alpha,
                omega=1e-3 * alpha / (C * math.sqrt(m * d)))
    return replace(s, **override) if override else s


def rate(k: int, N: int, confidence: float = 0.95) -> dict:
    """k successes of N: the rate and its Clopper-Pearson interval."""
    ci = binomtest(int(k), int(N)).proportion_ci(confidence_level=confidence, method="exact")
    return {"k": int(k), "N": int(N), "rate": k / N, "lo": float(ci.low), "hi": float(ci.high)}


def outcomes(tr: Trace) -> dict:
    """Theorem 3.1's and Proposition 3.2's outcomes per seed, as rates with intervals, and the
    predicates of Section 4 (Conditions 4.7-4.8 at t = 1..T-1, Lemma A.1 at t = 1..T)."""
    T = tr.setting.T
    clean = tr.clean_right[:, T] == 1
    noisy = tr.noisy_wrong[:, T] == 1
    N = len(tr.seeds)
    return {
        "clean right": rate(int(clean.sum()), N),
        "noisy wrong": rate(int(noisy.sum()), N),
        "both": rate(int((clean & noisy).sum()), N),
        "alignment t=1..T-1": rate(int((tr.nac_violations[:, 1:T] == 0).all(1).sum()), N),
        "orthogonality t=1..T-1": rate(int((tr.ao_ratio[:, 1:T] <= 1).all(1).sum()), N),
        "growth (A.1)": rate(int((tr.growth_ratio[:, 1:] <= 1).all(1).sum()), N),
        "features move (3.2)": rate(int((tr.feature_change >= 1).sum()), N),
        "test error": float(tr.test_error.mean()),
        "test error - eta": float(tr.test_error.mean()) - tr.setting.eta,
        "noisy fraction": float(tr.noisy_fraction.mean()),
    }


def _sd(k):
    """sigma with sigma sqrt(d) = k at the setting's d."""
    return lambda s: {"sigma": k / math.sqrt(s.d)}


#: the map of Theorem 3.1 outside its assumptions: (label, the assumption it breaks, override of
#: ``inside(C, delta)``, as a dict or a function of the inside setting)
SURVEY = (
    ("inside", "", {}),
    ("eta = 0.15 (Figs. 1-2)", "A4", {"eta": 0.15}),
    ("eta = 0.3", "A4", {"eta": 0.3}),
    ("eta = 0.45", "A4", {"eta": 0.45}),
    ("adversary: all flips in the +mu_1 cluster", "", {"adversary": "cluster"}),
    ("adversary: flips nearest the Bayes boundary", "", {"adversary": "margin"}),
    ("adversary 'cluster', eta = 0.15", "A4", {"adversary": "cluster", "eta": 0.15}),
    ("sigma sqrt d = 0.1", "A2", _sd(0.1)),
    ("sigma sqrt d = 0.3", "A2", _sd(0.3)),
    ("sigma sqrt d = 1", "A2", _sd(1.0)),
    ("alpha = 1/40 (T = 11)", "A7", {"alpha": 1 / 40}),
    ("alpha = 1, 2 steps", "A7", {"alpha": 1.0, "steps": 2}),
    ("alpha = 4, 2 steps", "A7", {"alpha": 4.0, "steps": 2}),
    ("omega = 0.1/sqrt d", "A6", lambda s: {"omega": 0.1 / math.sqrt(s.d)}),
    ("omega = 1/sqrt d (unit-norm rows)", "A6", lambda s: {"omega": 1 / math.sqrt(s.d)}),
    ("d = 20 (n >> d)", "A1", lambda s: {"d": 20, "sigma": s.sigma * math.sqrt(s.d / 20)}),
    ("m = 4", "A5", {"m": 4}),
    ("4 T steps", "stopping time", lambda s: {"steps": 4 * s.T}),
)


def survey(C: float, delta: float, seeds: int, *, rows=SURVEY, n_test: int = 1000, progress=None) -> list[dict]:
    """Theorem 3.1's outcome rates at ``inside(C, delta)`` and at each row's step outside it."""
    base = inside(C, delta, n_test=n_test)
    out = []
    for label, breaks, ov in rows:
        s = replace(base, **(ov(base) if callable(ov) else ov))
        tr = train(s, range(seeds))
        flags = assumptions(s, C, delta)
        out.append({"label": label, "breaks": breaks, "violated": [k for k, v in flags.items() if not v],
                    "setting": {"d": s.d, "n": s.n, "m": s.m, "sigma": s.sigma, "eta": s.eta, "alpha": s.alpha,
                                "omega": s.omega, "T": s.T}, **outcomes(tr)})
        if progress is not None:
            progress(label)
    return out
