"""The readings of the amplification pack's reconstructed statements (issue 22, item 5).

Seed 003 lost its displayed mathematics, so each reconstructed statement is one reading of the
words that survive.  For every such statement ``WORDS[id]`` quotes those words from the seed and
``READINGS[id]`` lists the readings they admit, each with what it asserts and a ``strength``
ordering them (larger asserts more).  The witnesses of each reading are the tests marked
``@pytest.mark.reading(id)`` (``verify/amplification/test_readings_*.py`` and the pack's
dynamics and sample tests); the outcomes are tabulated in ``notes/amplification/readings.md``.

Where a reading turns on a constant's quantifier, "C large" means: for all C >= C*, where C*
may depend on the constants named before it (C_0, C_1, C_2), as the proofs choose it.
"""
from __future__ import annotations

from theory.core.statement import Reading

WORDS: dict[str, str] = {
    "def.P": ("'We assume the training data S is generated as i.i.d. samples from P' [display lost]; 'cluster "
              "means {+-mu_1, +-mu_2}'; 'in-cluster variance'; Lemma 4.3(d) 'For any cluster mu ... we have' [lost]"),
    "prose.bayes": "'in the setting with no label noise eta = 0, the optimal test error achievable is o_n(1)'",
    "lemma.4.1.p": ("'let z ~ N(0,1) denote a standard normal random variable. Denote by p the probability [lost]. "
                    "By anti-concentration of the Gaussian, we have [lost]'"),
    "lemma.4.1.norm": ("'By concentration of the chi^2 distribution [Wai19, see,], for any t in (0,1), [lost]. In particular, "
                       "by taking t = sqrt(8 log(4m/delta)/d), we have that for fixed j in [m], with probability at least "
                       "1 - delta/2m, [lost] ... Applying a union bound over j in [m] shows that the bound on the norms at "
                       "initialization holds over all j with probability at least 1 - delta/2'"),
    "lemma.4.2": ("'For any absolute constant C_0 > 1, if C is sufficiently large, with probability at least 1 - delta "
                  "... there exist sets of neurons J_{+mu_1}, J_{-mu_1}, J_{+mu_2}, J_{-mu_2} [lost]. In particular, J "
                  "satisfies |J| >= m(1 - 1/C_0)^2'; Section 4.2 '|J_mu| >= (m/4)(1 - 1/C_0)^2'; Section 4 'a "
                  "normalized correlation with mu_1 of order Theta(1/sqrt(d))'"),
    "lemma.4.3": ("'There is a universal constant C_1 >= 2 such that ... for all C > 1 large enough'; (b) "
                  "'||x_i - mu||^2 <= C_1 sigma^2 d <= 1/C_1'; (c) '|N|/n <= eta + C_1 sqrt(log(1/delta)/n) <= eta + "
                  "1/C_1'; cited in Lemma 4.10's proof as '(A4) so that |N|/n <= 2 eta <= 1/2C_2' and in Lemma A.1's "
                  "as '||x_i - mu_s||^2 <= C_1 sigma^2 d + 1/C_1 <= 1/3'"),
    "lemma.4.4": ("'There exists a universal constant C_2 > 1 such that for any delta in (0,1/2), for all C > 1 large "
                  "enough, with probability at least 1 - 2 delta ... For any j in [m] satisfying <w_j^(0)/||w_j^(0)||, "
                  "mu> >= 1/(3 C_0 sqrt(d)) ... it holds that [lost]'; Section 4.3 'the fraction of samples within the "
                  "mu_s cluster sharing the same sign ... is at least 1/2 + Delta for some absolute constant Delta > 0'; "
                  "its proof 'sigma sqrt(d) <= 1/C <= 3/C_0'"),
    "cond.4.7": ("'for every mu in {+-mu_1, +-mu_2}, and for all j in J_mu, [lost]'; 'all samples within each "
                 "cluster have the same ReLU activation, which is on on one of the clusters and off on the opposing "
                 "cluster'"),
    "cond.4.8": ("'the projection of the J_{+-mu_1} (resp. J_{+-mu_2}) neurons onto the space spanned by mu_2 (resp. "
                 "mu_1) remains small'; Lemma 4.11's proof '|<w_j^(t+1), mu_2>| <= 3 alpha |a_j| as well' and its case "
                 "'<w_j^(t), mu_2> >= alpha |a_j|'"),
    "lemma.A.1": ("'For C > 1 large enough, on a good run we have the following bound on the norms of the weights for "
                  "times t >= 1: For all j in [m], ||w_j^(t)|| <= 2|a_j| alpha t;' [second item lost]"),
    "lemma.4.6": ("'In (i) we use the Cauchy-Schwarz inequality, and that phi is 1-Lipschitz with phi(0) = 0. The final "
                  "claim follows as ||W_{J^c}||_F <= ||W||_F <= 1'"),
    "lemma.4.9": ("'Then, on a good run, for all C > 1 large enough, at time T = 1 + 1/(4 alpha), we have ||W^(T)||_F "
                  "<= 1, and that [lost] where C_3 = 4096 exp(2)/(1 - 1/C_0)^2'"),
    "lemma.4.10": ("'For C > 1 sufficiently large, on a good run Condition 4.7 holds at time t = 1. Moreover, letting "
                   "C_2 > 1 denote the constant from Lemma 4.4, the per-neuron normalized correlations satisfy [lost]'; "
                   "Section 4.3 'amplify ... from <w_j^(0)/||w_j^(0)||, mu_s> >= c/sqrt(d) to <w_j^(1)/||w_j^(1)||, mu_2> >= c' after one sufficiently large step'"),
    "lemma.4.11": ("'For C > 1 sufficiently large, on a good run, for every time t = 1, ..., 1/(4 alpha), neuron "
                   "alignment (Condition 4.7) holds at time t and almost-orthogonality (Condition 4.8) holds up to time t'"),
    "lemma.4.11.step": ("'the value of <w_j^(t+1), mu_2> is strictly less than <w_j^(t), mu_2>. Since by Lemma 4.3 we have "
                        "||x_i|| <= sqrt 2, we have, [(45) lost] As we have shown <w_j^(t), mu_2> >= alpha|a_j|, this implies "
                        "<w_j^(t+1), mu_2> in [(1-2) alpha|a_j|, alpha|a_j|), and thus the inequality |<w_j^(t+1), mu_2>| <= "
                        "3 alpha|a_j| holds as desired'"),
    "prose.simple": ("'nearly every neuron in the neural network will become highly correlated to one of the four cluster "
                     "means {+-mu_1, +-mu_2} so that the neural network essentially acts as the low-complexity classifier "
                     "x -> sgn(|<mu_1,x>| - |<mu_2,x>|)'"),
    "prose.growth": "'(1) its norm increases throughout training, so that the network relies more upon this neuron'",
    "fig.1": ("'In Figure 1, we plot the decision boundary for a neural network trained by gradient descent when 15% of the "
              "training labels are flipped and we observe that indeed every noisy sample is incorrectly classified and every "
              "clean sample is correctly classified'"),
    "thm.3.1": ("'by running gradient descent with step-size alpha for T = 1 + 1/(4 alpha) iterations, with "
                "probability at least 1 - 4 delta ... we have,' [lost]; 'accurately classifies every clean sample, and "
                "incorrectly classifies every noisy sample, and achieves population risk close to the noise rate eta'; "
                "'a dimension-independent rate of O(sqrt(1/n))'; Section 2 'possibly by an adversary'"),
    "prop.3.2": ("'the feature maps of the neural network at time T = 1 + 1/(4 alpha) satisfy, for all i in [n],' "
                 "[lost]; 'the feature maps given by the hidden layer activations change significantly from their values "
                 "at random initialization'"),
}

R = Reading

READINGS: dict[str, tuple[Reading, ...]] = {
    "def.P": (
        R("four-equal", "the four clusters +-mu_1, +-mu_2 each have probability 1/4, noise N(0, sigma^2 I_d): "
                        "Lemma 4.3(d)'s |I_mu| = n/4 + O(sqrt(n log(1/delta))) then holds", 1),
        R("class-balanced", "only the classes are balanced (P(y = +1) = 1/2), the split of a class between +mu and -mu "
                            "free: Lemma 4.3(d)'s |I_mu| = n/4 + O(sqrt(n log(1/delta))) for every split", 2),
    ),
    "prose.bayes": (
        R("under-assumptions", "the noiseless Bayes error tends to 0 as n -> infinity along (A1)-(A2) (d >= C log^2(n/delta), "
                               "sigma^2 <= 1/(C^2 d))", 1),
        R("fixed-sigma", "the noiseless Bayes error tends to 0 as n -> infinity at a fixed sigma", 2),
    ),
    "lemma.4.1.p": (
        R("large-d", "p = P(<w/||w||, mu> >= c/sqrt d) >= 1/2 - c/sqrt(2 pi) for c >= 0 once d is large", 1),
        R("every-d", "p >= 1/2 - c/sqrt(2 pi) for every c >= 0 and every d >= 2", 2),
        R("gaussian-tail", "p >= P(z >= c) = 1 - Phi(c), z ~ N(0,1) (the Gaussian tail itself) for every c >= 0, d >= 2", 3),
    ),
    "lemma.4.1.norm": (
        R("two-sided", "P(|chi^2_d/d - 1| >= t) <= 2 exp(-d t^2/8) for 0 < t < 1, every d >= 1 (the cited [Wai19] bound)", 1),
        R("one-sided", "each tail, P(chi^2_d/d - 1 >= t) and P(chi^2_d/d - 1 <= -t), at most exp(-d t^2/8) for 0 < t < 1", 2),
        R("all-t", "the two-sided bound for every t > 0, not only t < 1", 3),
    ),
    "lemma.4.2": (
        R("union", "with probability >= 1 - delta, |J| >= m (1 - 1/C_0)^2 (the printed 'In particular')", 1),
        R("per-set", "with probability >= 1 - delta, every |J_mu| >= (m/4)(1 - 1/C_0)^2 (Section 4.2), sets at threshold "
                     "1/(3 C_0 sqrt d), m >= C log(1/delta) with C large given C_0", 2),
        R("fixed-threshold", "the same with the sets' threshold c/sqrt(d), c an absolute constant not shrinking with C_0 "
                             "(Section 4's 'Theta(1/sqrt(d))'; here c = 1/3)", 3),
    ),
    "lemma.4.3": (
        R("some-C1", "(a)-(d) with probability >= 1 - delta for one universal C_1 >= 2 (C_1 = 2)", 1),
        R("every-C1", "(a)-(d) and the chained bounds C_1 sigma^2 d <= 1/C_1, C_1 sqrt(log(1/delta)/n) <= 1/C_1 for every "
                      "C_1 >= 2, C large given C_1 (the form Lemma A.1's proof needs: 1/C_1 <= 1/3 asks C_1 >= 3)", 2),
        R("c-as-2eta", "(c) in the form Lemma 4.10's proof (ii) cites it: |N|/n <= 2 eta, with probability >= 1 - delta, "
                       "under (A3)-(A4)", 3),
    ),
    "lemma.4.4": (
        R("edge", "a clean sample of cluster mu activates such a neuron with probability >= 1/2 + Delta, Delta absolute "
                  "(Section 4.3), with C >= C_0/3 so that b/sigma >= 1/9", 1),
        R("gap-C2", "with probability >= 1 - 2 delta, N_mu(j) - N_-mu(j) >= n/C_2 for every j with b >= 1/(3 C_0 sqrt d), "
                    "one universal C_2, C large given C_0 (the proof's sigma sqrt d <= 3/C_0)", 2),
        R("gap-C2-any-C0", "the same with C large independently of C_0 (one C serving every C_0)", 3),
    ),
    "cond.4.7": (
        R("clean", "every j in J_mu is on over the clean samples of I_mu and off over the clean samples of I_-mu", 1),
        R("all", "every j in J_mu is on over all of I_mu and off over all of I_-mu, noisy samples included", 2),
        R("threshold-0", "the same for every neuron of the sign with <w_j^(0), mu> > 0 (J_mu at threshold 0)", 3),
    ),
    "cond.4.8": (
        R("J-3alpha", "max over J_{+-mu_1} of |<w_j, mu_2>|/|a_j| <= 3 alpha (and mu_1 for J_{+-mu_2})", 1),
        R("J-alpha", "the same with alpha in place of 3 alpha (the threshold of the induction's case split)", 2),
        R("all-3alpha", "the same bound 3 alpha |a_j| for every neuron of the sign, not only J", 3),
    ),
    "lemma.A.1": (
        R("frobenius", "||W^(t)||_F <= 2 alpha t for t = 1..T (what Lemmas 4.9 and 4.11 use)", 1),
        R("neuron", "max_j ||w_j^(t)||/|a_j| <= 2 alpha t for t = 1..T (the printed first item)", 2),
        R("all-t", "the neuron bound for every t >= 1, past T (the printed 'for times t >= 1'; here t <= 4T)", 3),
        R("any-init", "the neuron bound at t = 1..T without (A6), at any initialisation scale omega", 4),
    ),
    "lemma.4.6": (
        R("final", "|f(x;W) - f^J(x;W)| <= ||x|| sqrt(|J^c|/m) whenever ||W||_F <= 1 (the 'final claim')", 1),
        R("cauchy-schwarz", "|f - f^J| <= ||x|| sqrt(|J^c|/m) ||W_{J^c}||_F for all W, x, J", 2),
        R("linear-fraction", "|f - f^J| <= ||x|| (|J^c|/m) ||W_{J^c}||_F (linear in the fraction left out)", 3),
    ),
    "lemma.4.9": (
        R("sign", "at T, y_i f^J(x_i; W^(T)) > 0 on clean and < 0 on noisy samples, ||W^(T)||_F <= 1", 1),
        R("inv-C3", "at T, y_i f^J >= 1/C_3 on clean and <= -1/C_3 on noisy samples, C_3 = 4096 e^2/(1 - 1/C_0)^2", 2),
    ),
    "lemma.4.10": (
        R("align", "Condition 4.7 at t = 1", 1),
        R("order-one", "and min over J of <w_j^(1)/||w_j^(1)||, mu> >= c(C_2) > 0, independent of d (C large given C_0)", 2),
        R("order-one-any-C0", "the same with C independent of C_0: one C gives alignment and an O(1) correlation for "
                              "every C_0", 3),
    ),
    "lemma.4.11": (
        R("to-1/(4alpha)", "Conditions 4.7 and 4.8 at t = 1..1/(4 alpha) (= T - 1)", 1),
        R("through-T", "and also at t = T", 2),
        R("through-4T", "and at every t <= 4 T (no early stop needed for the conditions)", 3),
    ),
    "lemma.4.11.step": (
        R("conclusion", "from 1 <= v_t <= 3 one step gives v_t - 2 <= v_{t+1} < v_t, hence |v_{t+1}| <= 3 (the step's "
                        "conclusion, with (45) read as a move of at most 2 alpha|a_j|)", 1),
        R("printed-interval", "v_{t+1} < 1 as well: the printed interval [(1-2) alpha|a_j|, alpha|a_j|)", 2),
    ),
    "prose.simple": (
        R("nearly-every", "at T, >= 90 % of the neurons have normalised correlation >= 1/2 with +-mu_s of their class, and sgn f "
                          "disagrees with sgn(|<mu_1,x>| - |<mu_2,x>|) on <= 1 % of fresh clean draws", 1),
        R("every", "the same for every neuron (correlation >= 1/2 for all j)", 2),
        R("any-init", "the same without (A6), at the standard initialisation omega = 1/sqrt(d)", 3),
    ),
    "prose.growth": (
        R("to-T", "||w_j^(t+1)|| > ||w_j^(t)|| for every j in J and t = 0..T-1", 1),
        R("through-4T", "the same for t = 0..4T-1 (training past the early stop)", 2),
        R("any-init", "the same without (A6), at the standard initialisation omega = 1/sqrt(d)", 3),
    ),
    "fig.1": (
        R("inside", "at eta = 0.15 and the smallest setting inside (A1)-(A3), (A5)-(A7) for C = 16, the run fits every clean "
                    "and misfits every noisy sample with probability >= 1/2", 1),
        R("drawn", "the same at the pack's drawing settings of Fig. 1 (sigma sqrt d = 1.5, outside (A2))", 2),
    ),
    "thm.3.1": (
        R("fit", "with probability >= 1 - 4 delta, every clean training sample right and every noisy one wrong at T", 1),
        R("fit-risk", "and the population risk at most eta + sqrt(log(1/delta)/n) (the O(.) read with constant 1)", 2),
        R("fit-risk-adversary", "both with the flips chosen by an adversary (Section 2's 'possibly by an adversary'), eta "
                                "<= 1/C", 3),
    ),
    "prop.3.2": (
        R("rel-1", "min_i ||phi(W^(T) x_i) - phi(W^(0) x_i)|| / ||phi(W^(0) x_i)|| >= 1", 1),
        R("rel-C", "the relative change is at least C with omega at (A6)'s edge alpha/(C sqrt(m d))", 2),
        R("any-init", "the relative change >= 1 without (A6), at any initialisation scale", 3),
    ),
}
