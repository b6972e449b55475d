"""SymPy witnesses of the amplification pack: one ``Derivation`` per checked part.

- ``DERIVATIONS`` (parts that hold): the correlation tail equals the incomplete-beta form for
  every d (equal derivatives in c, equal values at c = sqrt d), the normaliser of the density is
  B(1/2, (d-1)/2) for d = 2..7, and the density of t sqrt(d) at 0 is below 1/sqrt(2 pi) for
  d = 2..60 (exact Gamma values); the second moments of the mixture along mu_1, orthogonal to
  it and within a class; the signal-to-noise bound under (A2); the homogeneous linear
  classifier's error 1/2; the affine witness's error; the Bayes error from the independence of
  u = g_2 - g_1 - m and v = g_2 + g_1 + m; the (A2) and (A1) bounds given the Chernoff bound
  Phi(-x) <= exp(-x^2/2)/2.
- ``REFUTATIONS`` (printed parts that fail; ``proved`` means the counterexample is verified):
  the printed variance along mu_1 (it is 1/2 + sigma^2, not 1 + sigma^2), and the printed
  sentence read for affine classifiers (sgn(1/2 - <mu_2,x>) has error < 1/2 for every sigma).
"""
from __future__ import annotations

import functools

import sympy as sp

from theory.core.derivation import Steps, normal_pdf
from theory.core.functions import Phi, to_elementary, varphi

from . import distribution as D
from . import initialisation as I

u = sp.Symbol("u", real=True)
g = sp.Symbol("g", real=True)
a_pos = sp.Symbol("a", positive=True)
v_nn = sp.Symbol("v", nonnegative=True)
#: the cluster means' coordinates (<mu_1, s>, <mu_2, s>) and labels of the four clusters
CLUSTERS = ((1, 0, 1), (-1, 0, 1), (0, 1, -1), (0, -1, -1))


@functools.cache
def tail_identity():
    """Both sides as functions of c on (0, sqrt d), for symbolic d: equal derivatives (Leibniz's
    rule on the unevaluated integrals) and equal values (0) at c = sqrt d.  I_x(a, b) is written
    by its definition, B(a, b)^{-1} int_0^x u^(a-1) (1-u)^(b-1) du, and the density's normaliser
    by B(1/2, (d-1)/2) (part ``density``)."""
    S = Steps()
    cc = sp.Symbol("c", positive=True)
    a = (I.d - 1) / sp.S(2)
    B = sp.beta(sp.S.Half, a)
    raw = sp.Integral(I.DENSITY_KERNEL, (I.t, cc / sp.sqrt(I.d), 1)) / B
    form = sp.Integral(u**(a - 1) * (1 - u) ** (-sp.S.Half), (u, 0, 1 - cc**2 / I.d)) / (2 * B)
    S.zero("d/dc of int_{c/sqrt d}^1 (1-t^2)^((d-3)/2) dt / B equals d/dc of I_{1-c^2/d}((d-1)/2, 1/2)/2",
           sp.diff(raw, cc) - sp.diff(form, cc))
    S.zero("both vanish at c = sqrt d", sp.Tuple(raw.subs(cc, sp.sqrt(I.d)).doit(), form.subs(cc, sp.sqrt(I.d)).doit()))
    return S.done("lemma.4.1.p", "tail", "P(t >= c/sqrt d) = I_{1-c^2/d}((d-1)/2, 1/2)/2 for 0 < c <= sqrt d and "
                  "every d (given the normaliser); c < 0 by the symmetry t -> -t of the density")


@functools.cache
def density_normaliser():
    S = Steps()
    for dd in range(2, 8):
        kern = I.DENSITY_KERNEL.subs(I.d, dd)
        S.zero(f"d = {dd}: int_-1^1 (1-t^2)^((d-3)/2) dt = B(1/2, (d-1)/2)",
               sp.simplify(sp.integrate(kern, (I.t, -1, 1))
                           - sp.gamma(sp.S.Half) * sp.gamma(sp.Rational(dd - 1, 2)) / sp.gamma(sp.Rational(dd, 2))))
    return S.done("lemma.4.1.p", "density", "the density of t integrates to one with the normaliser B(1/2, (d-1)/2) (d = 2..7; the "
                  "reference witness integrates it for d up to 10^6)")


@functools.cache
def anti_concentration():
    S = Steps()
    for dd in range(2, 61):
        peak = sp.gamma(sp.Rational(dd, 2)) / (sp.sqrt(sp.pi * dd) * sp.gamma(sp.Rational(dd - 1, 2)))
        # compare squares: peak^2 < 1/(2 pi), exactly (Gamma at half-integers is rational x sqrt(pi))
        S.compare(f"d = {dd}: density of t sqrt(d) at 0 < 1/sqrt(2 pi)", peak**2 * 2 * sp.pi, "<", 1)
    return S.done("lemma.4.1.p", "anti-concentration",
                  "P(t >= c/sqrt d) >= 1/2 - c/sqrt(2 pi): the density of t sqrt(d), largest at 0, is "
                  "below 1/sqrt(2 pi) (d = 2..60 exactly; all d by Gautschi's inequality)")


def mixture_second_moment(coordinate: int, clusters) -> sp.Expr:
    """E[<e, x>^2] over equally likely ``clusters``, x = s + sigma g: mean^2 + sigma^2 each."""
    return sum((sp.Integer(cl[coordinate]) ** 2 + D.sigma**2) for cl in clusters) / len(clusters)


def _variance_orthogonal() -> sp.Expr:
    return sum(D.sigma**2 for _ in CLUSTERS) / len(CLUSTERS)


@functools.cache
def variance_exact():
    S = Steps()
    S.zero("E<mu_1,x>^2 = (1/4) sum over the clusters of (<mu_1,s>^2 + sigma^2) = 1/2 + sigma^2",
           mixture_second_moment(0, CLUSTERS) - D.VARIANCE.equation("signal, unconditional value").rhs)
    S.zero("E<v,x>^2 = sigma^2 for a unit v orthogonal to mu_1, mu_2 (<v, s> = 0 on every cluster)",
           _variance_orthogonal() - D.VARIANCE.equation("orthogonal").rhs)
    S.zero("E[<mu_1,x>^2 | y = +1] = (1/2)(1 + 1) + sigma^2 (the +-mu_1 clusters)",
           mixture_second_moment(0, CLUSTERS[:2]) - D.VARIANCE.equation("signal, within class").rhs)
    S.zero("E[x] = 0: the cluster means cancel", sum(sp.Integer(cl[0]) + sp.Integer(cl[1]) for cl in CLUSTERS))
    return S.done("prose.variance", "exact", "the variances along mu_1, orthogonal to mu_1, mu_2, and within a class")


@functools.cache
def variance_printed_refuted():
    S = Steps()
    gap = D.VARIANCE.equation("signal").rhs - mixture_second_moment(0, CLUSTERS)
    S.zero("printed 1 + sigma^2 minus the exact E<mu_1,x>^2 is 1/2, for every sigma", gap - sp.S.Half)
    return S.done("prose.variance", "signal", "refuted: the variance along mu_1 is 1/2 + sigma^2, not 1 + sigma^2")


@functools.cache
def snr_bound():
    S = Steps()
    # (A2) sigma^2 <= 1/(C^2 d) is sigma^2 = 1/(C^2 d (1 + v)) for some v >= 0
    sig2 = 1 / (D.C**2 * D.d * (1 + v_nn))
    ratio = ((1 + D.sigma**2) / (D.d * D.sigma**2)).subs(D.sigma**2, sig2)
    S.zero("(1 + sigma^2)/(d sigma^2) - C^2 = C^2 v + 1/d at sigma^2 = 1/(C^2 d (1 + v))",
           sp.simplify(ratio - D.C**2 - (D.C**2 * v_nn + 1 / D.d)))
    S.compare("C^2 v + 1/d > 0", D.C**2 * v_nn + 1 / D.d, ">", 0)
    return S.done("prose.snr", "snr", "(A2) gives (1 + sigma^2)/(d sigma^2) >= C^2 (indeed > C^2)")


_h = sp.Symbol("h", real=True)


@functools.cache
def _gaussian_tails():
    """(P(g >= h), P(g <= h)) for g ~ N(0, 1) and a symbolic h, integrated by SymPy from the density."""
    return (sp.integrate(normal_pdf(g, 0, 1), (g, _h, sp.oo)), sp.integrate(normal_pdf(g, 0, 1), (g, -sp.oo, _h)))


def _prob_gaussian_above(threshold):
    return _gaussian_tails()[0].subs(_h, threshold)


def _prob_gaussian_below(threshold):
    return _gaussian_tails()[1].subs(_h, threshold)


@functools.cache
def homogeneous_error():
    S = Steps()
    a1, a2 = sp.symbols("a_1 a_2", real=True)   # <w, mu_1>, <w, mu_2>
    r = sp.Symbol("r", positive=True)           # sigma ||w||: <w, x> = <w, s> + r g
    err = 0
    for c1, c2, lab in CLUSTERS:
        mean = c1 * a1 + c2 * a2
        # wrong iff lab (mean + r g) <= 0: g <= -mean/r for lab = +1, g >= -mean/r for lab = -1
        err += (_prob_gaussian_below(-mean / r) if lab == 1
                else _prob_gaussian_above(-mean / r))
    S.zero("(1/4) sum over the clusters of P(y <w, x> <= 0) = 1/2 for every w", sp.simplify(err / 4 - sp.S.Half))
    return S.done("prose.linear", "homogeneous", "every linear classifier sgn<w,x> errs with probability 1/2")


@functools.cache
def affine_witness_error():
    S = Steps()
    err = 0
    for c1, c2, lab in CLUSTERS:
        # predict sgn(1/2 - c2 - sigma g); wrong for lab = +1 iff 1/2 - c2 - sigma g <= 0
        thr = (sp.S.Half - c2) / D.sigma
        err += _prob_gaussian_above(thr) if lab == 1 else _prob_gaussian_below(thr)
    S.zero("error of sgn(1/2 - <mu_2,x>) = (3 Phi(-1/(2 sigma)) + Phi(3/(2 sigma)))/4",
           sp.simplify(err / 4 - to_elementary(D.AFFINE_ERROR)))
    return S.done("prose.linear", "affine witness", "the affine classifier's error in closed form")


@functools.cache
def affine_refuted():
    S = Steps()
    f = 3 * Phi(-a_pos) + Phi(3 * a_pos) - 2        # 4 (error - 1/2) at a = 1/(2 sigma)
    S.zero("4 (error - 1/2) = 3 Phi(-a) + Phi(3a) - 2 at a = 1/(2 sigma)",
           to_elementary(4 * (D.AFFINE_ERROR - sp.S.Half)).subs(D.sigma, 1 / (2 * a_pos)) - to_elementary(f))
    S.zero("it vanishes at a = 0", to_elementary(f).subs(a_pos, 0))
    S.zero("its derivative is 3 (varphi(3a) - varphi(a))",
           sp.simplify(to_elementary(sp.diff(f, a_pos) - 3 * (varphi(3 * a_pos) - varphi(a_pos)))))
    S.zero("varphi(3a)/varphi(a) = exp(-4 a^2)",
           sp.simplify(to_elementary(varphi(3 * a_pos) / varphi(a_pos)) - sp.exp(-4 * a_pos**2)))
    S.compare("-4 a^2 < 0 for a > 0, so varphi(3a) < varphi(a) and the derivative is negative",
              -4 * a_pos**2, "<", 0)
    return S.done("prose.linear", "affine",
                  "refuted: sgn(1/2 - <mu_2,x>) has error < 1/2 for every sigma > 0 (1/4 + O(Phi(-1/(2 sigma))))")


@functools.cache
def bayes_exact():
    S = Steps()
    g1, g2, mm = sp.Symbol("g_1", real=True), sp.Symbol("g_2", real=True), sp.Symbol("m", positive=True)
    uu, vv = g2 - g1 - mm, g2 + g1 + mm
    S.zero("|m + g_1| < |g_2| iff u v > 0: u v = g_2^2 - (g_1 + m)^2", sp.expand(uu * vv - (g2**2 - (g1 + mm) ** 2)))
    cov = sp.diff(uu, g1) * sp.diff(vv, g1) + sp.diff(uu, g2) * sp.diff(vv, g2)
    S.zero("Cov(u, v) = 0 (jointly Gaussian, hence independent)", cov)
    S.zero("Var u = Var v = 2", sp.diff(uu, g1) ** 2 + sp.diff(uu, g2) ** 2 - 2)
    pu = _prob_gaussian_above(mm / sp.sqrt(2))           # P(u > 0) = P(N(-m, 2) > 0)
    pv = _prob_gaussian_above(-mm / sp.sqrt(2))          # P(v > 0)
    err = pu * pv + (1 - pu) * (1 - pv)
    S.zero("P(uv > 0) = 2 Phi(m/sqrt 2) Phi(-m/sqrt 2) at m = 1/sigma",
           sp.simplify(err.subs(mm, 1 / D.sigma) - to_elementary(D.BAYES_ERROR)))
    x1, x2, rest = sp.symbols("x_1 x_2 R", real=True)
    like = lambda s1, s2: sp.exp(-((x1 - s1) ** 2 + (x2 - s2) ** 2 + rest) / (2 * D.sigma**2))
    ratio = (like(1, 0) + like(-1, 0)) / (like(0, 1) + like(0, -1))
    S.zero("likelihood ratio of the classes = cosh(<mu_1,x>/sigma^2)/cosh(<mu_2,x>/sigma^2): the Bayes rule is "
           "sgn(|<mu_1,x>| - |<mu_2,x>|)",
           sp.simplify((ratio - sp.cosh(x1 / D.sigma**2) / sp.cosh(x2 / D.sigma**2)).rewrite(sp.exp)))
    return S.done("prose.bayes", "exact", "the noiseless Bayes error is 2 Phi(1/(sqrt 2 sigma)) Phi(-1/(sqrt 2 sigma))")


@functools.cache
def bayes_bounds():
    S = Steps()
    mm = 1 / (sp.sqrt(2) * D.sigma)
    sig2 = 1 / (D.C**2 * D.d * (1 + v_nn))               # (A2)
    S.compare("(A2): m^2/2 = 1/(4 sigma^2) >= C^2 d/4",
              sp.simplify((mm**2 / 2).subs(D.sigma, sp.sqrt(sig2)) - D.C**2 * D.d / 4), ">=", 0)
    L = sp.Symbol("L", real=True)                        # log(n/delta)
    dd = D.C * L**2 * (1 + v_nn)                         # (A1): d >= C log^2(n/delta)
    S.compare("(A1): C^2 d/4 - C^3 log^2(n/delta)/4 = C^3 L^2 v/4 >= 0, L = log(n/delta)",
              sp.factor(D.C**2 * dd / 4 - D.C**3 * L**2 / 4), ">=", 0)
    return S.done("prose.bayes", "A1", "given 2 Phi(m) Phi(-m) <= exp(-m^2/2) (Chernoff; certified on a grid by "
                  "verify/amplification), (A1)-(A2) give the Bayes error <= exp(-C^3 log^2(n/delta)/4) = o_n(1)")


DERIVATIONS = {
    ("lemma.4.1.p", "tail"): tail_identity,
    ("lemma.4.1.p", "density"): density_normaliser,
    ("lemma.4.1.p", "anti-concentration"): anti_concentration,
    ("prose.variance", "exact"): variance_exact,
    ("prose.snr", "snr"): snr_bound,
    ("prose.linear", "homogeneous"): homogeneous_error,
    ("prose.linear", "affine witness"): affine_witness_error,
    ("prose.bayes", "exact"): bayes_exact,
    ("prose.bayes", "A1"): bayes_bounds,
}

REFUTATIONS = {
    ("prose.variance", "signal"): variance_printed_refuted,
    ("prose.linear", "affine"): affine_refuted,
}
