"""Theorems 5.2 and 5.6 against the paper's own Fig. 3(a) experiment (n = 500, d = 20, m = 100,
eta = 0.005, K = 2000), with every hidden constant set to 1 (``numerics.masking.bounds``; the same
table is ``maskverify bounds``).  What is measured: lambda_0 of the data (eq. (11)), epsilon_1..3
at the initialisation (Corollaries 5.3, 5.4), and each requirement's distance to the instance.

The full report needs the exact expected gradient of the 100 x 500 network (~20 s), so its tests
are in the slow tier; the default tier keeps the width and step requirements, which need
lambda_0 only (``test_fig3_width_and_step_alone_miss``), and every requirement's formula is
checked against the catalogue on fuzzed instances in ``test_s5_float_vs_symbolic``.
"""
from __future__ import annotations

import math

import pytest

from numerics.core.compile import compile_expr
from numerics.masking import bounds
from numerics.masking import network as nw
from numerics.core.tolerance import Tol
from theory.masking import convergence as TC
from theory.masking import network as TN

pytestmark = pytest.mark.witness("fast")
SAME_FORMULA = Tol(rtol=1e-12, why="one formula in float64 (numerics.masking.bounds) and through SymPy (the catalogue)")


@pytest.mark.statement("thm.5.2")
@pytest.mark.statement("thm.5.6")
def test_fig3_width_and_step_alone_miss(record):
    """Fig. 3(a)'s data and settings against the catalogue's width and step requirements (shared by
    Theorems 5.2 and 5.6, constants 1): lambda_0 of the data alone says m = 100 misses by > 20
    orders of magnitude and eta = 0.005 by > 3."""
    f = bounds.FIG3
    X, _ = bounds.synthetic_data(f["n"], f["d"], seed=0)
    lam = float(nw.lambda0(X))
    args = (TN.n, TC.K, TC.lam0, TC.delta, TC.tau, TC.C5, TC.C6)
    width, step = (compile_expr(eq.rhs, args)(f["n"], f["K"], lam, f["delta"], f["tau"], 1, 1)
                   for eq in (TC.WIDTH, TC.STEP))
    record(ratio=width / f["m"], detail=f"lambda_0 = {lam:.4g}; m needs {width:.3g} (has {f['m']}); "
                                      f"eta needs <= {step:.3g} (has {f['eta']})")
    assert lam > 0
    assert math.log10(width / f["m"]) > 20 and math.log10(f["eta"] / step) > 3


@pytest.fixture(scope="module")
def fig3():
    X, y = bounds.synthetic_data(bounds.FIG3["n"], bounds.FIG3["d"], seed=0)
    settings = {k: v for k, v in bounds.FIG3.items() if k not in ("n", "d")}
    return bounds.evaluate(X, y, **settings)


@pytest.mark.slow
@pytest.mark.statement("thm.5.2")
@pytest.mark.statement("thm.5.6")
def test_fig3_experiment_is_far_outside_both_theorems(fig3, record):
    """The width requirement alone misses by > 20 orders of magnitude and the step size by
    > 3 (constants 1): no theorem of the paper covers its own experiment."""
    req = {(r.theorem, r.what.split()[0]): r for r in fig3.requirements}
    width, step = req[("Theorem 5.2", "width")], req[("Theorem 5.2", "step")]
    record(ratio=width.required / width.instance,
           detail=f"lambda_0 = {fig3.lambda0:.4g}; m needs {width.required:.3g} (has 100); "
                  f"eta needs <= {step.required:.3g} (has 0.005)")
    assert fig3.lambda0 > 0
    assert math.log10(width.required / width.instance) > 20
    assert math.log10(step.instance / step.required) > 3
    assert fig3.covered == {"Theorem 5.2": False, "Theorem 5.6": False}


@pytest.mark.slow
@pytest.mark.statement("thm.5.6")
def test_phi_hat_is_one_at_a_random_initialisation(fig3, record):
    """With n m = 50,000 (neuron, sample) pairs some pre-activation mean is near 0, so
    phi_hat = max exp(-(w^T x/(2 kappa ||w . x||))^2) is ~1 at W_0 whatever kappa is, and
    (15) sigma_max(X) phi_hat <= lambda_0/sqrt(n) would need sigma_max(X) <= lambda_0/sqrt(n),
    while sigma_max(X) >= max ||x_i|| = 1 > lambda_0."""
    phi = fig3.quantities["phi_hat (at W_0)"]
    record(detail=f"phi_hat at W_0 = {phi:.6f}")
    assert phi > 0.99
    assert fig3.quantities["sigma_max(X)"] >= 1 > fig3.lambda0 / math.sqrt(fig3.settings["n"])


def _catalogue_value(expr, rep: bounds.Report):
    """A requirement of the catalogue's thm.5.2 / thm.5.6 (theory.masking.convergence), evaluated on the
    report's instance with every hidden constant 1: the statement, not ``numerics.masking.bounds``' copy."""
    import sympy as sp

    from theory.masking import convergence as T
    from theory.masking import network as N

    q, st = rep.quantities, rep.settings
    values = {N.n: st["n"], N.m: st["m"], N.d: st["d"], N.kappa: st["kappa"], T.K: st["K"],
              T.delta: st["delta"], T.tau: st["tau"], T.lam0: rep.lambda0, T.eta: st["eta"],
              T.C5: 1, T.C6: 1, T.C7: 1, T.phi_hat: q["phi_hat (at W_0)"], T.psi_hat: q["psi_hat (at W_0)"]}
    return float(sp.sympify(expr).subs(values))


@pytest.mark.slow
@pytest.mark.statement("thm.5.2")
@pytest.mark.statement("thm.5.6")
def test_requirements_are_the_catalogues(fig3, record):
    """Every requirement ``maskverify bounds`` prints equals the catalogue statement's right side
    (and the success probability and radius (16) its formulas), evaluated independently."""
    from theory.masking.catalogue import CATALOGUE

    labels = {"width": "width", "step": "step", "(12) epsilon_1": "eps1", "(12) epsilon_2": "eps2",
              "(12) epsilon_3": "eps3", "(14)": "kappa", "(15)": "data"}
    checked = 0
    for r in fig3.requirements:
        label = next(v for k, v in labels.items() if r.what.startswith(k))
        st = CATALOGUE["thm.5.2" if r.theorem == "Theorem 5.2" else "thm.5.6"]
        expected = _catalogue_value(st.equation(label).rhs, fig3)
        assert r.required == pytest.approx(expected, rel=SAME_FORMULA.rtol), f"{r.theorem} {r.what}: {r.required} != {expected}"
        checked += 1
    prob = _catalogue_value(CATALOGUE["thm.5.6"].equation("probability").rhs, fig3)
    assert fig3.quantities["success probability"] == pytest.approx(prob, rel=SAME_FORMULA.rtol)
    from theory.masking import convergence as T
    rate = CATALOGUE["thm.5.6"].equation("rate").rhs - T.RATE
    assert fig3.quantities["radius (16)"] == pytest.approx(_catalogue_value(rate, fig3), rel=SAME_FORMULA.rtol)
    record(detail=f"{checked} requirements, the success probability and radius (16) match the catalogue")
    assert checked == len(fig3.requirements)
