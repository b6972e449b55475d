"""The amplification paper's fuzz campaigns (``maskverify fuzz amplification:ID``): one GD run per
example (``numerics.amplification.gd``, one seed) over (d, n, m, sigma, eta, alpha, omega) across
orders of magnitude, inside and far outside (A1)-(A7).

- ``lemma.A.1``: max_{t, j} ||w_j^(t)||/(2 |a_j| alpha t) <= 1, judged where the two facts its proof
  uses hold (every ||x_i|| <= 1 + 1/sqrt(3), from Lemma 4.3 and (A2), and every ||w_j^(0)|| <=
  (1 - 1/sqrt(3)) alpha |a_j|, from (A6)): then each step moves w_j by at most alpha |a_j| max ||x_i||.
- ``cond.4.8@map``: the largest almost-orthogonality ratio |<w_j, mu'>|/(3 alpha |a_j|) along
  t = 1..T-1 (no threshold: outside the assumptions it is a map of where Condition 4.8 stops holding).
- ``thm.3.1@map``: the worst signed margin of Theorem 3.1's first two conclusions at T,
  -min(min_{clean} y f, -max_{noisy} y f)/max_i |f(x_i)| (positive: a conclusion fails; no threshold).
"""
from __future__ import annotations

import math

from hypothesis import strategies as st

from numerics.core.fuzzing import Campaign, Example

DOMAIN = ("d = round(10^e), e in [log10 2, 3]; n = round(10^e), e in [0.6, 2.3]; m even in [2, 100]; "
          "sigma = 10^e/sqrt(d), e in [-3, 0.5]; eta in [0, 0.45]; alpha = 1/(4K), K in 1..25 (T = K + 1); "
          "omega = 10^e alpha/sqrt(m d), e in [-6, 2]; one seed in 0..1000")


def _example():
    return st.fixed_dictionaries({
        "d": st.floats(math.log10(2), 3).map(lambda e: max(2, round(10**e))),
        "n": st.floats(0.6, 2.3).map(lambda e: round(10**e)),
        "m": st.integers(1, 50).map(lambda h: 2 * h),
        "sigma_sqrt_d": st.floats(-3, 0.5).map(lambda e: 10**e),
        "eta": st.floats(0, 0.45),
        "K": st.integers(1, 25),
        "omega_rel": st.floats(-6, 2).map(lambda e: 10**e),
        "seed": st.integers(0, 1000),
    })


def setting(ex: Example):
    """The ``gd.Setting`` of an example."""
    from .gd import Setting

    alpha = 1 / (4 * ex["K"])
    return Setting(d=ex["d"], n=ex["n"], m=ex["m"], sigma=ex["sigma_sqrt_d"] / math.sqrt(ex["d"]), eta=ex["eta"],
                   alpha=alpha, omega=ex["omega_rel"] * alpha / math.sqrt(ex["m"] * ex["d"]), n_test=200)


def _trace(ex: Example):
    from .gd import train

    return train(setting(ex), [ex["seed"]])


def _growth(ex: Example):
    import torch

    from . import data, gd

    s = setting(ex)
    draw = data.sample(s.n, s.d, s.sigma, s.eta, seed=3 * ex["seed"] + gd.DATA)
    w0 = gd.initial_weights(s, ex["seed"]).norm(dim=1) * math.sqrt(s.m)      # ||w_j^(0)||/|a_j|
    xmax = float(draw.x.norm(dim=1).max())
    w0max = float(w0.max())
    detail = {"max ||x_i||": xmax, "max ||w_j^(0)||/(alpha |a_j|)": w0max / s.alpha}
    if xmax > 1 + 1 / math.sqrt(3) or w0max > (1 - 1 / math.sqrt(3)) * s.alpha:
        return None, {**detail, "skipped": "outside the facts Lemma A.1's proof uses"}
    tr = _trace(ex)
    return float(torch.nan_to_num(tr.growth_ratio[0, 1:], nan=0.0).max()), detail


def _orthogonality(ex: Example):
    tr = _trace(ex)
    T = tr.setting.T
    if T < 2 or not bool((tr.J_sizes > 0).any()):
        return None, {"skipped": "no step t in 1..T-1 or every J_mu empty"}
    return float(tr.ao_ratio[0, 1:T].max()), {"T": T, "J sizes": tr.J_sizes[0].tolist()}


def _theorem(ex: Example):
    import torch

    from . import data, gd

    s = setting(ex)
    draw = data.sample(s.n, s.d, s.sigma, s.eta, seed=3 * ex["seed"] + gd.DATA)
    a = gd.second_layer(s.m)
    W = gd.initial_weights(s, ex["seed"])[None]
    for _ in range(s.T):
        W = W - s.alpha * gd.gradient(W, draw.x[None], draw.y[None], a)
    f = gd.network(W, draw.x[None], a)[0][0]
    scale = float(f.abs().max())
    if scale == 0:
        return None, {"skipped": "f = 0 on every sample (every neuron dead)"}
    margin = draw.y * f
    clean = float(margin[~draw.noisy].min()) if bool((~draw.noisy).any()) else math.inf
    noisy = float(-margin[draw.noisy].max()) if bool(draw.noisy.any()) else math.inf
    return -min(clean, noisy) / scale, {"min clean margin": clean, "min -noisy margin": noisy, "max |f|": scale,
                                        "noisy": int(torch.count_nonzero(draw.noisy))}


def _reproducer(func: str):
    def rep(ex: Example) -> str:
        return f'__import__("numerics.amplification.campaigns", fromlist=["c"]).{func}({ex!r})[0]'
    return rep


def _registry() -> dict[str, Campaign]:
    campaigns = [
        Campaign(id="lemma.A.1", statement="Lemma A.1: ||w_j^(t)|| <= 2 |a_j| alpha t for t >= 1",
                 ratio_name="max_{t,j} ||w_j^(t)||/(2|a_j| alpha t)", domain=DOMAIN,
                 judged="max ||x_i|| <= 1 + 1/sqrt(3) and max ||w_j^(0)|| <= (1 - 1/sqrt(3)) alpha |a_j|",
                 strategy=_example(), evaluate=_growth, reproducer=_reproducer("_growth"), threshold=1.0, examples=40),
        Campaign(id="cond.4.8@map", statement="Condition 4.8 along t = 1..T-1 (a map, inside and outside (A1)-(A7))",
                 ratio_name="max_t |<w_j, mu'>|/(3 alpha |a_j|)", domain=DOMAIN, judged="T >= 2 and some J_mu non-empty",
                 strategy=_example(), evaluate=_orthogonality, reproducer=_reproducer("_orthogonality"),
                 threshold=None, examples=40),
        Campaign(id="thm.3.1@map", statement="Theorem 3.1's clean-right / noisy-wrong conclusions at T (a map)",
                 ratio_name="-min(min_C y f, -max_N y f)/max|f|", domain=DOMAIN, judged="f not identically 0",
                 strategy=_example(), evaluate=_theorem, reproducer=_reproducer("_theorem"), threshold=None, examples=40),
    ]
    return {c.id: c for c in campaigns}


CAMPAIGNS: dict[str, Campaign] = _registry()
