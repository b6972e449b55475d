"""The masking paper's fuzz campaigns (``maskverify fuzz masking:ID``).

- ``thm.4.2``: Theorem 4.2, eq. (4), |E| <= m n (kappa^2 R_u^2 psi_max^2 + (kappa^2 R_u^2
  + kappa R_w) phi_max^2), float64 ``numerics.masking.network.theorem_4_2`` at moderate kappa;
  only instances where float64 resolves E (|E| > its rounding estimate) are judged.  Known
  false (errata E4: w = 2, x = 1, y = -6, kappa = 1/2).
- ``thm.4.2@small-kappa``: the same bound at kappa in [1e-3, 1e-1], E from the mpmath
  reference ``numerics.masking.reference_network.theorem_4_2`` (resolved however small),
  n, m, d <= 2.
  A counterexample of either is errata E4's only where the bound holds once the labels are set to
  0 (``_holds_without_labels``: E4's violation is the label term's); any other is a new failure.
- ``cor.5.3``: Corollary 5.3, E_C[L_C(W)] - 2 L(W) <= epsilon_1, labels free or interpolating.
- ``cor.5.4``: Corollary 5.4 with its O(.) constants hidden: the ratio is the smallest common
  constant that makes it hold on the example; no threshold, the maximum is reported.

The network domains come from ``numerics.masking.instances.networks`` (Assumption 3.1
networks over orders of magnitude).
"""
from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st

from numerics.core.fuzzing import Campaign, Example

from .instances import networks


# ---------------------------------------------------------------------------------------
# Domains
# ---------------------------------------------------------------------------------------

def _net_strategy(max_n=3, max_m=3, max_d=3, scale=(-3.0, 3.0), kappa=(-1.5, 1.0)):
    """``numerics.masking.instances.networks`` (labels within Theorem 4.2's B_y <= 3 sqrt(m) R_w) as a
    dict example of plain lists, with a description generated from the same parameters."""
    strat = networks(max_n=max_n, max_m=max_m, max_d=max_d, scale=scale, kappa=kappa,
                     label_bound=True).map(_net_dict)
    text = (f"Assumption 3.1 networks: n <= {max_n} inputs in the unit ball, pairwise non-parallel "
            f"(d = 1 forces n = 1), m <= {max_m} neurons, d <= {max_d}; W entries in +-[1e-3, 1] "
            f"times 10^e, e in [{scale[0]:g}, {scale[1]:g}]; a in {{+1, -1}}; kappa = 10^e, "
            f"e in [{kappa[0]:g}, {kappa[1]:g}] (kappa in [{10 ** kappa[0]:.3g}, {10 ** kappa[1]:.3g}]); "
            "labels y_i = u_i 3 sqrt(m) R_w, u_i in [-1, 1] (Theorem 4.2's hypothesis "
            "B_y <= 3 sqrt(m) R_w, its whole range)")
    return strat, text


def _net_dict(net) -> Example:
    W, a, X, y, kappa = net
    return {"W": np.asarray(W, float).tolist(), "a": np.asarray(a, float).tolist(),
            "X": np.asarray(X, float).tolist(), "y": np.asarray(y, float).tolist(),
            "kappa": float(kappa)}


def _args(ex: Example) -> tuple:
    return ex["W"], ex["a"], ex["X"], ex["y"], ex["kappa"]


def _call(module: str, func: str, ex: Example) -> str:
    """``__import__("numerics.masking.M", fromlist=["M"]).func(W=..., a=..., X=..., y=...,
    kappa=...)``: exact (floats printed by repr round-trip), and an expression, so it
    evaluates anywhere."""
    kw = ", ".join(f"{k}={ex[k]!r}" for k in ("W", "a", "X", "y", "kappa"))
    return f'__import__("numerics.masking.{module}", fromlist=["{module}"]).{func}({kw})'


def _shape(ex: Example) -> dict:
    return {"n": len(ex["X"]), "m": len(ex["W"]), "d": len(ex["W"][0])}


# ---------------------------------------------------------------------------------------
# thm.4.2: float64, moderate kappa
# ---------------------------------------------------------------------------------------

def _thm42_evaluate(ex: Example):
    from . import network as nw

    th = nw.theorem_4_2(*_args(ex))
    dfn = th.definition
    detail = {**_shape(ex), "E": th.E, "E_error": th.E_error, "bound": th.bound, "T1": th.T1, "T2": th.T2,
              "expected_loss": th.expected_loss, "phi_max": dfn.phi_max, "psi_max": dfn.psi_max,
              "R_w": dfn.R_w, "R_u": dfn.R_u, "B_y": dfn.B_y}
    if not th.hypothesis:
        return None, {**detail, "skipped": "hypothesis B_y <= 3 sqrt(m) R_w fails (rounding at its edge)"}
    if not th.resolved:
        return None, {**detail, "skipped": "|E| below its float64 rounding estimate (see thm.4.2@small-kappa)"}
    return th.ratio, detail


def _thm42_reproducer(ex: Example) -> str:
    return _call("network", "theorem_4_2", ex) + ".ratio"


# ---------------------------------------------------------------------------------------
# thm.4.2@small-kappa: mpmath reference
# ---------------------------------------------------------------------------------------

SMALL_KAPPA_DPS = 20


def _thm42_small_evaluate(ex: Example):
    import mpmath

    from . import network as nw
    from . import reference_network as rn
    from numerics.core.reference import LadderError

    dfn = nw.definition_4_1(ex["W"], ex["X"], ex["y"], ex["kappa"])
    if not dfn.B_y <= 3 * math.sqrt(len(ex["W"])) * dfn.R_w:
        return None, {**_shape(ex), "skipped": "hypothesis B_y <= 3 sqrt(m) R_w fails (rounding at its edge)"}
    try:
        ref = rn.theorem_4_2(*_args(ex), dps=SMALL_KAPPA_DPS)
    except LadderError as exc:
        # e.g. two equal neurons with opposite a: E is exactly 0 but computed as a sum of
        # cancelling terms, which no relative precision ladder can resolve
        return None, {**_shape(ex), "skipped": "reference unresolved: " + str(exc).splitlines()[0]}
    if ref.bound > 0:
        ratio = float(abs(ref.E) / ref.bound)
    else:
        ratio = 0.0 if ref.E == 0 else math.inf
    detail = {**_shape(ex), "E": mpmath.nstr(ref.E, 12), "bound": mpmath.nstr(ref.bound, 12),
              "phi_max": mpmath.nstr(ref.phi_max, 12), "psi_max": mpmath.nstr(ref.psi_max, 12),
              "R_w": float(ref.R_w), "R_u": float(ref.R_u), "dps": SMALL_KAPPA_DPS}
    return ratio, detail


def _thm42_small_reproducer(ex: Example) -> str:
    call = _call("reference_network", "theorem_4_2", ex)[:-1] + f", dps={SMALL_KAPPA_DPS})"
    return f"(lambda t: float(abs(t.E) / t.bound))({call})"


# ---------------------------------------------------------------------------------------
# The failure errata E4 records
# ---------------------------------------------------------------------------------------

def _holds_without_labels(evaluate):
    """E4's pattern for a counterexample of ``evaluate``'s campaign: the same network with y = 0
    satisfies (4) (ratio <= 1), i.e. the violation comes from the label term -y_i delta_i that E4
    finds the bound short of.  Where float64 does not resolve E at y = 0 the mpmath reference
    judges it; an example neither resolves is not E4's."""
    def recorded(ex: Example) -> bool:
        bare = {**ex, "y": [0.0] * len(ex["y"])}
        ratio, _ = evaluate(bare)
        if ratio is None and evaluate is not _thm42_small_evaluate:
            ratio, _ = _thm42_small_evaluate(bare)
        return ratio is not None and ratio <= 1.0
    return recorded


# ---------------------------------------------------------------------------------------
# cor.5.3 and cor.5.4
# ---------------------------------------------------------------------------------------

def _with_labels(pair) -> Example:
    """Labels drawn freely (as in Theorem 4.2's hypothesis) or set to the network's own
    outputs, L(W) = 0, where the excess E_C[L_C] - 2 L(W) is all variance and bias."""
    from . import network as nw

    ex, interpolate = pair
    if interpolate:
        ex = {**ex, "y": np.asarray(nw.output(ex["W"], ex["a"], ex["X"]), float).tolist()}
    return {**ex, "labels": "interpolating" if interpolate else "free"}


def _cor53_strategy(**kw):
    strat, text = _net_strategy(**kw)
    return (st.tuples(strat, st.booleans()).map(_with_labels),
            text + "; or labels set to the network's own outputs (L(W) = 0), half of the draws")


def _cor53_evaluate(ex: Example):
    from . import convergence as cv

    c = cv.corollary_5_3(*_args(ex))
    detail = {**_shape(ex), "labels": ex["labels"], "expected_loss": c.expected_loss, "clean_loss": c.clean_loss,
              "excess": c.excess, "eps1": c.eps1}
    if not c.hypothesis:
        return None, {**detail, "skipped": "hypothesis B_y <= 3 sqrt(m) R_w fails"}
    return c.ratio, detail


def _cor53_reproducer(ex: Example) -> str:
    return _call("convergence", "corollary_5_3", ex) + ".ratio"


def _cor54_evaluate(ex: Example):
    from . import convergence as cv

    c = cv.corollary_5_4(*_args(ex))
    detail = {**_shape(ex), "labels": ex["labels"], "lhs_max": max(c.lhs), "A": c.A, "B": c.B, "C": c.C}
    if not c.hypothesis:
        return None, {**detail, "skipped": "hypothesis B_y <= 3 sqrt(m) R_w fails"}
    return c.constant, detail


def _cor54_reproducer(ex: Example) -> str:
    return _call("convergence", "corollary_5_4", ex) + ".constant"


# ---------------------------------------------------------------------------------------
# The registry
# ---------------------------------------------------------------------------------------

def _registry() -> dict[str, Campaign]:
    thm, thm_text = _net_strategy(scale=(-3.0, 3.0), kappa=(-1.5, 1.0))
    thm_deep, thm_deep_text = _net_strategy(max_n=5, max_m=5, max_d=5, scale=(-6.0, 6.0), kappa=(-1.5, 2.0))
    small, small_text = _net_strategy(max_n=2, max_m=2, max_d=2, scale=(-3.0, 3.0), kappa=(-3.0, -1.0))
    cor, cor_text = _cor53_strategy(scale=(-3.0, 3.0), kappa=(-3.0, 1.0))
    cor_deep, cor_deep_text = _cor53_strategy(max_n=5, max_m=5, max_d=5, scale=(-6.0, 6.0), kappa=(-3.0, 2.0))
    campaigns = [
        Campaign(
            id="thm.4.2", statement="Theorem 4.2, eq. (4): |E| <= m n (kappa^2 R_u^2 psi_max^2 "
                                    "+ (kappa^2 R_u^2 + kappa R_w) phi_max^2)",
            ratio_name="|E|/bound", domain=thm_text + "; float64 numerics.masking.network.theorem_4_2",
            judged="hypothesis B_y <= 3 sqrt(m) R_w holds and float64 resolves E (|E| > its rounding estimate)",
            strategy=thm, evaluate=_thm42_evaluate, reproducer=_thm42_reproducer, threshold=1.0, examples=200,
            deep_strategy=thm_deep, deep_domain=thm_deep_text + "; float64 numerics.masking.network.theorem_4_2",
            recorded={"E4": _holds_without_labels(_thm42_evaluate)}),
        Campaign(
            id="thm.4.2@small-kappa", statement="Theorem 4.2, eq. (4) at small kappa (E and the bound "
                                                "exponentially small)",
            ratio_name="|E|/bound",
            domain=small_text + f"; E and the bound from the mpmath reference "
                                f"numerics.masking.reference_network.theorem_4_2 at {SMALL_KAPPA_DPS} digits",
            judged="hypothesis B_y <= 3 sqrt(m) R_w holds (every E is resolved in mpmath)",
            strategy=small, evaluate=_thm42_small_evaluate, reproducer=_thm42_small_reproducer,
            threshold=1.0, examples=80, recorded={"E4": _holds_without_labels(_thm42_small_evaluate)}),
        Campaign(
            id="cor.5.3", statement="Corollary 5.3: E_C[L_C(W)] <= 2 L(W) + epsilon_1",
            ratio_name="(E_C[L_C] - 2 L)/eps1", domain=cor_text + "; float64, E_C[L_C] exact",
            judged="hypothesis B_y <= 3 sqrt(m) R_w holds",
            strategy=cor, evaluate=_cor53_evaluate, reproducer=_cor53_reproducer, threshold=1.0, examples=200,
            deep_strategy=cor_deep, deep_domain=cor_deep_text + "; float64, E_C[L_C] exact"),
        Campaign(
            id="cor.5.4", statement="Corollary 5.4: ||E_C[grad_{w_r} L_C] - grad_{w_r} L|| <= O(A) + O(B) + O(C) "
                                    "(hidden constants)",
            ratio_name="needed common constant max_r lhs_r/(A + B + C)",
            domain=cor_text + "; float64, E_C[grad L_C] exact",
            judged="hypothesis B_y <= 3 sqrt(m) R_w holds",
            strategy=cor, evaluate=_cor54_evaluate, reproducer=_cor54_reproducer, threshold=None, examples=200,
            deep_strategy=cor_deep, deep_domain=cor_deep_text + "; float64, E_C[grad L_C] exact"),
    ]
    return {c.id: c for c in campaigns}


CAMPAIGNS: dict[str, Campaign] = _registry()
