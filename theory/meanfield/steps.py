"""Results of the text that no earlier statement carried (the source index, issue 32): the gradient
(7)-(9), the output dynamics (13), the examples of (16) and of Assumption 2, the Gram matrix
G^(0) of (20), Appendix D's intermediate inequalities (37), (40), (43), (51) and Appendix F's
perturbation steps.

Notation as in ``dynamics``: r_a = f(x_a) - y_a, sigma'_ia = sigma'(h_i(x_a)), G the Gram matrix
(12), lambda_1 = lambda_min(G), lambda_2 = lambda_max(G), I = (I_l, I_r), xi = (I_r - I_l)/3 and
I_0 = (I_l + xi, I_r - xi) (38), K_s = K_{sigma'}.
"""
from __future__ import annotations

import sympy as sp

from theory.core.statement import Equation, Kind, Param, Reading, Statement, Tex, reconstructed

from .dynamics import PARAMS_DYN, K_s, c_hat, lam1, lam2, m, n

alpha = sp.Symbol(r"\alpha", positive=True)
D = sp.Symbol("D", positive=True, integer=True)
d = sp.Symbol("d", positive=True, integer=True)
delta = sp.Symbol(r"\delta", positive=True)

# ------------------------------------------------------------------------------ (7)-(9)
EQ8 = Statement(
    id="eq.8", ref="eq. (7)-(9)",
    title="the gradient of the loss in W, and GD (9) as the explicit update it prints",
    kind=Kind.IDENTITY,
    params=PARAMS_DYN + (Param(D, sp.Naturals, "embedding dimension"),
                         Param(delta, sp.Interval.open(0, sp.oo), "step size")),
    equations=(
        Equation("8", Tex(r"\frac{\partial\mathcal{L}}{\partial W_{ij}}"),
                 Tex(r"\frac{1}{m\sqrt D}c_i\sum_{a=1}^n r_a\sigma'(h_i(x_a))\phi_j(x_a)")),
        Equation("9", Tex(r"W_{ij}-m\delta\frac{\partial\mathcal{L}}{\partial W_{ij}}"),
                 Tex(r"W_{ij}-\frac{\delta}{\sqrt D}c_i\sum_{a=1}^n r_a\sigma'(h_i(x_a))\phi_j(x_a)")),
    ),
    assumptions=(r"$f(x)=\frac1m\sum_ic_i\sigma(h_i(x))$, $h_i(x)=\frac1{\sqrt D}\sum_jW_{ij}\phi_j(x)$ (2)-(3)",
                 r"$\sigma$ differentiable at every $h_i(x_a)$ (7)"),
    notes="(7) is the a = single-point case of (8); (9) is (8) times m delta.",
)

# ------------------------------------------------------------------------------ (13)
f_dot = Tex(r"\frac{d}{dt}f^t(x)")
EQ13 = Statement(
    id="eq.13", ref="eq. (13)",
    title="the output moves by the tangent kernel (c_hat^2/m) sum_i sigma'(h_i(x)) G(x, x_a) sigma'(h_i(x_a))",
    kind=Kind.IDENTITY, params=PARAMS_DYN,
    equations=(
        Equation("13a", f_dot, Tex(r"\frac1m\sum_{i=1}^mc_i\sigma'(h_i^t(x))\frac{d}{dt}h_i^t(x)")),
        Equation("13b", f_dot, Tex(r"-\frac{\hat c^2}{m}\sum_{i=1}^m\sigma'(h_i^t(x))\sum_{a=1}^n"
                                   r"\mathcal{G}(x,x_a)r_a\sigma'(h_i^t(x_a))")),
    ),
    assumptions=(r"$|c_i|=\hat c$ (Assumption 1)", "gradient flow (10)", r"any $x\in\Omega$, not only the data"),
)

# ------------------------------------------------------------------------------ (16)'s examples
t_ = sp.Symbol("t", real=True)
#: the activations (16) names: "such as linear, cubic or (smoothed) Leaky ReLU"; smoothed leaky ReLU
#: read as alpha t + (1 - alpha) softplus(t) (any smoothing whose slope stays in [alpha, 1] does as well)
PL_EXAMPLES = {
    "linear": t_,
    "leaky_relu": (t_ + sp.Abs(t_)) / 2 + alpha * (t_ - sp.Abs(t_)) / 2,       # max(t, 0) + alpha min(t, 0)
    "smoothed_leaky_relu": alpha * t_ + (1 - alpha) * sp.log(1 + sp.exp(t_)),
    "cubic": t_**3,
}
inf_slope = Tex(r"\inf_{t\in\mathbb{R}}|\sigma'(t)|")
EQ16_EXAMPLES = Statement(
    id="eq.16.examples", ref="Section 3.1, before (16)",
    title="the activations (16) names -- linear, cubic, (smoothed) leaky ReLU -- have |sigma'| >= K_sigma' > 0 everywhere",
    kind=Kind.LOWER_BOUND,
    params=(Param(alpha, sp.Interval.open(0, 1), "the negative-side slope of the leaky ReLU"),),
    equations=tuple(Equation(name, inf_slope, sp.Symbol(r"K_{\sigma'}", positive=True), ">=")
                    for name in PL_EXAMPLES),
    assumptions=(r"$K_{\sigma'}>0$ a constant",),
    where=tuple((Tex(rf"\sigma_{{\mathrm{{{name.replace('_', '-')}}}}}(t)"), expr) for name, expr in PL_EXAMPLES.items()),
    notes=("Linear: 1; leaky ReLU and its smoothing: alpha. Cubic: sigma'(t) = 3t^2 vanishes at 0, so no "
           "K_sigma' > 0 exists, and (16) fails where the pre-activations are 0 (errata E7). 'Cubic' is read as "
           "sigma(t) = t^3; a cubic with a linear term, t + t^3, would qualify (slope >= 1)."),
    provenance=reconstructed(
        "Section 3.1, the sentence before (16)",
        words=("'if we use an activation function whose derivative's absolute value is uniformly bounded from below "
               "by a constant K_sigma' > 0, such as linear, cubic or (smoothed) Leaky ReLU activations'"),
        readings=(
            Reading("monomial", "cubic is sigma(t) = t^3 (the usual meaning)", 1),
        )),
)

# ------------------------------------------------------------------------------ Assumption 2's examples
sup_slope = Tex(r"\sup_{t\in\mathbb{R}}|\sigma'(t)|")
inf_I = Tex(r"\inf_{t\in I}|\sigma'(t)|")
ASM2_EXAMPLES = Statement(
    id="asm.2.examples", ref="Assumption 2 and the sentence after it",
    title="tanh, sigmoid and ReLU satisfy Assumption 2: Lipschitz, with |sigma'| >= K_sigma' > 0 on an open interval",
    kind=Kind.LOWER_BOUND, params=(),
    equations=(
        Equation("tanh.L", sup_slope, sp.Integer(1)), Equation("tanh.K", inf_I, 1 - sp.tanh(1) ** 2),
        Equation("sigmoid.L", sup_slope, sp.Rational(1, 4)),
        Equation("sigmoid.K", inf_I, sp.exp(-1) / (1 + sp.exp(-1)) ** 2),
        Equation("relu.L", sup_slope, sp.Integer(1)), Equation("relu.K", inf_I, sp.Integer(1)),
    ),
    assumptions=(r"$I=(-1,1)$ for tanh and sigmoid, $I=(0,\infty)$ for ReLU (any bounded interval works for the first two)",),
    notes="Witnessed by SymPy: the supremum and infimum of sigma' are computed over R and over I.",
)

# ------------------------------------------------------------------------------ (20)
X = sp.Symbol("X")
EQ20 = Statement(
    id="eq.20", ref="eq. (20); Section 3.2's first sentence",
    title="G^(0) = X X^T/d is positive definite iff x_1, ..., x_n are linearly independent, hence never for n > d",
    kind=Kind.IDENTITY,
    params=(Param(n, sp.Naturals, "data points"), Param(d, sp.Naturals, "input dimension")),
    equations=(Equation("iff", Tex(r"\lambda_{\min}(G^{(0)})>0"), Tex(r"\mathrm{rank}\,X=n")),
               Equation("n>d", Tex(r"\lambda_{\min}(G^{(0)})"), sp.S.Zero)),
    assumptions=(r"$X\in\mathbb{R}^{n\times d}$ with rows $x_a$; $G^{(0)}_{ab}=x_a^\top x_b/d$ (20)",
                 r"the second part for $n>d$"),
)

# ------------------------------------------------------------------------------ Assumption 4's sufficient condition
ASM4_SUFFICIENT = Statement(
    id="asm.4.sufficient", ref="Assumption 4, the sentence after it",
    title="Gbar^(1) is positive definite for Gaussian z, ReLU and data with no two points parallel (any n, d)",
    kind=Kind.LOWER_BOUND,
    params=(Param(n, sp.Naturals, "data points"), Param(d, sp.Naturals, "input dimension")),
    equations=(Equation("relu", Tex(r"\lambda_{\min}(\bar G^{(1)})"), sp.S.Zero, ">"),),
    assumptions=(r"$z\sim\mathcal N(0,I_d)$, $\sigma=\mathrm{ReLU}$", r"$x_a\ne0$ and $x_a\ne s\,x_b$ for $s>0$, $a\ne b$"),
    notes=("The text cites [19] for ReLU and [18] for analytic non-polynomial sigma; only ReLU is checked here "
           "(certified Arb enclosures). Antiparallel pairs (x, -x) are allowed and the matrix stays definite: "
           "for ReLU only positive multiples must be excluded (relu(s u) = s relu(u) makes x and s x's "
           "features proportional)."),
)

# ------------------------------------------------------------------------------ Appendix D's steps
eta_I = Tex(r"\eta(h)")
Ldot = Tex(r"\frac{d}{dt}\mathcal{L}")
LEMMA1_STEPS = Statement(
    id="lemma.1.steps", ref="Appendix D, (37), (40), (43)-(44), (47), (49), (51)",
    title="the inequalities of Lemma 1's proof: at every state the PL-type bound (37), the count (40), the speed bound (43); along the flow their integrals (44), (47), (49)",
    kind=Kind.UPPER_BOUND,
    params=PARAMS_DYN + (Param(lam2, sp.Interval.open(0, sp.oo), r"$\lambda_{\max}(G)$"),
                         Param(K_s, sp.Interval.open(0, sp.oo), r"$\inf_I|\sigma'|$")),
    equations=(
        Equation("37", Ldot, -2 * c_hat**2 * lam1 * K_s**2 * Tex(r"\mathcal{L}") * eta_I, "<="),
        Equation("40", Tex(r"\min_a\frac1m\#\{i:h^t_{ia}\in I\}"),
                 Tex(r"\min_a\frac1m\#\{i:h^0_{ia}\in I_0\}-\max_a\frac1m\#\{i:|h^t_{ia}-h^0_{ia}|\ge\xi\}"), ">="),
        Equation("43", Tex(r"\frac1m\sum_{i=1}^m\left|\frac{d}{dt}h_i(x_a)\right|"),
                 lam2 * lam1 ** sp.Rational(-1, 2) * Tex(r"\left|\frac{d}{dt}\mathcal{L}\right|^{1/2}"), "<="),
        Equation("51", lam2, n * Tex(r"G_{\max}"), "<="),
        Equation("44", Tex(r"\frac1m\sum_{i=1}^m|h_i^t(x_a)-h_i^0(x_a)|"),
                 lam2 * lam1 ** sp.Rational(-1, 2) * Tex(r"\int_0^t|\dot{\mathcal L}^s|^{1/2}ds"), "<="),
        Equation("47", Tex(r"\max_a\frac1m\#\{i:|h^t_{ia}-h^0_{ia}|\ge\xi\}"),
                 Tex(r"C_1\int_0^t|\dot{\mathcal L}^s|^{1/2}ds"), "<="),
        Equation("49", Tex(r"\eta^t"), Tex(r"\min_a\frac1m\#\{i:h^0_{ia}\in I_0\}-C_1\int_0^t|\dot{\mathcal L}^s|^{1/2}ds"), ">="),
    ),
    assumptions=("Assumption 2", r"$|c_i|=\hat c$", r"$\lambda_{\min}(G)>0$",
                 r"$\eta(h)=\min_a\frac1m\#\{i:h_{ia}\in I\}$ at the state $h$; (40) for any two states $h^0$, $h^t$"),
    notes=("Each holds at every state h (or pair of states), not only along a flow, so the witness draws states. "
           "(37)'s first line prints sigma'(h_i(x_a)) sigma'(h_i(x_a)) for sigma'(h_i(x_a)) sigma'(h_i(x_b)) "
           "(errata E8); the chain holds with (14)'s form. (43)'s third step is false alone (errata E1), its "
           "conclusion holds. (44), (47), (49) integrate (43) along the flow: checked along integrated flows, the integral "
           "by the trapezoid rule over the records, less 10 x its Richardson estimate (C_1 = lambda_2 lambda_1^(-1/2)/xi)."),
)

# ------------------------------------------------------------------------------ Appendix E's steps
THM1_STEPS = Statement(
    id="thm.1.steps", ref="Appendix E, (57)-(61)",
    title="the algebra from Lemmas 1-3 to Theorem 1: with c_hat >= c_hat_0 lambda_max/lambda_min, eta^t >= 2^(-2/3) K and the rate r = 2^(1/3) K_sigma'^2 K",
    kind=Kind.LOWER_BOUND,
    params=PARAMS_DYN + (Param(lam2, sp.Interval.open(0, sp.oo), r"$\lambda_{\max}(G)$"),
                         Param(K_s, sp.Interval.open(0, sp.oo), r"$\inf_I|\sigma'|$")),
    equations=(
        Equation("59", Tex(r"\eta^t"), Tex(r"2^{-2/3}K"), ">="),
        Equation("61", Tex(r"r"), sp.cbrt(2) * K_s**2 * Tex("K")),
    ),
    assumptions=(r"Lemma 1 (with $\kappa^*=3C_2$, errata E1), $\tilde\eta^0>K$ (Lemma 3), $\mathcal L^0\le\|y\|^2$ (Lemma 2)",
                 r"$\hat c\ge 2\kappa^*\|y\|/K^{3/2}$, i.e. $\hat c_0^*$ of ``thm.1.proof``"),
    notes=("(58) as printed, c_hat >= 3 sqrt(2) C_2 |y|/K^(3/2), is this with the printed chain's (3/2) sqrt(2) C_2 "
           "in place of kappa* = 3 C_2 (errata E1); the algebra from there is the same. The sentence before (57) "
           "prints 'with probability at least delta' for 1 - delta."),
)

# ------------------------------------------------------------------------------ Appendix F's steps
lamb1 = sp.Symbol(r"\bar\lambda_1", positive=True)
lamb2 = sp.Symbol(r"\bar\lambda_2", positive=True)
Gb_min = sp.Symbol(r"\bar{G}_{\min}", positive=True)
Gb_max = sp.Symbol(r"\bar{G}_{\max}", positive=True)
THM2_STEPS = Statement(
    id="thm.2.steps", ref="Appendix F, after Condition 1 and (73), (78), (81), (82)",
    title="|G - Gbar|_2 <= lambda_min(Gbar)/2 gives lambda_min(G) >= lambda_min(Gbar)/2, G_min >= Gbar_min/2, "
          "lambda_max(G) <= 2 lambda_max(Gbar), G_max <= 2 Gbar_max; and the algebra (78)-(82)",
    kind=Kind.UPPER_BOUND,
    params=(Param(n, sp.Naturals, "data points"),),
    equations=(
        Equation("lmin", Tex(r"\lambda_{\min}(G)"), lamb1 / 2, ">="),
        Equation("Gmin", Tex(r"G_{\min}"), Gb_min / 2, ">="),
        Equation("lmax", Tex(r"\lambda_{\max}(G)"), 2 * lamb2, "<="),
        Equation("Gmax", Tex(r"G_{\max}"), 2 * Gb_max, "<="),
        Equation("78", Tex(r"K_1(\lambda_{\min}(G),\lambda_{\max}(G))"), 4 * Tex(r"K_1(\bar\lambda_1,\bar\lambda_2)"), "<="),
        Equation("81", Tex(r"\eta^t"), sp.Rational(1, 1) / sp.cbrt(4) * Tex(r"K(I,\tfrac12\bar G_{\min},2\bar G_{\max})"), ">="),
    ),
    assumptions=(r"$G$, $\bar G$ symmetric, $\bar G\succ0$, $\|G-\bar G\|_2\le\frac12\lambda_{\min}(\bar G)$ (74)",
                 r"(81) under (79) and the choice (80) of $\hat c$"),
    notes=("The first four by Weyl's inequality and |G_aa - Gbar_aa| <= |G - Gbar|_2 <= lambda_min(Gbar)/2 <= Gbar_aa/2 "
           "(the last two are loose: 3/2 suffices); (78) since K_1 is proportional to lambda_2/lambda_1; (81) from "
           "(79) and (80): eta^(3/2) >= K^(3/2) - K^(3/2)/2; (82)'s second line from lambda_min(G) >= lambda_min(Gbar)/2."),
)

# ------------------------------------------------------------------------------ Appendix G's steps
u_ = sp.Symbol("u'", positive=True)
LEMMA4_STEPS = Statement(
    id="lemma.4.steps", ref="Appendix G.1, (89)-(92)",
    title="from entrywise deviations to the spectral norm: |E|_F >= u' forces some |E_ab| >= u'/n, and |E|_2 <= |E|_F",
    kind=Kind.UPPER_BOUND,
    params=(Param(n, sp.Naturals, "data points"), Param(u_, sp.Interval.open(0, sp.oo), "the deviation of (90)")),
    equations=(
        Equation("91", Tex(r"\mathbb{P}\left(\|E\|_F^2\ge u'^2\right)"),
                 Tex(r"\sum_{a,b=1}^n\mathbb{P}\left(|E_{ab}|\ge u'/n\right)"), "<="),
        Equation("92", Tex(r"\|E\|_2"), Tex(r"\|E\|_F"), "<="),
        Equation("89", Tex(r"\mathbb{P}\left(|G^{(1)}_{ab}-\bar G^{(1)}_{ab}|<u\right)"), 1 - Tex(r"\delta'"), ">="),
    ),
    assumptions=(r"$E=G^{(1)}-\bar G^{(1)}$ symmetric $n\times n$", r"(89): $D$ at least its printed bound"),
    notes=("(91) holds because |E_ab| < u'/n for all a, b gives |E|_F^2 < n^2 (u'/n)^2 = u'^2; (92) is standard. (89) "
           "prints 'we have |G_ab - Gbar_ab| >= u with probability at least 1 - delta', the inequality reversed "
           "(and delta for delta'; errata E10): its use in (91) needs < u with probability >= 1 - delta'. (86) "
           "bounds |sigma(x_a^T Z)|_psi2 by L_sigma |Z|_psi2, which needs sigma(0) = 0 (or a centring) and |x_a| <= 1; "
           "the 1/sqrt(d) of (23) is dropped in G.1: constants the Omega absorbs."),
)

STATEMENTS = (EQ8, EQ13, EQ16_EXAMPLES, ASM2_EXAMPLES, EQ20, ASM4_SUFFICIENT, LEMMA1_STEPS, THM1_STEPS, THM2_STEPS, LEMMA4_STEPS)
