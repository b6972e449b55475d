"""The meanfield paper's fuzz campaigns (``maskverify fuzz meanfield:ID``).

- ``lemma.2.proof``: Lemma 2 repaired, ratio P(L^0 > |y|^2)/delta at m = ceil(m*_min), exact for
  sigma(t) = t on orthogonal inputs of one norm (``lemmas.lemma2_failure_linear``);
- ``lemma.2``: Lemma 2 as printed with its Omega read as the proof's (65) at the sharpest Gaussian
  constant, m = ceil(2 c^2 g log(2n/delta)/|y|^2); known false (errata E3, E4);
- ``lemma.3.proof``: Lemma 3 repaired, ratio (1 - P(tilde eta^0 > K*))/delta at
  m = ceil(log(n/delta)/(2 K*^2)), exact binomial tails for orthogonal inputs (G diagonal).
"""
from __future__ import annotations

import math

from hypothesis import strategies as st

from numerics.core.fuzzing import Campaign, Example

from . import lemmas as L


def _log_uniform(lo, hi):
    return st.floats(math.log10(lo), math.log10(hi)).map(lambda e: 10.0**e)


_LEMMA2_DOMAIN = ("sigma(t) = t, G = g I_n: n in [1, 12]; delta, c_hat, g, |y| log-uniform over "
                  "[1e-6, 0.9], [1e-3, 1e3], [1e-3, 1e3], [1e-3, 1e3]")
_lemma2 = st.fixed_dictionaries({"n": st.integers(1, 12), "delta": _log_uniform(1e-6, 0.9),
                                 "c_hat": _log_uniform(1e-3, 1e3), "g": _log_uniform(1e-3, 1e3),
                                 "y_norm": _log_uniform(1e-3, 1e3)})


def _lemma2_star(ex: Example):
    m = math.ceil(L.width_repaired(ex["n"], ex["delta"], ex["c_hat"], ex["g"], ex["y_norm"], 1.0))
    lam = m * ex["y_norm"] ** 2 / (ex["c_hat"] ** 2 * ex["g"])
    if lam > 2e4:
        return None, {"skipped": f"lambda = {lam:.3g}: the Poisson mixture is too long for a fuzz example", "m": m}
    p = float(L.lemma2_failure_linear(ex["n"], m, ex["c_hat"], ex["g"], ex["y_norm"], dps=20))
    return p / ex["delta"], {"m": m, "failure": p}


def _lemma2_printed(ex: Example):
    m = math.ceil(2 * ex["c_hat"] ** 2 * ex["g"] * math.log(2 * ex["n"] / ex["delta"]) / ex["y_norm"] ** 2)
    if m > 1e9:
        return None, {"skipped": f"m = {m}", "m": m}
    p = float(L.lemma2_failure_linear(ex["n"], max(m, 1), ex["c_hat"], ex["g"], ex["y_norm"], dps=20))
    return p / ex["delta"], {"m": max(m, 1), "failure": p}


def _lemma2_repro(width: str):
    def rep(ex: Example) -> str:
        L_ = '__import__("numerics.meanfield.lemmas", fromlist=["lemmas"])'
        if width == "star":
            m = f'__import__("math").ceil({L_}.width_repaired({ex["n"]!r}, {ex["delta"]!r}, {ex["c_hat"]!r}, {ex["g"]!r}, {ex["y_norm"]!r}, 1.0))'
        else:
            m = (f'max(1, __import__("math").ceil(2 * {ex["c_hat"]!r}**2 * {ex["g"]!r} * __import__("math").log(2 * {ex["n"]!r} / '
                 f'{ex["delta"]!r}) / {ex["y_norm"]!r}**2))')
        return (f'float({L_}.lemma2_failure_linear({ex["n"]!r}, {m}, {ex["c_hat"]!r}, {ex["g"]!r}, {ex["y_norm"]!r}, dps=20))'
                f' / {ex["delta"]!r}')
    return rep


_LEMMA3_DOMAIN = ("orthogonal inputs, G_aa = 10^e, e in [-2, 1.5], n <= 4; I = (lo, lo + w), lo in [-5, 5], "
                  "w in [0.05, 10]; delta in [0.01, 0.9]")
_lemma3 = st.fixed_dictionaries({"lo": st.floats(-5, 5), "width": st.floats(0.05, 10),
                                 "diag": st.lists(st.floats(-2, 1.5).map(lambda e: 10.0**e), min_size=1, max_size=4),
                                 "delta": st.floats(0.01, 0.9)})


def _lemma3_star(ex: Example):
    lo, hi, diag = ex["lo"], ex["lo"] + ex["width"], ex["diag"]
    Ks = L.K_star(lo, hi, min(diag), max(diag))
    if not Ks > 1e-4:
        return None, {"skipped": f"K* = {Ks:.3g}: m beyond 1e8"}
    m = L.log_required_width(len(diag), ex["delta"], Ks)
    p = L.event_probability(lo, hi, diag, m, Ks, tilde=True, dps=20)
    return float((1 - p) / ex["delta"]), {"K*": Ks, "m": m}


def _lemma3_repro(ex: Example) -> str:
    L_ = '__import__("numerics.meanfield.lemmas", fromlist=["lemmas"])'
    lo, hi, diag = ex["lo"], ex["lo"] + ex["width"], ex["diag"]
    K = f"{L_}.K_star({lo!r}, {hi!r}, {min(diag)!r}, {max(diag)!r})"
    m = f"{L_}.log_required_width({len(diag)}, {ex['delta']!r}, {K})"
    return f"float((1 - {L_}.event_probability({lo!r}, {hi!r}, {diag!r}, {m}, {K}, tilde=True, dps=20)) / {ex['delta']!r})"


CAMPAIGNS = {c.id: c for c in (
    Campaign(id="lemma.2.proof", statement="Lemma 2 repaired: P(L^0 > |y|^2) <= delta at m >= 2 n c^2 L^2 G_max log(2n/delta)/((sqrt 2 - 1)^2 |y|^2)",
             ratio_name="P(L^0 > |y|^2)/delta", domain=_LEMMA2_DOMAIN + "; exact noncentral chi-square (mpmath, 20 digits)",
             judged="lambda = m |y|^2/(c^2 g) <= 2e4", strategy=_lemma2, evaluate=_lemma2_star,
             reproducer=_lemma2_repro("star"), threshold=1.0, examples=60),
    Campaign(id="lemma.2", statement="Lemma 2 as printed, Omega read as (65) with the sharpest Gaussian constant (errata E3, E4)",
             ratio_name="P(L^0 > |y|^2)/delta", domain=_LEMMA2_DOMAIN + "; exact noncentral chi-square (mpmath, 20 digits)",
             judged="m <= 1e9", strategy=_lemma2, evaluate=_lemma2_printed,
             reproducer=_lemma2_repro("printed"), threshold=1.0, examples=60),
    Campaign(id="lemma.3.proof", statement="Lemma 3 repaired: P(tilde eta^0 <= K*) <= delta at m = ceil(log(n/delta)/(2 K*^2))",
             ratio_name="(1 - P(tilde eta^0 > K*))/delta", domain=_LEMMA3_DOMAIN + "; exact binomial tails (mpmath, 20 digits)",
             judged="K* > 1e-4", strategy=_lemma3, evaluate=_lemma3_star, reproducer=_lemma3_repro,
             threshold=1.0, examples=40),
)}
