"""Section 4's Gaussian-moment lemmas as statements.

The paper's key trick (proof sketch of Theorem 4.2): w^T (x . c) = c^T (w . x) with
c ~ N(1, kappa^2 I), so each pre-activation is a normal z ~ N(w^T x, kappa^2 ||w . x||^2)
and two neurons give a bivariate normal.  Everything in Section 4 then rests on

- ``lemma.relu_moment1``: E_2 = E[z 1{z >= 0}] (the exact smoothed ReLU) and E[z^2 1{z >= 0}];
- ``lemma.relu_moment2``: E_1 = E[z1 z2 1{z1 >= 0, z2 >= 0}] (Appendix D.1.3/D.1.4);
- ``lemma.mask_moment1`` and ``lemma.mask_moment2``: E[c 1{c^T u >= 0}] and
  E[c c^T 1{c^T u >= 0, c^T v >= 0}] (proof sketch of Theorem 4.9).

The closed forms for the bivariate case are Rosenbaum's (1961) truncated-bivariate-normal
moments written with a_i = mu_i/s_i; the mask moments follow by Stein's identity.
"""
from __future__ import annotations

import sympy as sp

from theory.core.functions import Phi, varphi
from theory.core.gaussian import (BIVARIATE_WHERE, LAW1, LAW2, P_orthant, a1, a2, b1, b2, kappa, mu, mu1, mu2, q,
                                  relu1_second, relu2_first, relu2_second, rho, s, s1, s2, sigma_hat,
                                  sigma_tilde, t, z, z1, z2)
from theory.core.statement import Equation, Expectation, Indicator, Kind, Param, Statement

LAWC = r"c\sim\mathcal{N}(\mathbf{1}, \kappa^2 I_d)"


# ---------------------------------------------------------------- vector symbols
d = sp.Symbol("d", integer=True, positive=True)
c = sp.MatrixSymbol("c", d, 1)
u = sp.MatrixSymbol("u", d, 1)
v = sp.MatrixSymbol("v", d, 1)
one = sp.MatrixSymbol(r"\mathbf{1}", d, 1)
Id = sp.Identity(d)
uhat = sp.MatrixSymbol(r"\hat{u}", d, 1)
vhat = sp.MatrixSymbol(r"\hat{v}", d, 1)
tvec = sp.MatrixSymbol(r"\tau", d, 1)
Dmat = sp.MatrixSymbol("D", d, d)
a = sp.Symbol("a", real=True)
cu, cv = sp.Symbol(r"\langle c, u\rangle"), sp.Symbol(r"\langle c, v\rangle")
one_u, one_v = sp.Symbol(r"\langle \mathbf{1}, u\rangle"), sp.Symbol(r"\langle \mathbf{1}, v\rangle")

mask1_rhs = Phi(a) * one + kappa * varphi(a) * uhat
mask2_rhs = (P_orthant * one * one.T + kappa * (one * tvec.T + tvec * one.T)
             + kappa**2 * (P_orthant * Id + Dmat))
mask1_single_rhs = (Phi(a) * one * one.T + kappa * varphi(a) * (one * uhat.T + uhat * one.T)
                    + kappa**2 * (Phi(a) * Id - a * varphi(a) * uhat * uhat.T))

RELU_MOMENT1 = Statement(
    id="lemma.relu_moment1",
    ref="Theorem 4.2 proof sketch (E_2); Remark 4.4",
    title="first and second moments of a ReLU'd normal; the smoothed ReLU and its proxy",
    kind=Kind.IDENTITY,
    params=(
        Param(mu, sp.Reals, "mean of the pre-activation, w^T x"),
        Param(s, sp.Interval(0, sp.oo), "standard deviation, kappa ||w . x||"),
    ),
    equations=(
        Equation("first", Expectation(z * Indicator(z >= 0), LAW1), sigma_tilde),
        Equation("second", Expectation(z**2 * Indicator(z >= 0), LAW1), relu1_second),
        Equation("proxy_gap", sp.Symbol(r"\tilde\sigma") - sp.Symbol(r"\hat\sigma"), s * varphi(t)),
        Equation("gap_bound", s * varphi(t), s / sp.sqrt(2 * sp.pi), "<="),
        Equation("relu_limit", sp.Limit(sigma_tilde, s, 0, "+"), sp.Max(mu, 0)),
    ),
    assumptions=("s >= 0; at s = 0 z = mu almost surely",),
    where=((sp.Symbol(r"\tilde\sigma"), sigma_tilde), (sp.Symbol(r"\hat\sigma"), sigma_hat)),
    notes="sigma_hat is the paper's proxy sigma_hat_kappa(w, x) = w^T x Phi(w^T x / (kappa ||w . x||)).",
)

RELU_MOMENT2 = Statement(
    id="lemma.relu_moment2",
    ref="Theorem 4.2 proof sketch (E_1); Appendix D.1.3-D.1.4",
    title="orthant probability and truncated moments of a bivariate normal",
    kind=Kind.IDENTITY,
    params=(
        Param(mu1, sp.Reals, "mean of z_1"), Param(mu2, sp.Reals, "mean of z_2"),
        Param(s1, sp.Interval(0, sp.oo), "standard deviation of z_1"),
        Param(s2, sp.Interval(0, sp.oo), "standard deviation of z_2"),
        Param(rho, sp.Interval(-1, 1), "correlation of z_1, z_2"),
    ),
    equations=(
        Equation("orthant", Expectation(Indicator(sp.And(z1 >= 0, z2 >= 0)), LAW2), P_orthant),
        Equation("first", Expectation(z1 * Indicator(sp.And(z1 >= 0, z2 >= 0)), LAW2), relu2_first),
        Equation("second", Expectation(z1 * z2 * Indicator(sp.And(z1 >= 0, z2 >= 0)), LAW2), relu2_second),
    ),
    assumptions=("s_1, s_2 > 0 and |rho| < 1 for the displayed form; the boundary "
                 "(s_i = 0, rho = +-1) is the limit, evaluated exactly by the kernels",),
    where=BIVARIATE_WHERE,
)

RELU1_A = (a, one_u / (kappa * sp.Symbol(r"\|u\|")))

MASK_MOMENT1 = Statement(
    id="lemma.mask_moment1",
    ref="Theorem 4.9 proof sketch",
    title="first moment of a Gaussian mask on a half-space",
    kind=Kind.IDENTITY,
    params=(
        Param(u, sp.S.Reals, "direction, w_r . x_i (a d-vector)"),
        Param(kappa, sp.Interval(0, sp.oo), "mask standard deviation"),
    ),
    equations=(
        Equation("first", Expectation(c * Indicator(cu >= 0), LAWC), mask1_rhs),
    ),
    assumptions=("u != 0, kappa > 0 for the displayed form; u = 0 or kappa = 0 give the "
                 "degenerate value 1{1^T u >= 0} 1",),
    where=(RELU1_A, (uhat, sp.Symbol(r"u/\|u\|"))),
    notes="By Stein's identity E[g 1{z >= 0}] = kappa u varphi(a)/s with c = 1 + kappa g.",
)

MASK_MOMENT2 = Statement(
    id="lemma.mask_moment2",
    ref="Theorem 4.9 proof sketch",
    title="second moment of a Gaussian mask on a wedge (and a half-space)",
    kind=Kind.IDENTITY,
    params=(
        Param(u, sp.S.Reals, "first direction (d-vector)"),
        Param(v, sp.S.Reals, "second direction (d-vector)"),
        Param(kappa, sp.Interval(0, sp.oo), "mask standard deviation"),
    ),
    equations=(
        Equation("wedge", Expectation(c * c.T * Indicator(sp.And(cu >= 0,
                                                               cv >= 0)), LAWC),
                 mask2_rhs),
        Equation("half_space", Expectation(c * c.T * Indicator(cu >= 0), LAWC),
                 mask1_single_rhs),
    ),
    assumptions=("u, v != 0, not parallel, kappa > 0 for the displayed form; u || v "
                 "(rho = +-1) and kappa = 0 are limits evaluated exactly by the kernels",),
    where=(
        RELU1_A,
        (a1, one_u / (kappa * sp.Symbol(r"\|u\|"))),
        (a2, one_v / (kappa * sp.Symbol(r"\|v\|"))),
        (rho, sp.Symbol(r"\langle \hat{u}, \hat{v}\rangle")), (q, sp.sqrt(1 - rho**2)),
        (b1, (a1 - rho * a2) / q), (b2, (a2 - rho * a1) / q),
        (tvec, varphi(a1) * Phi(b2) * uhat + varphi(a2) * Phi(b1) * vhat),
        (Dmat, uhat * uhat.T
         * (-a1 * varphi(a1) * Phi(b2) - rho * varphi(a1) * varphi(b2) / q)
         + (uhat * vhat.T + vhat * uhat.T) * varphi(a1) * varphi(b2) / q
         + vhat * vhat.T
         * (-a2 * varphi(a2) * Phi(b1) - rho * varphi(a2) * varphi(b1) / q)),
    ),
    notes="c = 1 + kappa g; tau = E[g 1_A] and P I + D = E[g g^T 1_A] by Stein's identity.",
)

STATEMENTS = (RELU_MOMENT1, RELU_MOMENT2, MASK_MOMENT1, MASK_MOMENT2)
