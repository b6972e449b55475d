"""The smallest sizes Theorems 1-3 ask for, with the explicit constants of their proofs as repaired in
the errata (E1: kappa* = 3 C_2 of Lemma 1; E2: Lemma 3's K*; E3, E4: Lemma 2's width), for given data.

Theorem 1 (17), Appendix E (57)-(61); the failure probability delta is split evenly between the
proof's two initial events:

- (T1.0)  lambda_min(G) > 0;
- (T1.58) c_hat >= 6 C_2 |y|/K*^(3/2), C_2 = lambda_max/(sqrt 2 xi K_s lambda_min), xi = (I_r - I_l)/3
  ((58) with Lemma 1's kappa* = 3 C_2, errata E1);
- (T1.L3) m >= log(2n/delta)/(2 K*^2), K* = K*(I, G_min, G_max) (Lemma 3 repaired, failure delta/2);
- (T1.L2) m >= 2 n c^2 L_s^2 G_max log(4n/delta)/(rho^2 |y|^2), rho = sqrt 2 - 1 (Lemma 2 repaired,
  failure delta/2, sigma(0) = 0);
- conclusion: L_t <= L_0 exp(-r c^2 lambda_min(G) t), r = 2^(1/3) K_s^2 K* (61), with
  eta^t >= 2^(-2/3) K* (59) along the way.

Theorem 2 (21), Appendix F (73)-(83), with Gbar; delta split delta/2 (74), delta/4 (75), delta/4 (76):

- (T2.0)  lambda_min(Gbar) > 0;
- (T2.74) P(|G - Gbar|_2 > lambda_min(Gbar)/2) <= delta/2, i.e. D >= D_min(delta/2, lambda_min(Gbar)/2);
- (T2.80) c_hat >= 8 kappa*(lambda_min(Gbar), lambda_max(Gbar)) |y|/Kbar^(3/2), Kbar = K*(I, Gbar_min/2,
  2 Gbar_max) ((80) with kappa* for K_1, errata E1, and K*, errata E2; (78)'s factor 4 from (74));
- (T2.L3) m >= log(4n/delta)/(2 Kbar^2);
- (T2.L2) m >= 2 n c^2 L_s^2 (2 Gbar_max) log(8n/delta)/(rho^2 |y|^2) (G_max <= 2 Gbar_max on (74));
- conclusion (82): L_t <= L_0 exp(-2^(-2/3) c^2 lambda_min(Gbar) K_s^2 Kbar t), eta^t >= 2^(-2/3) Kbar (81).

Theorem 3 (24), Appendix G: Theorem 2 with G = G^(1) (22), Gbar = Gbar^(1) (23), D_min from Lemma 4.  The
paper's C_2 is built on Bernstein's absolute constant and has no value; for |sigma| <= 1 (tanh) Hoeffding
gives one: each entry of G^(1) is a mean of D values in [-1, 1], so P(|G_ab - Gbar_ab| >= s) <= 2 exp(-D s^2/2);
all n(n+1)/2 entries within s = u/n give |G - Gbar|_2 <= |G - Gbar|_F <= u, hence with u = lambda_min(Gbar)/2
and failure delta/2:

- (T3.84) D >= 8 n^2 log(2 n (n + 1)/delta)/lambda_min(Gbar)^2.

For ReLU (unbounded) no explicit constant is given here (``D`` is None).

The interval I of Assumption 2 is free: ``smallest`` picks the I that minimises the binding width (the
largest of the two m conditions at the smallest c_hat) by Nelder-Mead from a fixed grid of starts
(deterministic); tanh's K_s = inf_I sech^2, ReLU's I lies in (0, oo) with K_s = 1.  ``python -m
numerics.meanfield.theorem_sizes`` prints the table of ``DATASETS`` (``--json`` for the numbers).
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import asdict, dataclass

import numpy as np
from scipy.optimize import minimize

from numerics.core.compile import compile_expr
from theory.meanfield import dynamics as thd
from theory.meanfield import theorems as tht

from .certified import exp1_data, exp3_data
from .dynamics import kappa_proof
from .kernels import gram_bar, gram_shallow
from .lemmas import K_star

def _sech2(x: float) -> float:
    """sech(x)^2 = 4 e^(-2|x|)/(1 + e^(-2|x|))^2: no overflow (1/cosh(x)^2 raises beyond |x| ~ 710),
    0 where it underflows."""
    e = math.exp(-2.0 * abs(x))
    return 4.0 * e / (1.0 + e) ** 2


#: K_sigma' = inf over I of |sigma'| (tanh: at the end farthest from 0; relu: 1 on I inside (0, oo))
K_ON_I = {"tanh": lambda lo, hi: _sech2(max(abs(lo), abs(hi))), "relu": lambda lo, hi: 1.0}
#: the Lipschitz constants L_sigma
LIPSCHITZ = {"tanh": 1.0, "relu": 1.0}
#: c_hat_0* lambda_2/lambda_1 of the repaired (58), of (I_l, I_r, lambda_1, lambda_2, K_s, |y|, K)
_c_t1 = compile_expr(tht.C0_STAR * thd.lam2 / thd.lam1,
                     (thd.I_l, thd.I_r, thd.lam1, thd.lam2, thd.K_s, tht.y_norm, tht.K_act))
#: Lemma 2's repaired width at failure ``delta``, of (n, delta, c_hat, L_s, G_max, |y|)
_m_lemma2 = compile_expr(tht.WIDTH_LEMMA2_STAR, (thd.n, thd.delta, thd.c_hat, tht.L_s, thd.G_max, tht.y_norm))
#: the bytes of one (m, n) float64 state; an RK4 run with step halving holds about a dozen
STATE_BYTES = 8


@dataclass(frozen=True)
class Sizes:
    """The smallest sizes one theorem asks for on one data set (module docstring)."""

    dataset: str
    theorem: str
    activation: str
    n: int
    d: int
    delta: float
    I: tuple[float, float]
    lam_min: float
    lam_max: float
    G_min: float
    G_max: float
    K: float               # K* (Theorem 1) or Kbar (Theorems 2-3)
    K_s: float
    c_min: float           # (T1.58) or (T2.80)
    m_lemma3: int          # (T1.L3) or (T2.L3)
    m_lemma2: int          # (T1.L2) or (T2.L2) at c_hat = c_min
    D: int | None          # (T3.84); None for Theorem 1 and for an unbounded sigma
    rate: float            # the conclusion's exponent per unit t at c_min: r c^2 lambda

    @property
    def m_min(self) -> int:
        return max(self.m_lemma3, self.m_lemma2)

    @property
    def state_gib(self) -> float:
        """GiB of one (m_min, n) float64 state."""
        return STATE_BYTES * self.m_min * self.n / 2**30


@dataclass(frozen=True)
class Spectrum:
    """What the conditions read off a Gram matrix: its extreme eigenvalues and diagonal entries."""

    lam_min: float
    lam_max: float
    G_min: float
    G_max: float

    @classmethod
    def of(cls, G) -> Spectrum:
        G = np.asarray(G, dtype=np.float64)
        ev, diag = np.linalg.eigvalsh(G), np.diag(G)
        return cls(float(ev[0]), float(ev[-1]), float(diag.min()), float(diag.max()))


def theorem1(G: Spectrum, y, act: str, I, delta: float, *, dataset: str = "", d: int = 0) -> Sizes:
    """(T1.*) for the fixed Gram matrix's spectrum G, labels y, activation ``act`` and interval I."""
    lo, hi = I
    n = len(y)
    lam1, lam2, gmin, gmax = G.lam_min, G.lam_max, G.G_min, G.G_max
    if not lam1 > 0:
        raise ValueError(f"lambda_min(G) = {lam1:.3g}: (T1.0) fails")
    Ks, L = K_ON_I[act](lo, hi), LIPSCHITZ[act]
    K = K_star(lo, hi, gmin, gmax)
    yn = float(np.linalg.norm(y))
    c = _c_t1(lo, hi, lam1, lam2, Ks, yn, K)
    m3 = math.ceil(math.log(2 * n / delta) / (2 * K**2))
    m2 = math.ceil(_m_lemma2(n, delta / 2, c, L, gmax, yn))
    rate = 2 ** (1 / 3) * Ks**2 * K * c**2 * lam1
    return Sizes(dataset, "thm.1", act, n, d, delta, (lo, hi), lam1, lam2, gmin, gmax, K, Ks, c, m3, m2, None, rate)


def theorem2(Gbar: Spectrum, y, act: str, I, delta: float, *, dataset: str = "", d: int = 0,
             theorem: str = "thm.3") -> Sizes:
    """(T2.*) for the limit's spectrum Gbar, and (T3.84) for D when sigma is bounded by 1 (tanh)."""
    lo, hi = I
    n = len(y)
    lam1, lam2, gmin, gmax = Gbar.lam_min, Gbar.lam_max, Gbar.G_min, Gbar.G_max
    if not lam1 > 0:
        raise ValueError(f"lambda_min(Gbar) = {lam1:.3g}: (T2.0) fails")
    Ks, L = K_ON_I[act](lo, hi), LIPSCHITZ[act]
    K = K_star(lo, hi, gmin / 2, 2 * gmax)
    yn = float(np.linalg.norm(y))
    c = 8 * kappa_proof(lo, hi, lam1, lam2, Ks) * yn / K**1.5
    m3 = math.ceil(math.log(4 * n / delta) / (2 * K**2))
    m2 = math.ceil(_m_lemma2(n, delta / 4, c, L, 2 * gmax, yn))
    D = math.ceil(8 * n**2 * math.log(2 * n * (n + 1) / delta) / lam1**2) if act == "tanh" else None
    rate = 2 ** (-2 / 3) * Ks**2 * K * c**2 * lam1
    return Sizes(dataset, theorem, act, n, d, delta, (lo, hi), lam1, lam2, gmin, gmax, K, Ks, c, m3, m2, D, rate)


def smallest(fn, G: Spectrum, y, act: str, delta: float, **kw) -> Sizes:
    """``fn`` (theorem1 or theorem2) at the interval I that minimises its binding width m_min
    (module docstring): I = (l, l + w), l >= 0 for relu; Nelder-Mead on (l, log w) from a fixed grid."""
    scale = math.sqrt(G.G_max)

    def interval(p):
        lo = scale * (math.exp(p[0]) if act == "relu" else p[0])
        return lo, lo + scale * math.exp(p[1])

    def cost(p):
        try:
            return math.log(fn(G, y, act, interval(p), delta, **kw).m_min)
        except (ValueError, OverflowError, ZeroDivisionError):
            return math.inf

    starts = [(a, b) for a in ((-3.0, -1.0, 0.0) if act == "relu" else (-2.0, -1.0, -0.5))
              for b in (-1.0, 0.0, 1.0)]
    best = min((minimize(cost, s, method="Nelder-Mead", options={"xatol": 1e-6, "fatol": 1e-9, "maxiter": 4000})
                for s in starts), key=lambda r: r.fun)
    return fn(G, y, act, interval(best.x), delta, **kw)


def _labels(n: int, seed: int = 0) -> np.ndarray:
    """Exp. 1's labels y_a ~ U[-1/2, 1/2] (seeded here)."""
    return np.random.default_rng([seed, n, 1]).uniform(-0.5, 0.5, n)


def _triangle(radius: float) -> np.ndarray:
    """Three directions 120 degrees apart in d = 2 with |x|^2 = radius^2 d: n = 3 > d, no two parallel."""
    ang = 2 * math.pi * np.arange(3) / 3
    return radius * math.sqrt(2.0) * np.stack([np.cos(ang), np.sin(ang)], 1)


def datasets(delta: float = 0.1) -> list[Sizes]:
    """The table: Theorem 1 on small sets and Exp. 1's data; Theorem 3 on small sets and Exp. 3's data."""
    y1, y3 = np.array([0.5]), np.array([0.5, -0.5, 0.5])
    rng = np.random.default_rng(7)                       # the data of the slow thm.1.proof witness
    Xt, yt = rng.standard_normal((3, 5)), rng.uniform(-0.5, 0.5, 3)
    S = Spectrum.of
    rows = [smallest(theorem1, S(np.ones((1, 1))), y1, "tanh", delta, dataset="x = 1 (n = d = 1)", d=1),
            smallest(theorem1, S(np.eye(3)), y3, "tanh", delta, dataset="orthonormal (n = d = 3, G = I)", d=3),
            theorem1(S(gram_shallow(Xt)), yt, "tanh", (-1.0, 1.0), delta,
                     dataset="thm.1.proof witness (n = 3, d = 5), I = (-1, 1)", d=5),
            smallest(theorem1, S(gram_shallow(Xt)), yt, "tanh", delta, dataset="thm.1.proof witness (n = 3, d = 5)", d=5)]
    for n in (10, 20):
        rows.append(smallest(theorem1, S(gram_shallow(exp1_data(n))), _labels(n), "tanh", delta,
                             dataset=f"Exp. 1 (n = {n}, d = 20)", d=20))
    rows.append(smallest(theorem2, S(gram_bar(np.ones((1, 1)), "tanh")), y1, "tanh", delta,
                         dataset="P-3L, x = 1 (n = d = 1)", d=1))
    # tanh saturates for large |x|: lambda_min(Gbar) grows with the radius, the widths fall towards a limit
    for radius in (1.0, 8.0):
        rows.append(smallest(theorem2, S(gram_bar(_triangle(radius), "tanh")), y3, "tanh", delta,
                             dataset=f"P-3L, 3 points at 120 deg, x_a.x_a = {radius**2:g} d (n = 3 > d = 2)", d=2))
    for n in (50, 600):
        X, y = exp3_data(n)
        rows.append(smallest(theorem2, S(gram_bar(X, "relu")), y, "relu", delta, dataset=f"Exp. 3 (n = {n}, d = 50)", d=50))
    return rows


def _fmt(v) -> str:
    return "-" if v is None else (f"{v:.3g}" if isinstance(v, float) else f"{v:,}")


def markdown(rows: list[Sizes]) -> str:
    head = ("| theorem | data | sigma, I | lambda_min, lambda_max | K | smallest c_hat | m (Lemma 3*) | m (Lemma 2*) "
            "| D (T3.84) | state (GiB) | rate r c^2 lambda |")
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for r in rows:
        lines.append(f"| `{r.theorem}` | {r.dataset} | {r.activation}, ({r.I[0]:.3g}, {r.I[1]:.3g}) | "
                     f"{r.lam_min:.3g}, {r.lam_max:.3g} | {r.K:.3g} | {r.c_min:.3g} | {_fmt(r.m_lemma3)} | "
                     f"{_fmt(r.m_lemma2)} | {_fmt(r.D)} | {r.state_gib:.3g} | {r.rate:.3g} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m numerics.meanfield.theorem_sizes",
                                 description="The smallest c_hat, m and D that Theorems 1-3 ask for with the repaired "
                                             "constants of their proofs (errata E1-E4), on small data sets and the "
                                             "experiments' data.")
    ap.add_argument("--delta", type=float, default=0.1, help="failure probability (0 < delta < 1; default 0.1)")
    ap.add_argument("--json", action="store_true", help="print the numbers as JSON instead of a table")
    args = ap.parse_args(argv)
    if not 0 < args.delta < 1:
        print(f"error: --delta must lie in (0, 1), got {args.delta}", file=sys.stderr)
        return 2
    rows = datasets(args.delta)
    if args.json:
        print(json.dumps([{**asdict(r), "m_min": r.m_min, "state_gib": r.state_gib} for r in rows], indent=1))
    else:
        print(markdown(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
