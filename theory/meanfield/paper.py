"""The meanfield paper as a ``Paper`` record: identity, statements in paper order, derivation and
refutation registries, LaTeX layout."""
from __future__ import annotations

from theory.core.pack import LatexMeta, Paper

from . import derivations, experiments, scalings, steps_proofs
from .steps import ASM2_EXAMPLES, ASM4_SUFFICIENT, EQ8, EQ13, EQ16_EXAMPLES, EQ20, LEMMA1_STEPS, LEMMA4_STEPS, THM1_STEPS, THM2_STEPS
from .dynamics import EQ11, EQ14, EQ16, LEMMA1, LEMMA1_PROOF, LEMMA3, LEMMA3_PROOF
from .kernels import EQ23, EQ23_PRIME
from .theorems import ASM4, COND1, COR1, EQ15, LEMMA2, LEMMA2_PROOF, LEMMA4, THM1, THM1_PROOF, THM2, THM3

STATEMENTS = (EQ8, EQ11, EQ13, EQ14, EQ15, EQ16, EQ16_EXAMPLES, ASM2_EXAMPLES, THM1, THM1_PROOF, THM1_STEPS, LEMMA1, LEMMA1_PROOF,
              LEMMA1_STEPS, EQ20, COR1, COND1, THM2, THM2_STEPS, EQ23, EQ23_PRIME, ASM4, ASM4_SUFFICIENT, THM3, LEMMA2, LEMMA2_PROOF, LEMMA3, LEMMA3_PROOF, LEMMA4, LEMMA4_STEPS) + experiments.STATEMENTS + scalings.STATEMENTS

SECTIONS = (
    ("Section 2.2: training with gradient flow", ("eq.8", "eq.11", "eq.13", "eq.14", "eq.15")),
    ("Section 3.1: models with a fixed embedding", ("eq.16", "eq.16.examples", "asm.2.examples", "thm.1", "thm.1.proof", "thm.1.steps",
                                                   "lemma.1", "lemma.1.proof", "lemma.1.steps", "eq.20", "cor.1")),
    ("Section 3.2: models with a random embedding", ("cond.1", "thm.2", "thm.2.steps", "eq.23", "eq.23.prime", "asm.4", "asm.4.sufficient", "thm.3")),
    ("Table 1 and Appendices B-C: the scalings", ("table.1", "app.B", "app.C")),
    ("Appendix E: the initialisation lemmas", ("lemma.2", "lemma.2.proof", "lemma.3", "lemma.3.proof")),
    ("Appendix G: concentration of the random Gram matrix", ("lemma.4", "lemma.4.steps")),
    ("Section 4: experiments 1-3 (empirical claims, decided by runs over seeds)",
     tuple(st.id for st in experiments.STATEMENTS)),
)

NOTATION = (
    (r"$f(x)=\frac1m\sum_i c_i\sigma(h_i(x))$", r"the model (2); $h_i(x)=\frac{1}{\sqrt D}\sum_j W_{ij}\phi_j(x)$ (3)"),
    (r"$c_i=\pm\hat c$", r"fixed second-layer weights (Assumption 1)"),
    (r"$\mathcal{L}=\frac12\sum_a(f(x_a)-y_a)^2$", r"the training loss (6), a sum; $r_a=f(x_a)-y_a$"),
    (r"$G$, $\lambda_1$, $\lambda_2$", r"the Gram matrix (12) and its extreme eigenvalues $\lambda_{\min}(G)$, $\lambda_{\max}(G)$"),
    (r"$I=(I_l,I_r)$, $K_{\sigma'}$", r"the active interval of Assumption 2 and $\inf_I|\sigma'|$"),
    (r"$\eta^t$, $\tilde\eta^0$", r"the smallest fraction of neurons with $h_i^t(x_a)\in I$, and at $t=0$ in the middle third of $I$ (18)"),
    (r"$\|y\|$, $L_\sigma$", r"the label norm and the Lipschitz constant of $\sigma$ (Assumption 2)"),
    (r"$a$, $b$, $\theta$", r"$\|x_a\|/\sqrt d$, $\|x_b\|/\sqrt d$ and the angle between $x_a$ and $x_b$ (eq. (23))"),
)

PAPER = Paper(
    id="meanfield",
    title="On Feature Learning in Neural Networks with Global Convergence Guarantees",
    authors=("Z. Chen", "E. Vanden-Eijnden", "J. Bruna"),
    reference="ICLR 2022 (seed text 004)",
    statements=STATEMENTS,
    derivations=(derivations.DERIVATIONS, scalings.DERIVATIONS, steps_proofs.DERIVATIONS),
    refutations=(derivations.REFUTATIONS, steps_proofs.REFUTATIONS),
    latex=LatexMeta(sections=SECTIONS, notation=NOTATION),
)
