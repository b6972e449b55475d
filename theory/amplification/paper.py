"""The amplification paper as a ``Paper`` record: identity, statements in paper order, the
derivation registry and its LaTeX layout.

The source text lost the displayed mathematics, so most statements are reconstructed
(``Statement.provenance`` names the passage each is rebuilt from; the check table, report and
LaTeX show it); the printed prose claims are checked as printed.
"""
from __future__ import annotations

from theory.core.pack import LatexMeta, Paper

from . import derivations, distribution, initialisation, training

SECTIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Section 2: the distribution", ("def.P", "prose.variance", "prose.snr", "prose.linear", "prose.bayes")),
    ("Section 4.1: random features at initialisation", ("lemma.4.1.p", "lemma.4.1.norm", "lemma.4.2")),
    ("Section 4.1: the sample", ("lemma.4.3", "lemma.4.4")),
    ("Sections 4.2-4.3: along gradient descent", ("cond.4.7", "cond.4.8", "lemma.A.1", "lemma.4.6", "lemma.4.9", "lemma.4.9.lip", "sec4.2.example",
                                                  "lemma.4.10", "lemma.4.11", "lemma.4.11.step")),
    ("Section 3: the conclusions", ("thm.3.1", "prop.3.2", "prose.simple", "prose.growth", "prose.subgradient", "fig.1", "fig.2", "prose.odd-m")),
)

NOTATION: tuple[tuple[str, str], ...] = (
    (r"$\mu_1\perp\mu_2$", r"the unit cluster means; clusters $\pm\mu_1$ (label $+1$) and $\pm\mu_2$ (label $-1$)"),
    (r"$\sigma^2$", r"the in-cluster variance per coordinate"),
    (r"$d$, $n$, $m$", r"input dimension, sample size, width (even; $a_j=\pm1/\sqrt m$ fixed)"),
    (r"$t=\langle w/\|w\|,\mu\rangle$", r"a neuron's normalised correlation with a cluster mean"),
    (r"$I_x(a,b)$", r"the regularised incomplete beta function"),
    (r"$C$, $C_0$", r"the constant of (A1)--(A7) and the constant of Lemma 4.2"),
)

WARNING = (r"\textbf{Reconstructed statements.} The source text of this paper lost its displayed "
           r"mathematics; statements marked \emph{reconstructed} are our reading of the surviving "
           r"prose and proofs, and a failure of one is a finding against that reading.")

PAPER = Paper(
    id="amplification",
    title="Random Feature Amplification: Feature Learning and Generalization in Neural Networks",
    authors=("S. Frei", "N. S. Chatterji", "P. L. Bartlett"),
    reference="arXiv 2202.07626 (JMLR 24(303), 2023)",
    statements=distribution.STATEMENTS + initialisation.STATEMENTS + training.STATEMENTS,
    derivations=(derivations.DERIVATIONS,),
    refutations=(derivations.REFUTATIONS,),
    latex=LatexMeta(sections=SECTIONS, notation=NOTATION, warnings=(WARNING,)),
)
