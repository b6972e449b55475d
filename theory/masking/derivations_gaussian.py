"""SymPy witnesses for Section 4's Gaussian-moment lemmas (``theory/gaussian.py``).

One function per (lemma, part).  Each returns a :class:`Derivation`: the statement id, the
part, a ``claim`` saying exactly what was shown, the checked ``steps`` (each ``lhs = rhs``,
or an inequality, with a caption; ``theory.core.derivation.Step``) and ``proved``, True only
if SymPy reduced *every* step's ``lhs - rhs`` to ``0`` (or a zero matrix), or its relation
to ``True``.

Every function takes the right-hand side to check as an optional argument defaulting to
the catalogue's (``Statement.equation(part).rhs``) and substitutes the statement's
``where`` definitions itself, so the objects checked are the catalogue's, not retyped
copies; the meta-tests in ``tests/masking/test_derivations.py`` feed planted wrong closed forms.

What is derived from the definition by ``sympy.integrate`` and what is a cited fact:

- ``lemma.relu_moment1``: the two moments are integrated from ``Expectation.as_integral``
  with the normal density; the gap bound and the s -> 0+ limit are checked directly.
- ``lemma.relu_moment2``: SymPy has no closed form for the bivariate integral, so the
  closed form F(alpha_1, alpha_2, rho) (standardised, mu_i = s_i alpha_i) is pinned down by
  an initial value and a derivative: F at rho = 0 is integrated from the definition (the
  density factorises), and dF/drho = E[d1 d2 f(X)] by Price's theorem (Price 1958; two
  Gaussian integrations by parts, valid for f of polynomial growth and distributional
  derivatives) -- the one cited fact, whose kernel identity d(phi_2)/drho = d1 d2 phi_2 is
  itself checked.  The orthant part also checks dP/dalpha_i against the iterated integral
  over the conditional density.
- ``lemma.mask_moment1`` / ``lemma.mask_moment2``: c = 1 + kappa g, c^T u = m + s X with
  X = u_hat^T g.  The one-dimensional truncated moments and the wedge's Stein terms
  E[d_i d_j F] are integrated by SymPy (DiracDelta and its derivative included); Stein's
  identity E[g F(g)] = E[grad F], E[g g^T F] = E[F] I + E[Hess F] and the chain rule are
  cited; the decomposition g = u_hat X + (I - u_hat u_hat^T) g is checked with explicit
  symbolic vectors for d = 1, 2, 3.

Every identity is decided by ``theory.core.derivation.reduce_zero`` of ``lhs - rhs``.
"""
from __future__ import annotations

import functools

import sympy as sp

from theory.core.derivation import (Derivation, Step, Steps, basis_name, indicator_to_heaviside,
                                    integrate_indicator_integral, mat_coeffs, matched_coeffs, normal_pdf,
                                    normalise_heaviside, short, sift, subs_where, zero_rho)
from theory.core.functions import Phi, Phi2, to_elementary, varphi
from theory.core.statement import Indicator

from . import gaussian as G

# ============================================================== shared symbols / densities
_x, _x1, _x2 = sp.symbols("x x_1 x_2", real=True)
_al1, _al2 = sp.symbols("alpha_1 alpha_2", real=True)
_Q = sp.Symbol("Q", positive=True)  # stands for q = sqrt(1 - rho^2) while integrating
_rho = G.rho
_qrho = sp.sqrt(1 - _rho ** 2)


def _bvn_from_cov(xvec, mean, cov):
    xv, mv = sp.Matrix(xvec), sp.Matrix(mean)
    d = xv - mv
    return sp.exp(-(d.T * cov.inv() * d)[0] / 2) / (2 * sp.pi * sp.sqrt(cov.det()))


_STD_COV = sp.Matrix([[1, _rho], [_rho, 1]])
_PHI2_COV = _bvn_from_cov((_x1, _x2), (0, 0), _STD_COV)       # from the covariance matrix
_PHI2_Q = sp.exp(-(_x1 ** 2 - 2 * _rho * _x1 * _x2 + _x2 ** 2) / (2 * _Q ** 2)) / (2 * sp.pi * _Q)


@functools.lru_cache(maxsize=None)
def _density_q_form_step() -> Step:
    return Steps().equal(
        "the standard bivariate density in the form exp(-(x1^2 - 2 rho x1 x2 + x2^2)/(2 q^2))/(2 pi q), "
        "q = sqrt(1 - rho^2), is exp(-x^T S^-1 x/2)/(2 pi sqrt(det S)) with S = [[1, rho], [rho, 1]]",
        _PHI2_Q.subs(_Q, _qrho), _PHI2_COV)


@functools.lru_cache(maxsize=None)
def _price_kernel_step() -> Step:
    return Steps().equal(
        "Price's kernel identity d phi_2/d rho = d^2 phi_2/(dx1 dx2), for the density built from "
        "the covariance matrix", sp.Derivative(_PHI2_COV, _rho), sp.Derivative(_PHI2_COV, _x1, _x2))


def _expect_std2(g, density=_PHI2_Q):
    """E[g(X1, X2)] for the standard bivariate normal, by sympy.integrate (the variable
    carrying a DiracDelta first: SymPy sifts it, then integrates the Gaussian tail)."""
    order = sorted((_x1, _x2), key=lambda v: not any(dd.args[0].has(v) for dd in g.atoms(sp.DiracDelta)))
    r = sp.integrate(g * density, (order[0], -sp.oo, sp.oo), (order[1], -sp.oo, sp.oo))
    if r.has(sp.Integral):
        raise ValueError(f"sympy could not integrate E[{g}]")
    return r.subs(_Q, _qrho)


# ============================================================== lemma.relu_moment1
_z, _mu, _s = G.z, G.mu, G.s


@functools.lru_cache(maxsize=None)
def _relu1_definition(part: str, mu_value=None):
    """The catalogue's definition integrated by SymPy (optionally at a fixed mu)."""
    eq = G.RELU_MOMENT1.equation(part)
    I = eq.lhs.as_integral(_z, normal_pdf(_z, _mu, _s))
    if mu_value is not None:
        I = I.subs(_mu, mu_value)
    return integrate_indicator_integral(I)


def _relu1_moment(part, rhs):
    st = G.RELU_MOMENT1
    rhs = st.equation(part).rhs if rhs is None else sp.sympify(rhs)
    rhs = subs_where(rhs, st.where)
    S = Steps()
    S.equal(f"int_0^oo z^{1 if part == 'first' else 2} N(z; mu, s^2) dz by sympy.integrate of "
            "Expectation.as_integral (the indicator restricts the range to [0, oo)) is the rhs",
            _relu1_definition(part), rhs)
    S.equal("the same at mu = 0 (sympy's antiderivative divides by mu)",
            _relu1_definition(part, 0), rhs.subs(_mu, 0))
    k = "z" if part == "first" else "z**2"
    claim = (f"for real mu and s > 0: int_{{-oo}}^{{oo}} {k}*1{{z >= 0}} N(z; mu, s^2) dz "
             f"- ({short(rhs)}) == 0, by sympy.integrate of the catalogue's definition "
             "(Expectation.as_integral with the normal density; Phi, varphi rewritten to erfc, exp)")
    return S.done(st.id, part, claim)


def relu_moment1_first(rhs=None) -> Derivation:
    """E[z 1{z >= 0}] = mu Phi(mu/s) + s varphi(mu/s) for z ~ N(mu, s^2), s > 0."""
    return _relu1_moment("first", rhs)


def relu_moment1_second(rhs=None) -> Derivation:
    """E[z^2 1{z >= 0}] = (mu^2 + s^2) Phi(mu/s) + mu s varphi(mu/s)."""
    return _relu1_moment("second", rhs)


def relu_moment1_proxy_gap(rhs=None) -> Derivation:
    """sigma_tilde - sigma_hat = s varphi(mu/s), sigma_tilde being the proved first moment."""
    st = G.RELU_MOMENT1
    eq = st.equation("proxy_gap")
    rhs = eq.rhs if rhs is None else sp.sympify(rhs)
    lhs = subs_where(eq.lhs, st.where)
    tilde = dict(st.where)[sp.Symbol(r"\tilde\sigma")]
    S = Steps()
    S.equal("sigma_tilde (the where) is the rhs of part 'first', the proved E[z 1{z >= 0}]",
            tilde, st.equation("first").rhs)
    S.equal("sigma_tilde - sigma_hat, the where definitions substituted, is the rhs",
            lhs, subs_where(rhs, st.where))
    claim = (f"sigma_tilde - sigma_hat - ({short(rhs)}) == 0 identically, with "
             "sigma_tilde = mu Phi(mu/s) + s varphi(mu/s) (the 'first' moment) and "
             "sigma_hat = mu Phi(mu/s) from the statement's where")
    return S.done(st.id, "proxy_gap", claim)


def relu_moment1_gap_bound(rhs=None) -> Derivation:
    """s varphi(mu/s) <= s/sqrt(2 pi) = s varphi(0): varphi is maximal at 0."""
    st = G.RELU_MOMENT1
    eq = st.equation("gap_bound")
    rhs = eq.rhs if rhs is None else sp.sympify(rhs)
    x = sp.Symbol("x", real=True)
    ph = to_elementary(varphi(x))
    ph0 = to_elementary(varphi(0))
    S = Steps()
    S.equal("varphi' = -x varphi (on the exp form)", sp.Derivative(ph, x), -x * ph)
    S.true("the only real critical point of varphi is x = 0 (solveset)",
           sp.Eq(sp.solveset(sp.diff(ph, x), x, sp.Reals), sp.FiniteSet(0)))
    S.compare("varphi''(0) < 0 (a strict maximum)", sp.diff(ph, x, 2).subs(x, 0), "<", 0)
    S.compare("log(varphi(x)/varphi(0)) <= 0 for all real x (a global maximum)",
              sp.expand_log(sp.log(ph / ph0), force=True), "<=", 0)
    lhs = to_elementary(eq.lhs)
    S.compare("log(lhs/(s varphi(0))) <= 0 for real mu, s > 0, i.e. lhs <= s varphi(0)",
              sp.expand_log(sp.log(sp.powsimp(lhs / (_s * ph0))), force=True), "<=", 0)
    S.compare("rhs - s varphi(0) >= 0 (the bound is at least the supremum)",
              sp.factor_terms(sp.simplify(to_elementary(rhs - _s * ph0))), ">=", 0)
    S.equal("the bound is attained: the lhs at mu = 0 is the rhs", eq.lhs.subs(_mu, 0), rhs)
    claim = (f"for real mu and s > 0: s varphi(mu/s) <= {short(rhs)} with equality at mu = 0 "
             "(sup over mu), because varphi(x) <= varphi(0) = 1/sqrt(2 pi): varphi' = -x varphi "
             "vanishes only at 0, varphi''(0) < 0, and log(varphi(x)/varphi(0)) = -x^2/2 <= 0")
    return S.done(st.id, "gap_bound", claim)


def relu_moment1_relu_limit(rhs=None) -> Derivation:
    """lim_{s -> 0+} sigma_tilde(mu, s) = max(mu, 0), by cases mu > 0, mu < 0, mu = 0."""
    st = G.RELU_MOMENT1
    eq = st.equation("relu_limit")
    rhs = eq.rhs if rhs is None else sp.sympify(rhs)
    S = Steps()
    cases = (("mu > 0", sp.Symbol("m", positive=True)), ("mu < 0", sp.Symbol("m", negative=True)),
             ("mu = 0", sp.S.Zero))
    for name, m in cases:
        S.equal(f"{name}: sympy's limit s -> 0+ of sigma_tilde (erfc/exp form) is the rhs",
                to_elementary(subs_where(eq.lhs, st.where)).subs(_mu, m), rhs.subs(_mu, m))
    claim = (f"lim_(s->0+) (mu Phi(mu/s) + s varphi(mu/s)) - ({short(rhs)}) == 0, by sympy.limit "
             "on the erfc/exp form, separately for mu > 0, mu < 0 and mu = 0")
    return S.done(st.id, "relu_limit", claim)


# ============================================================== lemma.relu_moment2
_Z2 = (G.z1, G.z2)
_SCALE2 = {"orthant": sp.S.One, "first": G.s1, "second": G.s1 * G.s2}
# d1 d2 f for f = standardised integrand, after the sifting rule x delta(x) = 0
_D12_TARGET = {
    "orthant": sp.DiracDelta(_al1 - _x1) * sp.DiracDelta(_al2 - _x2),
    "first": sp.Heaviside(_al1 - _x1) * sp.DiracDelta(_al2 - _x2),
    "second": sp.Heaviside(_al1 - _x1) * sp.Heaviside(_al2 - _x2),
}


def _std_integrand(part):
    """The catalogue's lhs integrand with z_i = s_i (alpha_i - x_i), divided by the scale:
    (alpha_1 - x_1)^k1 (alpha_2 - x_2)^k2 H(alpha_1 - x_1) H(alpha_2 - x_2)."""
    lhs = G.RELU_MOMENT2.equation(part).lhs
    f = indicator_to_heaviside(lhs.expr)
    f = f.xreplace({G.z1: G.s1 * (_al1 - _x1), G.z2: G.s2 * (_al2 - _x2)})
    return sp.expand(normalise_heaviside(f) / _SCALE2[part])


@functools.lru_cache(maxsize=None)
def _change_of_variables_step() -> Step:
    cov = sp.Matrix([[G.s1 ** 2, _rho * G.s1 * G.s2], [_rho * G.s1 * G.s2, G.s2 ** 2]])
    zden = _bvn_from_cov(_Z2, (G.mu1, G.mu2), cov)
    sub = {G.z1: G.s1 * (_al1 - _x1), G.z2: G.s2 * (_al2 - _x2), G.mu1: G.s1 * _al1, G.mu2: G.s2 * _al2}
    return Steps().equal("change of variables z_i = s_i (alpha_i - x_i): s1 s2 N_2(z; mu, Sigma) = phi_2(x; rho) "
                         "(x = -(z - mu)/s has the standard law; mu_i = s_i alpha_i)",
                         zden.xreplace(sub) * G.s1 * G.s2, _PHI2_COV)


@functools.lru_cache(maxsize=None)
def _relu2_value_at_rho0(part):
    """E[f(X)] at rho = 0 from the definition: the density is varphi(x1) varphi(x2)."""
    f = _std_integrand(part)
    return _expect_std2(f, _PHI2_Q.subs(_rho, 0).subs(_Q, 1))


@functools.lru_cache(maxsize=None)
def _relu2_d12(part):
    f = _std_integrand(part)
    return sift(sp.diff(f, _x1, _x2), (_x1, _x2))


_PRICE_FORM = {  # E_rho[d1 d2 f(X)] in closed form (Phi2 by its definition for 'second')
    "orthant": _PHI2_COV.xreplace({_x1: _al1, _x2: _al2}),
    "first": varphi(_al2) * Phi((_al1 - _rho * _al2) / _qrho),
    "second": Phi2(_al1, _al2, _rho),
}
_PRICE_NAME = {"orthant": "phi_2(alpha_1, alpha_2; rho)",
               "first": "varphi(alpha_2) Phi((alpha_1 - rho alpha_2)/q)",
               "second": "Phi2(alpha_1, alpha_2, rho)"}
_RHO0_FORM = {  # E_0[f(X)]: products of the one-dimensional partial moments (lemma.relu_moment1)
    "orthant": Phi(_al1) * Phi(_al2),
    "first": (_al1 * Phi(_al1) + varphi(_al1)) * Phi(_al2),
    "second": (_al1 * Phi(_al1) + varphi(_al1)) * (_al2 * Phi(_al2) + varphi(_al2)),
}


_ALPHA_FORM = (varphi(_al1) * Phi((_al2 - _rho * _al1) / _qrho),   # dP/dalpha_1, dP/dalpha_2
               varphi(_al2) * Phi((_al1 - _rho * _al2) / _qrho))


@functools.lru_cache(maxsize=None)
def _orthant_alpha_steps() -> tuple[Step, ...]:
    """d/dalpha_1 of the definition P = int_{-oo}^{alpha_1} varphi(x1) P(X2 <= alpha_2 | X1 = x1) dx1,
    the conditional CDF integrated by sympy, the Leibniz rule by sympy.diff of the Integral;
    d/dalpha_2 is the same with the coordinates swapped (the density is symmetric)."""
    cond = normal_pdf(_x2, _rho * _x1, _Q)
    ccdf = sp.integrate(cond, (_x2, -sp.oo, _al2))
    P_def = sp.Integral(to_elementary(varphi(_x1)) * ccdf, (_x1, -sp.oo, _al1))
    S = Steps()
    S.equal("conditional factorisation phi_2(x1, x2) = varphi(x1) N(x2; rho x1, q^2)",
            _PHI2_Q.subs(_Q, _qrho), (to_elementary(varphi(_x1)) * cond).subs(_Q, _qrho))
    S.equal("int_{-oo}^{alpha_2} N(x2; rho x1, q^2) dx2 by sympy.integrate is Phi((alpha_2 - rho x1)/q)",
            ccdf.subs(_Q, _qrho), Phi((_al2 - _rho * _x1) / _qrho))
    S.equal("phi_2(x1, x2) = phi_2(x2, x1) (the roles of the coordinates swap)",
            _PHI2_COV, _PHI2_COV.xreplace({_x1: _x2, _x2: _x1}))
    S.equal("d/dalpha_1 int_{-oo}^{alpha_1} varphi(x1) P(X2 <= alpha_2 | X1 = x1) dx1 by sympy's Leibniz rule "
            "is varphi(alpha_1) Phi((alpha_2 - rho alpha_1)/q)",
            sp.diff(P_def, _al1).subs(_Q, _qrho), _ALPHA_FORM[0])
    return tuple(S.steps)


@functools.lru_cache(maxsize=None)
def _relu2_fixed_steps(part):
    """The steps that do not involve the rhs: the standardisation, Price's kernel, the
    distributional derivative d1 d2 f, and E[d1 d2 f], E_0[f] integrated by sympy against
    their closed forms."""
    S = Steps()
    S.add(_change_of_variables_step(), _density_q_form_step(), _price_kernel_step())
    S.equal("d1 d2 f of the standardised integrand f: distributional derivatives by sympy.diff, then "
            "g(x) delta(x - c) = g(c) delta(x - c)", _relu2_d12(part), _D12_TARGET[part])
    if part == "second":
        S.true("E_rho[H(alpha_1 - X1) H(alpha_2 - X2)] = Phi2(alpha_1, alpha_2, rho): the definition of Phi2",
               sp.true)
    else:
        S.equal(f"E_rho[d1 d2 f(X)] by sympy.integrate is {_PRICE_NAME[part]}",
                _expect_std2(_D12_TARGET[part]), _PRICE_FORM[part])
    S.equal("E_0[f(X)] by sympy.integrate against varphi(x1) varphi(x2): the product of one-dimensional moments",
            _relu2_value_at_rho0(part), _RHO0_FORM[part])
    if part == "orthant":
        S.add(*_orthant_alpha_steps())
    return tuple(S.steps)


def _relu2(part, rhs):
    st = G.RELU_MOMENT2
    rhs = st.equation(part).rhs if rhs is None else sp.sympify(rhs)
    full = subs_where(rhs, st.where)
    F = sp.expand(full.xreplace({G.mu1: G.s1 * _al1, G.mu2: G.s2 * _al2}) / _SCALE2[part])
    S = Steps()
    S.zero("the standardised rhs F = rhs/scale with mu_i = s_i alpha_i is free of s1, s2: (dF/ds1, dF/ds2) = 0",
           sp.Tuple(sp.diff(F, G.s1), sp.diff(F, G.s2)))
    S.add(*_relu2_fixed_steps(part))
    S.equal(f"dF/drho = E_rho[d1 d2 f(X)] = {_PRICE_NAME[part]} (Price's theorem)",
            sp.Derivative(F, _rho), _PRICE_FORM[part])
    S.equal("F(rho = 0) = E_0[f(X)], with Phi2(h, k, 0) = Phi(h) Phi(k)",
            zero_rho(F.subs(_rho, 0)), _RHO0_FORM[part])
    if part == "orthant":
        S.equal("dF/dalpha_1 = dP/dalpha_1 of the conditional-density definition",
                sp.Derivative(F, _al1), _ALPHA_FORM[0])
        S.equal("dF/dalpha_2 = dP/dalpha_2 (the same with the coordinates swapped)",
                sp.Derivative(F, _al2), _ALPHA_FORM[1])
    what = {"orthant": "1{z1 >= 0, z2 >= 0}", "first": "z1 1{z1 >= 0, z2 >= 0}",
            "second": "z1 z2 1{z1 >= 0, z2 >= 0}"}[part]
    claim = (f"for s1, s2 > 0 and |rho| < 1: E[{what}] = {short(rhs)} (where substituted). "
             f"With x = -(z - mu)/s (density change checked) the lhs is scale*E[f(X)], X standard "
             f"bivariate with corr rho; the rhs/scale F(alpha_1, alpha_2, rho) has dF/drho = "
             f"E[d1 d2 f(X)] (Price's theorem, cited; its kernel identity checked; the expectation "
             + ("is Phi2 by definition" if part == "second" else "integrated by sympy")
             + ") and F(rho=0) = E_0[f(X)] integrated by sympy; these determine F on (-1, 1)"
             + ("; dP/dalpha_i also match the conditional-density integral" if part == "orthant" else ""))
    return S.done(st.id, part, claim)


def relu_moment2_orthant(rhs=None) -> Derivation:
    """P(z1 >= 0, z2 >= 0) = Phi2(a1, a2; rho)."""
    return _relu2("orthant", rhs)


def relu_moment2_first(rhs=None) -> Derivation:
    """E[z1 1{z1, z2 >= 0}] = mu1 Phi2 + s1 (varphi(a1) Phi(b2) + rho varphi(a2) Phi(b1))."""
    return _relu2("first", rhs)


def relu_moment2_second(rhs=None) -> Derivation:
    """E[z1 z2 1{z1, z2 >= 0}] (Rosenbaum 1961 in the a_i = mu_i/s_i form)."""
    return _relu2("second", rhs)


# ============================================================== lemma.mask_moment1 / 2
_a, _kappa = G.a, G.kappa
_one, _uhat, _vhat, _Id = G.one, G.uhat, G.vhat, G.Id


@functools.lru_cache(maxsize=None)
def _half_line_moments():
    """E[X^k 1{X >= -a}], k = 0, 1, 2, by sympy.integrate against the standard density, and
    E[delta'(X + a)] (the second-order Stein term)."""
    ph = normal_pdf(_x, 0, 1)
    H = sp.Heaviside(_x + _a)
    m = tuple(sp.integrate(_x ** k * H * ph, (_x, -sp.oo, sp.oo)) for k in range(3))
    dd = sp.integrate(sp.DiracDelta(_x + _a, 1) * ph, (_x, -sp.oo, sp.oo))
    return m, dd


def _half_space_event(statement, label):
    """The lhs event {<c, u> >= 0} written as H(x + a): <c, u> = s (X + a), s = kappa ||u|| > 0."""
    lhs = statement.equation(label).lhs
    ind, = lhs.atoms(Indicator)
    sp_ = sp.Symbol("s_u", positive=True)
    return normalise_heaviside(indicator_to_heaviside(ind).xreplace({G.cu: sp_ * (_x + _a)}))


def _explicit_vectors(dd):
    u = sp.Matrix(sp.symbols(f"u_1:{dd + 1}", real=True))
    norm = sp.sqrt(u.dot(u))
    return u, norm, u / norm


def _explicit(M, dd, rep):
    M = M.subs(G.d, dd)
    rep = {sp.MatrixSymbol(k.name, dd, k.shape[1] if k.shape[1] != G.d else dd): v for k, v in rep.items()}
    return sp.Matrix(M.xreplace(rep).doit().as_explicit())


def _decomposition_steps(S, dd, second_order: bool):
    """Explicit d: c^T u = m + s X, X = u_hat^T g has unit variance, W = (I - P) g is
    uncorrelated with X (hence independent, jointly Gaussian), E[W W^T] = I - P."""
    u, norm, uh = _explicit_vectors(dd)
    g = sp.Matrix(sp.symbols(f"g_1:{dd + 1}", real=True))
    c = sp.ones(dd, 1) + _kappa * g
    a_where = dict(G.MASK_MOMENT1.where)[_a].xreplace(
        {G.one_u: sum(u), sp.Symbol(r"\|u\|"): norm})
    X = (uh.T * g)[0]
    s = _kappa * norm
    S.equal(f"d = {dd}: c^T u = s (X + a) with X = u_hat^T g, s = kappa ||u|| and a from the where",
            (c.T * u)[0], s * (X + a_where))
    P = uh * uh.T
    S.equal(f"d = {dd}: u_hat^T u_hat = 1 (X ~ N(0, 1))", (uh.T * uh)[0], 1)
    S.zero(f"d = {dd}: Cov(W, X) = (I - u_hat u_hat^T) u_hat = 0", (sp.eye(dd) - P) * uh)
    if second_order:
        S.equal(f"d = {dd}: Cov(W) = (I - P)(I - P)^T = I - P", (sp.eye(dd) - P) * (sp.eye(dd) - P).T,
                sp.eye(dd) - P)
    return uh, a_where


def _half_line_steps(S, statement, label, m0, m1):
    """The half-space event as H(X + a) and the first two truncated moments, integrated."""
    S.equal("the event: 1{<c,u> >= 0} = H(X + a) after <c,u> = s (X + a), s > 0",
            _half_space_event(statement, label), sp.Heaviside(_x + _a))
    S.equal("P(X >= -a) by sympy.integrate is Phi(a)", m0, Phi(_a))
    S.equal("E[X 1{X >= -a}] by sympy.integrate is varphi(a)", m1, varphi(_a))


def mask_moment1_first(rhs=None, dims=(1, 2, 3)) -> Derivation:
    """E[c 1{c^T u >= 0}] = Phi(a) 1 + kappa varphi(a) u_hat, c ~ N(1, kappa^2 I)."""
    st = G.MASK_MOMENT1
    rhs = st.equation("first").rhs if rhs is None else rhs
    (m0, m1, _), _ = _half_line_moments()
    S = Steps()
    _half_line_steps(S, st, "first", m0, m1)
    derived = m0 * _one + _kappa * m1 * _uhat   # E[c 1] = P 1 + kappa (u_hat E[X 1] + E[W] P), E[W] = 0
    for basis, lhs_c, rhs_c in matched_coeffs(derived, rhs):
        S.equal(f"the coefficient of {basis} in P(X >= -a) 1 + kappa E[X 1{{X >= -a}}] u_hat and in the rhs",
                lhs_c, rhs_c)
    for dd in dims:
        uh, a_where = _decomposition_steps(S, dd, second_order=False)
        der = sp.ones(dd, 1) * m0 + _kappa * m1 * uh
        S.equal(f"d = {dd}: with explicit vectors (u_hat = u/||u||, 1 = ones) the derived form is the rhs",
                der, _explicit(rhs, dd, {_one: sp.ones(dd, 1), _uhat: uh}))
    claim = (f"for kappa > 0, u != 0: E[c 1{{c^T u >= 0}}] = {short(rhs)}, a = 1^T u/(kappa ||u||): "
             "with c = 1 + kappa g, X = u_hat^T g, W = (I - u_hat u_hat^T) g (independent of X, mean 0; "
             f"checked for d = {', '.join(map(str, dims))} with symbolic u), E[c 1] = P(X >= -a) 1 + "
             "kappa u_hat E[X 1{X >= -a}], both integrated by sympy; coefficients of 1, u_hat matched")
    return S.done(st.id, "first", claim)


def mask_moment2_half_space(rhs=None, dims=(1, 2, 3)) -> Derivation:
    """E[c c^T 1{c^T u >= 0}] = Phi 1 1^T + kappa varphi (1 u_hat^T + u_hat 1^T)
    + kappa^2 (Phi I - a varphi u_hat u_hat^T)."""
    st = G.MASK_MOMENT2
    rhs = st.equation("half_space").rhs if rhs is None else rhs
    (m0, m1, m2), dd2 = _half_line_moments()
    S = Steps()
    _half_line_steps(S, st, "half_space", m0, m1)
    S.equal("E[X^2 1{X >= -a}] by sympy.integrate is Phi(a) - a varphi(a)", m2, Phi(_a) - _a * varphi(_a))
    S.equal("second-order Stein in one dimension: E[X^2 1] = E[1] + E[delta'(X + a)] (sympy.integrate)",
            m2, m0 + dd2)
    # E[g g^T 1] = u_hat u_hat^T E[X^2 1] + E[W W^T] P(X >= -a), E[W W^T] = I - u_hat u_hat^T
    Egg = m2 * _uhat * _uhat.T + m0 * (_Id - _uhat * _uhat.T)
    derived = m0 * _one * _one.T + _kappa * m1 * (_one * _uhat.T + _uhat * _one.T) + _kappa ** 2 * Egg
    for basis, lhs_c, rhs_c in matched_coeffs(derived, rhs):
        S.equal(f"the coefficient of {basis} in the derived E[c c^T 1] and in the rhs", lhs_c, rhs_c)
    for dd in dims:
        uh, a_where = _decomposition_steps(S, dd, second_order=True)
        P = uh * uh.T
        der = (m0 * sp.ones(dd, dd) + _kappa * m1 * (sp.ones(dd, 1) * uh.T + uh * sp.ones(1, dd))
               + _kappa ** 2 * (m2 * P + m0 * (sp.eye(dd) - P)))
        S.equal(f"d = {dd}: with explicit vectors (u_hat = u/||u||, 1 = ones) the derived form is the rhs",
                der, _explicit(rhs, dd, {_one: sp.ones(dd, 1), _uhat: uh}))
    claim = (f"for kappa > 0, u != 0: E[c c^T 1{{c^T u >= 0}}] = {short(rhs)}: with g = u_hat X + W "
             "(W independent of X, Cov W = I - u_hat u_hat^T; checked for d = "
             f"{', '.join(map(str, dims))}), the truncated moments E[X^k 1{{X >= -a}}], k = 0, 1, 2, "
             "integrated by sympy; coefficients of 1 1^T, 1 u_hat^T, u_hat 1^T, I, u_hat u_hat^T matched")
    return S.done(st.id, "half_space", claim)


# ---------------------------------------------------------------- the wedge
_A1, _A2 = G.a1, G.a2
_F_WEDGE = sp.Heaviside(_x1 + _A1) * sp.Heaviside(_x2 + _A2)


@functools.lru_cache(maxsize=None)
def _wedge_stein_terms():
    """E[d_i F], E[d_i d_j F] for F = H(X1 + a1) H(X2 + a2), (X1, X2) standard with corr rho,
    by sympy.integrate against the bivariate density (DiracDelta and DiracDelta' sifted)."""
    E = {}
    for key, g in (("1", sp.diff(_F_WEDGE, _x1)), ("2", sp.diff(_F_WEDGE, _x2)),
                   ("12", sp.diff(_F_WEDGE, _x1, _x2)), ("11", sp.diff(_F_WEDGE, _x1, 2)),
                   ("22", sp.diff(_F_WEDGE, _x2, 2))):
        E[key] = _expect_std2(g)
    # the delta' step by hand: -d/dx [varphi(x) P(X2 >= -a2 | X1 = x)] at x = -a1
    h = to_elementary(varphi(_x1) * Phi((_A2 + _rho * _x1) / _qrho))
    E["11_by_hand"] = -sp.diff(h, _x1).subs(_x1, -_A1)
    return E


@functools.lru_cache(maxsize=None)
def _wedge_stein_steps():
    """The rhs-independent steps of the wedge: each sympy-integrated Stein term against its
    Phi/varphi form.  Returns (forms, steps)."""
    E = _wedge_stein_terms()
    q = _qrho
    b1, b2 = (_A1 - _rho * _A2) / q, (_A2 - _rho * _A1) / q
    S = Steps()
    forms = {  # the Phi/varphi form each sympy-integrated Stein term is checked against
        "1": varphi(_A1) * Phi(b2),
        "2": varphi(_A2) * Phi(b1),
        "12": varphi(_A1) * varphi(b2) / q,
        "11": -_A1 * varphi(_A1) * Phi(b2) - _rho * varphi(_A1) * varphi(b2) / q,
        "22": -_A2 * varphi(_A2) * Phi(b1) - _rho * varphi(_A2) * varphi(b1) / q,
    }
    S.equal("E[d1 F] by sympy.integrate (DiracDelta sifted) is varphi(a1) Phi(b2)", E["1"], forms["1"])
    S.equal("E[d2 F] is varphi(a2) Phi(b1)", E["2"], forms["2"])
    S.equal("E[d1 d2 F] is varphi(a1) varphi(b2)/q (the bivariate density at (-a1, -a2))",
            E["12"], forms["12"])
    S.equal("-d/dx[varphi(x) P(X2 >= -a2 | X1 = x)] at x = -a1 (the delta' step by hand) is the form of E[d1 d1 F]",
            E["11_by_hand"], forms["11"])
    S.equal("E[d1 d1 F] by sympy.integrate (DiracDelta') is -a1 varphi(a1) Phi(b2) - rho varphi(a1) varphi(b2)/q",
            E["11"], forms["11"])
    S.equal("E[d2 d2 F] is -a2 varphi(a2) Phi(b1) - rho varphi(a2) varphi(b1)/q", E["22"], forms["22"])
    return forms, tuple(S.steps)


def _wedge_rhs(rhs, where):
    st = G.MASK_MOMENT2
    rhs = st.equation("wedge").rhs if rhs is None else rhs
    where = st.where if where is None else where
    # keep a1, a2, rho as the standardised coordinates; substitute tau, D, q, b_i
    keep = {_A1, _A2, _rho}
    return rhs, subs_where(rhs, [(k, v) for k, v in where if k not in keep])


def mask_moment2_wedge(rhs=None, where=None) -> Derivation:
    """E[c c^T 1{c^T u >= 0, c^T v >= 0}] = P 1 1^T + kappa (1 tau^T + tau 1^T) + kappa^2 (P I + D)."""
    st = G.MASK_MOMENT2
    rhs0, full = _wedge_rhs(rhs, where)
    S = Steps()
    lhs = st.equation("wedge").lhs
    ind, = lhs.atoms(Indicator)
    su, sv = sp.symbols("s_u s_v", positive=True)
    ev = normalise_heaviside(indicator_to_heaviside(ind).xreplace({G.cu: su * (_x1 + _A1), G.cv: sv * (_x2 + _A2)}))
    S.equal("the event: 1{<c,u> >= 0, <c,v> >= 0} = H(X1 + a1) H(X2 + a2) with <c,u> = s_u (X1 + a1), "
            "<c,v> = s_v (X2 + a2)", ev, _F_WEDGE)
    S.add(_density_q_form_step())
    forms, stein_steps = _wedge_stein_steps()
    S.add(*stein_steps)
    # combine with the checked forms (each equal to sympy's integral by the steps above)
    P = Phi2(_A1, _A2, _rho)  # P(X1 >= -a1, X2 >= -a2) = Phi2(a1, a2, rho): lemma.relu_moment2 orthant
    tau = forms["1"] * _uhat + forms["2"] * _vhat
    hess = (forms["11"] * _uhat * _uhat.T + forms["12"] * (_uhat * _vhat.T + _vhat * _uhat.T)
            + forms["22"] * _vhat * _vhat.T)
    derived = P * _one * _one.T + _kappa * (_one * tau.T + tau * _one.T) + _kappa ** 2 * (P * _Id + hess)
    for basis, lhs_c, rhs_c in matched_coeffs(derived, full):
        S.equal(f"the coefficient of {basis} in the Stein-derived E[c c^T 1_A] and in the rhs", lhs_c, rhs_c)
    claim = (f"for kappa > 0, u, v not parallel (|rho| < 1): E[c c^T 1{{c^T u >= 0, c^T v >= 0}}] = "
             f"{short(rhs0)} with tau, D, b_i, q from the where: c = 1 + kappa g, X1 = u_hat^T g, "
             "X2 = v_hat^T g, F = H(X1 + a1) H(X2 + a2); Stein (E[g F] = u_hat E[d1 F] + v_hat E[d2 F], "
             "E[g g^T F] = E[F] I + sum w_i w_j^T E[d_i d_j F]) and P = Phi2(a1, a2, rho) (the orthant part) "
             "cited; every E[d_i F], E[d_i d_j F] integrated by sympy; coefficients of 1 1^T, 1 u_hat^T, "
             "..., v_hat v_hat^T matched")
    return S.done(st.id, "wedge", claim)


def mask_moment2_wedge_limit(rhs=None, where=None) -> Derivation:
    """u || v: with v_hat = u_hat, a1 = a2 = a and rho -> 1-, the wedge rhs tends to the
    half-space rhs (the 1/q terms of D cancel)."""
    st = G.MASK_MOMENT2
    rhs0, full = _wedge_rhs(rhs, where)
    half = st.equation("half_space").rhs
    col = full.xreplace({_vhat: _uhat, _A1: _a, _A2: _a})
    # Phi2(a, a, rho) -> Phi(a) as rho -> 1 (X1 = X2 almost surely): a fact of Phi2, cited
    col = col.replace(lambda e: isinstance(e, Phi2) and e.args[0] == e.args[1] and e.args[2] == _rho,
                      lambda e: Phi(e.args[0]))
    S = Steps()
    D = subs_where(dict(st.where if where is None else where)[G.Dmat], [
        (k, v) for k, v in (st.where if where is None else where) if k not in (_A1, _A2, _rho)])
    Dc = mat_coeffs(D.xreplace({_vhat: _uhat, _A1: _a, _A2: _a}))
    dsum = sum(Dc.values(), sp.S.Zero)
    S.equal("D's coefficient of u_hat u_hat^T (its three terms collapsed) tends to -a varphi(a) as rho -> 1-",
            sp.Limit(to_elementary(dsum), _rho, 1, "-"), to_elementary(-_a * varphi(_a)))
    cw, ch = mat_coeffs(col), mat_coeffs(half)
    for k in dict.fromkeys(list(cw) + list(ch)):
        S.equal(f"the coefficient of {basis_name(k)}: its limit rho -> 1- in the wedge is the half_space's",
                sp.Limit(to_elementary(cw.get(k, sp.S.Zero)), _rho, 1, "-"), ch.get(k, sp.S.Zero))
    claim = ("with v_hat = u_hat and a1 = a2 = a, each coefficient of the wedge rhs (tau, D substituted) "
             "tends, as rho -> 1- (sympy.limit), to the half_space rhs's coefficient; the 1/q terms of D "
             "cancel (D -> -a varphi(a) u_hat u_hat^T); Phi2(a, a, rho) -> Phi(a) cited")
    return S.done(st.id, "wedge_limit", claim)


# ============================================================== registry
DERIVATIONS = {
    ("lemma.relu_moment1", "first"): relu_moment1_first,
    ("lemma.relu_moment1", "second"): relu_moment1_second,
    ("lemma.relu_moment1", "proxy_gap"): relu_moment1_proxy_gap,
    ("lemma.relu_moment1", "gap_bound"): relu_moment1_gap_bound,
    ("lemma.relu_moment1", "relu_limit"): relu_moment1_relu_limit,
    ("lemma.relu_moment2", "orthant"): relu_moment2_orthant,
    ("lemma.relu_moment2", "first"): relu_moment2_first,
    ("lemma.relu_moment2", "second"): relu_moment2_second,
    ("lemma.mask_moment1", "first"): mask_moment1_first,
    ("lemma.mask_moment2", "half_space"): mask_moment2_half_space,
    ("lemma.mask_moment2", "wedge"): mask_moment2_wedge,
    ("lemma.mask_moment2", "wedge_limit"): mask_moment2_wedge_limit,
}


def derive(statement_id: str, part: str, rhs=None) -> Derivation:
    try:
        fn = DERIVATIONS[(statement_id, part)]
    except KeyError:
        raise KeyError(f"no derivation for {statement_id!r} part {part!r}; have {sorted(DERIVATIONS)}") from None
    return fn(rhs)


def all_derivations() -> list[Derivation]:
    return [fn() for fn in DERIVATIONS.values()]
