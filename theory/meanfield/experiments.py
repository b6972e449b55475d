"""Section 4's empirical conclusions (Experiments 1-3) and the kernel (12) of Exp. 2's quadratic embedding.

The conclusions are ``Statement``s of kind ``EMPIRICAL``: claims read off Figs. 2-4, 6-8 and their
text, decided by the runs of ``numerics.meanfield.exp2`` / ``exp3`` (means over seeds) with the
decision rule each statement's notes give, fixed before the runs were read.  The settings the text
leaves open (input law and teacher of Exp. 2, n grids, the loss normalisation under delta = 1, the
meaning of "test error") are the modules' choices, listed there and in ``notes/meanfield/experiments.md``.
"""
from __future__ import annotations

import sympy as sp

from theory.core.statement import Equation, Kind, Param, Statement, Tex

n, m, d = sp.symbols("n m d", positive=True, integer=True)
N = Param(n, sp.Naturals, "training-set size")
M = Param(m, sp.Naturals, "width (D = m in Exp. 3)")
DIM = Param(d, sp.Naturals, "input dimension")

EXP2 = (("sigma = ReLU, d = 30, c_i = +-1, W^0 ~ N(0, 1), GD (9); models (2)-(3) with Phi(x) = x and "
         "Phi(x) = vec(x x^T); the target a quadratic-embedding net with m = 5"),
        "chosen here: x ~ N(0, I_d), teacher c*_i = +-1, W*_ij ~ N(0, 1), test error = test MSE on 500 points")
EXP3 = (("P-3L net (4)-(5), sigma = ReLU, d = 50, D = m, data (93)-(96), 500 test points; scalings of Table 1, "
         "the NTK model symmetrised at initialisation"),
        ("chosen here: the mean-squared loss (delta = 1 on (6) is past the edge of stability), test error = test MSE "
         "(the classification error is recorded too)"))


def _err(model: str) -> Tex:
    return Tex(r"\mathrm{err}_{\mathrm{" + model + "}}(n)")


EXP1 = Statement(
    id="exp.1.linear-and-slower", ref="Section 4.1, Fig. 1: 'the convergence happens at a nearly linear rate when "
                                     "n = 20 and 40, and the rate decreases as n becomes larger'; Appendix I.1",
    title="Exp. 1: the training loss of the shallow tanh net decays at a nearly linear rate at n = 20 and 40, "
          "and more slowly as n grows",
    kind=Kind.EMPIRICAL, params=(N, M),
    equations=(Equation("linear", Tex(r"\mathcal{L}^k\ (n=20,40)"), Tex(r"C\rho_n^k,\ \rho_n<1"), "<="),
               Equation("slower", Tex(r"\rho_{20}"), Tex(r"\rho_{40}<\rho_{80}"), "<")),
    assumptions=(("shallow net (1), sigma = tanh, d = 20, x_a ~ N(0, I_d), y_a ~ U[-1/2, 1/2], c_i = +-1, "
                  "W^0 ~ N(0, 1), GD (9) with delta = 1 on the sum loss (6)"),
                 "chosen here: n in {20, 40, 80}, m = 256 (paper 8192), 2,000 steps (paper 50,000), 2 seeds (paper 5)"),
    notes=("Decided by ``numerics.meanfield.exp1.verdict`` on the mean loss over seeds, cut where a seed reaches "
           "1e-24 (float64's floor for these labels): at n = 20 and 40 the shape rule of exp.3.linear-decay (over the "
           "second half of the window, the last quarter's local rate at least half the third quarter's, and log L "
           "closer to affine in k than in log k); 'slower' when the mean decay rate of log L over the window common "
           "to all n falls strictly along n = 20, 40, 80. n = 40 > d: G^(0) is singular, outside Corollary 1."),
    checked_in="slow tier: pytest verify/meanfield -m slow -k exp1 (m = 256, n in {20, 40, 80}, 2 seeds, 2,000 steps: about 5 minutes on the shared 2-core machine)",
)

EMB_HELPS = Statement(
    id="exp.2.embedding-helps", ref="Section 4.2, Fig. 2; Appendix I.2, Fig. 6",
    title="the shallow net on the quadratic embedding has a lower test error than the plain shallow net at "
          "every n",
    kind=Kind.EMPIRICAL, params=(N,),
    equations=(Equation("helps", _err("quad"), _err("plain"), "<="),),
    assumptions=EXP2,
    notes="Decided at every n of the grid by the mean over seeds of the final test MSE; the paired "
          "differences plain - quadratic per seed are recorded.",
    checked_in="slow tier: pytest verify/meanfield -m slow -k exp2_embedding_helps (Exp. 2 reduced: m = 64, n in {100, 400}, 2 seeds, about 2 minutes)",
)

LINEAR = Statement(
    id="exp.3.linear-decay", ref="Section 4.3, Fig. 4 (top left): 'consistently across different m, the training "
                                 "loss converges at a linear rate for the model under our scaling'",
    title="under our scaling the training loss decays at a linear rate, for every m",
    kind=Kind.EMPIRICAL, params=(N, M),
    equations=(Equation("linear", Tex(r"\mathcal{L}^k"), Tex(r"C\rho^k,\ \rho<1"), "<="),),
    assumptions=EXP3,
    notes="A finite run cannot prove a rate; decided by the shape of log L_k (mean over seeds) on the second "
          "half of the run: a linear rate makes log L_k affine in k, a slowing one (e.g. a power law) makes "
          "the local rate fall.  Supported at a width when the late local rate (last quarter) is at least half "
          "the rate of the third quarter and the affine fit in k has the smaller residual than the affine fit in "
          "log k; for every m of the grid.",
    checked_in="slow tier: pytest verify/meanfield -m slow -k exp3_linear_decay (Exp. 3 reduced: n in {200, 600}, m in {128, 256}, seed 0, about 5 minutes of one core)",
)

MOVE = Statement(
    id="exp.3.features-move", ref="Section 4.3, Fig. 4 (second row)",
    title="the feature maps h_i move under our and the MF scaling, and negligibly under the NTK scaling",
    kind=Kind.EMPIRICAL, params=(M,),
    equations=(Equation("ours", Tex(r"\|h^T-h^0\|/\|h^0\|\ (\mathrm{ours},\mathrm{MF})"), sp.Integer(1), ">="),
               Equation("ntk", Tex(r"\|h^T-h^0\|_{\mathrm{NTK}}"), Tex(r"\tfrac1{10}\|h^T-h^0\|_{\mathrm{ours}}"),
                        "<=")),
    assumptions=EXP3,
    notes="Relative movement ||h^T - h^0||_F / ||h^0||_F over the training and test points (n = 600, mean over "
          "seeds).  Supported when, at the largest m, ours and MF move by at least their initial size and NTK by "
          "less than a tenth of ours, and NTK's movement falls as m grows (the lazy limit); its exponent in m is "
          "recorded (theory: -1/2).",
    checked_in="slow tier: pytest verify/meanfield -m slow -k exp3_features_move (Exp. 3 reduced: n in {200, 600}, m in {128, 256}, seed 0, about 5 minutes of one core)",
)

ORDER = Statement(
    id="exp.3.test-error-order", ref="Section 4.3, Fig. 3: 'our model yields the smallest test errors out of all "
                                     "three'; Appendix I.3",
    title="our scaling has the lowest test error of the three, at every n",
    kind=Kind.EMPIRICAL, params=(N,),
    equations=(Equation("mf", _err("ours"), _err("MF"), "<="), Equation("ntk", _err("ours"), _err("NTK"), "<=")),
    assumptions=EXP3,
    notes="Decided at the largest m and every n of the grid by the mean over seeds of the final test MSE (the "
          "classification error is reported beside it).  The text makes no claim on MF against NTK at fixed n.",
    checked_in="slow tier: pytest verify/meanfield -m slow -k exp3_ours_lowest (Exp. 3 reduced: n in {200, 600}, m in {128, 256}, seed 0, about 5 minutes of one core)",
)

MF_N = Statement(
    id="exp.3.mf-improves-with-n", ref="Section 4.3: 'as n grows the test error decreases faster under the MF "
                                       "scaling than under the NTK scaling'; Appendix I.3: 'as n increases, test "
                                       "error improves for all three models'",
    title="test errors fall with n for all three scalings, faster under MF than under NTK",
    kind=Kind.EMPIRICAL, params=(N,),
    equations=(Equation("falls", Tex(r"\partial_n\mathrm{err}_s(n)\ (s=\mathrm{ours},\mathrm{MF},\mathrm{NTK})"),
                        sp.Integer(0), "<="),
               Equation("faster", Tex(r"\partial_n\mathrm{err}_{\mathrm{MF}}(n)"),
                        Tex(r"\partial_n\mathrm{err}_{\mathrm{NTK}}(n)"), "<=")),
    assumptions=EXP3,
    notes="At the largest m, mean final test MSE over seeds: 'falls' when it decreases along the n grid for each "
          "scaling; 'faster' when err(n_min) - err(n_max) is larger for MF than for NTK.",
    checked_in="slow tier: pytest verify/meanfield -m slow -k exp3_mf_improves (Exp. 3 reduced: n in {200, 600}, m in {128, 256}, seed 0, about 5 minutes of one core)",
)

#: eq. (12) for Phi(x) = vec(x x^T) in R^(d^2): G(x, x') = Phi(x)^T Phi(x')/D with D = d^2
x = sp.IndexedBase("x")
xp = sp.IndexedBase("x'")
j, k = sp.symbols("j k", integer=True)
EQ12_QUAD = Statement(
    id="eq.12.quadratic", ref="eq. (12) with Section 4.2's embedding Phi(x) = vec(x x^T)",
    title="the kernel of the quadratic embedding: G(x, x') = (x^T x')^2 / d^2",
    kind=Kind.IDENTITY, params=(DIM,),
    equations=(Equation("kernel",
                        sp.Sum(x[j] * x[k] * xp[j] * xp[k], (j, 1, d), (k, 1, d)) / d**2,
                        sp.Sum(x[j] * xp[j], (j, 1, d)) ** 2 / d**2),),
    assumptions=("D = d^2 (the dimension of vec(x x^T)), phi_(j,k)(x) = x_j x_k",),
    notes="So G_aa = |x_a|^4/d^2 (about 1 + 2/d for x ~ N(0, I_d)), and the embedded net's G has rank at most "
          "d(d + 1)/2.")

STATEMENTS = (EXP1, EQ12_QUAD, EMB_HELPS, LINEAR, MOVE, ORDER, MF_N)
