"""Section 5's smoothness bound for the Gaussian mask, as statements: Assumption 5.1 (10) with
gamma = C_1 n/m, Lemma 5.5, Lemma D.21 (as stated, and its proof's steps) and Lemma D.22.

Notation as in ``theory/network.py``: L_C(W) = 1/2 sum_i e_i^2, e_i = f(W, x_i . c_i) - y_i, with
one mask c_i ~ N(1, kappa^2 I_d) per sample, and eq. (2):
grad_{w_r} L_C = a_r m^{-1/2} sum_i e_i (x_i . c_i) 1{w_r^T (x_i . c_i) >= 0}.

``STATEMENTS`` are the catalogue records.  Besides them this module holds the SymPy witnesses
(same contract as ``derivations_gaussian.py``: a ``Derivation`` per part, its steps ``lhs = rhs``
or inequalities, ``proved`` only if every step reduced to 0 or True):

- ``DERIVATIONS``: proofs of the parts that hold -- the needed constant of the one-neuron
  network (``asm.5.1.10:one_neuron``), D.21's proof step by step (Cauchy-Schwarz by Lagrange's
  identity with explicit vectors, ||x . c|| <= ||c||_inf ||x||, the conclusion, the n-mask event
  as a product) and Lemma D.22 (the exact law of ||c||_inf from the normal density, and the
  union bound with Mills' ratio, which gives 1 - P <= delta/(s sqrt(2 pi)) < delta).
  Each takes the right-hand side to check (default: the catalogue's), so that a planted wrong
  one is not proved (``verify/masking/test_s5_smoothness_certified.py``).
- ``REFUTATIONS``: symbolic counterexamples to the parts that fail as stated (errata
  masking:E9-E11): for them ``proved`` means "the counterexample is verified", and the claim says so.
"""
from __future__ import annotations

import sympy as sp

from theory.core.derivation import Derivation, normal_pdf, Steps
from theory.core.functions import Phi, varphi
from .network import L_C, LAWC, aI, kappa, m, n, yI
from theory.core.statement import Equation, Expectation, Indicator, Kind, Param, Statement, Tex

d = sp.Symbol("d", integer=True, positive=True)
C_1 = sp.Symbol("C_1", positive=True)
gamma = sp.Symbol(r"\gamma", positive=True)
delta = sp.Symbol(r"\delta", positive=True)
C = sp.Symbol("C", positive=True)
s = sp.Symbol("s", positive=True)
t = sp.Symbol("t", positive=True)
C1_needed = sp.Symbol(r"C_1^{\mathrm{needed}}", nonnegative=True)

grad_sq = Tex(r"\|\nabla_{w_r}\mathcal{L}_{\mathbf{C}}(W)\|_2^2")
S_r = Tex(r"\sum_{i=1}^n\|x_i\odot c_i\|_2^2\,\mathbb{1}\{w_r^\top(x_i\odot c_i)\ge 0\}")
M_max = Tex(r"\max_{i}\|x_i\odot c_i\|_2^2")
norm_c = Tex(r"\|c\|_\infty")
norm_all = Tex(r"\max_{i\le n}\|c_i\|_\infty")
LAW_c = r"c\sim\mathcal{N}(\mathbf{1},\kappa^2 I_d)"

#: C = 1 + kappa s with s = sqrt(2 log(2d/delta)) (Lemma D.22; D.21's proof)
s_value = sp.sqrt(2 * sp.log(2 * d / delta))
C_value = 1 + kappa * s
P_one = Expectation(Indicator(sp.Le(norm_c, C)), LAW_c)
P_all = Expectation(Indicator(sp.Le(norm_all, C)), LAWC)
P_t = Expectation(Indicator(sp.Le(norm_c, t)), LAW_c)
P_t_exact = (Phi((t - 1) / kappa) - Phi((-t - 1) / kappa)) ** d

_net_params = (
    Param(sp.Symbol("W"), sp.S.Reals, "first-layer weights, m x d"),
    Param(aI, sp.FiniteSet(-1, 1), "second-layer signs a_r"),
    Param(sp.Symbol("X"), sp.S.Reals, "inputs x_i, ||x_i|| <= 1 (Assumption 3.1)"),
    Param(yI, sp.S.Reals, "labels y_i"),
    Param(sp.Symbol(r"\mathbf{C}"), sp.S.Reals, "one mask c_i per sample (the xi of Assumption 5.1)"),
    Param(kappa, sp.Interval.open(0, sp.oo), "mask standard deviation"),
)
_C1 = Param(C_1, sp.Interval.open(0, sp.oo), "the constant of gamma = C_1 n/m")
_d22_params = (
    Param(d, sp.Naturals, "dimension of the mask"),
    Param(kappa, sp.Interval.open(0, sp.oo), "mask standard deviation"),
    Param(delta, sp.Interval.open(0, 1), "failure probability"),
)

ASSUMPTION_5_1_10 = Statement(
    id="asm.5.1.10",
    ref="Assumption 5.1, eq. (10), with gamma = C_1 n/m (Theorem 5.2), for the Gaussian mask",
    title="the per-neuron surrogate gradient is bounded by gamma times the surrogate loss, for every mask",
    kind=Kind.UPPER_BOUND,
    params=_net_params + (_C1,),
    equations=(
        Equation("bound", grad_sq, gamma * L_C, "<="),
        Equation("one_neuron", C1_needed, 2 * sp.Symbol("x") ** 2 * sp.Symbol("c") ** 2),
    ),
    assumptions=("for all xi (every mask draw C) and all W", "gamma = C_1 n/m with C_1 a constant"),
    where=((gamma, C_1 * n / m),
           (C1_needed, Tex(r"\max_r \frac{m\|\nabla_{w_r}\mathcal{L}_{\mathbf{C}}(W)\|_2^2}{n\,\mathcal{L}_{\mathbf{C}}(W)}"))),
    notes=("Part 'one_neuron' is ours: the smallest C_1 that (10) needs for m = n = d = 1, a = 1, w x c > 0, "
           "f != y is 2 x^2 c^2, unbounded over masks; no finite C_1 holds for all xi (erratum masking:E9)."),
)

LEMMA_5_5 = Statement(
    id="lemma.5.5",
    ref="Lemma 5.5 (proof in Lemma D.21)",
    title="the Gaussian mask satisfies Assumption 5.1 (10) with gamma = C_1 n/m",
    kind=Kind.UPPER_BOUND,
    params=_net_params + (_C1,),
    equations=(Equation("bound", grad_sq, C_1 * n / m * L_C, "<="),),
    assumptions=("Assumption 3.1", "C_1 a constant; stated without a probability, i.e. for every mask"),
    notes=("False for every finite C_1 (erratum masking:E9); what holds is C_1 = 2 max_i ||x_i . c_i||^2, "
           "i.e. 2 C^2 on the event max_i ||c_i||_inf <= C (lemma.D.21.proof)."),
)

LEMMA_D_21 = Statement(
    id="lemma.D.21",
    ref="Lemma D.21 (as stated)",
    title="the per-neuron surrogate gradient, squared, is at most sqrt(n/m) times the root of the loss",
    kind=Kind.UPPER_BOUND,
    params=_net_params,
    equations=(Equation("bound", grad_sq, sp.sqrt(n) / sp.sqrt(m) * sp.sqrt(L_C), "<="),),
    assumptions=("Assumption 3.1",),
    notes=("Not homogeneous: under (W, y) -> (tW, ty) the left side scales like t^2, the right like t; "
           "false already without a mask (erratum masking:E10). Its proof ends with part 'conclusion' "
           "of lemma.D.21.proof."),
)

LEMMA_D_21_PROOF = Statement(
    id="lemma.D.21.proof",
    ref="Lemma D.21 (the steps and conclusion of its proof; Lemma D.22)",
    title="Cauchy-Schwarz over samples: the gradient bound 2 C^2 (n/m) L_C on the event ||c_i||_inf <= C",
    kind=Kind.UPPER_BOUND,
    params=_net_params + _d22_params[2:],
    equations=(
        Equation("cauchy_schwarz", grad_sq, 2 / m * L_C * S_r, "<="),
        Equation("max", grad_sq, 2 * n / m * M_max * L_C, "<="),
        Equation("conclusion", grad_sq, 2 * C**2 * n / m * L_C, "<="),
        Equation("event", P_all, P_one**n),
        Equation("event_level", P_all, 1 - delta, ">="),
    ),
    assumptions=("Assumption 3.1 (||x_i|| <= 1)", "part 'conclusion': on the event max_i ||c_i||_inf <= C",
                 "c_1, ..., c_n independent"),
    where=((C, C_value), (s, s_value)),
    notes=("Parts 'cauchy_schwarz' and 'max' hold for every mask; 'conclusion' on the event. Part "
           "'event_level' is how the proof's C reads (Lemma D.22 applied with d, not n d): the event "
           "for n masks has probability P(||c||_inf <= C)^n, below 1 - delta from n ~ 10 on "
           "(erratum masking:E11)."),
)

LEMMA_D_22 = Statement(
    id="lemma.D.22",
    ref="Lemma D.22",
    title="with probability at least 1 - delta, ||c||_inf <= 1 + kappa sqrt(2 log(2d/delta))",
    kind=Kind.LOWER_BOUND,
    params=_d22_params,
    equations=(
        Equation("bound", P_one, 1 - delta, ">="),
        Equation("exact", P_t, P_t_exact),
        Equation("union", 1 - P_one, delta / (s * sp.sqrt(2 * sp.pi)), "<="),
    ),
    assumptions=("c ~ N(1, kappa^2 I_d)",),
    where=((C, C_value), (s, s_value)),
    notes=("Parts 'exact' (the law of ||c||_inf, coordinates independent) and 'union' (the union bound "
           "with Mills' ratio, sharper than the lemma since s sqrt(2 pi) > 1) are ours."),
)

STATEMENTS = (ASSUMPTION_5_1_10, LEMMA_5_5, LEMMA_D_21, LEMMA_D_21_PROOF, LEMMA_D_22)


# ============================================================================ SymPy witnesses
_w, _x, _c = sp.symbols("w x c", positive=True)
_y = sp.Symbol("y", real=True)


def _one_neuron_needed():
    """m = n = d = 1, a = 1, w x c > 0: L_C = (w x c - y)^2/2, its w-derivative, and m g^2/(n L)."""
    z = _w * _x * _c
    loss = (sp.Max(0, z) - _y) ** 2 / 2
    grad = sp.diff(loss, _w)
    return loss, grad, sp.simplify(1 * grad**2 / (1 * loss))


def asm_one_neuron(rhs=None) -> Derivation:
    st = ASSUMPTION_5_1_10
    rhs = st.equation("one_neuron").rhs.xreplace({sp.Symbol("x"): _x, sp.Symbol("c"): _c}) if rhs is None \
        else sp.sympify(rhs).xreplace({sp.Symbol("x"): _x, sp.Symbol("c"): _c})
    loss, grad, needed = _one_neuron_needed()
    S = Steps()
    S.equal("d/dw L_C = (f - y) x c 1{w x c >= 0} with w x c > 0 (eq. (2), a = m = 1)",
            grad, (_w * _x * _c - _y) * _x * _c)
    S.equal("m ||grad||^2/(n L_C) = 2 x^2 c^2 (L_C = (f - y)^2/2 > 0)", needed, rhs)
    S.true("2 x^2 c^2 -> oo as c -> oo", sp.Eq(sp.limit(rhs, _c, sp.oo), sp.oo))
    claim = ("for m = n = d = 1, a = 1, w x c > 0 and f != y, the smallest C_1 with ||grad||^2 <= C_1 (n/m) L_C is "
             "exactly 2 x^2 c^2 (whatever w and y), unbounded as c -> oo")
    return S.done(st.id, "one_neuron", claim)


def _cauchy_schwarz_parts(nn=3, dd=2):
    e = sp.symbols(f"e_1:{nn + 1}", real=True)
    v = [sp.Matrix(sp.symbols(f"v_{i + 1}_1:{dd + 1}", real=True)) for i in range(nn)]
    total = sum((e[i] * v[i] for i in range(nn)), sp.zeros(dd, 1))
    lhs = (total.T * total)[0]
    prod = sum(ei**2 for ei in e) * sum((vi.T * vi)[0] for vi in v)
    squares = [(e[i] * v[j] - e[j] * v[i]) for i in range(nn) for j in range(nn) if i < j]
    rem = sum(((q.T * q)[0] for q in squares), sp.S.Zero)
    return lhs, prod, rem


def d21_cauchy_schwarz(rhs=None, nn=3, dd=2) -> Derivation:
    st = LEMMA_D_21_PROOF
    rhs = st.equation("cauchy_schwarz").rhs if rhs is None else sp.sympify(rhs)
    lhs, prod, rem = _cauchy_schwarz_parts(nn, dd)
    e2 = sum(ei**2 for ei in sp.symbols(f"e_1:{nn + 1}", real=True))
    S = Steps()
    S.equal("the rhs at L_C = (1/2) sum e_i^2 and S_r = sum ||v_i||^2 (v_i = 1_i x_i . c_i) is "
            "(1/m)(sum e_i^2)(sum ||v_i||^2)",
            rhs.xreplace({L_C: e2 / 2, S_r: sp.cancel(prod / e2)}), prod / m)
    S.equal("Lagrange's identity (sum e_i^2)(sum ||v_i||^2) = ||sum e_i v_i||^2 + sum_{i<j} ||e_i v_j - e_j v_i||^2 "
            "(n = 3, d = 2, explicit vectors)", prod, lhs + rem)
    S.compare("sum_{i<j} ||e_i v_j - e_j v_i||^2 >= 0 (a sum of squares of reals)", rem, ">=", 0)
    b = sp.Symbol("b", real=True)
    S.equal("b^2 = b for b in {0, 1} (the indicator is idempotent: ||1_i u_i||^2 = 1_i ||u_i||^2)",
            sp.Tuple(*[(b**2).subs(b, val) for val in (0, 1)]), sp.Tuple(0, 1))
    S.equal("a^2 = 1 for a in {-1, 1} (so ||grad_{w_r}||^2 = (1/m) ||sum_i e_i 1_i u_i||^2 by eq. (2))",
            sp.Tuple(*[(b**2).subs(b, val) for val in (-1, 1)]), sp.Tuple(1, 1))
    claim = ("||grad_{w_r} L_C||^2 = (1/m)||sum_i e_i 1_i (x_i . c_i)||^2 <= (1/m)(sum_i e_i^2)(sum_i 1_i ||x_i . c_i||^2) "
             "= (2/m) L_C S_r: Cauchy-Schwarz, shown as Lagrange's identity with a sum-of-squares remainder "
             "(n = 3, d = 2; the identity is the same for every n, d)")
    return S.done(st.id, "cauchy_schwarz", claim)


def d21_max(rhs=None) -> Derivation:
    st = LEMMA_D_21_PROOF
    dd = 3
    x = sp.symbols(f"x_1:{dd + 1}", real=True)
    c = sp.symbols(f"c_1:{dd + 1}", real=True)
    Cs = sp.Symbol("C", positive=True)
    S = Steps()
    S.equal("C^2 ||x||^2 - ||x . c||^2 = sum_k (C^2 - c_k^2) x_k^2 (d = 3)",
            Cs**2 * sum(xk**2 for xk in x) - sum((xk * ck) ** 2 for xk, ck in zip(x, c)),
            sum((Cs**2 - ck**2) * xk**2 for xk, ck in zip(x, c)))
    gap = sp.symbols(f"g_1:{dd + 1}", nonnegative=True)      # C^2 - c_k^2 >= 0 where |c_k| <= C
    S.compare("sum_k (C^2 - c_k^2) x_k^2 >= 0 with C^2 - c_k^2 = g_k >= 0 (|c_k| <= C)",
              sum(g * xk**2 for g, xk in zip(gap, x)), ">=", 0)
    Mv = sp.Symbol("M", nonnegative=True)
    below = sp.symbols("h_1:4", nonnegative=True)            # each 1_i ||x_i . c_i||^2 = M - h_i <= M
    S.compare("n M - S_r = sum_i (M - 1_i ||x_i . c_i||^2) = sum_i h_i >= 0 (n = 3)",
              sp.expand(3 * Mv - sum(Mv - h for h in below)), ">=", 0)
    rhs = st.equation("max").rhs if rhs is None else sp.sympify(rhs)
    L, Sr = sp.Symbol("L", nonnegative=True), sp.Symbol("S_r", nonnegative=True)
    cs = st.equation("cauchy_schwarz").rhs.xreplace({L_C: L, S_r: Sr})
    S.equal("rhs = (2/m) L_C S_r + (2/m) L_C (n M - S_r), so the rhs is at least part 'cauchy_schwarz' "
            "when S_r <= n M", rhs.xreplace({L_C: L, M_max: Mv}), cs + 2 / m * L * (n * Mv - Sr))
    claim = ("S_r <= n max_i ||x_i . c_i||^2 (each of the n terms is at most the max), hence "
             "||grad_{w_r}||^2 <= (2n/m) M L_C; and ||x . c||^2 <= ||c||_inf^2 ||x||^2 (a sum of non-negative terms)")
    return S.done(st.id, "max", claim)


def d21_conclusion(rhs=None) -> Derivation:
    st = LEMMA_D_21_PROOF
    rhs = st.equation("conclusion").rhs if rhs is None else sp.sympify(rhs)
    g1, g2, L = sp.symbols("g_1 g_2 L", nonnegative=True)
    # M = max_i ||x_i . c_i||^2 = C^2 ||x||^2 - g1 (part 'max', on the event) and ||x||^2 = 1 - g2 (Assumption 3.1)
    chain = st.equation("max").rhs.xreplace({M_max: C**2 * (1 - g2) - g1, L_C: L})
    S = Steps()
    S.equal("rhs = (2n/m) M L_C + (2n/m) L_C (C^2 g2 + g1) with M = C^2 (1 - g2) - g1",
            rhs.xreplace({L_C: L}), chain + 2 * n / m * L * (C**2 * g2 + g1))
    S.compare("(2n/m) L_C (C^2 g2 + g1) >= 0, so (2n/m) M L_C <= 2 C^2 (n/m) L_C",
              2 * n / m * L * (C**2 * g2 + g1), ">=", 0)
    claim = ("on the event max_i ||c_i||_inf <= C and under Assumption 3.1 (||x_i|| <= 1): M <= C^2, so "
             "||grad_{w_r}||^2 <= 2 C^2 (n/m) L_C; with ||x_i|| > 1 the same chain gives 2 C^2 max_i ||x_i||^2 (n/m) L_C")
    return S.done(st.id, "conclusion", claim)


def d21_event(rhs=None) -> Derivation:
    st = LEMMA_D_21_PROOF
    rhs = st.equation("event").rhs if rhs is None else sp.sympify(rhs)
    i = sp.Symbol("i", integer=True, positive=True)
    S = Steps()
    p = sp.Symbol("p", positive=True)                  # p = P(||c||_inf <= C), the same for every i
    S.equal("prod_{i=1}^n P(||c_i||_inf <= C) is the rhs (independent, identically distributed masks), "
            "with p = P(||c||_inf <= C)", sp.Product(p, (i, 1, n)), rhs.xreplace({P_one: p}))
    claim = ("P(max_i ||c_i||_inf <= C) = P(||c||_inf <= C)^n: the n masks are independent (cited: Section 3, "
             "'independent per sample') and identically distributed")
    return S.done(st.id, "event", claim)


def d22_exact(rhs=None) -> Derivation:
    st = LEMMA_D_22
    rhs = st.equation("exact").rhs if rhs is None else sp.sympify(rhs)
    u = sp.Symbol("u", real=True)
    one = sp.integrate(normal_pdf(u, 1, kappa), (u, -t, t))
    base, power = rhs.as_base_exp()
    S = Steps()
    S.equal("the exponent of the closed form is d", power, d)
    S.equal("int_{-t}^{t} N(u; 1, kappa^2) du = Phi((t - 1)/kappa) - Phi((-t - 1)/kappa) (sympy.integrate)",
            one, base)
    S.equal("prod_{k=1}^d P(|c_k| <= t) = P(|c_1| <= t)^d (independent coordinates), with p = P(|c_1| <= t)",
            sp.Product(sp.Symbol("p"), (sp.Symbol("k", integer=True), 1, d)), sp.Symbol("p") ** d)
    claim = ("P(||c||_inf <= t) = prod_k P(|c_k| <= t) = (Phi((t - 1)/kappa) - Phi((-t - 1)/kappa))^d, the one-coordinate "
             "probability integrated from the normal density N(1, kappa^2)")
    return S.done(st.id, "exact", claim)


def _mills_steps(S):
    h = varphi(s) / s - Phi(-s)
    S.equal("d/ds (varphi(s)/s - Phi(-s)) = -varphi(s)/s^2 (so the difference decreases)",
            sp.Derivative(h, s), -varphi(s) / s**2)
    S.equal("lim_{s -> oo} (varphi(s)/s - Phi(-s)) = 0, hence Phi(-s) <= varphi(s)/s for s > 0 (Mills' ratio)",
            sp.Limit(sp.exp(-s**2 / 2) / (s * sp.sqrt(2 * sp.pi)) - sp.erfc(s / sp.sqrt(2)) / 2, s, sp.oo), 0)


def d22_union(rhs=None) -> Derivation:
    st = LEMMA_D_22
    rhs = st.equation("union").rhs if rhs is None else sp.sympify(rhs)
    S = Steps()
    S.equal("((C - 1)/kappa, (-C - 1)/kappa) = (s, -s - 2/kappa) at C = 1 + kappa s",
            sp.Tuple((C_value - 1) / kappa, (-C_value - 1) / kappa), sp.Tuple(s, -s - 2 / kappa))
    _mills_steps(S)
    S.equal("2 d varphi(s)/s = delta/(s sqrt(2 pi)) at s = sqrt(2 log(2d/delta))",
            (2 * d * varphi(s) / s).subs(s, s_value), rhs.subs(s, s_value))
    claim = ("1 - P(||c||_inf <= C) <= d (Phi(-s) + Phi(-s - 2/kappa)) (Bernoulli: 1 - (1 - q)^d <= d q, cited) "
             "<= 2 d Phi(-s) (Phi increasing) <= 2 d varphi(s)/s (Mills' ratio, proved) = delta/(s sqrt(2 pi))")
    return S.done(st.id, "union", claim)


def d22_bound(rhs=None) -> Derivation:
    st = LEMMA_D_22
    rhs = st.equation("bound").rhs if rhs is None else sp.sympify(rhs)
    u = sp.Symbol("u", positive=True)                   # delta = 1/(1 + u) ranges over (0, 1)
    union = st.equation("union").rhs
    S = Steps()
    S.equal("1 - (the union bound) = (1 - delta) + delta (1 - 1/(s sqrt(2 pi)))",
            1 - union, rhs + delta * (1 - 1 / (s * sp.sqrt(2 * sp.pi))))
    S.compare("s^2/2 - log 2 = log d + log(1 + u) >= 0 for d >= 1, delta = 1/(1 + u) in (0, 1)",
              sp.expand_log((s_value**2 / 2 - sp.log(2)).subs(delta, 1 / (1 + u)), force=True), ">=", 0)
    S.compare("2 pi s^2 >= 4 pi log 2 > 1, so s sqrt(2 pi) > 1 and 1 - 1/(s sqrt(2 pi)) > 0",
              4 * sp.pi * sp.log(2), ">", 1)
    claim = ("P(||c||_inf <= 1 + kappa sqrt(2 log(2d/delta))) >= 1 - delta / (s sqrt(2 pi)) > 1 - delta for every "
             "d >= 1, kappa > 0, delta in (0, 1): Lemma D.22 holds, with (1 - P)/delta < 1/sqrt(4 pi log 2) = 0.339")
    return S.done(st.id, "bound", claim)


# ---------------------------------------------------------------------------- refutations
def refute_needed_bounded(statement_id: str) -> Derivation:
    """For any C_1 > 0 the mask c = sqrt(C_1) of the one-neuron network (w = x = a = 1, y = 0) needs 2 C_1."""
    _, _, needed = _one_neuron_needed()
    at = needed.subs({_x: 1, _y: 0, _w: 1}).subs(_c, sp.sqrt(C_1))
    S = Steps()
    S.equal("C_1^needed at w = x = 1, y = 0, c = sqrt(C_1) is 2 C_1", at, 2 * C_1)
    S.compare("2 C_1 > C_1 for every C_1 > 0", 2 * C_1, ">", C_1)
    S.true("sup over c of C_1^needed = lim_{c -> oo} 2 c^2 = oo",
           sp.Eq(sp.limit(needed.subs({_x: 1, _y: 0, _w: 1}), _c, sp.oo), sp.oo))
    claim = ("REFUTES ||grad_{w_r} L_C||^2 <= C_1 (n/m) L_C for all masks: for every C_1 > 0 the mask c = sqrt(C_1) "
             "(m = n = d = 1, w = x = a = 1, y = 0) needs 2 C_1; the needed constant 2 c^2 is unbounded")
    return S.done(statement_id, "bound", claim)


def refute_d21(rhs=None) -> Derivation:
    st = LEMMA_D_21
    loss, grad, _ = _one_neuron_needed()
    T = sp.Symbol("T", positive=True)
    lhs_t = (grad**2).subs({_w: T * _w, _y: T * _y})
    rhs_t = sp.sqrt(loss).subs({_w: T * _w, _y: T * _y})
    S = Steps()
    S.equal("||grad||^2 under (w, y) -> (T w, T y) is T^2 ||grad||^2", lhs_t, T**2 * grad**2)
    S.equal("sqrt(L_C) under (w, y) -> (T w, T y), powers denested, is T sqrt(L_C)",
            sp.powdenest(rhs_t, force=True), T * sp.sqrt(loss))
    point = {_w: 1, _x: 1, _c: 1, _y: 0}
    S.compare("at w = x = a = 1, y = 0, c = 1 (no mask): ||grad||^2 = 1 > sqrt(n/m) L_C^{1/2} = 1/sqrt(2)",
              (grad**2).subs(point), ">", sp.sqrt(loss.subs(point)))
    claim = ("REFUTES Lemma D.21 as stated: ||grad||^2 is homogeneous of degree 2 under (W, y) -> (tW, ty), "
             "sqrt(n/m) L_C^{1/2} of degree 1; the clean one-neuron network w = x = 1, y = 0 (c = 1) already gives 1 > 0.7071")
    return S.done(st.id, "bound", claim)


def refute_event_level(rhs=None) -> Derivation:
    st = LEMMA_D_21_PROOF
    dv, kv, dl, nv = 1, 1, sp.Rational(1, 2), 15
    sv = s_value.subs({d: dv, delta: dl})
    P1 = P_t_exact.subs(t, C_value).subs({kappa: kv, d: dv, s: sv})
    P1_erfc = sp.erfc(-sv / sp.sqrt(2)) / 2 - sp.erfc((sv + 2) / sp.sqrt(2)) / 2
    S = Steps()
    S.equal("lemma.D.22's exact law at t = C, d = kappa = 1, delta = 1/2 is P_1 in erfc form", P1, P1_erfc)
    S.compare("P(||c_i||_inf <= C, i = 1..15) = P_1^15 < 1 - delta = 1/2 at d = kappa = 1, delta = 1/2",
              P1_erfc**nv, "<", 1 - dl)
    claim = ("REFUTES P(max_i ||c_i||_inf <= C) >= 1 - delta with C = 1 + kappa sqrt(2 log(2d/delta)): at d = kappa = 1, "
             "delta = 1/2 and n = 15 masks the event has probability P_1^15 = 0.4776 < 1/2 (sympy's adaptive evalf)")
    return S.done(st.id, "event_level", claim)


DERIVATIONS = {
    ("asm.5.1.10", "one_neuron"): asm_one_neuron,
    ("lemma.D.21.proof", "cauchy_schwarz"): d21_cauchy_schwarz,
    ("lemma.D.21.proof", "max"): d21_max,
    ("lemma.D.21.proof", "conclusion"): d21_conclusion,
    ("lemma.D.21.proof", "event"): d21_event,
    ("lemma.D.22", "exact"): d22_exact,
    ("lemma.D.22", "union"): d22_union,
    ("lemma.D.22", "bound"): d22_bound,
}

REFUTATIONS = {
    ("asm.5.1.10", "bound"): lambda rhs=None: refute_needed_bounded("asm.5.1.10"),
    ("lemma.5.5", "bound"): lambda rhs=None: refute_needed_bounded("lemma.5.5"),
    ("lemma.D.21", "bound"): refute_d21,
    ("lemma.D.21.proof", "event_level"): refute_event_level,
}
