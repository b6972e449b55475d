"""Section 2 of Frei, Chatterji, Bartlett (2022): the XOR cluster distribution and the prose
claims about it that survive in the source text.

The definition's display is lost; ``def.P`` is our reading, from the surviving prose: two
orthogonal unit means mu_1, mu_2; a sample is one of the four cluster means +-mu_1, +-mu_2
(probability 1/4 each: Lemma 4.3(d) counts about n/4 points per cluster) plus in-cluster noise
z of variance sigma^2 per coordinate (Gaussian here, the canonical log-concave case); the clean
label is +1 on the +-mu_1 clusters and -1 on +-mu_2.

The prose claims (Section 3 after Theorem 3.1, Section 2 after the assumptions, Section 5):

- ``prose.variance``: "the variance in the direction of mu_1 and mu_2 is equal to 1 + sigma^2
  while the variance in the direction of any vector orthogonal to mu_1 and mu_2 is sigma^2";
- ``prose.snr``: "the signal-to-noise ratio ... is of order Theta((1 + sigma^2)/(d sigma^2)) =
  Omega(1) by Assumption (A2)";
- ``prose.linear``: "a distribution for which linear classifiers perform no better than random
  guessing";
- ``prose.bayes``: "in the setting with no label noise eta = 0, the optimal test error
  achievable is o_n(1)".
"""
from __future__ import annotations

import sympy as sp

from theory.amplification import readings as RD
from theory.core.functions import Phi
from theory.core.statement import (
                                   AS_PRINTED,
                                   Equation,
                                   Expectation,
                                   Indicator,
                                   Kind,
                                   Param,
                                   Statement,
                                   Tex,
                                   reconstructed,
)

sigma = sp.Symbol("sigma", positive=True)
d = sp.Symbol("d", integer=True, positive=True)
n = sp.Symbol("n", integer=True, positive=True)
C = sp.Symbol("C", positive=True)
delta = sp.Symbol("delta", positive=True)
s1 = sp.Symbol(r"\langle\mu_1,x\rangle", real=True)
sv = sp.Symbol(r"\langle v,x\rangle", real=True)
sw = sp.Symbol(r"\langle w,x\rangle", real=True)
y = sp.Symbol("y", real=True)
b = sp.Symbol("b", real=True)
x_sym = Tex("x")

LAW = r"(x,y)\sim\mathsf{P}"
LAW_PLUS = r"(x,y)\sim\mathsf{P}\mid y=+1"

#: the error of the affine classifier sgn(1/2 - <mu_2, x>): it is wrong on the -mu_2 cluster
#: (Phi(3/(2 sigma))) and right elsewhere up to Gaussian tails (Phi(-1/(2 sigma)) on three clusters)
AFFINE_ERROR = (3 * Phi(-1 / (2 * sigma)) + Phi(3 / (2 * sigma))) / 4
#: the Bayes-optimal error of the noiseless distribution, 2 Phi(m) Phi(-m) with m = 1/(sqrt 2 sigma)
BAYES_ERROR = 2 * Phi(1 / (sp.sqrt(2) * sigma)) * Phi(-1 / (sp.sqrt(2) * sigma))

DISTRIBUTION = Statement(
    id="def.P",
    ref="Section 2, the distribution P",
    title="the XOR cluster distribution (clean labels)",
    kind=Kind.DEFINITION,
    params=(Param(sigma, sp.Interval.open(0, sp.oo), "in-cluster standard deviation per coordinate"),
            Param(d, sp.Range(2, sp.oo), "input dimension")),
    equations=(Equation("x", x_sym, Tex(r"\mu_s + \sigma g,\ s\sim\mathrm{Unif}\{\pm\mu_1,\pm\mu_2\},"
                                        r"\ g\sim\mathcal{N}(0, I_d)")),
               Equation("y", Tex(r"\tilde y"), Tex(r"+1\text{ if } s=\pm\mu_1,\ -1\text{ if } s=\pm\mu_2"))),
    assumptions=("mu_1, mu_2 orthonormal", "noise independent of the cluster; Gaussian is the canonical "
                 "isotropic log-concave case the paper allows"),
    notes="A fraction eta of the training labels is flipped (possibly adversarially); the clean law is above.",
    provenance=reconstructed(
        "Section 2, 'We assume the training data S is generated as i.i.d. samples from P' [display lost], "
        "with Section 1's 'cluster means {+-mu_1, +-mu_2}', Section 3's 'in-cluster variance', the "
        "clean/noisy sets C, N, Lemma 4.3(d)'s cluster sizes and the Bayes classifier "
        "sgn(|<mu_1,x>| - |<mu_2,x>|) of Section 3",
        words=RD.WORDS["def.P"], readings=RD.READINGS["def.P"]),
)

VARIANCE = Statement(
    id="prose.variance",
    ref="Section 3, after Theorem 3.1 (the comparison with [Wei+19, BL20])",
    title="variance of the data along the cluster means and orthogonal to them",
    kind=Kind.IDENTITY,
    params=(Param(sigma, sp.Interval.open(0, sp.oo), "in-cluster standard deviation"),),
    equations=(
        Equation("signal", Expectation(s1**2, LAW), 1 + sigma**2),
        Equation("orthogonal", Expectation(sv**2, LAW), sigma**2),
        Equation("signal, unconditional value", Expectation(s1**2, LAW), sp.S.Half + sigma**2),
        Equation("signal, within class", Expectation(s1**2, LAW_PLUS), 1 + sigma**2),
    ),
    assumptions=("v a unit vector orthogonal to mu_1 and mu_2", "x has mean 0, so these second moments "
                 "are the variances"),
    notes=("'signal' and 'orthogonal' are the printed sentence; under def.P the variance along mu_1 "
           "is 1/2 + sigma^2 (half the samples sit on the +-mu_2 clusters), and 1 + sigma^2 holds "
           "within the class y = +1 (erratum amplification:E1)."),
    provenance=AS_PRINTED,
)

SNR = Statement(
    id="prose.snr",
    ref="Section 3, after Theorem 3.1",
    title="signal-to-noise ratio under Assumption (A2)",
    kind=Kind.LOWER_BOUND,
    params=(Param(sigma, sp.Interval.open(0, sp.oo), "in-cluster standard deviation"),
            Param(d, sp.Range(2, sp.oo), "input dimension"),
            Param(C, sp.Interval.open(1, sp.oo), "the constant of the assumptions")),
    equations=(Equation("snr", (1 + sigma**2) / (d * sigma**2), C**2, ">="),),
    assumptions=("(A2): sigma^2 <= 1/(C^2 d)",),
    notes="Omega(1) with an explicit constant: the ratio is at least C^2 (1 + sigma^2) > C^2.",
    provenance=AS_PRINTED,
)

LINEAR = Statement(
    id="prose.linear",
    ref="Section 5 (Discussion), first sentence",
    title="linear classifiers perform no better than random guessing",
    kind=Kind.IDENTITY,
    params=(Param(sigma, sp.Interval.open(0, sp.oo), "in-cluster standard deviation"),),
    equations=(
        Equation("homogeneous", Expectation(Indicator(sp.Le(y * sw, 0)), LAW), sp.S.Half),
        Equation("affine", Expectation(Indicator(sp.Le(y * (sw + b), 0)), LAW), sp.S.Half, ">="),
        Equation("affine witness", Tex(r"\mathbb{P}\{\operatorname{sgn}(1/2-\langle\mu_2,x\rangle)\ne y\}"),
                 AFFINE_ERROR),
    ),
    assumptions=("any w != 0 ('homogeneous'); any w, b ('affine', the printed sentence read for halfspaces "
                 "with an intercept)",),
    notes=("Through the origin the error is exactly 1/2: x -> -x maps P to itself and keeps y, and flips "
           "sgn<w,x> (P(<w,x> = 0) = 0 for sigma > 0). With an intercept the sentence fails: "
           "sgn(1/2 - <mu_2,x>) errs only on the -mu_2 cluster, error 1/4 + O(Phi(-1/(2 sigma))) "
           "(erratum amplification:E2)."),
    provenance=AS_PRINTED,
)

BAYES = Statement(
    id="prose.bayes",
    ref="Section 2, after the assumptions (Appendix D lost)",
    title="the noiseless Bayes-optimal test error",
    kind=Kind.UPPER_BOUND,
    params=(Param(sigma, sp.Interval.open(0, sp.oo), "in-cluster standard deviation"),
            Param(d, sp.Range(2, sp.oo), "input dimension"),
            Param(n, sp.Range(1, sp.oo), "sample size"),
            Param(C, sp.Interval.open(1, sp.oo), "the constant of the assumptions"),
            Param(delta, sp.Interval.open(0, sp.S.Half), "failure probability")),
    equations=(
        Equation("exact", Tex(r"\inf_h \mathbb{P}\{h(x)\ne\tilde y\}"), BAYES_ERROR),
        Equation("A2", BAYES_ERROR, sp.exp(-C**2 * d / 4), "<="),
        Equation("A1", BAYES_ERROR, sp.exp(-C**3 * sp.log(n / delta) ** 2 / 4), "<="),
    ),
    assumptions=("(A1): d >= C log^2(n/delta)", "(A2): sigma^2 <= 1/(C^2 d)"),
    notes=("The Bayes classifier is sgn(|<mu_1,x>| - |<mu_2,x>|) (the class likelihoods are proportional "
           "to cosh(<mu_i,x>/sigma^2)); it errs on the +mu_1 cluster iff |1 + sigma g_1| < sigma |g_2|, "
           "and u = g_2 - g_1 - 1/sigma, v = g_2 + g_1 + 1/sigma are independent N(-+1/sigma, 2), so the "
           "error is P(uv > 0) = 2 Phi(m) Phi(-m), m = 1/(sqrt 2 sigma). Under (A1)-(A2) it is at most "
           "exp(-C^3 log^2(n/delta)/4) = o_n(1)."),
    provenance=reconstructed("Section 2: 'in the setting with no label noise eta = 0, the optimal test error "
                             "achievable is o_n(1) (see Appendix D for more details)' [Appendix D lost]; the "
                             "exact value and bounds are ours",
        words=RD.WORDS["prose.bayes"], readings=RD.READINGS["prose.bayes"]),
)

STATEMENTS = (DISTRIBUTION, VARIANCE, SNR, LINEAR, BAYES)
