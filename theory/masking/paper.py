"""The masking paper as a ``Paper`` record: identity, statements in paper order, derivation
registries, and its LaTeX layout (sections, notation, the phi warning)."""
from __future__ import annotations

from theory.core.pack import LatexMeta, Paper

from . import derivations_gaussian, derivations_network, derivations_ntk, figures, radius, setting, smoothness
from .catalogue import CATALOGUE

#: The paper's order: (section title, statement ids).  Statements missing here would go to a
#: last section, "Other statements" (``verify/masking/test_latex.py`` forbids that).
SECTIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Section 3: the surrogate gradient", ("eq.2",)),
    ("Section 4: the Gaussian-moment lemmas",
     ("proof.4.2.law", "lemma.relu_moment1", "lemma.relu_moment2", "lemma.mask_moment1", "lemma.mask_moment2")),
    ("Section 4: the masked network",
     ("def.4.1", "net.expected_loss", "thm.4.2", "rem.4.4", "net.expected_grad")),
    ("Section 5: convergence",
     ("asm.5.1.10", "eq.11", "thm.5.2", "thm.5.2.radius", "cor.5.3", "cor.5.4", "lemma.5.5", "thm.5.6",
      "thm.5.6.small")),
    ("Appendix D: the smoothness lemmas", ("lemma.D.21", "lemma.D.21.proof", "lemma.D.22")),
    ("Section 6: the smoothed ReLU of Figs. 1(a) and 2(a)", ("fig.1a", "fig.2a")),
    ("Section 6: experiments (empirical claims, decided by tests over seeds)",
     ("emp.fig4.mlp_small_kappa", "emp.fig4.cnn_baseline", "emp.fig4.falls", "emp.fig5.auc", "emp.fig6_7",
      "emp.fig10")),
)

#: (symbol in LaTeX, meaning in LaTeX) for the master document's notation table.
NOTATION: tuple[tuple[str, str], ...] = (
    (r"$x_i\in\mathbb{R}^d$, $y_i$", r"inputs and labels, $i = 1, \dots, n$; $\|x_i\|_2 \le 1$ (Assumption 3.1)"),
    (r"$W = (w_1, \dots, w_m)^\top$, $a_r \in \{\pm 1\}$", r"first-layer weights (trained) and fixed second-layer signs"),
    (r"$f(W, x)$", r"$\frac{1}{\sqrt{m}}\sum_{r=1}^m a_r \max(0, w_r^\top x)$, the two-layer ReLU network"),
    (r"$c \sim \mathcal{N}(\mathbf{1}, \kappa^2 I_d)$", r"the Gaussian input mask of one sample; $\kappa \ge 0$ its standard deviation"),
    (r"$\mathbf{C} = (c_1, \dots, c_n)$", r"one independent mask per sample"),
    (r"$\mathcal{L}(W)$, $\mathcal{L}_{\mathbf{C}}(W)$",
     r"$\frac12\sum_i (f(W, x_i) - y_i)^2$ and the surrogate $\frac12\sum_i (f(W, x_i \odot c_i) - y_i)^2$"),
    (r"$\odot$, $\mathbb{1}\{\cdot\}$, $\mathbf{1}$", r"entrywise product, indicator, the all-ones vector"),
    (r"$u_{ir}$", r"$w_r \odot x_i$"),
    (r"$\mu_{ir}$, $s_{ir}$, $A_{ir}$",
     r"$w_r^\top x_i$, $\kappa\|u_{ir}\|_2$ and $\mu_{ir}/s_{ir}$: the mean, standard deviation and "
     r"standardised mean of the pre-activation $w_r^\top(x_i \odot c_i)$"),
    (r"$\rho_{irr'}$, $G_{irr'}$", r"correlation of two pre-activations of sample $i$, and $u_{ir}^\top u_{ir'}$"),
    (r"$\Phi$, $\varphi$", r"the standard normal CDF (the paper's $\Phi_1$) and density $\varphi(x) = e^{-x^2/2}/\sqrt{2\pi}$"),
    (r"$\Phi_2(h, k, \rho)$", r"$P(X \le h, Y \le k)$ for a standard bivariate normal pair with correlation $\rho$"),
    (r"$\phi$, $\psi$", r"the paper's $\phi(x) = e^{-x^2}$ and $\psi(x) = |x|\,\phi(x)$ (eq.~(3)); \textbf{not} the density"),
    (r"$\tilde\sigma$, $\hat\sigma$",
     r"$\mathbb{E}_c[\max(0, w^\top(x \odot c))] = \mu\Phi(\mu/s) + s\varphi(\mu/s)$ and the paper's proxy $\mu\Phi(\mu/s)$"),
    (r"$E_1$", r"$\mathbb{E}[z_1 z_2 \mathbb{1}\{z_1 \ge 0, z_2 \ge 0\}]$ for a bivariate normal pair (Appendix D.1.3--D.1.4)"),
    (r"$B_x$, $B_y$, $R_w$, $R_u$", r"$\max_i\|x_i\|_\infty$, $\max_i|y_i|$, $\max_r\|w_r\|_2$, $\max_{r,i}\|u_{ir}\|_2$"),
    (r"$\phi_{\max}$, $\psi_{\max}$", r"$\max_{r,i}$ of $\phi$, $\psi$ at $w_r^\top x_i/(2\kappa\|u_{ir}\|_2)$ (Definition 4.1; note the $2\kappa$)"),
    (r"$H^\infty$, $\lambda_0$", r"the infinite-width Gram matrix of eq.~(11) and its smallest eigenvalue"),
    (r"$C_1, \dots, C_7$", r"constants the paper hides in $O(\cdot)$, $\Omega(\cdot)$, made explicit symbols here"),
)

#: The warning the document opens with (LaTeX).
PHI_WARNING = (
    r"\textbf{Warning: the paper's $\phi$ is not the normal density.} "
    r"The paper defines $\phi(x) = e^{-x^2}$ and $\psi(x) = |x|\,\phi(x)$ (eq.~(3), Definition~4.1); "
    r"this $\phi$ is not the standard normal density $\varphi(x) = e^{-x^2/2}/\sqrt{2\pi}$, yet the paper "
    r"also writes $\phi$ where the density is meant: Fig.~2's caption gives the exact smoothed ReLU as "
    r"$z\Phi(z/\sigma) + \sigma\phi(z/\sigma)$ (erratum masking:E12, statement \texttt{fig.2a}), and Remark~4.4's $\hat\sigma = \tilde\sigma \pm "
    r"O(\kappa\|w\odot x\|\,\phi(\cdot))$ stands for the gap $s\varphi(\mu/s) = s\,\phi(t)^2/\sqrt{2\pi}$ "
    r"with Definition~4.1's argument $t = \mu/(2s)$, so its $O(\cdot)$ hides a square and the constant "
    r"$1/\sqrt{2\pi}$ (statement \texttt{rem.4.4}). "
    r"Throughout this document $\phi$ always means $e^{-x^2}$ and $\varphi$ always means the density."
)

PAPER = Paper(
    id="masking",
    title="Convergence Analysis of Two-Layer Neural Networks under Gaussian Input Masking",
    authors=("A. Kolomvaki", "F. Liao", "S. Dramko", "X. Guang", "A. Kyrillidis"),
    reference="arXiv 2602.17423 v1",
    statements=tuple(CATALOGUE.values()),
    derivations=(derivations_gaussian.DERIVATIONS, derivations_network.DERIVATIONS,
                 derivations_ntk.DERIVATIONS, smoothness.DERIVATIONS, setting.DERIVATIONS, radius.DERIVATIONS,
                 figures.DERIVATIONS),
    refutations=(smoothness.REFUTATIONS,),
    latex=LatexMeta(sections=SECTIONS, notation=NOTATION, warnings=(PHI_WARNING,)),
)
