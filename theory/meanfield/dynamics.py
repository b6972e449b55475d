"""Section 2.2 and 3.1: the induced dynamics (11), the loss identity and inequality (14), the PL
bound (16), Lemma 1 (18)-(19) with kappa as printed and as the proof gives it, Lemma 3 (56) with
K(I, lambda_1, lambda_2) as printed.

Notation: r_a = f(x_a) - y_a, sigma'_ia = sigma'(h_i(x_a)), G the Gram matrix (12), lambda_1 =
lambda_min(G), lambda_2 = lambda_max(G), I = (I_l, I_r) the interval of Assumption 2 and
w = I_r - I_l its width, K_s = K_{sigma'}.
"""
from __future__ import annotations

import sympy as sp

from theory.core.statement import Equation, Kind, Param, Reading, Statement, Tex, reconstructed

c_hat = sp.Symbol(r"\hat{c}", positive=True)
lam1, lam2 = sp.symbols(r"\lambda_1 \lambda_2", positive=True)
I_l, I_r = sp.symbols("I_l I_r", real=True)
K_s = sp.Symbol(r"K_{\sigma'}", positive=True)
w = sp.Symbol("w", positive=True)            # I_r - I_l
m, n = sp.symbols("m n", positive=True, integer=True)
delta = sp.Symbol(r"\delta", positive=True)
L0, Lt = sp.symbols(r"\mathcal{L}^0 \mathcal{L}^t", nonnegative=True)
eta_t, eta0_tilde, eta0 = sp.symbols(r"\eta^t \tilde\eta^0 \eta^0", nonnegative=True)
G_min, G_max = sp.symbols(r"G_{\min} G_{\max}", positive=True)
t = sp.Symbol("t", nonnegative=True)
kappa = sp.Symbol(r"\kappa", positive=True)
K_lemma = sp.Symbol("K", positive=True)

Ldot = Tex(r"\frac{d}{dt}\mathcal{L}^t")
quad_form = Tex(r"\frac{\hat c^2}{m}\sum_{i=1}^m\sum_{a,b=1}^n G_{ab}r_ar_b\sigma'_{ia}\sigma'_{ib}")
diag_form = Tex(r"\frac{\hat c^2}{m}\sum_{i=1}^m\sum_{a=1}^n r_a^2(\sigma'_{ia})^2")
h_dot = Tex(r"\frac{d}{dt}h_i^t(x)")
h_rhs = Tex(r"-c_i\sum_{a=1}^n\mathcal{G}(x, x_a)\,r_a\,\sigma'(h_i^t(x_a))")

PARAMS_DYN = (
    Param(c_hat, sp.Interval.open(0, sp.oo), r"$|c_i|$ (Assumption 1)"),
    Param(m, sp.Naturals, "width"),
    Param(n, sp.Naturals, "number of training points"),
    Param(lam1, sp.Interval.open(0, sp.oo), r"$\lambda_{\min}(G)$"),
)

EQ11 = Statement(
    id="eq.11", ref="eq. (11)-(12)", title="gradient flow on W moves each feature map in the span of G(., x_a)",
    kind=Kind.IDENTITY, params=PARAMS_DYN,
    equations=(Equation("h", h_dot, h_rhs),),
    assumptions=(r"gradient flow (10) on $W$; $\mathcal{G}(x,x')=\Phi(x)^\top\Phi(x')/D$ (12)",),
)

EQ14 = Statement(
    id="eq.14", ref="eq. (14)", title="the loss decreases at the rate of a G-weighted quadratic form, at least lambda_min(G) times a sum of squares",
    kind=Kind.UPPER_BOUND, params=PARAMS_DYN,
    equations=(Equation("identity", Ldot, -quad_form),
               Equation("inequality", -quad_form, -lam1 * diag_form, "<=")),
    assumptions=(r"$|c_i| = \hat c$ (Assumption 1)", "gradient flow (10)"),
)

EQ16 = Statement(
    id="eq.16", ref="eq. (16)", title="PL inequality when |sigma'| >= K_sigma' everywhere, and its linear rate",
    kind=Kind.UPPER_BOUND, params=PARAMS_DYN + (Param(K_s, sp.Interval.open(0, sp.oo), r"$\inf|\sigma'|$"),),
    equations=(Equation("PL", Ldot, -2 * c_hat**2 * lam1 * K_s**2 * Tex(r"\mathcal{L}^t"), "<="),
               Equation("rate", Lt, L0 * sp.exp(-2 * c_hat**2 * lam1 * K_s**2 * t), "<=")),
    assumptions=(r"$|\sigma'|\ge K_{\sigma'}$ on all of $\mathbb{R}$ (linear, leaky ReLU)",),
)

#: kappa(lambda_1, lambda_2) as Lemma 1 prints it
KAPPA_PRINTED = 9 * lam2 * (I_r - I_l) / (2 * lam1 * K_s)
#: the proof's constants (46), (51) with xi = (I_r - I_l)/3 of (38)
xi = (I_r - I_l) / 3
C1 = lam2 * lam1 ** sp.Rational(-1, 2) / xi
C2 = C1 * lam1 ** sp.Rational(-1, 2) / (sp.sqrt(2) * K_s)
#: what (53) gives when multiplied by 3/2: (3/2) sqrt(2) C_2
KAPPA_53 = sp.Rational(3, 2) * sp.sqrt(2) * C2
#: what the chain gives with (52)'s factor restored: Ldot L^{-1/2} = sqrt(2) d/dt (2L)^{1/2}, so 3 C_2
KAPPA_STAR = 3 * C2

LEMMA1_PARAMS = PARAMS_DYN + (
    Param(lam2, sp.Interval.open(0, sp.oo), r"$\lambda_{\max}(G)$"),
    Param(I_l, sp.Reals, "left end of I"), Param(I_r, sp.Reals, "right end of I (> I_l)"),
    Param(K_s, sp.Interval.open(0, sp.oo), r"$\inf_I|\sigma'|$"),
)
eta_def = Tex(r"\min_{a}\frac1m\sum_{i}\mathbb{I}\{h_i^t(x_a)\in I\}")
eta0_def = Tex(r"\min_{a}\frac1m\sum_{i}\mathbb{I}\{h_i^0(x_a)\in(\tfrac{2I_l+I_r}3,\tfrac{I_l+2I_r}3)\}")

LEMMA1 = Statement(
    id="lemma.1", ref="Lemma 1 (18)-(19)", title="the fraction of active neurons cannot drop without the loss dropping (kappa as printed)",
    kind=Kind.LOWER_BOUND, params=LEMMA1_PARAMS,
    equations=(Equation("19", eta_t ** sp.Rational(3, 2),
                        eta0_tilde ** sp.Rational(3, 2) - kappa * (sp.sqrt(L0) - sp.sqrt(Lt)) / c_hat, ">="),),
    assumptions=("Assumption 2", r"$\lambda_{\min}(G) > 0$", r"$|c_i| = \hat c$", "dynamics (11), (14)"),
    where=((kappa, KAPPA_PRINTED), (eta_t, eta_def), (eta0_tilde, eta0_def)),
    notes=("kappa as printed has (I_r - I_l) in the numerator; the proof's (46)-(53) give it in the denominator "
           "(notes/meanfield/errata.toml, E1)."),
)

LEMMA1_PROOF = Statement(
    id="lemma.1.proof", ref="Lemma 1, Appendix D (38)-(54)", title="Lemma 1 with the constant its proof gives: kappa* = 3 C_2 = 9 lambda_2 / (sqrt(2) lambda_1 K_sigma' (I_r - I_l))",
    kind=Kind.LOWER_BOUND, params=LEMMA1_PARAMS,
    equations=(Equation("19*", eta_t ** sp.Rational(3, 2),
                        eta0_tilde ** sp.Rational(3, 2) - kappa * (sp.sqrt(L0) - sp.sqrt(Lt)) / c_hat, ">="),
               Equation("kappa*", kappa, sp.simplify(KAPPA_STAR))),
    assumptions=LEMMA1.assumptions,
    where=((kappa, sp.simplify(KAPPA_STAR)), (eta_t, eta_def), (eta0_tilde, eta0_def)),
    notes=("(53) multiplied by 3/2 gives (3/2) sqrt(2) C_2 = 9 lambda_2/(2 lambda_1 K (I_r - I_l)); (52)'s last "
           "step drops a factor sqrt(2) (Ldot L^(-1/2) = sqrt(2) d/dt (2L)^(1/2)), restoring it gives 3 C_2."),
    provenance=reconstructed(
        "Appendix D, (38)-(54), with (52)'s factor sqrt(2) restored",
        words=("Lemma 1 (19): '(eta^t)^(3/2) >= (tilde eta^0)^(3/2) - kappa (sqrt(L^0) - sqrt(L^t))/c_hat' with "
               "kappa(lambda_1, lambda_2) = 9 lambda_2 (I_r - I_l)/(2 lambda_1 K_sigma') printed; Appendix D's "
               "chain (46)-(53) in C_1, C_2"),
        readings=(
            Reading("kappa-star", "(19) with kappa* = 3 C_2 (the chain with (52)'s factor sqrt 2 restored)", 1),
            Reading("kappa-53", "(19) with kappa = (3/2) sqrt(2) C_2 ((53) as printed, times 3/2): a smaller kappa", 2),
            Reading("kappa-printed", "(19) with kappa = 9 lambda_2 (I_r - I_l)/(2 lambda_1 K_sigma') as printed", 3),
        )),
)

#: K(I, lambda_1, lambda_2) as Lemma 3 prints it
K_PRINTED = (I_r - I_l) / (6 * sp.sqrt(2 * sp.pi) * lam2) * sp.exp(-sp.Max(sp.Abs(I_l), sp.Abs(I_r)) / lam1**2)
prob = Tex(r"\mathbb{P}\left(\eta^0 > K(I, G_{\min}, G_{\max})\right)")

LEMMA3 = Statement(
    id="lemma.3", ref="Lemma 3 (56), Appendix E.2 (67)-(72)", title="enough neurons start in the active region (K as printed)",
    kind=Kind.LOWER_BOUND,
    params=(Param(m, sp.Naturals, "width"), Param(n, sp.Naturals, "data points"),
            Param(delta, sp.Interval.open(0, 1), "failure probability"),
            Param(G_min, sp.Interval.open(0, sp.oo), r"$\min_a G_{aa}$"), Param(G_max, sp.Interval.open(0, sp.oo), r"$\max_a G_{aa}$"),
            Param(I_l, sp.Reals, "left end of I"), Param(I_r, sp.Reals, "right end of I")),
    equations=(Equation("56", prob, 1 - delta, ">="),),
    assumptions=(r"$m\ge\log(n/\delta)/(2K^2)$", r"$W^0_{ij}\sim\mathcal N(0,1)$ (Assumption 3)", "Assumption 2"),
    where=((K_lemma, K_PRINTED.subs({lam1: G_min, lam2: G_max})),),
    notes=("The printed K is no probability bound: it exceeds 1 for large G and exceeds P(h in I) when I is far "
           "from 0 relative to sqrt(G) (errata E2)."),
)

#: the repaired K of (71): pi(I_0; G) >= (w/3) exp(-M_0^2/(2 G_min))/sqrt(2 pi G_max) = 2 K*, M_0 = max_{u in I_0} |u|
M0 = sp.Max(sp.Abs(I_l + xi), sp.Abs(I_r - xi))
K_STAR = (I_r - I_l) / (6 * sp.sqrt(2 * sp.pi * G_max)) * sp.exp(-M0**2 / (2 * G_min))
prob_tilde = Tex(r"\mathbb{P}\left(\tilde\eta^0 > K^*(I, G_{\min}, G_{\max})\right)")

LEMMA3_PROOF = Statement(
    id="lemma.3.proof", ref="Lemma 3, Appendix E.2 (67)-(72) with (71) repaired",
    title="enough neurons start in the middle third of I, with the repaired constant K*",
    kind=Kind.LOWER_BOUND, params=LEMMA3.params,
    equations=(Equation("56*", prob_tilde, 1 - delta, ">="),),
    assumptions=(r"$m\ge\log(n/\delta)/(2K^{*2})$", r"$W^0_{ij}\sim\mathcal N(0,1)$"),
    where=((sp.Symbol("K^*"), K_STAR),),
    notes=("(71) with the density exp(-u^2/(2G))/sqrt(2 pi G) and the infimum over I_0 taken at M_0; (68)-(70) "
           "unchanged (Hoeffding with r = pi/2 >= K*)."),
    provenance=reconstructed(
        "Appendix E.2, (67)-(72), with (71) recomputed",
        words=("Lemma 3 (56): 'if m >= log(n delta^-1)/(2 K(I, G_min, G_max)^2), then with probability at least "
               "1 - delta, there is eta^0 > K(I, G_min, G_max)'; before it: 'The second one proves that tilde "
               "eta^0 is lower-bounded'; (71) 'pi(I_0; G) >= 2K'"),
        readings=(
            Reading("eta-over-I", "P(eta^0 > K*) >= 1 - delta: the fraction over all of I, as (56) prints it", 1),
            Reading("eta-tilde", "P(tilde eta^0 > K*) >= 1 - delta: the middle third I_0, what (57) uses", 2),
            Reading("half-mass", "the same with K = min_a pi(I_0; G_aa)/2 >= K* (the tightest constant (71) "
                                 "can give), m >= log(n/delta)/(2 K^2)", 3),
            Reading("full-mass", "the same with K = min_a pi(I_0; G_aa) (no factor 1/2)", 4),
        )),
)
