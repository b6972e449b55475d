"""Section 3's gradient formula (2) and the proof sketch of Theorem 4.2's law of the masked
pre-activation, as statements, with their SymPy witnesses.

- ``eq.2``: grad_{w_r} L_C(W) = a_r m^{-1/2} sum_i (f(W, x_i . c_i) - y_i) (x_i . c_i)
  1{w_r^T (x_i . c_i) >= 0}, where L_C is differentiable (no pre-activation at 0; at a kink the
  indicator picks one one-sided derivative, the convention the paper and the suite use).
  The display is lost in the seed (``papers/masking/STATEMENTS.md`` gives it); the seed cites it
  ("By the form of the surrogate gradient in (2)").
- ``proof.4.2.law``: "the trick of evaluating E_1 and E_2": w^T (x . c) = c^T (w . x) and, for
  c ~ N(1, kappa^2 I), c^T (w . x) ~ N(w^T x, kappa^2 ||w . x||^2); for two neurons the
  covariance is kappa^2 (w_r . x)^T (w_r' . x) (the sketch prints it without kappa^2: masking:E1).

Witnesses here (same contract as ``derivations_gaussian.py``: a ``Derivation`` per part, every step
reduced to 0 or True): for (2), SymPy differentiates the raw loss with explicit symbols
(m = n = d = 2) and compares with the printed formula (d/dz max(0, z) = Heaviside(z), which is
1{z >= 0} away from z = 0); for the law, c = 1 + kappa g with g's coordinates independent N(0, 1)
(their one-dimensional moments and characteristic function integrated by ``sympy.stats`` from the
density): the mean, variance, covariance, and the moment generating function
exp(t 1^T u + kappa^2 t^2 ||u||^2 / 2) of c^T u, which is the normal law's (an mgf finite near 0
determines the law: Curtiss 1942, cited).  The raw-randomness witnesses (autograd of the raw loss, raw masks)
are in ``verify/masking/test_s3_gradient.py`` and ``test_s4_law_montecarlo.py``.
"""
from __future__ import annotations

import sympy as sp

from theory.core.derivation import Derivation, Steps
from theory.core.statement import Equation, Expectation, Kind, Param, Statement, Tex
from .network import L_C, LAWC, aI, kappa, m, yI

GRAD = Tex(r"\nabla_{w_r}\mathcal{L}_{\mathbf{C}}(W)")
GRAD_RHS = Tex(r"\frac{a_r}{\sqrt{m}}\sum_{i=1}^n\big(f(W,x_i\odot c_i)-y_i\big)(x_i\odot c_i)\,"
               r"\mathbb{1}\{w_r^\top(x_i\odot c_i)\ge 0\}")

EQ_2 = Statement(
    id="eq.2",
    ref="eq. (2) (display lost in the seed; STATEMENTS.md, Section 3)",
    title="the surrogate gradient of the masked network, per neuron",
    kind=Kind.IDENTITY,
    params=(
        Param(sp.Symbol("W"), sp.S.Reals, "first-layer weights, m x d"),
        Param(aI, sp.FiniteSet(-1, 1), "second-layer signs a_r"),
        Param(sp.Symbol("X"), sp.S.Reals, "inputs x_i"),
        Param(yI, sp.S.Reals, "labels y_i"),
        Param(sp.Symbol(r"\mathbf{C}"), sp.S.Reals, "one mask c_i per sample"),
    ),
    equations=(Equation("gradient", GRAD, GRAD_RHS),),
    assumptions=("every pre-activation w_r^T (x_i . c_i) is non-zero (L_C is differentiable there); "
                 "at a kink (2) is the one-sided derivative its indicator 1{. >= 0} selects",),
    notes=("Holds for any inputs, labels and masks: Assumption 3.1 is not needed. The witnesses differentiate "
           "the raw L_C (SymPy; torch autograd), never the formula."),
)

u = sp.symbols("u1:4", real=True)
v = sp.symbols("v1:4", real=True)
t = sp.Symbol("t", real=True)
one_u = Tex(r"\mathbf{1}^\top u", real=True)
norm_u = Tex(r"\|u\|_2", nonnegative=True)
u_dot_v = Tex(r"u^\top v", real=True)
cu = Tex(r"c^\top u", real=True)
cv = Tex(r"c^\top v", real=True)
LAW1 = r"c\sim\mathcal{N}(\mathbf{1}, \kappa^2 I_d)"

LAW = Statement(
    id="proof.4.2.law",
    ref="Theorem 4.2, proof sketch: the law of the masked pre-activation",
    title="w^T(x . c) = c^T(w . x) ~ N(w^T x, kappa^2 ||w . x||^2); two neurons: covariance kappa^2 u^T v",
    kind=Kind.IDENTITY,
    params=(
        Param(sp.Symbol("u"), sp.S.Reals, "u = w_r . x (a d-vector)"),
        Param(sp.Symbol("v"), sp.S.Reals, "v = w_r' . x"),
        Param(kappa, sp.Interval(0, sp.oo), "mask standard deviation"),
    ),
    equations=(
        Equation("identity", Tex(r"w^\top(x\odot c)"), Tex(r"c^\top(w\odot x)")),
        Equation("mean", Expectation(cu, LAW1), one_u),
        Equation("variance", Expectation((cu - one_u) ** 2, LAW1), kappa**2 * norm_u**2),
        Equation("covariance", Expectation((cu - one_u) * (cv - Tex(r"\mathbf{1}^\top v", real=True)), LAW1),
                 kappa**2 * u_dot_v),
        Equation("law", Expectation(sp.exp(t * cu), LAW1),
                 sp.exp(t * one_u + kappa**2 * t**2 * norm_u**2 / 2)),
    ),
    assumptions=("c ~ N(1, kappa^2 I_d); with w . x = u, 1^T u = w^T x",),
    notes=("Part 'law' is the moment generating function of N(1^T u, kappa^2 ||u||^2), finite for every real t, "
           "so c^T u has that law (Curtiss 1942: an mgf finite near 0 determines the law). Part 'covariance' is the one the proof sketch prints without kappa^2 (masking:E1)."),
)

STATEMENTS = (EQ_2, LAW)


# ============================================================================ SymPy witnesses
def printed_gradient(W, a, X, Y, C, r: int, mm: int):
    """Eq. (2) as printed, with explicit SymPy entries: a_r/sqrt(m) sum_i e_i (x_i . c_i) H(z_ir),
    H = Heaviside (= 1{z >= 0} away from z = 0)."""
    nn, dd = len(X), len(X[0])
    z = [[sum(W[q][k] * X[i][k] * C[i][k] for k in range(dd)) for q in range(mm)] for i in range(nn)]
    f = [sum(a[q] * sp.Max(0, z[i][q]) for q in range(mm)) / sp.sqrt(mm) for i in range(nn)]
    return [a[r] / sp.sqrt(mm) * sum((f[i] - Y[i]) * X[i][k] * C[i][k] * sp.Heaviside(z[i][r]) for i in range(nn))
            for k in range(dd)]


def eq2_gradient(formula=None, mm=2, nn=2, dd=2) -> Derivation:
    """d/dw_rk of the raw L_C (explicit symbols) against eq. (2) (``formula``: a planted
    alternative with the signature of :func:`printed_gradient`)."""
    formula = printed_gradient if formula is None else formula
    W = [[sp.Symbol(f"w_{q + 1}{k + 1}", real=True) for k in range(dd)] for q in range(mm)]
    a = [sp.Symbol(f"a_{q + 1}", real=True) for q in range(mm)]
    X = [[sp.Symbol(f"x_{i + 1}{k + 1}", real=True) for k in range(dd)] for i in range(nn)]
    C = [[sp.Symbol(f"c_{i + 1}{k + 1}", real=True) for k in range(dd)] for i in range(nn)]
    Y = [sp.Symbol(f"y_{i + 1}", real=True) for i in range(nn)]
    z = [[sum(W[q][k] * X[i][k] * C[i][k] for k in range(dd)) for q in range(mm)] for i in range(nn)]
    loss = sum((sum(a[q] * sp.Max(0, z[i][q]) for q in range(mm)) / sp.sqrt(mm) - Y[i]) ** 2
               for i in range(nn)) / 2
    S = Steps()
    for r in range(mm):
        rhs = formula(W, a, X, Y, C, r, mm)
        for k in range(dd):
            S.equal(f"d L_C / d w_{r + 1}{k + 1} (raw loss, sympy.diff) = eq. (2)'s entry {k + 1} of neuron {r + 1}",
                    sp.diff(loss, W[r][k]), rhs[k])
    claim = (f"the derivative of the raw L_C = 1/2 sum_i (m^(-1/2) sum_r a_r max(0, w_r^T(x_i . c_i)) - y_i)^2 in every "
             f"entry of W is eq. (2) (m = {mm}, n = {nn}, d = {dd}, every symbol free; d/dz max(0, z) = Heaviside(z), "
             "which is 1{z >= 0} wherever z != 0)")
    return S.done(EQ_2.id, "gradient", claim)


def _subs_u(expr):
    """The catalogue's symbols 1^T u, ||u||, u^T v at explicit 3-vectors."""
    return expr.xreplace({one_u: sum(u), norm_u: sp.sqrt(sum(x**2 for x in u)),
                          u_dot_v: sum(a * b for a, b in zip(u, v)),
                          Tex(r"\mathbf{1}^\top v", real=True): sum(v)})


def law_identity(rhs=None) -> Derivation:
    w = sp.symbols("w1:4", real=True)
    x = sp.symbols("x1:4", real=True)
    c = sp.symbols("c1:4", real=True)
    S = Steps()
    S.equal("w^T (x . c) = c^T (w . x) (d = 3, explicit entries)",
            sum(wk * (xk * ck) for wk, xk, ck in zip(w, x, c)), sum(ck * (wk * xk) for wk, xk, ck in zip(w, x, c)))
    S.equal("1^T (w . x) = w^T x (d = 3)", sum(wk * xk for wk, xk in zip(w, x)), sum(w[k] * x[k] for k in range(3)))
    return S.done(LAW.id, "identity", "w^T (x . c) = c^T (w . x) and 1^T (w . x) = w^T x, entry by entry (d = 3)")


def _gaussian_expectation(poly, g):
    """E[poly(g)] for independent g_k ~ N(0, 1): expand into monomials and replace each
    prod_k g_k^{p_k} by prod_k E[g^{p_k}], the one-dimensional moments integrated by
    ``sympy.stats`` from the normal density (independence factorises the monomial)."""
    from sympy.stats import E, Normal
    G = Normal("g", 0, 1)
    moment = {}
    total = sp.S.Zero
    for term in sp.Add.make_args(sp.expand(poly)):
        coeff, factor = sp.S.One, sp.S.One
        for base, power in (x.as_base_exp() for x in sp.Mul.make_args(term)):
            if base in g:
                if power not in moment:
                    moment[power] = E(G ** power)
                factor *= moment[power]
            else:
                coeff *= base ** power
        total += coeff * factor
    return total


def _law_moment(part: str, rhs=None) -> Derivation:
    st = LAW
    rhs = st.equation(part).rhs if rhs is None else sp.sympify(rhs)
    S = Steps()
    if part == "law":
        from sympy.stats import E, Normal
        a = sp.Symbol("a", real=True)
        mgf1 = sp.simplify(E(sp.exp(a * Normal("g", 0, 1))))
        value = sp.Mul(*[sp.exp(t * uk) * mgf1.subs(a, t * kappa * uk) for uk in u])
        how = ("c_k = 1 + kappa g_k: the product over k of exp(t u_k) E[exp(t kappa u_k g_k)], the last "
               "integrated by sympy.stats from the N(0, 1) density (independent coordinates)")
    else:
        g = sp.symbols("g1:4", real=True)
        c = [1 + kappa * gk for gk in g]
        Cu, Cv = sum(ck * uk for ck, uk in zip(c, u)), sum(ck * vk for ck, vk in zip(c, v))
        poly = {"mean": Cu, "variance": (Cu - sum(u)) ** 2, "covariance": (Cu - sum(u)) * (Cv - sum(v))}[part]
        value = _gaussian_expectation(poly, g)
        how = ("c = 1 + kappa g, the polynomial expanded and each monomial's expectation the product of "
               "N(0, 1) moments integrated by sympy.stats (g_1, g_2, g_3 independent)")
    S.equal(f"the {part} of c^T u ({how}) is the catalogue's right side at explicit u, v (d = 3)",
            value, _subs_u(rhs))
    what = {"mean": "E[c^T u] = 1^T u", "variance": "Var(c^T u) = kappa^2 ||u||^2",
            "covariance": "Cov(c^T u, c^T v) = kappa^2 u^T v (the kappa^2 the sketch drops, masking:E1)",
            "law": "E[exp(t c^T u)] = exp(t 1^T u + kappa^2 t^2 ||u||^2/2) for every real t, the moment generating "
                   "function of N(1^T u, kappa^2 ||u||^2): c^T u is that normal (an mgf finite near 0 determines "
                   "the law, Curtiss 1942, cited)"}[part]
    return S.done(st.id, part, f"{what}: from the raw mask's density (d = 3)")


DERIVATIONS = {
    ("eq.2", "gradient"): eq2_gradient,
    ("proof.4.2.law", "identity"): law_identity,
    **{("proof.4.2.law", part): (lambda part: lambda rhs=None: _law_moment(part, rhs))(part)
       for part in ("mean", "variance", "covariance", "law")},
}
