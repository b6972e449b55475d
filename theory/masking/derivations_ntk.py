"""SymPy witnesses for eq. (11) (``theory/ntk.py``): H^inf's orthant probability and closed form.

Same contract as ``derivations_gaussian.py`` (a :class:`Derivation` per part, its steps
``lhs = rhs``; ``proved`` only if every step reduced to 0 or True), on the catalogue's own objects:

- ``eq.11:orthant``: with z_k = w^T x_k/||x_k|| the catalogue's event is lemma.relu_moment2's
  {z_1 >= 0, z_2 >= 0} and Cov(w^T x_i, w^T x_j) = x_i^T x_j (explicit vectors, d = 3), so
  the probability is lemma.relu_moment2's Phi_2(a_1, a_2; rho) at mu = 0, i.e. Phi_2(0, 0; rho)
  with rho = rho_ij.  Sheppard's (1899) orthant formula Phi_2(0, 0; rho) = 1/4 + asin(rho)/(2 pi)
  is then proved, not cited: both sides are 1/4 at rho = 0 (independence) and have the same
  derivative on (-1, 1), Plackett's (1954) d Phi_2/d rho = varphi_2(0, 0; rho) =
  1/(2 pi sqrt(1 - rho^2)); the one cited fact is Plackett's identity (``theory.functions.Phi2``).
  The catalogue's (pi - acos rho)/(2 pi) equals it (same derivative, same value at 0), and
  takes the degenerate values 1/4, 1/2, 0 at rho = 0, 1, -1 (z_2 = z_1; z_2 = -z_1).
- ``eq.11:gram``: H^inf_ij = x_i^T x_j times the orthant probability (linearity, on the
  lhs and rhs); a zero input (1{0 >= 0} = 1) leaves P(w^T x_j >= 0) = 1/2 and H_ij = 0,
  which the closed form gives for every rho; and the angle forms the kernels use equal
  acos(rho): the float64 kernel's (pi - acos rho)/2 = atan2(||u + v||, ||u - v||) for unit
  u, v (with s = ||u - v||/||u + v||: rho = (1 - s^2)/(1 + s^2), acos of it = 2 atan(s) and
  atan(s) + atan(1/s) = pi/2), and the Arb kernel's atan2(||x_i|| ||x_j|| sqrt(1 - rho^2),
  x_i^T x_j) with Lagrange's identity ||x||^2 ||y||^2 - (x^T y)^2 = sum_{k<l} (x_k y_l - x_l y_k)^2.
"""
from __future__ import annotations

import sympy as sp

from . import gaussian as G
from . import ntk as N
from theory.core.derivation import (Derivation, Steps, indicator_to_heaviside, normal_pdf,
                          normalise_heaviside, subs_where, zero_rho)
from theory.core.functions import Phi, Phi2, to_elementary, varphi2
from theory.core.statement import Indicator

_rho = N.rho
_s = sp.Symbol("s", positive=True)
_z1, _z2 = sp.symbols("z_1 z_2", real=True)
_D = 3  # dimension of the explicit vectors


def _factor_radicands(e):
    """b^(+-1/2) -> factor(b)^(+-1/2), so that sqrt((s^2 + 1)^2) = s^2 + 1 is seen (a true identity)."""
    return e.replace(lambda a: a.is_Pow and abs(a.exp) == sp.S.Half, lambda a: sp.factor(a.base) ** a.exp)


def _same_function(S, desc, f, g, var, at):
    """f = g on an interval: f' = g' there (the difference of the derivatives, its radicands
    factored, reduces to 0) and f(at) = g(at)."""
    S.zero(f"{desc}: d/d{var} (f - g) = 0", _factor_radicands(sp.diff(f - g, var)))
    S.equal(f"{desc}: f = g at {var} = {at}", f.subs(var, at), g.subs(var, at))


def _explicit_pair():
    x = sp.Matrix(sp.symbols(f"x_1:{_D + 1}", real=True))
    y = sp.Matrix(sp.symbols(f"y_1:{_D + 1}", real=True))
    return x, y


def orthant(rhs=None) -> Derivation:
    """P(w^T x_i >= 0, w^T x_j >= 0) = (pi - acos rho_ij)/(2 pi) for x_i, x_j != 0 (Sheppard 1899)."""
    st = N.EQ_11
    rhs = st.equation("orthant").rhs if rhs is None else sp.sympify(rhs)
    S = Steps()
    # the event: w^T x_k = ||x_k|| z_k with ||x_k|| > 0, and lemma.relu_moment2's event at z
    ours = normalise_heaviside(indicator_to_heaviside(st.equation("orthant").lhs.expr).xreplace(
        {N.wx_i: N.norm_i * _z1, N.wx_j: N.norm_j * _z2}))
    lemma = indicator_to_heaviside(G.RELU_MOMENT2.equation("orthant").lhs.expr).xreplace(
        {G.z1: _z1, G.z2: _z2})
    S.equal("1{w^T x_i >= 0, w^T x_j >= 0} = 1{z_1 >= 0, z_2 >= 0} with z_k = w^T x_k/||x_k||", ours, lemma)
    # Cov(w^T x, w^T y) = x^T y with E[w_k w_l] = delta_kl: z is standard with corr rho_ij
    x, y = _explicit_pair()
    cov = sum(x[k] * y[l] * sp.KroneckerDelta(k, l) for k in range(_D) for l in range(_D))
    var_x = sum(x[k] * x[l] * sp.KroneckerDelta(k, l) for k in range(_D) for l in range(_D))
    var_y = sum(y[k] * y[l] * sp.KroneckerDelta(k, l) for k in range(_D) for l in range(_D))
    S.equal("Cov(w^T x, w^T y) = x^T y (d = 3, w ~ N(0, I))", cov, x.dot(y))
    rho_where = dict(st.where)[_rho].xreplace(
        {N.G_ij: x.dot(y), N.norm_i: sp.sqrt(x.dot(x)), N.norm_j: sp.sqrt(y.dot(y))})
    S.equal("corr(w^T x, w^T y) is the catalogue's rho_ij = x^T y/(||x|| ||y||)",
            cov / sp.sqrt(var_x * var_y), rho_where)
    # lemma.relu_moment2 (proved from the definition in theory/derivations.py) at mu = 0
    P = subs_where(G.RELU_MOMENT2.equation("orthant").rhs, G.BIVARIATE_WHERE).xreplace(
        {G.mu1: 0, G.mu2: 0, G.rho: _rho})
    S.equal("lemma.relu_moment2:orthant at mu_1 = mu_2 = 0 is Phi2(0, 0; rho)", P, Phi2(0, 0, _rho))
    # Sheppard's formula from Plackett's derivative and the value at rho = 0
    sheppard = sp.Rational(1, 4) + sp.asin(_rho) / (2 * sp.pi)
    S.equal("Phi2(0, 0; 0) = Phi(0)^2 (independence) is 1/4 + asin(0)/(2 pi)",
            to_elementary(zero_rho(P.subs(_rho, 0))), sheppard.subs(_rho, 0))
    S.equal("d/drho Phi2(0, 0; rho) = d/drho (1/4 + asin(rho)/(2 pi)) (Plackett 1954)",
            sp.Derivative(P, _rho), sp.Derivative(sheppard, _rho))
    S.equal("d/drho (1/4 + asin(rho)/(2 pi)) = 1/(2 pi sqrt(1 - rho^2))",
            sp.Derivative(sheppard, _rho), 1 / (2 * sp.pi * sp.sqrt(1 - _rho**2)))
    S.equal("varphi2(0, 0; rho) = 1/(2 pi sqrt(1 - rho^2))",
            varphi2(0, 0, _rho), 1 / (2 * sp.pi * sp.sqrt(1 - _rho**2)))
    # the catalogue's closed form is Sheppard's
    _same_function(S, "1/4 + asin(rho)/(2 pi) vs the catalogue's rhs", sheppard, rhs, _rho, 0)
    # degenerate correlations: independent, equal (z_2 = z_1), opposite (z_2 = -z_1)
    S.equal("the rhs at rho = 0 is 1/4", rhs.subs(_rho, 0), sp.Rational(1, 4))
    S.equal("the rhs at rho = 1 is P(z_1 >= 0) = Phi(0) (z_2 = z_1)", to_elementary(rhs.subs(_rho, 1)),
            to_elementary(Phi(0)))
    S.equal("the rhs at rho = -1 is P(z_1 = 0) = 0 (z_2 = -z_1)", rhs.subs(_rho, -1), 0)
    claim = ("P(w^T x_i >= 0, w^T x_j >= 0) = Phi_2(0, 0; rho_ij) (lemma.relu_moment2 at mu = 0, the event "
             "and the correlation checked) = 1/4 + asin(rho)/(2 pi) (Sheppard 1899: equal at rho = 0 and "
             "the same derivative 1/(2 pi sqrt(1 - rho^2)) = varphi_2(0, 0; rho), Plackett 1954) = "
             "(pi - acos rho)/(2 pi); 1/4, 1/2, 0 at rho = 0, 1, -1")
    return S.done(st.id, "orthant", claim)


def gram(rhs=None) -> Derivation:
    """H^inf_ij = x_i^T x_j (pi - acos rho_ij)/(2 pi); zero inputs; the kernels' angle forms."""
    st = N.EQ_11
    rhs = st.equation("gram").rhs if rhs is None else sp.sympify(rhs)
    S = Steps()
    lhs_orthant, rhs_orthant = st.equation("orthant").lhs, st.equation("orthant").rhs
    S.equal("the integrand of E[x_i^T x_j 1{..}] is x_i^T x_j times that of E[1{..}] (linearity)",
            st.equation("gram").lhs.expr, N.G_ij * lhs_orthant.expr)
    S.equal("the rhs is x_i^T x_j (pi - acos rho)/(2 pi), eq.11:orthant times x_i^T x_j",
            rhs, N.G_ij * rhs_orthant)
    # a zero input: w^T x_i = 0 surely and 1{0 >= 0} = 1
    event0 = lhs_orthant.expr.xreplace({N.wx_i: 0})
    S.equal("x_i = 0: 1{0 >= 0, w^T x_j >= 0} is 1{w^T x_j >= 0}", event0, Indicator(N.wx_j >= 0))
    z = sp.Symbol("z", real=True)
    one_sided = normalise_heaviside(indicator_to_heaviside(event0).xreplace({N.wx_j: N.norm_j * z}))
    S.equal("x_i = 0, x_j != 0: P(w^T x_j >= 0) = 1/2 (sympy.integrate)",
            sp.Integral(one_sided * normal_pdf(z, 0, 1), (z, -sp.oo, sp.oo)), sp.Rational(1, 2))
    S.equal("x_i = 0: the rhs at x_i^T x_j = 0 is x_i^T x_j/2 = 0, whatever rho", rhs.subs(N.G_ij, 0), 0)
    # the float64 kernel: (pi - acos rho)/2 = atan2(||u + v||, ||u - v||) for unit u, v
    x, y = _explicit_pair()
    u, v = x / sp.sqrt(x.dot(x)), y / sp.sqrt(y.dot(y))
    S.equal("||u - v||^2 = 2 - 2 u^T v (unit u, v; d = 3)", (u - v).dot(u - v), 2 - 2 * u.dot(v))
    S.equal("||u + v||^2 = 2 + 2 u^T v", (u + v).dot(u + v), 2 + 2 * u.dot(v))
    s2 = (1 - _rho) / (1 + _rho)   # s^2 = ||u - v||^2/||u + v||^2
    S.equal("(1 - s^2)/(1 + s^2) = rho for s^2 = (1 - rho)/(1 + rho)", (1 - s2) / (1 + s2), _rho)
    on_s = rhs.subs(_rho, (1 - _s**2) / (1 + _s**2))
    _same_function(S, "rhs(rho(s)) vs x_i^T x_j atan(1/s)/pi = x_i^T x_j atan2(||u + v||, ||u - v||)/pi",
                   on_s, N.G_ij * sp.atan(1 / _s) / sp.pi, _s, 1)
    # the Arb kernel: theta = atan2(||x|| ||y|| sin theta, x^T y), sin(acos rho) = sqrt(1 - rho^2) >= 0
    S.equal("cos(acos rho) = rho", sp.cos(sp.acos(_rho)), _rho)
    S.equal("sin(acos rho) = sqrt(1 - rho^2), so acos rho = atan2(sqrt(1 - rho^2), rho)",
            sp.sin(sp.acos(_rho)), sp.sqrt(1 - _rho**2))
    minors = sum((x[k] * y[l] - x[l] * y[k]) ** 2 for k in range(_D) for l in range(k + 1, _D))
    S.equal("Lagrange's identity ||x||^2 ||y||^2 - (x^T y)^2 = sum_{k<l} (x_k y_l - x_l y_k)^2 (d = 3)",
            x.dot(x) * y.dot(y) - x.dot(y) ** 2, minors)
    claim = ("E[x_i^T x_j 1{w^T x_i >= 0, w^T x_j >= 0}] = x_i^T x_j (pi - acos rho_ij)/(2 pi) by linearity "
             "from eq.11:orthant; with x_i = 0 the probability is 1/2 and both sides are 0; and "
             "(pi - acos rho)/2 = atan2(||u + v||, ||u - v||), acos rho = atan2(sqrt(||x||^2 ||y||^2 - "
             "(x^T y)^2), x^T y) with Lagrange's identity: the angle forms of the float64 and Arb kernels")
    return S.done(st.id, "gram", claim)


DERIVATIONS = {
    ("eq.11", "orthant"): orthant,
    ("eq.11", "gram"): gram,
}
