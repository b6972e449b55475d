"""Section 6's empirical claims about accuracy and privacy under the Gaussian input mask.

Each is a ``Statement`` of kind ``EMPIRICAL``: a claim read off a figure and its caption
(seed ``001``), decided by a statistical test over seeds (``numerics.masking.privacy.stats``)
rather than proved.  The mask: each training input x is multiplied entrywise by
c ~ N(1, kappa^2 I), fresh per sample and step, at training time only; acc(kappa) is the
clean test accuracy of a network so trained, AUC, P, R the membership-inference attack's
area under the ROC curve, precision and recall on the target model.  The settings are the
authors' public code's (``papers/masking/STATEMENTS.md``, Section 6); the paper's data are
CIFAR-10, the default runs here use scikit-learn's digits.
"""
from __future__ import annotations

import sympy as sp

from theory.core.statement import Equation, Kind, Param, Statement, Tex

kappa = sp.Symbol("kappa", nonnegative=True)
delta = sp.Symbol(r"\delta_{\mathrm{acc}}", positive=True)
KAPPA = Param(kappa, sp.Interval(0, sp.oo), "standard deviation of the Gaussian input mask c ~ N(1, kappa^2 I)")
DATA = "CIFAR-10 in the paper; scikit-learn's digits (8x8) by default here, CIFAR-10 with --data"
MASK = "the mask is applied at training time only; evaluation and the attacks see clean inputs"


def _acc(model: str, k: str) -> Tex:
    return Tex(r"\mathrm{acc}_{\mathrm{%s}}(%s)" % (model, k))


def _falls(metric: str, model: str) -> Tex:
    return Tex(r"\partial_\kappa \mathrm{%s}_{\mathrm{%s}}(\kappa)" % (metric, model))


FIG4_MLP = Statement(
    id="emp.fig4.mlp_small_kappa", ref="Fig. 4(a) and its caption",
    title="a small mask (kappa ~ 0.2) can improve the MLP's test accuracy",
    kind=Kind.EMPIRICAL, params=(KAPPA,),
    equations=(Equation("improves", _acc("MLP", "0.2"), _acc("MLP", "0"), ">="),),
    assumptions=(DATA, MASK, ("MLP: flatten, Linear(., 100), tanh, Linear(100, 10); Adam lr 1e-3, batch 128, "
                              "weight decay 1e-7")),
    notes="Decided by the paired difference acc(0.2) - acc(0) over seeds: supported when its 95% interval "
          "lies above 0 (the caption says 'can improve', i.e. strictly better).")

FIG4_CNN = Statement(
    id="emp.fig4.cnn_baseline", ref="Fig. 4(b) and its caption",
    title="the CNN keeps its baseline accuracy under a small mask",
    kind=Kind.EMPIRICAL, params=(KAPPA, Param(delta, sp.Interval.open(0, 1), "non-inferiority margin (0.01)")),
    equations=(Equation("baseline", _acc("CNN", "0.2"), _acc("CNN", "0") - delta, ">="),),
    assumptions=(DATA, MASK, "standard CNN of the authors' code (second convolution padded on 8x8 inputs)"),
    notes="Non-inferiority over seeds: the lower end of the 95% interval of acc(0.2) - acc(0) above "
          "-delta, delta = one percentage point; the largest kappa up to which this holds is reported.")

FIG4_FALLS = Statement(
    id="emp.fig4.falls", ref="Fig. 4 and its caption ('beyond this point, accuracy degrades monotonically')",
    title="beyond kappa ~ 0.2 test accuracy falls monotonically, for the MLP and the CNN",
    kind=Kind.EMPIRICAL, params=(KAPPA,),
    equations=(Equation("mlp", _falls("acc", "MLP"), sp.Integer(0), "<="),
               Equation("cnn", _falls("acc", "CNN"), sp.Integer(0), "<=")),
    assumptions=(DATA, MASK, "kappa >= 0.2, on the authors' grid 0.2, 0.5, 0.7, 1.0, 1.25"),
    notes="Decided over seeds by the per-seed slope's 95% interval (below 0) together with Page's trend "
          "test (decreasing, p < 0.05); a step between neighbouring kappas that is significantly up "
          "contradicts 'monotonically'.")

FIG5_AUC = Statement(
    id="emp.fig5.auc", ref="Fig. 5 and its caption",
    title="the membership-inference AUC on the target model falls as kappa grows (MLP and CNN)",
    kind=Kind.EMPIRICAL, params=(KAPPA,),
    equations=(Equation("mlp", _falls("AUC", "MLP"), sp.Integer(0), "<="),
               Equation("cnn", _falls("AUC", "CNN"), sp.Integer(0), "<=")),
    assumptions=(DATA, MASK, ("ML-Leaks adversary 1: a shadow model on disjoint data with the target's "
                              "architecture, training and mask; attack features the top-3 sorted softmax outputs; a "
                              "logistic-regression attacker trained on equal numbers of members and non-members"),
                 "four disjoint parts (target/shadow train/test), 50 epochs, batch 100, Adam lr 1e-3"),
    notes="'Consistently reduces attack success': the per-seed slope of AUC on kappa below 0 (95%), Page's "
          "test decreasing, no significant rise between neighbouring kappas. A loss-threshold attack "
          "(score -loss) is the second opinion. Published CNN AUCs on CIFAR-10 at 120 epochs: 0.782, 0.692, "
          "0.585, 0.543 at kappa = 0, 0.5, 1.2, 1.8 (reference points, comparable only on CIFAR-10).")

FIG6_7 = Statement(
    id="emp.fig6_7", ref="Figs. 6 and 7 and their captions",
    title="the attack's precision and recall fall as kappa grows, for the MLP (Fig. 6) and the CNN (Fig. 7) targets",
    kind=Kind.EMPIRICAL, params=(KAPPA,),
    equations=tuple(Equation(f"{metric}_{model.lower()}", _falls(metric, model), sp.Integer(0), "<=")
                    for model in ("MLP", "CNN") for metric in ("P", "R")),
    assumptions=FIG5_AUC.assumptions + ("precision and recall of the attacker's decisions at probability 1/2",),
    notes="Decided like emp.fig5.auc, without the monotonicity requirement ('provides resilience as kappa "
          "increases').")

gap = lambda arch, m: Tex(r"\left|%s^{\mathrm{mask}}_{\mathrm{%s}}-%s^{\mathrm{DP}}_{\mathrm{%s}}\right|"  # noqa: E731
                          % (m, arch, m, arch))
FIG10 = Statement(
    id="emp.fig10", ref="Figs. 9 and 10 and the caption of Fig. 10",
    title="at matched accuracy the mask's privacy-utility curve is closer to DP-SGD's for the improved CNN "
          "than for the standard CNN",
    kind=Kind.EMPIRICAL, params=(KAPPA,),
    equations=(Equation("precision", gap("imp", "P"), gap("std", "P"), "<="),
               Equation("recall", gap("imp", "R"), gap("std", "R"), "<=")),
    assumptions=(DATA, MASK, ("DP-SGD: Opacus, per-sample clipping norm 1.0, delta = 1e-5, epsilon from its "
                              "(PRV) accountant, no mask; BatchNorm of the improved CNN replaced by GroupNorm under "
                              "DP-SGD"),
                 "the mask's attack metric interpolated along its accuracy curve at each DP-SGD point's accuracy"),
    notes="Per seed, the gap mask - DP-SGD at matched accuracy, averaged over the DP-SGD points inside the "
          "mask curve's accuracy range; decided by the 95% interval over seeds of |gap_std| - |gap_imp| "
          "(above 0: supported).")

STATEMENTS = (FIG4_MLP, FIG4_CNN, FIG4_FALLS, FIG5_AUC, FIG6_7, FIG10)
