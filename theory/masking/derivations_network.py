"""SymPy witnesses for the network-level statements of Section 4 (``theory/network.py``).

Same contract as ``derivations_gaussian.py`` (a :class:`Derivation` per part, its steps
``lhs = rhs`` or inequalities; ``proved`` only if every step reduced to 0 or True), on the
catalogue's own objects:

- ``thm.4.2:decomposition``: the catalogue's E_C[L_C] (``net.expected_loss``) minus its
  T1, T2 and the closed form of E is 0, for m = 1, 2, 3 neurons (n = 1: the sums over i
  are term by term), with a_r^2 = 1; and the catalogue's Gram form of T2 equals the
  paper's kappa^2/(2m) ||sum_r a_r u_r Phi(A_r)||^2 with explicit symbolic vectors (d = 2);
  and Cov(c^T u, c^T v) = kappa^2 u^T v for c = 1 + kappa g (the factor the proof sketch
  drops), by expanding E[g_k g_l] = delta_kl with explicit vectors (d = 3).
- ``rem.4.4``: sigma_tilde - sigma_hat = s varphi(A) (proved in ``lemma.relu_moment1``)
  equals s varphi(2t) = s phi(t)^2/sqrt(2 pi) at t = A/2 (Definition 4.1's argument), and
  the ratio to s phi(t) is exp(-t^2)/sqrt(2 pi) <= 1/sqrt(2 pi), attained at t = 0.
- ``def.4.1``: phi <= 1 and psi <= 1/sqrt(2e) with equality at x = 1/sqrt 2 (eq. (3)).
"""
from __future__ import annotations

import sympy as sp

from . import network as N
from theory.core.derivation import Derivation, Steps, short
from theory.core.functions import Phi, to_elementary, varphi
from .functions import paper_phi, paper_psi


def _concrete(expr, m_value: int):
    """Substitute n = 1, m = m_value and evaluate the sums."""
    return expr.subs({N.n: 1, N.m: m_value}).doit()


def _signs(expr, m_value: int):
    """Expand and use a_r^2 = 1 (a_r in {-1, 1})."""
    return sp.expand(expr).subs({N.aI[r] ** 2: 1 for r in range(1, m_value + 1)})


def theorem_4_2_decomposition(rhs=None, neurons=(1, 2, 3)) -> Derivation:
    st = N.THEOREM_4_2
    where = dict(st.where)
    rhs = st.equation("decomposition").rhs if rhs is None else sp.sympify(rhs)
    S = Steps()
    for M in neurons:
        total = _concrete(rhs.subs(where), M)
        loss = _concrete(N.EXPECTED_LOSS.equation("loss").rhs, M)
        S.equal(f"m = {M}: E_C[L_C] (net.expected_loss) = T1 + T2 + E, with a_r^2 = 1",
                _signs(loss, M), _signs(total, M))
    # the paper's T2 (norm form) equals the Gram form, with explicit u_r = w_r . x (d = 2)
    M, dd = 2, 2
    w = sp.Matrix(M, dd, lambda r, k: sp.Symbol(f"w_{r + 1}{k + 1}", real=True))
    x = sp.Matrix(dd, 1, lambda k, _: sp.Symbol(f"x_{k + 1}", real=True))
    u = [sp.Matrix([w[r, k] * x[k] for k in range(dd)]) for r in range(M)]
    Phis = [Phi(sp.Symbol(f"A_{r + 1}", real=True)) for r in range(M)]
    vec = sum((N.aI[r + 1] * u[r] * Phis[r] for r in range(M)), sp.zeros(dd, 1))
    paper_T2 = N.kappa**2 / (2 * M) * (vec.T * vec)[0]
    gram = _concrete(where[N.T2s], M).subs({N.GI[1, r + 1, q + 1]: (u[r].T * u[q])[0]
                                           for r in range(M) for q in range(M)})
    gram = gram.subs({Phi(N.A(1, r + 1)): Phis[r] for r in range(M)})
    S.equal("T2 in the Gram form is the paper's kappa^2/(2m) ||sum_r a_r u_r Phi(A_r)||^2 (m = d = 2, a_r^2 = 1)",
            _signs(gram, M), _signs(paper_T2, M))
    # Cov(c^T u, c^T v) = kappa^2 u^T v: E[(kappa g^T u)(kappa g^T v)] with E[g_k g_l] = delta_kl
    dd = 3
    uu = sp.symbols("u1:4", real=True)
    vv = sp.symbols("v1:4", real=True)
    cov = sum(N.kappa**2 * uu[k] * vv[l] * sp.KroneckerDelta(k, l) for k in range(dd) for l in range(dd))
    S.equal("Cov(c^T u, c^T v) = kappa^2 u^T v (d = 3, c = 1 + kappa g)",
            cov, N.kappa**2 * sum(uu[k] * vv[k] for k in range(dd)))
    claim = (f"E_C[L_C] = T1 + T2 + ({short(where[N.Es], 80)}) identically for m in {tuple(neurons)} "
             "(n = 1; the sum over samples is term by term), T2's Gram form is the paper's norm form, "
             "and Cov(c^T u, c^T v) = kappa^2 u^T v; E_1 stays an unevaluated function, so the "
             "identity holds whatever the pair moments are")
    return S.done(st.id, "decomposition", claim)


def remark_4_4_constant(rhs=None) -> Derivation:
    st = N.REMARK_4_4
    t, s = N._t, sp.Symbol("s")
    A = sp.Symbol("A", real=True)
    gap = s * varphi(A)  # lemma.relu_moment1, part "proxy_gap" (proved there)
    S = Steps()
    S.equal("s varphi(A) at A = 2t is s varphi(2t) (t is Definition 4.1's argument A/2)",
            gap.subs(A, 2 * t), st.equation("gap").rhs)
    S.equal("s varphi(2t) = s phi(t)^2/sqrt(2 pi) (phi(t) = exp(-t^2))",
            to_elementary(st.equation("gap").rhs), to_elementary(st.equation("paper_form").rhs))
    ratio = sp.simplify(to_elementary(st.equation("paper_form").rhs) / (s * paper_phi(t)))
    S.equal("the ratio gap/(s phi(t)) is exp(-t^2)/sqrt(2 pi)", ratio, sp.exp(-t**2) / sp.sqrt(2 * sp.pi))
    S.compare("exp(-t^2) <= 1 for real t: its log -t^2 <= 0", -t**2, "<=", 0)
    bound = st.equation("O_constant").rhs if rhs is None else sp.sympify(rhs)
    S.equal("at t = 0 the gap attains the bound (the constant is sharp)",
            st.equation("paper_form").rhs.subs(t, 0), bound.subs(t, 0))
    claim = ("sigma_tilde - sigma_hat = s phi(t)^2/sqrt(2 pi) <= s phi(t)/sqrt(2 pi) with t = w^T x/(2 kappa "
             "||w . x||), sharp at t = 0: Remark 4.4's O(.) hides the constant 1/sqrt(2 pi) (and a square)")
    return S.done(st.id, "O_constant", claim)


def definition_4_1_ranges(rhs=None) -> Derivation:
    st = N.DEFINITION_4_1
    x = N.x_sym
    psi = paper_psi(x).subs(sp.Abs(x), x)  # on x >= 0; psi is even
    S = Steps()
    S.compare("phi(x) = exp(-x^2) <= 1: -x^2 <= 0", -x**2, "<=", 0)
    S.true("the critical points of x exp(-x^2) on x > 0 are {1/sqrt(2)}",
           sp.Eq(sp.solveset(sp.diff(psi, x), x, sp.Interval.open(0, sp.oo)), sp.FiniteSet(1 / sp.sqrt(2))))
    S.compare("psi''(1/sqrt 2) < 0 (a maximum)", sp.diff(psi, x, 2).subs(x, 1 / sp.sqrt(2)), "<", 0)
    S.equal("psi(1/sqrt 2) = 1/sqrt(2e)", psi.subs(x, 1 / sp.sqrt(2)), st.equation("psi_range").rhs)
    S.equal("psi(0) = 0: the range is [0, 1/sqrt(2e)], not the paper's (0, 1/sqrt(2e)]",
            paper_psi(sp.Integer(0)), 0)
    claim = ("phi(x) = exp(-x^2) lies in (0, 1]; psi(x) = |x| exp(-x^2) lies in [0, 1/sqrt(2e)], "
             "its maximum at |x| = 1/sqrt(2) and psi(0) = 0")
    return S.done(st.id, "ranges", claim)


DERIVATIONS = {
    ("thm.4.2", "decomposition"): theorem_4_2_decomposition,
    ("rem.4.4", "O_constant"): remark_4_4_constant,
    ("def.4.1", "ranges"): definition_4_1_ranges,
}
