"""The claims of Figs. 1(a) and 2(a)'s captions about the smoothed ReLU, as statements, with their
SymPy witnesses.

Notation of the captions: z = w^T x, s = kappa ||w . x||_2 (Fig. 2 calls it sigma), the proxy
sigma_hat(z; kappa) = z Phi(z/s) (Fig. 1(a), Theorem 4.2) and the exact smoothed ReLU
sigma_tilde = E_c[ReLU(w^T(x . c))] = z Phi(z/s) + s varphi(z/s) (``lemma.relu_moment1``), varphi the
normal density.

- ``fig.1a``: "As kappa increases, the activation becomes progressively smoother compared to the
  standard ReLU ... For small kappa (e.g. kappa = 0.01), sigma_hat closely approximates the standard
  ReLU."  Made exact: sup_z |sigma_hat - ReLU| = c_1 s with c_1 = max_{t >= 0} t Phi(-t) = 0.16997...
  (so 0.0017 at kappa = 0.01, ||w . x|| = 1), and sup_z |sigma_hat''| = 2 varphi(0)/s, strictly
  decreasing in kappa.
- ``fig.2a``: the caption's closed form "sigma~(w,x) = E_c[sigma(w^T(x . c))] = z Phi(z/sigma) +
  sigma phi(z/sigma)".  Its phi is the symbol eq. (3) defines as exp(-x^2) (``def.4.1``); read so
  (part 'as_printed') the formula is not the expectation (masking:E12); read as the density
  (part 'as_meant') it is ``lemma.relu_moment1``'s.
"""
from __future__ import annotations

import sympy as sp

from theory.core.derivation import Derivation, Steps
from theory.core.functions import Phi, to_elementary, varphi
from theory.core.statement import Equation, Expectation, Kind, Param, Statement, Tex
from .functions import paper_phi

z = sp.Symbol("z", real=True)
s = sp.Symbol("s", positive=True)
tt = sp.Symbol("t", nonnegative=True)
c_1 = sp.Symbol("c_1", positive=True)
sigma_hat = z * Phi(z / s)
RELU = sp.Max(z, 0)
LAWC = r"c\sim\mathcal{N}(\mathbf{1}, \kappa^2 I_d)"
ZS = (Param(z, sp.S.Reals, "the pre-activation w^T x"),
      Param(s, sp.Interval.open(0, sp.oo), "kappa ||w . x||_2 (Fig. 2's sigma)"))

FIG_1A = Statement(
    id="fig.1a",
    ref="Fig. 1(a) and its caption",
    title="the proxy sigma_hat = z Phi(z/s) is within 0.17 s of ReLU and its curvature 2 varphi(0)/s falls as kappa grows",
    kind=Kind.IDENTITY,
    params=ZS,
    equations=(
        Equation("relu_gap", Tex(r"\sup_z\big|z\,\Phi(z/s)-\max(z,0)\big|"), c_1 * s),
        Equation("second_derivative", Tex(r"\partial_z^2\, z\,\Phi(z/s)"), varphi(z / s) * (2 - z**2 / s**2) / s),
        Equation("curvature", Tex(r"\sup_z\big|\partial_z^2\,z\,\Phi(z/s)\big|"), 2 * varphi(0) / s),
    ),
    assumptions=("s = kappa ||w . x||_2 > 0 (Fig. 1(a) holds ||w . x||_2 = 1)",),
    where=((c_1, Tex(r"\max_{t\ge 0} t\,\Phi(-t) = t_*\Phi(-t_*),\ \Phi(-t_*) = t_*\varphi(t_*)")),),
    notes=("c_1 = 0.169971... at t_* = 0.751791...: at the caption's kappa = 0.01 (||w . x|| = 1) sigma_hat is within "
           "0.0017 of ReLU everywhere; 'progressively smoother' read as the largest curvature, 2 varphi(0)/s = "
           "0.798/s, strictly decreasing in kappa. The proxy is not the expectation: that is sigma_tilde "
           "(fig.2a, rem.4.4)."),
)

FIG_2A = Statement(
    id="fig.2a",
    ref="Fig. 2(a) and its caption",
    title="the caption's closed form of the smoothed ReLU: with eq. (3)'s phi it is not the expectation",
    kind=Kind.IDENTITY,
    params=ZS,
    equations=(
        Equation("as_printed", Expectation(Tex(r"\max(0, w^\top(x\odot c))"), LAWC),
                 z * Phi(z / s) + s * paper_phi(z / s)),
        Equation("as_meant", Expectation(Tex(r"\max(0, w^\top(x\odot c))"), LAWC),
                 z * Phi(z / s) + s * varphi(z / s)),
    ),
    assumptions=("c ~ N(1, kappa^2 I_d), z = w^T x, s = kappa ||w . x||_2 > 0; the caption's kappa = 0.2",),
    notes=("Part 'as_printed' reads the caption's phi as eq. (3) defines it, phi(x) = exp(-x^2) (def.4.1); it fails "
           "(masking:E12): at z = 0 it gives s where the expectation is s/sqrt(2 pi). Part 'as_meant' reads phi as "
           "the normal density varphi: it is lemma.relu_moment1's part 'first', and the caption's Monte Carlo "
           "match holds at its own settings."),
)

STATEMENTS = (FIG_1A, FIG_2A)


# ============================================================================ SymPy witnesses
def _g(t):
    return t * Phi(-t)


def fig1a_relu_gap(rhs=None) -> Derivation:
    """|sigma_hat - ReLU| = s g(|z|/s) with g(t) = t Phi(-t); g has one critical point t_* on (0, oo),
    a maximum, so the sup is s g(t_*) = c_1 s."""
    st = FIG_1A
    rhs = st.equation("relu_gap").rhs if rhs is None else sp.sympify(rhs)
    zp = sp.Symbol("zeta", positive=True)
    gp = sp.diff(_g(tt), tt)
    S = Steps()
    S.equal("z > 0: z Phi(z/s) - z = -s g(z/s), g(t) = t Phi(-t) (Phi(x) + Phi(-x) = 1)",
            sigma_hat.subs(z, zp) - zp, -s * _g(zp / s))
    S.equal("z < 0: z Phi(z/s) - 0 = -s g(|z|/s)", sigma_hat.subs(z, -zp), -s * _g(zp / s))
    S.equal("g'(t) = Phi(-t) - t varphi(t)", gp, Phi(-tt) - tt * varphi(tt))
    S.equal("g''(t) = varphi(t) (t^2 - 2): g' falls on (0, sqrt 2) and rises on (sqrt 2, oo)",
            sp.diff(gp, tt), varphi(tt) * (tt**2 - 2))
    S.equal("g(0) = 0 and g'(0) = 1/2 > 0", sp.Tuple(_g(tt).subs(tt, 0), gp.subs(tt, 0)), sp.Tuple(0, sp.Rational(1, 2)))
    S.compare("g'(sqrt 2) < 0 (so g' has exactly one zero t_* in (0, sqrt 2))",
              to_elementary(gp.subs(tt, sp.sqrt(2))), "<", 0)
    S.equal("lim_{t -> oo} g'(t) = 0, so g' < 0 on (sqrt 2, oo) where it rises to 0: t_* is g's only critical point",
            sp.Limit(to_elementary(gp), tt, sp.oo), 0)
    S.equal("lim_{t -> oo} g(t) = 0: the maximum of g on [0, oo) is g(t_*) = c_1",
            sp.Limit(to_elementary(_g(tt)), tt, sp.oo), 0)
    S.equal("the sup over z of s g(|z|/s) is c_1 s", s * c_1, rhs)
    claim = ("sup_z |z Phi(z/s) - max(z, 0)| = c_1 s with c_1 = max_{t >= 0} t Phi(-t), attained at |z| = t_* s where "
             "Phi(-t_*) = t_* varphi(t_*), t_* in (0, sqrt 2): the proxy tends to ReLU uniformly, linearly in kappa")
    return S.done(st.id, "relu_gap", claim)


def fig1a_second_derivative(rhs=None) -> Derivation:
    st = FIG_1A
    rhs = st.equation("second_derivative").rhs if rhs is None else sp.sympify(rhs)
    S = Steps()
    S.equal("d^2/dz^2 z Phi(z/s) (sympy.diff) = varphi(z/s) (2 - z^2/s^2)/s", sp.diff(sigma_hat, z, 2), rhs)
    return S.done(st.id, "second_derivative", "sigma_hat''(z) = varphi(z/s)(2 - (z/s)^2)/s, by differentiation")


def fig1a_curvature(rhs=None) -> Derivation:
    st = FIG_1A
    rhs = st.equation("curvature").rhs if rhs is None else sp.sympify(rhs)
    w = sp.Symbol("w", nonnegative=True)                        # w = t^2, t = z/s
    h = (w - 2) * sp.exp(-w / 2)
    S = Steps()
    S.equal("at z = 0 the second derivative is 2 varphi(0)/s, the right side",
            st.equation("second_derivative").rhs.subs(z, 0), rhs)
    q = sp.Symbol("q", nonnegative=True)                        # e^{-w/2} = 1/(1 + q), q >= 0
    S.equal("2 varphi(0) - (2 - t^2) varphi(t) = (2 (1 - e^{-w/2}) + w e^{-w/2})/sqrt(2 pi), w = t^2",
            to_elementary(2 * varphi(0) - (2 - w) * varphi(sp.sqrt(w))),
            (2 * (1 - sp.exp(-w / 2)) + w * sp.exp(-w / 2)) / sp.sqrt(2 * sp.pi))
    S.compare("with e^{-w/2} = 1/(1 + q), q >= 0, that is (2 q + w)/((1 + q) sqrt(2 pi)) >= 0: "
              "|sigma_hat''| <= 2 varphi(0)/s wherever t^2 <= 2",
              sp.factor((2 * (1 - 1 / (1 + q)) + w / (1 + q)) / sp.sqrt(2 * sp.pi)), ">=", 0)
    S.equal("t^2 >= 2: d/dw (w - 2) e^{-w/2} = (4 - w) e^{-w/2}/2, so its maximum is at w = 4",
            sp.diff(h, w), (4 - w) * sp.exp(-w / 2) / 2)
    S.compare("(4 - 2) e^{-2} < 2: the largest |sigma_hat''| for t^2 >= 2 is below the value at 0",
              h.subs(w, 4), "<", 2)
    S.compare("d/ds (2 varphi(0)/s) = -2 varphi(0)/s^2 < 0: the largest curvature falls strictly as kappa grows",
              to_elementary(sp.diff(rhs, s)), "<", 0)
    claim = ("sup_z |sigma_hat''(z)| = 2 varphi(0)/s = 0.798/(kappa ||w . x||), attained at z = 0 and strictly "
             "decreasing in kappa: 'progressively smoother' as the largest curvature")
    return S.done(st.id, "curvature", claim)


DERIVATIONS = {
    ("fig.1a", "relu_gap"): fig1a_relu_gap,
    ("fig.1a", "second_derivative"): fig1a_second_derivative,
    ("fig.1a", "curvature"): fig1a_curvature,
}
