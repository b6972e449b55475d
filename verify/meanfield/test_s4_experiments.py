"""Section 4's conclusions (``theory.meanfield.experiments``) against reduced runs of Experiments 2
and 3 (``numerics.meanfield.exp2`` / ``exp3``; slow tier), and the kernel (12) of the quadratic
embedding (symbolic and reference; default tier).

The reduced runs keep the defaults' settings (mean loss, 2,500 steps of delta = 20) on smaller grids:
Exp. 2 m = 64, n in {100, 400}, 2 seeds (a subset of ``maskverify meanfield-exp2``'s default run);
Exp. 3 n in {200, 600}, m in {128, 256}, seed 0 (Fig. 4 at n = 600; m = 128 is in the default run, m = 256
beyond it: the NTK features' movement only falls below a tenth of ours there).  About 5 minutes of one
core.  Each test applies its statement's decision rule (``verdicts``) and records the numbers; a
conclusion the runs do not support is a finding (errata E5): the printed form is a strict xfail and a
passing test pins the measured numbers.
"""
from __future__ import annotations

import functools

import numpy as np
import pytest
import sympy as sp

from numerics.core.tolerance import EPS, Tol
from theory.meanfield import experiments as ex

pytestmark = pytest.mark.witness("dynamics")

#: the reduced runs are seeded and run on one CPU thread; the pins allow for a different BLAS's
#: summation order, amplified along 2,500 GD steps (measured here: 1 and 2 threads agree bitwise, n = 200, m = 256)
PIN = Tol(rtol=1e-6, why="seeded float64 runs; BLAS reordering amplified along 2,500 GD steps")


@functools.cache
def _exp2():
    from numerics.meanfield import exp2, runs
    with runs.threads(1):
        return exp2.verdicts(exp2.run(exp2.Config(ns=(100, 400), m=64, seeds=2)))


@functools.cache
def _exp3():
    from numerics.meanfield import exp3, runs
    with runs.threads(1):
        return exp3.verdicts(exp3.run(exp3.Config(ns=(200, 600), ms=(128, 256), seeds=1)))


@pytest.mark.statement("eq.12.quadratic")
@pytest.mark.witness("symbolic")
@pytest.mark.parametrize("d", [1, 2, 3, 5])
def test_eq12_quadratic_symbolic(d):
    """The statement's two sides, expanded for each d: sum_jk x_j x_k x'_j x'_k / d^2 = (x . x')^2 / d^2."""
    eq = ex.EQ12_QUAD.equation("kernel")
    diff = (eq.lhs - eq.rhs).subs(ex.d, d).doit()
    assert sp.expand(diff) == 0


@pytest.mark.statement("eq.12.quadratic")
@pytest.mark.witness("reference")
def test_eq12_quadratic_reference(record):
    """(12) from its definition -- vec(x x^T) built entry by entry, (1/D) Phi(x)^T Phi(x'), D = d^2 --
    against ``embeddings.quadratic`` / ``gram_quadratic`` over data scales 1e-3..1e3 and d = 1..30."""
    from numerics.meanfield import embeddings as em

    rng = np.random.default_rng(0)
    worst = 0.0
    for d, scale in ((1, 1.0), (2, 1e-3), (7, 1e3), (30, 1.0)):
        X = scale * rng.standard_normal((5, d))
        phi = np.array([[x[j] * x[k] for j in range(d) for k in range(d)] for x in X])
        want = phi @ phi.T / d**2
        P = em.quadratic(X).numpy()
        for got in (em.gram_quadratic(X).numpy(), P @ P.T / d**2):
            # both sides sum d^2 products of size <= max|x|^4: error <= d^2 eps max|x|^4 (absolute)
            tol = Tol(rtol=0.0, atol=4 * d * d * EPS * np.abs(X).max() ** 4, why="d^2-term sums of float64 products")
            err = np.abs(got - want).max()
            worst = max(worst, err / (np.abs(want).max()))
            assert err <= tol.atol, (d, scale, err, tol)
    record(error=worst)


@pytest.mark.slow
@pytest.mark.statement("exp.2.embedding-helps")
def test_exp2_embedding_helps(record):
    v = _exp2()["exp.2.embedding-helps"]
    te = v["test_mse"]
    record(detail="test MSE quadratic / plain per n " + ", ".join(
        f"{n}: {q:.3g}/{p:.3g}" for n, q, p in zip(v["ns"], te["quadratic"], te["plain"])))
    assert v["supported"], v


@pytest.mark.slow
@pytest.mark.statement("exp.3.test-error-order")
def test_exp3_ours_lowest_test_error(record):
    v = _exp3()["exp.3.test-error-order"]
    te = v["test_mse"]
    record(detail=f"m = {v['m']}: test MSE ours/MF/NTK per n " + ", ".join(
        f"{n}: {a:.3g}/{b:.3g}/{c:.3g}" for n, a, b, c in zip(v["ns"], te["ours"], te["mf"], te["ntk"])))
    assert v["supported"], v


@pytest.mark.slow
@pytest.mark.statement("exp.3.mf-improves-with-n")
def test_exp3_mf_improves_faster_with_n(record):
    v = _exp3()["exp.3.mf-improves-with-n"]
    record(detail="drop of test MSE from n_min to n_max: " + ", ".join(f"{s} {x:.3g}" for s, x in v["drop"].items()))
    assert v["supported"], v


@pytest.mark.slow
@pytest.mark.statement("exp.3.linear-decay")
@pytest.mark.xfail(strict=True, raises=AssertionError,
                   reason="errata (meanfield:E5): at m = 128 the training loss under our scaling slows down; log L_k "
                          "is closer to a power law than to a line over the second half")
def test_exp3_linear_decay_as_printed(record):
    v = _exp3()["exp.3.linear-decay"]
    record(detail=f"n = {v['n']}: " + "; ".join(
        f"m = {m}: rates q3/q4 {s['rate_q3']:.3g}/{s['rate_q4']:.3g}, rss exp/power {s['rss_exponential']:.2g}/"
        f"{s['rss_power']:.2g}" for m, s in v["per_m"].items()))
    assert v["supported"], v


#: E5's numbers, measured by ``_exp3()`` (n = 600, seed 0): per m, the local decay rates of log L per step
#: over the third and last quarters and the residuals of log L affine in k and in log k (second half)
E5_SHAPES = {128: (0.04304162665690051, 0.03598735097510856, 0.005228640945881262, 0.0043195080581192756),
             256: (0.05018163887804894, 0.04338263172775262, 0.004764486251566808, 0.008935464353380444)}


@pytest.mark.slow
@pytest.mark.statement("exp.3.linear-decay")
def test_exp3_linear_decay_counterexample_pinned():
    """E5: at m = 128 a power law in k fits the second half of log L better than a line; at m = 256 the line
    fits better; at both the late local rate is ~0.85 of the third quarter's (a linear rate: 1)."""
    shapes = _exp3()["exp.3.linear-decay"]["per_m"]
    for m, want in E5_SHAPES.items():
        got = shapes[m]
        assert [got["rate_q3"], got["rate_q4"], got["rss_exponential"], got["rss_power"]] == pytest.approx(
            list(want), rel=PIN.rtol), (m, got)
    assert shapes[128]["rss_power"] < shapes[128]["rss_exponential"]
    assert shapes[256]["rss_exponential"] < shapes[256]["rss_power"]


@pytest.mark.slow
@pytest.mark.statement("exp.3.features-move")
def test_exp3_features_move(record):
    v = _exp3()["exp.3.features-move"]
    mv = v["move_rel"]
    record(detail=f"n = {v['n']}, m = {v['ms']}: relative movement ours {mv['ours']}, MF {mv['mf']}, NTK {mv['ntk']} "
                  f"(NTK exponent in m {v['ntk_exponent_in_m']:.2f})")
    assert v["supported"], v
