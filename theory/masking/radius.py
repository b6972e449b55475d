"""What Section 5's prose reads off the error regions of (13) and (16), as statements, with their
SymPy witnesses (constants hidden in O(.), Omega(.) are the symbols C_5, C_7 of ``convergence.py``).

- ``thm.5.2.radius``: "This error region monotonically decreases as the error in the expected loss
  and gradient, namely eps_1 and eps_2, decreases": (13)'s radius C_7 (m n eps_2^2/lambda_0^2 + eps_1)
  is increasing in eps_1 and in eps_2 >= 0.
- ``thm.5.6.small``: "one can guarantee an arbitrarily small error region when the Gaussian noise
  kappa and the initialization scale tau is sufficiently small".  (16)'s radius holds only for
  m >= m_min = C_5 n^4 K^2/(lambda_0^4 delta^2 tau^2) (Theorem 5.6 takes Theorem 5.2's width), and its
  second term kappa^2 tau^2 m^2 n d is then at least C_5^2 n^9 K^4 d kappa^2/(lambda_0^8 delta^4 tau^2):
  small tau *enlarges* the guaranteed region, and along kappa = tau -> 0 (every hypothesis of the
  theorem met, (14) included) it stays above a positive constant (part 'as_printed', masking:E13).
  What holds: for fixed tau (and m) the region vanishes as kappa -> 0 (part 'kappa_to_zero'), and
  jointly only if kappa/tau -> 0.
"""
from __future__ import annotations

import sympy as sp

from theory.core.derivation import Derivation, Steps
from theory.core.statement import Equation, Kind, Param, Statement, Tex
from .convergence import C5, C7, K, RATE, THEOREM_5_6, delta, lam0, phi_hat, psi_hat, tau
from .network import d, kappa, m, n

eps1, eps2 = sp.symbols(r"\varepsilon_1 \varepsilon_2", nonnegative=True)
radius_13 = C7 * (m * n * eps2**2 / lam0**2 + eps1)


def radius_16(mm=m, kk=kappa, tt=tau):
    """(16)'s error region, the catalogue's thm.5.6 'rate' minus its linear part, at width mm."""
    return C7 * (kk * tt**2 * mm * n**2 * d**2 * (phi_hat**2 + psi_hat**2) + kk**2 * tt**2 * mm**2 * n * d
                 + kk * tt * mm * n * sp.sqrt(d) * phi_hat**2)


m_min = THEOREM_5_6.equation("width").rhs
lower = C7 * C5**2 * n**9 * K**4 * d * kappa**2 / (lam0**8 * delta**4 * tau**2)
R16 = Tex(r"\rho_{16}(\kappa, \tau, m)")
R16_MIN = Tex(r"\rho_{16}(\kappa, \tau, m_{\min}(\tau))")
_k = sp.Symbol("k", positive=True)

THM_5_2_RADIUS = Statement(
    id="thm.5.2.radius",
    ref="Section 5, after Theorem 5.2 (the radius of (13))",
    title="(13)'s error region C_7 (m n eps_2^2/lambda_0^2 + eps_1) increases with eps_1 and eps_2",
    kind=Kind.LOWER_BOUND,
    params=(Param(eps1, sp.Interval(0, sp.oo), "eps_1 of (8)"), Param(eps2, sp.Interval(0, sp.oo), "eps_2 of (9)")),
    equations=(
        Equation("eps1", sp.Derivative(radius_13, eps1), sp.Integer(0), ">="),
        Equation("eps2", sp.Derivative(radius_13, eps2), sp.Integer(0), ">="),
    ),
    assumptions=("eps_1, eps_2 >= 0; C_7 > 0 the constant hidden in (13)'s O(.)",),
    notes="Read off the form of (13): the derivative in eps_1 is C_7 > 0, in eps_2 it is 2 C_7 m n eps_2/lambda_0^2 >= 0.",
)

THM_5_6_SMALL = Statement(
    id="thm.5.6.small",
    ref="Section 5, after Theorem 5.6 ('an arbitrarily small error region when kappa and tau is sufficiently small')",
    title="(16)'s error region at the width the theorem needs: small tau enlarges it; kappa = tau -> 0 leaves it positive",
    kind=Kind.LOWER_BOUND,
    params=(Param(kappa, sp.Interval.open(0, sp.oo), "mask standard deviation"),
            Param(tau, sp.Interval.open(0, sp.oo), "initialisation scale"),
            Param(m, sp.Naturals, "width, at least Theorem 5.2's m_min(tau)")),
    equations=(
        Equation("at_width", R16_MIN, radius_16(m_min)),
        Equation("lower", R16, lower, ">="),
        Equation("kappa_to_zero", sp.Limit(R16, kappa, 0, "+"), sp.Integer(0)),
        Equation("as_printed", sp.Limit(Tex(r"\rho_{16}(\tau, \tau, m_{\min}(\tau))"), tau, 0, "+"), sp.Integer(0)),
    ),
    assumptions=("Theorem 5.6's hypotheses, its width m >= m_min(tau) = C_5 n^4 K^2/(lambda_0^4 delta^2 tau^2) included",
                 "part 'as_printed' along kappa = tau, at m = m_min(tau)",
                 "phi_hat, psi_hat in [0, 1] and [0, 1/sqrt(2e)]; C_5, C_7 > 0 the hidden constants"),
    where=((R16, radius_16()), (Tex("m_{\\min}(\\tau)"), m_min)),
    notes=("Part 'as_printed' is the prose's claim read with kappa and tau small together; it fails (masking:E13): the "
           "limit along kappa = tau is C_7 (C_5 n^5 K^2 sqrt(d) phi_hat^2/(lambda_0^4 delta^2) + C_5^2 n^9 K^4 d/"
           "(lambda_0^8 delta^4)) > 0, and along that path (14) holds for small tau. Parts 'at_width', 'lower' and "
           "'kappa_to_zero' hold (SymPy)."),
)

STATEMENTS = (THM_5_2_RADIUS, THM_5_6_SMALL)


# ============================================================================ SymPy witnesses
def radius13_monotone(part: str, rhs=None) -> Derivation:
    st = THM_5_2_RADIUS
    var = {"eps1": eps1, "eps2": eps2}[part]
    rhs = st.equation(part).rhs if rhs is None else sp.sympify(rhs)
    S = Steps()
    deriv = sp.diff(radius_13, var)
    S.equal(f"d/d {var} of (13)'s radius", deriv, {"eps1": C7, "eps2": 2 * C7 * m * n * eps2 / lam0**2}[part])
    S.compare(f"it is >= the right side ({rhs}) for eps_1, eps_2 >= 0", deriv, ">=", rhs)
    return S.done(st.id, part, f"(13)'s radius is non-decreasing in {var} (its derivative is {sp.sstr(deriv)} >= 0)")


def small_at_width(rhs=None) -> Derivation:
    st = THM_5_6_SMALL
    rhs = st.equation("at_width").rhs if rhs is None else sp.sympify(rhs)
    S = Steps()
    S.equal("thm.5.6's 'rate' right side = (1 - eta lambda_0/2)^k L(W_0) + rho_16",
            THEOREM_5_6.equation("rate").rhs - RATE, radius_16())
    S.equal("rho_16 at m = m_min(tau) (Theorem 5.2's width, thm.5.6 'width') is the right side",
            radius_16(m_min), rhs)
    split = (C7 * kappa * C5 * n**6 * K**2 * d**2 * (phi_hat**2 + psi_hat**2) / (lam0**4 * delta**2)
             + C7 * kappa * C5 * n**5 * K**2 * sp.sqrt(d) * phi_hat**2 / (lam0**4 * delta**2 * tau) + lower)
    S.equal("= C_7 [kappa C_5 n^6 K^2 d^2 (phi^2 + psi^2)/(lambda_0^4 delta^2) + kappa C_5 n^5 K^2 sqrt(d) phi^2/"
            "(lambda_0^4 delta^2 tau) + kappa^2 C_5^2 n^9 K^4 d/(lambda_0^8 delta^4 tau^2)]: tau cancels in the first "
            "term and divides the others", rhs, split)
    S.compare("d/d tau of rho_16(m_min(tau)) < 0 (phi_hat > 0): a smaller tau gives a larger region",
              sp.diff(split, tau).subs(phi_hat, _k), "<", 0)
    claim = ("at the smallest width Theorem 5.6 allows, m_min = C_5 n^4 K^2/(lambda_0^4 delta^2 tau^2), (16)'s region is "
             "C_7 [kappa A + kappa B/tau + kappa^2 D/tau^2] with A, B, D > 0 free of kappa and tau: strictly "
             "decreasing in tau, so a small initialisation scale enlarges the guaranteed region")
    return S.done(st.id, "at_width", claim)


def small_lower(rhs=None) -> Derivation:
    st = THM_5_6_SMALL
    rhs = st.equation("lower").rhs if rhs is None else sp.sympify(rhs)
    g = sp.Symbol("g", nonnegative=True)                    # m = m_min + g, g >= 0
    mm = m_min + g
    S = Steps()
    S.compare("rho_16(m) - C_7 kappa^2 tau^2 m^2 n d >= 0 (the other two terms are non-negative), m = m_min + g",
              sp.expand(radius_16(mm) - C7 * kappa**2 * tau**2 * mm**2 * n * d), ">=", 0)
    S.compare("C_7 kappa^2 tau^2 m^2 n d - C_7 kappa^2 tau^2 m_min^2 n d >= 0 for m = m_min + g, g >= 0",
              sp.expand(C7 * kappa**2 * tau**2 * n * d * (mm**2 - m_min**2)), ">=", 0)
    S.equal("C_7 kappa^2 tau^2 m_min^2 n d is the right side", C7 * kappa**2 * tau**2 * m_min**2 * n * d, rhs)
    claim = ("for every width the theorem allows (m >= m_min(tau)), (16)'s region is at least "
             "C_7 C_5^2 n^9 K^4 d kappa^2/(lambda_0^8 delta^4 tau^2)")
    return S.done(st.id, "lower", claim)


def small_kappa_to_zero(rhs=None) -> Derivation:
    st = THM_5_6_SMALL
    rhs = st.equation("kappa_to_zero").rhs if rhs is None else sp.sympify(rhs)
    S = Steps()
    S.equal("lim_{kappa -> 0+} rho_16 at fixed tau, m, phi_hat, psi_hat is the right side",
            sp.Limit(radius_16(), kappa, 0, "+"), rhs)
    return S.done(st.id, "kappa_to_zero", "for fixed tau and m, (16)'s region tends to 0 with kappa (every term carries kappa)")


def small_limit_along_diagonal():
    """lim_{tau -> 0+} rho_16(m_min(tau)) at kappa = tau: what part 'as_printed' claims is 0."""
    return sp.limit(radius_16(m_min, kk=tau), tau, 0, "+")


def small_path_meets_14():
    """Along kappa = tau, m = m_min(tau): (14)'s bound divided by kappa, as tau -> 0+ (oo: (14) holds)."""
    bound = THEOREM_5_6.equation("kappa").rhs.subs(m, m_min)
    return sp.limit((bound / tau).subs({phi_hat: _k, psi_hat: _k}), tau, 0, "+")


DERIVATIONS = {
    ("thm.5.2.radius", "eps1"): lambda rhs=None: radius13_monotone("eps1", rhs),
    ("thm.5.2.radius", "eps2"): lambda rhs=None: radius13_monotone("eps2", rhs),
    ("thm.5.6.small", "at_width"): small_at_width,
    ("thm.5.6.small", "lower"): small_lower,
    ("thm.5.6.small", "kappa_to_zero"): small_kappa_to_zero,
}
