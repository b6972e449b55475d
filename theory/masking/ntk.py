"""Section 5, eq. (11): the infinite-width Gram matrix H^inf and its smallest eigenvalue lambda_0.

Eq. (11) (Du et al. 2018, Section 3: the definition of H^inf, Assumption 3.1 and Theorem 3.1):

    H^inf_ij = x_i^T x_j E_{w ~ N(0, I_d)}[1{w^T x_i >= 0, w^T x_j >= 0}],   lambda_0 = lambda_min(H^inf).

(w^T x_i, w^T x_j) is a centred normal pair with covariance x_i^T x_j, so for x_i, x_j != 0 the
expectation is the orthant probability of a standard bivariate normal with correlation
rho_ij = x_i^T x_j/(||x_i|| ||x_j||), which is Sheppard's (1899)

    P = 1/4 + asin(rho)/(2 pi) = (pi - acos(rho))/(2 pi),

so H^inf_ij = x_i^T x_j (pi - theta_ij)/(2 pi) with theta_ij = acos(rho_ij): the degree-0
arc-cosine kernel k_0 = 1 - theta/pi of Cho & Saul (2009, eq. (6)) times x_i^T x_j / 2.

Zero inputs: w^T 0 = 0 and 1{0 >= 0} = 1, so the indicator for x_i = 0 is 1{w^T x_j >= 0} and
the probability is 1/2 (1 if x_j = 0 too), not (pi - acos rho)/(2 pi) for any rho; but
x_i^T x_j = 0, so H^inf_ij = 0, which the closed form gives whatever value rho_ij is read as.
"""
from __future__ import annotations

import sympy as sp

from theory.core.statement import Equation, Expectation, Indicator, Kind, Param, Statement, Tex

#: x_i^T x_j, ||x_i||, ||x_j|| and the correlation of (w^T x_i, w^T x_j)
G_ij = Tex(r"x_i^\top x_j", real=True)
norm_i = Tex(r"\|x_i\|", positive=True)
norm_j = Tex(r"\|x_j\|", positive=True)
rho = sp.Symbol("rho_ij", real=True)
#: the pre-activations w^T x_i, w^T x_j
wx_i = Tex(r"w^\top x_i", real=True)
wx_j = Tex(r"w^\top x_j", real=True)
H_ij = Tex(r"H^{\infty}_{ij}", real=True)
lambda_0 = sp.Symbol("lambda_0", real=True)

LAWW = r"w\sim\mathcal{N}(0, I_d)"

event = Indicator(sp.And(wx_i >= 0, wx_j >= 0))
orthant_rhs = (sp.pi - sp.acos(rho)) / (2 * sp.pi)
gram_rhs = G_ij * orthant_rhs

EQ_11 = Statement(
    id="eq.11",
    ref="eq. (11); Du et al. 2018",
    title="the infinite-width Gram matrix H^inf (arc-cosine kernel) and lambda_0 = lambda_min(H^inf)",
    kind=Kind.IDENTITY,
    params=(
        Param(sp.Symbol("X"), sp.S.Reals, "inputs x_1, ..., x_n in R^d (rows of X)"),
        Param(rho, sp.Interval(-1, 1), "correlation of w^T x_i and w^T x_j"),
    ),
    equations=(
        Equation("orthant", Expectation(event, LAWW), orthant_rhs),
        Equation("gram", Expectation(G_ij * event, LAWW), gram_rhs),
        Equation("lambda0", lambda_0, Tex(r"\lambda_{\min}\left(H^{\infty}\right)")),
    ),
    assumptions=("x_i, x_j != 0 for 'orthant'; 'gram' holds for every x_i, x_j (it is 0 when either is 0)",
                 "lambda_0 > 0 needs Assumption 3.1: no two inputs parallel (Du et al. 2018, Theorem 3.1)"),
    where=((rho, G_ij / (norm_i * norm_j)),
           (H_ij, Expectation(G_ij * event, LAWW))),
    notes=("Sheppard (1899): P(z_1 >= 0, z_2 >= 0) = 1/4 + asin(rho)/(2 pi) for a standard bivariate "
           "normal; (pi - acos rho)/(2 pi) is the same number. With x_i = 0 the indicator is "
           "1{w^T x_j >= 0} (1{0 >= 0} = 1), of probability 1/2, and H_ij = 0. Cho & Saul (2009): "
           "H^inf_ij = x_i^T x_j k_0(x_i, x_j)/2 with the arc-cosine kernel k_0 = 1 - theta/pi."),
)

STATEMENTS = (EQ_11,)
