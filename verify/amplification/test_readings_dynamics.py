"""Witnesses of the readings (``theory.amplification.readings``) of the statements along gradient
descent: ``cond.4.7``, ``cond.4.8``, ``lemma.A.1``, ``lemma.4.4`` (its C_0-free reading),
``lemma.4.9``, ``lemma.4.10``, ``lemma.4.11``, ``thm.3.1``, ``prop.3.2``.

The dynamics are the raw ones: the sample from ``data.sample``, W^(0) from ``gd.initial_weights``
and full-batch steps W <- W - alpha grad L(W) with ``gd.gradient`` (checked against autograd in
test_s4_dynamics.py), the same seeds as ``gd.train``; every predicate is evaluated here from the
weights, for the set of neurons and samples each reading names.  Setting: the smallest inside
(A1)-(A7) for C = 16, delta = 0.1 (``regimes.inside``: d = 755, n = 96, m = 38, alpha = 1/8,
T = 3, C_0 = 2).  At an explicit C these are our readings' tests: the lemmas claim their
conclusions for C large.
"""
from __future__ import annotations

import functools
import math
from dataclasses import replace

import mpmath as mp
import pytest
import torch

from numerics.amplification import data, gd, regimes

pytestmark = pytest.mark.witness("dynamics")

DELTA, C = 0.1, 16
BASE = regimes.inside(C, DELTA)
SEEDS = range(8)


@functools.cache
def trajectory(s: gd.Setting, seed: int):
    """(sample, a, W) with W of shape (T + 1, m, d): W^(0), ..., W^(T) of one run."""
    smp = data.sample(s.n, s.d, s.sigma, s.eta, seed=3 * seed + gd.DATA, adversary=s.adversary)
    a = gd.second_layer(s.m)
    W = gd.initial_weights(s, seed)[None]
    Ws = [W[0]]
    for _ in range(s.T):
        W = W - s.alpha * gd.gradient(W, smp.x[None], smp.y[None], a, s.subgradient)
        Ws.append(W[0])
    return smp, a, torch.stack(Ws)


def sets(W0, a, thr: float) -> torch.Tensor:
    """(m, 4) membership of J_{+mu_1}, J_{-mu_1}, J_{+mu_2}, J_{-mu_2} at threshold ``thr`` (Lemma 4.2's is
    1/(3 C_0 sqrt d); 0 gives every neuron of the sign positively correlated with the mean)."""
    u = W0[:, :2] / W0.norm(dim=1, keepdim=True)
    pos = a > 0
    return torch.stack([pos & (u[:, 0] > thr), pos & (-u[:, 0] > thr), ~pos & (u[:, 1] > thr),
                        ~pos & (-u[:, 1] > thr)], dim=1)


def lemma_threshold(s: gd.Setting, C0: float) -> float:
    return 1 / (3 * C0 * math.sqrt(s.d))


def alignment_violations(smp, W, J, *, clean_only=False) -> tuple[int, int]:
    """(violating pairs, pairs judged) of Condition 4.7 at weights W: j in J_mu must have <w_j, x_i> > 0
    for i in I_mu and < 0 for i in I_-mu (gd.J_MEANS gives each column's clusters)."""
    pre = smp.x @ W.T
    keep = ~smp.noisy if clean_only else torch.ones_like(smp.noisy)
    bad = judged = 0
    for k, (_, _, on, off) in enumerate(gd.J_MEANS):
        i_on, i_off = (smp.cluster == on) & keep, (smp.cluster == off) & keep
        bad += int((pre[i_on][:, J[:, k]] <= 0).sum() + (pre[i_off][:, J[:, k]] >= 0).sum())
        judged += int((i_on.sum() + i_off.sum()) * J[:, k].sum())
    return bad, judged


def orthogonality(W, a, alpha, mask1, mask2) -> float:
    """max(|<w_j, mu_2>| over mask1, |<w_j, mu_1>| over mask2) / (alpha |a_j|)."""
    r1 = (W[mask1, 1].abs() / a.abs()[mask1]).max() if mask1.any() else torch.tensor(0.0)
    r2 = (W[mask2, 0].abs() / a.abs()[mask2]).max() if mask2.any() else torch.tensor(0.0)
    return float(max(r1, r2)) / alpha


def _conditions(s, seeds, times, *, clean_only=False, ao_bound=3.0):
    """Over seeds and times: (alignment violations, pairs judged, worst orthogonality ratio / ao_bound)."""
    bad = judged = 0
    worst = 0.0
    for q in seeds:
        smp, a, Ws = trajectory(s, q)
        J = sets(Ws[0], a, lemma_threshold(s, s.C0))
        for t in times:
            b, j = alignment_violations(smp, Ws[t], J, clean_only=clean_only)
            bad, judged = bad + b, judged + j
            worst = max(worst, orthogonality(Ws[t], a, s.alpha, J[:, 0] | J[:, 1], J[:, 2] | J[:, 3]) / ao_bound)
    return bad, judged, worst


# --------------------------------------------------------------------------------------- cond.4.7
@pytest.mark.statement("cond.4.7")
@pytest.mark.reading("clean")
def test_alignment_on_clean_samples(record):
    bad, judged, _ = _conditions(BASE, SEEDS, range(1, BASE.T), clean_only=True)
    record(ratio=bad, detail=f"{bad} violating (neuron, clean sample) pairs of {judged}, t = 1..T-1, 8 seeds", judged=judged)
    assert bad == 0 and judged > 0


@pytest.mark.statement("cond.4.7")
@pytest.mark.reading("all")
def test_alignment_on_all_samples(record):
    bad, judged, _ = _conditions(BASE, SEEDS, range(1, BASE.T))
    record(ratio=bad, detail=f"{bad} violating (neuron, sample) pairs of {judged}, t = 1..T-1, 8 seeds", judged=judged)
    assert bad == 0 and judged > 0


@pytest.mark.statement("cond.4.7")
@pytest.mark.reading("threshold-0", refutes=True)
def test_alignment_fails_for_neurons_below_the_threshold(record):
    """J_mu at threshold 0: a neuron barely correlated with its mean at t = 0 (b/sigma ~ 0) is not
    aligned after the first step (its step is dominated by the other mean)."""
    found = []
    for q in SEEDS:
        smp, a, Ws = trajectory(BASE, q)
        J0 = sets(Ws[0], a, 0.0)
        J = sets(Ws[0], a, lemma_threshold(BASE, BASE.C0))
        b, _ = alignment_violations(smp, Ws[1], J0)
        if b:
            u = Ws[0][:, :2] / Ws[0].norm(dim=1, keepdim=True)
            extra = (J0 & ~J).nonzero().tolist()
            found.append((q, b, [(j, k, round(float(abs(u[j, gd.J_MEANS[k][0]])) * math.sqrt(BASE.d), 4)) for j, k in extra]))
    record(detail="seed, violating pairs at t = 1, (neuron, set, b sqrt d) below the lemma's threshold: " + str(found))
    assert found                                   # a concrete seed with a violation
    assert all(b > 0 for _, b, _ in found)


# --------------------------------------------------------------------------------------- cond.4.8
@pytest.mark.statement("cond.4.8")
@pytest.mark.parametrize("bound", [pytest.param(3.0, marks=pytest.mark.reading("J-3alpha"), id="3alpha"),
                                   pytest.param(1.0, marks=pytest.mark.reading("J-alpha"), id="alpha")])
def test_orthogonality_on_J(bound, record):
    _, _, worst = _conditions(BASE, SEEDS, range(1, BASE.T), ao_bound=bound)
    record(ratio=worst, detail=f"max |<w_j, mu'>|/({bound:g} alpha |a_j|) over J, t = 1..T-1: {worst:.3f}",
           judged=len(SEEDS) * (BASE.T - 1))
    assert worst <= 1


@pytest.mark.statement("cond.4.8")
@pytest.mark.reading("all-3alpha")
def test_orthogonality_every_neuron(record):
    worst = 0.0
    for q in SEEDS:
        _, a, Ws = trajectory(BASE, q)
        for t in range(1, BASE.T):
            worst = max(worst, orthogonality(Ws[t], a, BASE.alpha, a > 0, a < 0) / 3)
    record(ratio=worst, detail=f"max over every neuron of |<w_j, mu'>|/(3 alpha |a_j|): {worst:.3f}",
           judged=len(SEEDS) * (BASE.T - 1))
    assert worst <= 1


# -------------------------------------------------------------------------------------- lemma.A.1
def _growth(s, seeds) -> tuple[float, float]:
    """max over seeds, t = 1..T of max_j ||w_j^(t)||/(2 |a_j| alpha t), and of ||W^(t)||_F/(2 alpha t)."""
    neuron = frob = 0.0
    for q in seeds:
        _, a, Ws = trajectory(s, q)
        t = torch.arange(1, s.T + 1, dtype=torch.float64)
        neuron = max(neuron, float((Ws[1:].norm(dim=2) / (2 * a.abs() * s.alpha * t[:, None])).max()))
        frob = max(frob, float((Ws[1:].norm(dim=(1, 2)) / (2 * s.alpha * t)).max()))
    return neuron, frob


@pytest.mark.statement("lemma.A.1")
@pytest.mark.reading("frobenius")
def test_growth_frobenius(record):
    _, frob = _growth(BASE, SEEDS)
    record(ratio=frob, detail=f"max ||W^(t)||_F/(2 alpha t), t = 1..T: {frob:.3f}", judged=len(SEEDS) * BASE.T)
    assert frob <= 1


@pytest.mark.statement("lemma.A.1")
@pytest.mark.reading("all-t")
def test_growth_past_T(record):
    s = replace(BASE, steps=4 * BASE.T)
    neuron, _ = _growth(s, range(2))
    record(ratio=neuron, detail=f"max_j ||w_j^(t)||/(2|a_j| alpha t), t = 1..{s.T}, 2 seeds: {neuron:.3f}", judged=2 * s.T)
    assert neuron <= 1


#: the standard initialisation, rows of norm ~1: (A6) asks omega <= alpha/(C sqrt(m d)) = 1.3e-4 of it
LARGE_INIT = replace(BASE, omega=1 / math.sqrt(BASE.d))


@pytest.mark.statement("lemma.A.1")
@pytest.mark.reading("any-init", refutes=True)
def test_growth_fails_without_A6(record):
    neuron, _ = _growth(LARGE_INIT, range(2))
    record(detail=f"omega = 1/sqrt(d): max_j ||w_j^(t)||/(2|a_j| alpha t) = {neuron:.1f} (t = 1..T)")
    assert neuron > 10


# ------------------------------------------------------------------------ lemma.4.4 and lemma.4.10
#: one C (16) for a larger C_0: the sets' threshold 1/(3 C_0 sqrt d) falls to 1.2e-5, b/sigma to C/(3 C_0)
BIG_C0 = 1000.0


@pytest.mark.statement("lemma.4.4")
@pytest.mark.reading("gap-C2-any-C0", refutes=True)
def test_count_gap_negative_when_C_is_not_large_given_C0(record):
    """C = 16, C_0 = 1000: a neuron of J_mu activates on fewer clean samples of its cluster than of the
    opposite one (N_mu - N_-mu < 0 <= n/C_2 for every C_2); the mean gap at the threshold,
    (1 - eta)/4 (2 Phi(C/(3 C_0)) - 1) n = 0.001 n, tends to 0 as C_0 grows at fixed C."""
    worst = []
    for q in SEEDS:
        smp, a, Ws = trajectory(BASE, q)
        J = sets(Ws[0], a, lemma_threshold(BASE, BIG_C0))
        act = (smp.x @ Ws[0].T > 0) & ~smp.noisy[:, None]
        for k, (_, _, on, off) in enumerate(gd.J_MEANS):
            gap = act[smp.cluster == on].sum(0) - act[smp.cluster == off].sum(0)
            if (gap[J[:, k]] < 0).any():
                worst.append((q, k, int(gap[J[:, k]].min())))
    mean = (1 - BASE.eta) / 4 * float(2 * mp.ncdf(mp.mpf(C) / (3 * BIG_C0)) - 1)
    record(detail=f"(seed, set, min N_mu - N_-mu) with a negative gap: {worst}; mean gap/n at the threshold {mean:.2e}")
    assert worst and min(g for _, _, g in worst) < 0


@pytest.mark.statement("lemma.4.10")
@pytest.mark.reading("order-one-any-C0", refutes=True)
def test_one_step_fails_when_C_is_not_large_given_C0(record):
    """C = 16, C_0 = 1000: after one step a neuron of J_mu is anti-correlated with its mean and
    Condition 4.7 fails (the first step's mu-component is 2 Phi(b/sigma) - 1 ~ C/C_0 small against the
    other mean's)."""
    bad = []
    for q in SEEDS:
        smp, a, Ws = trajectory(BASE, q)
        J = sets(Ws[0], a, lemma_threshold(BASE, BIG_C0))
        v, _ = alignment_violations(smp, Ws[1], J)
        wn = Ws[1].norm(dim=1)
        corr = min(float((sign * Ws[1][J[:, k], coord] / wn[J[:, k]]).min()) for k, (coord, sign, _, _)
                   in enumerate(gd.J_MEANS) if J[:, k].any())
        if v or corr <= 0:
            bad.append((q, v, round(corr, 4)))
    record(detail=f"(seed, violating pairs at t = 1, min correlation over J at t = 1): {bad}")
    assert bad and any(v > 0 and c <= 0 for _, v, c in bad)


# -------------------------------------------------------------------------------------- lemma.4.9
@pytest.mark.statement("lemma.4.9")
@pytest.mark.reading("sign")
def test_subnetwork_signs_at_T(record):
    worst_clean, worst_noisy, fro = math.inf, -math.inf, 0.0
    for q in SEEDS:
        smp, a, Ws = trajectory(BASE, q)
        inJ = sets(Ws[0], a, lemma_threshold(BASE, BASE.C0)).any(1)
        margin = smp.y * ((torch.relu(smp.x @ Ws[-1].T) * inJ) @ a)
        worst_clean = min(worst_clean, float(margin[~smp.noisy].min()))
        if smp.noisy.any():
            worst_noisy = max(worst_noisy, float(margin[smp.noisy].max()))
        fro = max(fro, float(Ws[-1].norm()))
    record(detail=f"min clean y f^J = {worst_clean:.3g}, max noisy y f^J = {worst_noisy:.3g}, ||W^(T)||_F <= {fro:.3f}",
           judged=len(SEEDS) * BASE.n)
    assert worst_clean > 0 > worst_noisy and fro <= 1


# ------------------------------------------------------------------------------------- lemma.4.11
#: (reading, steps as a multiple of T, seeds, first time judged, last time judged as an offset from the end)
SPANS = [("to-1/(4alpha)", 1, 8, 1, -1), ("through-T", 1, 8, BASE.T, 0), ("through-4T", 4, 2, 1, 0)]


@pytest.mark.statement("lemma.4.11")
@pytest.mark.parametrize("factor, seeds, first, last", [pytest.param(*p[1:], marks=pytest.mark.reading(p[0]), id=p[0])
                                                        for p in SPANS])
def test_conditions_along_the_run(factor, seeds, first, last, record):
    """Conditions 4.7 and 4.8 (J at Lemma 4.2's threshold, all samples, 3 alpha |a_j|) at t = first..T' + last,
    T' = factor x T steps."""
    s = replace(BASE, steps=factor * BASE.T)
    times = range(first, s.T + last + 1)
    bad, judged, worst = _conditions(s, range(seeds), times)
    record(ratio=worst, detail=f"t = {times.start}..{times.stop - 1}, {seeds} seeds: {bad} alignment violations of "
                               f"{judged} pairs, orthogonality {worst:.3f} of 3 alpha |a_j|", judged=judged)
    assert bad == 0 and worst <= 1 and judged > 0


# ---------------------------------------------------------------------------------------- thm.3.1
@pytest.mark.statement("thm.3.1")
@pytest.mark.reading("fit")
def test_fit_rate(record):
    ok = 0
    for q in SEEDS:
        smp, a, Ws = trajectory(BASE, q)
        margin = smp.y * (torch.relu(smp.x @ Ws[-1].T) @ a)
        ok += bool((margin[~smp.noisy] > 0).all() and (margin[smp.noisy] < 0).all())
    r = regimes.rate(ok, len(SEEDS))
    record(ratio=(1 - 4 * DELTA) / max(r["hi"], 1e-300), detail=f"{ok}/{len(SEEDS)} seeds fit (95% CI "
                                                                 f"[{r['lo']:.3f}, {r['hi']:.3f}])", judged=len(SEEDS))
    assert r["hi"] >= 1 - 4 * DELTA


@pytest.mark.statement("thm.3.1")
@pytest.mark.witness("reference")
def test_proof_constant_lets_lemma_46_apply():
    """Appendix A.4: with C_0 = 4^5 1024^2 e^4 and C_f = 4 1024 e^2/(1 - 1/C_0)^2 the proof needs
    |J^c|/m <= 1 - (1 - 1/C_0)^2 <= 2/C_0 <= 1/(16 C_f^2); exact at 50 digits."""
    with mp.workdps(50):
        C0 = mp.mpf(4) ** 5 * mp.mpf(1024) ** 2 * mp.e**4
        Cf = 4 * 1024 * mp.e**2 / (1 - 1 / C0) ** 2
        assert 1 - (1 - 1 / C0) ** 2 <= 2 / C0 <= 1 / (16 * Cf**2)


@pytest.mark.slow
@pytest.mark.statement("thm.3.1")
@pytest.mark.reading("fit-risk-adversary")
@pytest.mark.parametrize("adversary", ["cluster", "margin"])
def test_fit_and_risk_under_an_adversary(adversary, record):
    """(A4)'s eta = 1/C, round(eta n) flips chosen by the adversary (data.ADVERSARIES), 32 seeds; the
    risk on fresh draws with independent flips against eta + sqrt(log(1/delta)/n) (constant 1)."""
    tr = gd.train(replace(BASE, adversary=adversary, n_test=1000), range(32))
    out = regimes.outcomes(tr)
    both = out["both"]
    limit = BASE.eta + math.sqrt(math.log(1 / DELTA) / BASE.n)
    record(ratio=(1 - 4 * DELTA) / max(both["hi"], 1e-300),
           detail=f"{both['k']}/32 fit (CI [{both['lo']:.3f}, {both['hi']:.3f}]); test error {out['test error']:.4f} "
                  f"<= {limit:.4f}", judged=32)
    assert both["hi"] >= 1 - 4 * DELTA and out["test error"] <= limit


# --------------------------------------------------------------------------------------- prop.3.2
def _feature_change(s, seeds) -> float:
    worst = math.inf
    for q in seeds:
        smp, _, Ws = trajectory(s, q)
        f0, fT = torch.relu(smp.x @ Ws[0].T), torch.relu(smp.x @ Ws[-1].T)
        worst = min(worst, float(((fT - f0).norm(dim=1) / f0.norm(dim=1)).min()))
    return worst


@pytest.mark.statement("prop.3.2")
@pytest.mark.reading("rel-C")
def test_features_move_by_C_at_the_edge_of_A6(record):
    s = replace(BASE, omega=BASE.alpha / (C * math.sqrt(BASE.m * BASE.d)))
    worst = _feature_change(s, range(4))
    record(ratio=C / worst, detail=f"omega at (A6)'s edge: min_i relative feature change {worst:.1f} (C = {C})",
           judged=4 * BASE.n)
    assert worst >= C


@pytest.mark.statement("prop.3.2")
@pytest.mark.reading("any-init", refutes=True)
def test_features_do_not_move_at_the_standard_initialisation(record):
    worst = _feature_change(LARGE_INIT, range(2))
    record(detail=f"omega = 1/sqrt(d): min_i relative feature change {worst:.3f} < 1")
    assert worst < 1
