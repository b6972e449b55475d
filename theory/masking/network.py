"""Section 4 at network level: the expected surrogate loss and gradient, Definition 4.1,
Theorem 4.2 and Remark 4.4, as statements.

Notation (Section 3, Definition 4.1): f(W, x) = m^{-1/2} sum_r a_r ReLU(w_r^T x);
u_ir = w_r . x_i; z_ir = w_r^T(x_i . c_i) ~ N(mu_ir, s_ir^2) with mu_ir = w_r^T x_i,
s_ir = kappa ||u_ir||, A_ir = mu_ir/s_ir, corr(z_ir, z_ir') = rho_irr' and
kappa^2 u_ir^T u_ir' = rho_irr' s_ir s_ir' (the covariance the proof sketch of Theorem 4.2
prints without kappa^2: erratum masking:E1).  E_1(mu, mu', s, s', rho) is
``lemma.relu_moment2``'s E[z z' 1{z, z' >= 0}], with E_1 on the diagonal r = r' read as
E[z^2 1{z >= 0}] (``lemma.relu_moment1``, part "second").

The paper's phi(x) = exp(-x^2) and psi(x) = |x| phi(x) (eq. (3)) are ``paper_phi`` and
``paper_psi``; varphi is the Gaussian density.  They are different functions.
"""
from __future__ import annotations

import sympy as sp

from theory.core.functions import Phi, varphi
from .functions import paper_phi, paper_psi
from theory.core.statement import Equation, Expectation, Kind, Param, Statement, Tex

i, r, rp = sp.symbols("i r r'", integer=True, positive=True)
m, n, d = sp.symbols("m n d", integer=True, positive=True)
kappa = sp.Symbol("kappa", positive=True)
aI = sp.IndexedBase("a", real=True)
yI = sp.IndexedBase("y", real=True)
muI = sp.IndexedBase(r"\mu", real=True)
sI = sp.IndexedBase("s", nonnegative=True)
rhoI = sp.IndexedBase(r"\rho", real=True)
#: G[i, r, r'] = u_ir^T u_ir'
GI = sp.IndexedBase("G", real=True)
E_1 = sp.Function("E_1")

LAWC = r"\mathbf{C}"


def A(ii, rr):
    """The standardised mean A_ir = mu_ir / s_ir."""
    return muI[ii, rr] / sI[ii, rr]


def sigma_tilde(ii, rr):
    """E_c[ReLU(z_ir)] = mu Phi(A) + s varphi(A) (lemma.relu_moment1)."""
    return muI[ii, rr] * Phi(A(ii, rr)) + sI[ii, rr] * varphi(A(ii, rr))


def sigma_hat(ii, rr):
    """The paper's proxy sigma_hat_kappa(w_r, x_i) = w_r^T x_i Phi(w_r^T x_i/(kappa ||u_ir||))."""
    return muI[ii, rr] * Phi(A(ii, rr))


def pair(ii, r1, r2):
    """E_1 for neurons (r1, r2) of sample ii."""
    return E_1(muI[ii, r1], muI[ii, r2], sI[ii, r1], sI[ii, r2], rhoI[ii, r1, r2])


def _sum_r(expr, var=r):
    return sp.Sum(expr, (var, 1, m))


def _sum_i(expr):
    return sp.Sum(expr, (i, 1, n))


Ef = _sum_r(aI[r] * sigma_tilde(i, r)) / sp.sqrt(m)
Ef2 = _sum_r(_sum_r(aI[r] * aI[rp] * pair(i, r, rp), rp)) / m
fhat = _sum_r(aI[r] * sigma_hat(i, r)) / sp.sqrt(m)
expected_loss_rhs = _sum_i(Ef2 - 2 * yI[i] * Ef + yI[i] ** 2) / 2

T1 = _sum_i((fhat - yI[i]) ** 2) / 2
T2 = kappa**2 / (2 * m) * _sum_i(_sum_r(_sum_r(
    aI[r] * aI[rp] * GI[i, r, rp] * Phi(A(i, r)) * Phi(A(i, rp)), rp)))
Delta = pair(i, r, rp) - (muI[i, r] * muI[i, rp] + kappa**2 * GI[i, r, rp]) * Phi(A(i, r)) * Phi(A(i, rp))
delta = _sum_r(aI[r] * sI[i, r] * varphi(A(i, r))) / sp.sqrt(m)
E_closed = _sum_i(_sum_r(_sum_r(aI[r] * aI[rp] * Delta, rp)) / (2 * m) - yI[i] * delta)

T1s, T2s, Es = sp.symbols(r"\mathcal{T}_1 \mathcal{T}_2 \mathcal{E}")
L_C = Tex(r"\mathcal{L}_{\mathbf{C}}(W)")
B_x, B_y, R_w, R_u = sp.symbols("B_x B_y R_w R_u", nonnegative=True)
phi_max, psi_max = sp.symbols(r"\phi_{\max} \psi_{\max}", nonnegative=True)
bound_4 = m * n * (kappa**2 * R_u**2 * psi_max**2 + (kappa**2 * R_u**2 + kappa * R_w) * phi_max**2)

_t = sp.Symbol("t", real=True)
x_sym = sp.Symbol("x", real=True)

EXPECTED_LOSS = Statement(
    id="net.expected_loss",
    ref="Theorem 4.2 (proof sketch)",
    title="the expected surrogate loss of the masked two-layer network, exactly",
    kind=Kind.IDENTITY,
    params=(
        Param(sp.Symbol("W"), sp.S.Reals, "first-layer weights, m x d"),
        Param(aI, sp.FiniteSet(-1, 1), "second-layer signs a_r"),
        Param(sp.Symbol("X"), sp.S.Reals, "inputs x_i, ||x_i|| <= 1 (Assumption 3.1)"),
        Param(yI, sp.S.Reals, "labels y_i"),
        Param(kappa, sp.Interval(0, sp.oo), "mask standard deviation"),
    ),
    equations=(Equation("loss", Expectation(L_C, LAWC), expected_loss_rhs),),
    assumptions=("c_i ~ N(1, kappa^2 I_d) independent per sample",),
    where=((Tex("E_1(r, r)"), Tex(r"\mathbb{E}[z_{ir}^2 \mathbb{1}\{z_{ir}\ge 0\}]")),
           (rhoI[i, r, rp] * sI[i, r] * sI[i, rp], kappa**2 * GI[i, r, rp]),
           (GI[i, r, rp], Tex(r"u_{ir}^\top u_{ir'}"))),
    notes="E_1 is lemma.relu_moment2 (E[z z' 1{z, z' >= 0}]); sigma_tilde is lemma.relu_moment1.",
)

_grad_lhs = Expectation(Tex(r"\nabla_{w_r}\mathcal{L}_{\mathbf{C}}(W)"), LAWC)
_grad_rhs = Tex(
    r"\frac{a_r}{\sqrt{m}}\sum_{i=1}^n x_i\odot\Big(\frac{1}{\sqrt m}\sum_{r'=1}^m a_{r'}"
    r"\big(F_{irr'}\mathbf{1}+\kappa H_{irr'}\hat u_{ir}+\kappa^2 P_{irr'}u_{ir'}\big)"
    r"-y_i\big(\Phi(A_{ir})\mathbf{1}+\kappa\varphi(A_{ir})\hat u_{ir}\big)\Big)")
EXPECTED_GRAD = Statement(
    id="net.expected_grad",
    ref="Theorem 4.9 (proof sketch); eq. (2)",
    title="the expected surrogate gradient, exactly (Theorem 4.9's statement is not available to us)",
    kind=Kind.IDENTITY,
    params=EXPECTED_LOSS.params,
    equations=(Equation("gradient", _grad_lhs, _grad_rhs),),
    assumptions=("c_i ~ N(1, kappa^2 I_d); the diagonal r' = r has F = sigma_tilde, H = 0, P = Phi(A_ir)",),
    where=(
        (Tex("P_{irr'}"), Tex(r"\Phi_2(A_{ir}, A_{ir'}; \rho_{irr'})")),
        (Tex("F_{irr'}"), Tex(r"\mathbb{E}[z_{ir'}\mathbb{1}\{z_{ir}\ge0, z_{ir'}\ge0\}]")),
        (Tex("H_{irr'}"), Tex(r"s_{ir}\, p_{z_{ir}}(0)\,\mathbb{E}[\mathrm{ReLU}(z_{ir'})\mid z_{ir}=0]")),
    ),
    notes=("By Stein's identity E[c ReLU(c^T v) 1{c^T u >= 0}] = F 1 + kappa H u_hat + kappa^2 P v, "
           "which is the proof sketch's E[c c^T 1{c^T u >= 0, c^T v >= 0}] v in O(1) per pair."),
)

DEFINITION_4_1 = Statement(
    id="def.4.1",
    ref="Definition 4.1; eq. (3)",
    title="the data, weight and smoothing constants of Section 4 (phi(x) = exp(-x^2))",
    kind=Kind.DEFINITION,
    params=(Param(sp.Symbol("W"), sp.S.Reals, "weights"), Param(sp.Symbol("X"), sp.S.Reals, "inputs"),
            Param(yI, sp.S.Reals, "labels"), Param(kappa, sp.Interval(0, sp.oo), "mask standard deviation")),
    equations=(
        Equation("phi", sp.Function(r"\phi")(x_sym), paper_phi(x_sym)),
        Equation("psi", sp.Function(r"\psi")(x_sym), paper_psi(x_sym)),
        Equation("phi_range", sp.Function(r"\phi")(x_sym), 1, "<="),
        Equation("psi_range", sp.Function(r"\psi")(x_sym), 1 / sp.sqrt(2 * sp.E), "<="),
        Equation("phi_max", phi_max, Tex(
            r"\max_{r,i}\phi\Big(\frac{w_r^\top x_i}{2\kappa\|w_r\odot x_i\|_2}\Big)")),
        Equation("psi_max", psi_max, Tex(
            r"\max_{r,i}\psi\Big(\frac{w_r^\top x_i}{2\kappa\|w_r\odot x_i\|_2}\Big)")),
    ),
    where=((B_x, Tex(r"\max_i\|x_i\|_\infty")), (B_y, Tex(r"\max_i|y_i|")),
           (R_w, Tex(r"\max_r\|w_r\|_2")), (R_u, Tex(r"\max_{r,i}\|w_r\odot x_i\|_2"))),
    notes=("The paper writes phi in (0, 1] and psi in (0, 1/sqrt(2e)]; psi(0) = 0, so the range of "
           "psi is [0, 1/sqrt(2e)]. Where kappa ||u_ir|| = 0 the argument is +-inf (phi = psi = 0), "
           "and 0/0 (w_r . x_i = 0) is read as 0 (phi = 1, psi = 0)."),
)

THEOREM_4_2 = Statement(
    id="thm.4.2",
    ref="Theorem 4.2, eq. (4)",
    title="expected loss = proxy loss + regulariser + error, and the bound on the error",
    kind=Kind.UPPER_BOUND,
    params=EXPECTED_LOSS.params,
    equations=(
        Equation("decomposition", Expectation(L_C, LAWC), T1s + T2s + Es),
        Equation("bound", sp.Abs(Es), bound_4, "<="),
    ),
    assumptions=("Assumption 3.1 (||x_i|| <= 1, |y_i| <= O(1), no parallel inputs)",
                 "B_y <= 3 sqrt(m) R_w"),
    where=((T1s, T1), (T2s, T2), (Es, E_closed),
           (GI[i, r, rp], Tex(r"u_{ir}^\top u_{ir'}"))),
    notes=("E is not left implicit: its closed form (ours, from the lemmas) makes its size known. "
           "T2 is the paper's kappa^2/(2m) sum_i ||sum_r a_r u_ir Phi(A_ir)||^2 with the norm expanded."),
)

REMARK_4_4 = Statement(
    id="rem.4.4",
    ref="Remark 4.4",
    title="the proxy sigma_hat against the exact smoothed ReLU sigma_tilde",
    kind=Kind.ASYMPTOTIC,
    params=(Param(sp.Symbol("mu"), sp.S.Reals, "w^T x"),
            Param(sp.Symbol("s", nonnegative=True), sp.Interval(0, sp.oo), "kappa ||w . x||")),
    equations=(
        Equation("gap", Tex(r"\tilde\sigma - \hat\sigma"),
                 sp.Symbol("s") * varphi(2 * _t)),
        Equation("paper_form", Tex(r"\tilde\sigma - \hat\sigma"),
                 sp.Symbol("s") * paper_phi(_t) ** 2 / sp.sqrt(2 * sp.pi)),
        Equation("O_constant", Tex(r"\tilde\sigma - \hat\sigma"),
                 sp.Symbol("s") * paper_phi(_t) / sp.sqrt(2 * sp.pi), "<="),
    ),
    where=((_t, Tex(r"\frac{w^\top x}{2\kappa\|w\odot x\|}")),),
    notes=("With Definition 4.1's argument t = w^T x/(2 kappa ||w . x||), the O(.) hides the constant "
           "1/sqrt(2 pi) and a square: the gap is s phi(t)^2/sqrt(2 pi). Read with the argument "
           "w^T x/(kappa ||w . x||) instead, no constant works: the ratio is exp(a^2/2)/sqrt(2 pi)."),
)

STATEMENTS = (EXPECTED_LOSS, EXPECTED_GRAD, DEFINITION_4_1, THEOREM_4_2, REMARK_4_4)
