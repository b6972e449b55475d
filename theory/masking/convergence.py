"""Section 5's statements about the Gaussian mask (Corollaries 5.3, ...), as statements.

Notation as in ``theory/network.py`` and Definition 4.1; L(W) = 1/2 sum_i (f(W, x_i) - y_i)^2
is the clean loss (Section 3).
"""
from __future__ import annotations

import sympy as sp

from .network import B_x, L_C, LAWC, R_u, R_w, THEOREM_4_2, d, kappa, m, n, phi_max, psi_max
from theory.core.statement import Equation, Expectation, Kind, Statement, Tex

L_clean = Tex(r"\mathcal{L}(W)")
eps1 = (2 * m * n * kappa**2 * R_u**2 + m * n * (kappa**2 * R_u**2 + kappa * R_w) * phi_max**2
        + m * n * kappa**2 * (R_u**2 + 1) * psi_max**2)
#: the sentence after Corollary 5.3 writes the first term without the square (errata E7)
eps1_as_restated = eps1 - 2 * m * n * kappa**2 * R_u**2 + 2 * m * n * kappa**2 * R_u

COROLLARY_5_3 = Statement(
    id="cor.5.3",
    ref="Corollary 5.3 (Assumption 5.1 (8), epsilon_1)",
    title="the expected surrogate loss is at most twice the clean loss plus epsilon_1",
    kind=Kind.UPPER_BOUND,
    params=THEOREM_4_2.params,
    equations=(
        Equation("bound", Expectation(L_C, LAWC), 2 * L_clean + sp.Symbol(r"\varepsilon_1"), "<="),
        Equation("restated", sp.Symbol(r"\varepsilon_1"), eps1_as_restated),
    ),
    assumptions=("Assumption 3.1", "B_y <= 3 sqrt(m) R_w"),
    where=((sp.Symbol(r"\varepsilon_1"), eps1),),
    notes=("The part 'restated' is the sentence after the corollary, 2 m n kappa^2 R_u without the "
           "square; it is a typo (erratum masking:E7)."),
)

C2, C3, C4 = sp.symbols("C_2 C_3 C_4", positive=True)
sigma_X = Tex(r"\sigma_{\max}(X)")
bias_lhs = Tex(r"\big\|\mathbb{E}_{\mathbf{C}}[\nabla_{w_r}\mathcal{L}_{\mathbf{C}}(W)]-\nabla_{w_r}\mathcal{L}(W)\big\|_2")
eps3 = C3 * sigma_X * phi_max / sp.sqrt(m)
eps2 = (C2 * (n * kappa**2 * B_x**2 * R_w + n * kappa * R_u * sp.sqrt(d)) * phi_max
        + C4 * (n * kappa * R_u * psi_max + kappa**2 * sp.sqrt(m) * B_x**2 * R_w))

COROLLARY_5_4 = Statement(
    id="cor.5.4",
    ref="Corollary 5.4 (Assumption 5.1 (9), epsilon_2 and epsilon_3)",
    title="the bias of the expected surrogate gradient, with the hidden constants C_2, C_3, C_4 explicit",
    kind=Kind.ASYMPTOTIC,
    params=THEOREM_4_2.params,
    equations=(
        Equation("bound", bias_lhs, sp.Symbol(r"\varepsilon_3") * sp.sqrt(L_clean) + sp.Symbol(r"\varepsilon_2"), "<="),
    ),
    assumptions=("Assumption 3.1", "B_y <= 3 sqrt(m) R_w",
                 "C_2, C_3, C_4 are the constants the paper hides in O(.): we make them symbols"),
    where=((sp.Symbol(r"\varepsilon_2"), eps2), (sp.Symbol(r"\varepsilon_3"), eps3),
           (sigma_X, Tex(r"\text{largest singular value of } X = [x_1, \dots, x_n]^\top"))),
    notes=("sigma_max(X) is not defined in the paper; we read it as the largest singular value of the "
           "data matrix. No choice of C_2, C_3, C_4 independent of n works (erratum masking:E8)."),
)

lam0, delta, tau, eta, K, k = sp.symbols(r"\lambda_0 \delta \tau \eta K k", positive=True)
C5, C6, C7 = sp.symbols("C_5 C_6 C_7", positive=True)
phi_hat, psi_hat = sp.symbols(r"\hat\phi_{\max} \hat\psi_{\max}", nonnegative=True)
EL = Tex(r"\mathbb{E}[\mathcal{L}(W_k)]")
L0 = Tex(r"\mathcal{L}(W_0)")
WIDTH = Equation("width", m, C5 * n**4 * K**2 / (lam0**4 * delta**2 * tau**2), ">=")
STEP = Equation("step", eta, C6 * lam0 / n**2, "<=")
PROB = Equation("probability", Tex(r"\Pr[\text{the bound holds for all } k\le K]"),
                1 - 2 * delta - n**2 * sp.exp(-n**3 / (delta**2 * tau**2 * lam0**3)), ">=")
RATE = (1 - eta * lam0 / 2) ** k * L0

THEOREM_5_2 = Statement(
    id="thm.5.2",
    ref="Theorem 5.2, eqs. (12), (13)",
    title="linear convergence to a ball under Assumption 5.1 (constants C_i made explicit)",
    kind=Kind.ASYMPTOTIC,
    params=THEOREM_4_2.params,
    equations=(
        WIDTH, STEP,
        Equation("eps1", sp.Symbol(r"\varepsilon_1"), C7 * delta * m / (n * K**4), "<="),
        Equation("eps2", sp.Symbol(r"\varepsilon_2"), C7 * delta * lam0 / (n * K**2), "<="),
        Equation("eps3", sp.Symbol(r"\varepsilon_3"), C7 * lam0 / sp.sqrt(m * n), "<="),
        PROB,
        Equation("rate", EL, RATE + C7 * (m * n * sp.Symbol(r"\varepsilon_2") ** 2 / lam0**2
                                           + sp.Symbol(r"\varepsilon_1")), "<="),
    ),
    assumptions=("Assumptions 3.1 and 5.1 with gamma = C_1 n/m", "w_{0,r} ~ N(0, tau^2 I), a_r ~ Unif{+-1}",
                 "C_5, C_6, C_7 stand for the constants hidden in Omega(.), O(.)"),
    notes="maskverify bounds evaluates every requirement with the constants set to 1.",
)

THEOREM_5_6 = Statement(
    id="thm.5.6",
    ref="Theorem 5.6, eqs. (14)-(16)",
    title="convergence under Gaussian input masks (constants C_i made explicit)",
    kind=Kind.ASYMPTOTIC,
    params=THEOREM_4_2.params,
    equations=(
        WIDTH, STEP,
        Equation("kappa", kappa, C7 * sp.sqrt(delta * lam0) / (tau**2 * K**2 * (m**sp.Rational(1, 4) * sp.sqrt(d)
                                                                                 + n * d) * (phi_hat + psi_hat)), "<="),
        Equation("data", Tex(r"\sigma_{\max}(X)") * phi_hat, C7 * lam0 / sp.sqrt(n), "<="),
        PROB,
        Equation("rate", EL, RATE + C7 * (kappa * tau**2 * m * n**2 * d**2 * (phi_hat**2 + psi_hat**2)
                                           + kappa**2 * tau**2 * m**2 * n * d
                                           + kappa * tau * m * n * sp.sqrt(d) * phi_hat**2), "<="),
    ),
    assumptions=("Assumption 3.1; same initialisation as Theorem 5.2",
                 "phi_hat, psi_hat: maxima of phi_max, psi_max over the iterates",
                 "C_5, C_6, C_7 stand for the constants hidden in Omega(.), O(.)"),
    notes="maskverify bounds evaluates every requirement with the constants set to 1.",
)

STATEMENTS = (THEOREM_5_2, COROLLARY_5_3, COROLLARY_5_4, THEOREM_5_6)
