"""Section 4.1 of Frei, Chatterji, Bartlett (2022): the random features at initialisation
(Lemmas 4.1 and 4.2).  Their displays are lost in the source text; every statement here is
reconstructed, in the weakest form the proofs need, from the passage it names.

- ``lemma.4.1.p``: the probability p of the proof of Lemma 4.1 that one neuron's normalised
  correlation with a fixed unit vector is at least c/sqrt d, exactly (w ~ N(0, omega^2 I_d); the
  law of t = <w/||w||, mu> does not depend on omega), with the Gaussian anti-concentration lower
  bound the proof invokes.
- ``lemma.4.2``: the neuron counts |J_mu| >= (m/4)(1 - 1/C_0)^2 for each cluster mean.
"""
from __future__ import annotations

import sympy as sp

from theory.amplification import readings as RD
from theory.core.statement import (
    Equation,
    Expectation,
    Indicator,
    Kind,
    Param,
    Statement,
    Tex,
    reconstructed,
)

c = sp.Symbol("c", real=True)
d = sp.Symbol("d", integer=True, positive=True)
t = sp.Symbol("t", real=True)
m = sp.Symbol("m", integer=True, positive=True)
C0 = sp.Symbol("C_0", positive=True)
delta = sp.Symbol("delta", positive=True)

#: the law of one neuron's normalised correlation with a fixed unit vector mu
LAW_T = r"w\sim\mathcal{N}(0,\,\omega^2 I_d),\ t=\langle w/\|w\|,\,\mu\rangle"


def beta_tail(cc, dd):
    """I_{1 - c^2/d}((d-1)/2, 1/2)/2: P(t >= c/sqrt d) for 0 <= c <= sqrt d."""
    return sp.betainc_regularized((dd - 1) / sp.S(2), sp.S.Half, 0, 1 - cc**2 / dd) / 2


#: the density kernel of t (Beta(1/2, (d-1)/2) law of t^2), unnormalised
DENSITY_KERNEL = (1 - t**2) ** ((d - 3) / sp.S(2))

CORRELATION_TAIL = Statement(
    id="lemma.4.1.p",
    ref="Lemma 4.1, the probability p of its proof (Appendix A.1.1)",
    title="tail of one neuron's normalised correlation with a cluster mean at initialisation",
    kind=Kind.IDENTITY,
    params=(Param(c, sp.Reals, "threshold in units of 1/sqrt(d)"),
            Param(d, sp.Range(2, sp.oo), "input dimension")),
    equations=(
        Equation("tail", Expectation(Indicator(sp.Ge(t, c / sp.sqrt(d))), LAW_T),
                 sp.Piecewise((0, c >= sp.sqrt(d)), (beta_tail(c, d), c >= 0),
                              (1 - beta_tail(-c, d), c > -sp.sqrt(d)), (1, True))),
        Equation("density", sp.Symbol("p_t(t)"),
                 DENSITY_KERNEL / sp.beta(sp.S.Half, (d - 1) / sp.S(2)), "="),
        Equation("anti-concentration", Expectation(Indicator(sp.Ge(t, c / sp.sqrt(d))), LAW_T),
                 sp.S.Half - c / sp.sqrt(2 * sp.pi), ">="),
    ),
    assumptions=("w has i.i.d. centred Gaussian entries of any variance omega^2 > 0 (Assumption (A6) "
                 "only bounds omega); mu is a fixed unit vector",
                 "the density holds on -1 < t < 1; the anti-concentration bound is claimed for c >= 0"),
    notes=("p is the probability the counting part of Lemma 4.1 concentrates over the m neurons. "
           "The lower bound 1/2 - c/sqrt(2 pi) is the Gaussian anti-concentration the proof invokes, "
           "in the form that holds for every d >= 2: the density of t sqrt(d) is largest at 0, where it "
           "is Gamma(d/2)/(sqrt(pi d) Gamma((d-1)/2)) < 1/sqrt(2 pi) (Gautschi's inequality)."),
    provenance=reconstructed(
        "Appendix A.1.1, proof of Lemma 4.1: 'For the neuron-counting argument, let z ~ N(0,1) ... "
        "Denote by p the probability [display lost]. By anti-concentration of the Gaussian, we have "
        "[display lost]'; with Section 4's 'normalized correlation >= c/sqrt(d)' and the threshold "
        "1/(3 C_0 sqrt d) of Lemma 4.4",
        words=RD.WORDS["lemma.4.1.p"], readings=RD.READINGS["lemma.4.1.p"]),
)

J_SIZE = sp.Symbol(r"|J_\mu|", integer=True, nonnegative=True)
p_sym = sp.Symbol("p", positive=True)
#: the threshold of the sets J_mu, in units of 1/sqrt(d): Lemma 4.4's 1/(3 C_0 sqrt d)
THRESHOLD = 1 / (3 * C0)
COUNT_BOUND = m / 4 * (1 - 1 / C0) ** 2

NEURON_COUNTS = Statement(
    id="lemma.4.2",
    ref="Lemma 4.2",
    title="many neurons capture each cluster mean at initialisation",
    kind=Kind.LOWER_BOUND,
    params=(Param(m, sp.Range(2, sp.oo, 2), "width (even)"),
            Param(d, sp.Range(2, sp.oo), "input dimension"),
            Param(C0, sp.Interval.open(1, sp.oo), "the constant C_0 of the lemma"),
            Param(delta, sp.Interval.open(0, sp.S.Half), "failure probability")),
    equations=(
        Equation("law", J_SIZE, Tex(r"\mathrm{Binomial}\big(m/2,\ p\big)"), "~"),
        Equation("count", Expectation(Indicator(sp.Ge(J_SIZE, COUNT_BOUND)), r"W^{(0)}"), 1 - delta / 4, ">="),
    ),
    assumptions=("J_{+-mu_1} = {j : a_j > 0, <w_j/||w_j||, +-mu_1> >= 1/(3 C_0 sqrt d)}, J_{+-mu_2} likewise "
                 "over the negative neurons (a_j < 0); m/2 neurons of each sign",
                 "(A5): m >= C log(1/delta), C large enough (the lemma's 'if C is sufficiently large')"),
    where=((p_sym, sp.Symbol(r"\mathbb{P}\{t \ge 1/(3C_0\sqrt d)\}")),),
    notes=("'law' is exact: the m/2 neurons of a sign are i.i.d., and each is in J_mu with probability "
           "p = correlation_tail(1/(3 C_0), d) (lemma.4.1.p). 'count' per set, so that the union over the four "
           "sets gives 1 - delta; 2 p - (1 - 1/C_0)^2 >= (1 - 1/(3 sqrt(2 pi)))/C_0 - 1/(2 C_0^2) > 0 is the "
           "margin the concentration needs, so m must grow like C_0^2 log(1/delta)."),
    provenance=reconstructed(
        "Lemma 4.2's surviving sentence 'there exist sets of neurons J_{+mu_1}, J_{-mu_1}, J_{+mu_2}, J_{-mu_2} "
        "... In particular, J := J_{+-mu_1} u J_{+-mu_2} satisfies |J| >= m(1 - 1/C_0)^2', Section 4.2's "
        "'|J_mu| >= (m/4)(1 - 1/C_0)^2', its proof's 'Apply Lemma 4.1 to the positive neurons ... with "
        "probability at least 1 - delta/16 ... Taking a union bound', and Lemma 4.4's threshold 1/(3 C_0 sqrt d)",
        words=RD.WORDS["lemma.4.2"], readings=RD.READINGS["lemma.4.2"]),
)

#: Lemma 4.1's norm part: Z = ||w||^2/omega^2 ~ chi^2_d for w ~ N(0, omega^2 I_d)
zeta = sp.Symbol("t", positive=True)
Z_SYM = sp.Symbol(r"\|w\|^2/\omega^2", positive=True)
LAW_W = r"w\sim\mathcal{N}(0,\,\omega^2 I_d)"
L_SYM = sp.Symbol(r"\log(m/\delta)", positive=True)
CHI2_BOUND = 2 * sp.exp(-d * zeta**2 / 8)
#: the proof's choice t = sqrt(8 log(4m/delta)/d), so that the bound is delta/(2m)
T_CHOICE = sp.sqrt(8 * sp.log(4 * m / delta) / d)

NORMS = Statement(
    id="lemma.4.1.norm",
    ref="Lemma 4.1, its norm part (proof in Appendix A.1.1)",
    title="the norms of the initial weights concentrate: ||w_j^(0)||^2 = omega^2 d (1 +- t) for every j",
    kind=Kind.UPPER_BOUND,
    params=(Param(d, sp.Range(1, sp.oo), "input dimension"),
            Param(zeta, sp.Interval.open(0, 1), "relative deviation"),
            Param(m, sp.Range(1, sp.oo), "width"),
            Param(delta, sp.Interval.open(0, sp.S.Half), "failure probability")),
    equations=(
        Equation("tail", Expectation(Indicator(sp.Ge(sp.Abs(Z_SYM / d - 1), zeta)), LAW_W), CHI2_BOUND, "<="),
        Equation("choice", CHI2_BOUND.subs(zeta, T_CHOICE), delta / (2 * m), "="),
        Equation("union", Expectation(Indicator(Tex(r"\exists j\in[m]:\ |\|w_j\|^2/(\omega^2 d)-1|\ge t")), r"W^{(0)}"),
                 delta / 2, "<="),
        Equation("A1", T_CHOICE, sp.S.Half, "<="),
    ),
    assumptions=("w, w_1, ..., w_m i.i.d. N(0, omega^2 I_d), any omega > 0 (so Z = ||w||^2/omega^2 ~ chi^2_d)",
                 "'tail' for 0 < t < 1; 'union' at t = sqrt(8 log(4m/delta)/d); 'A1' for d >= C log(m/delta) with C >= 96 "
                 "(ours: log(4m/delta) <= 3 log(m/delta) once m/delta >= 2)"),
    notes=("The chi-square tail is the one the proof cites from [Wai19] (Example 2.11: each one-sided tail is at most "
           "exp(-d t^2/8) for t in (0, 1)); 'choice' and 'union' are the proof's 'by taking t = sqrt(8 log(4m/delta)/d), ... "
           "with probability at least 1 - delta/2m' and 'a union bound over j in [m] ... with probability at least 1 - delta/2'. "
           "With t <= 1/2 every ||w_j^(0)||^2 lies in [omega^2 d/2, 3 omega^2 d/2]. The restriction t < 1 matters: for large t "
           "the upper tail of chi^2_d is only exponential in t (reading all-t fails)."),
    provenance=reconstructed(
        "Appendix A.1.1, proof of Lemma 4.1: 'there are i.i.d. z_i ~ N(0,1) such that [lost]. By concentration of the chi^2 "
        "distribution [Wai19, see,], for any t in (0,1), [lost]. In particular, by taking t = sqrt(8 log(4m/delta)/d), we have "
        "that for fixed j in [m], with probability at least 1 - delta/2m, [lost] where we have used Assumption (A1) ... implies "
        "t <= 1/2. Applying a union bound over j in [m] shows that the bound on the norms at initialization holds over all j "
        "with probability at least 1 - delta/2'; and Section 4.1's 'concentration results on the norm of the random weights'",
        words=RD.WORDS["lemma.4.1.norm"], readings=RD.READINGS["lemma.4.1.norm"]),
)

STATEMENTS = (CORRELATION_TAIL, NORMS, NEURON_COUNTS)
