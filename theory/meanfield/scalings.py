"""Table 1 and Appendices B, C: the three scalings of the P-3L net (4)-(5) with D = m, what each
does in the first GD step, the Xavier equivalence (Appendix B, (25)-(30)) and the relation to the
maximum-update parameterisation (Appendix C, (31)-(36)).

Every scaling is an abc-parameterisation in the sense of [73] (Yang and Hu): layer l's effective
weight is m^(-a_l) w^l with raw w^l ~ N(0, m^(-2 b_l)) (z for l = 1, W for l = 2, c for l = 3),
and GD on the raw w^2 has step delta m^(-c).  Table 1 reads (a_1, a_2, a_3; c) as

    ours: (0, 1/2, 1; -1)     NTK: (0, 1/2, 1/2; 0)     MF: (0, 1, 1; -2)     (all b_l = 0),

and Appendix C's muP is (32)-(34): a = (-1/2, 0, 1/2), b_l = 1/2, c = 0.

First step (Table 1 with Section 2.2): with f = m^-alpha sum_i c_i sigma(h_i),
h_i = m^-beta sum_j W_ij phi_j, step m^gamma delta on W (alpha = a_3, beta = a_2, gamma = -c),
h is linear in W, so one GD step moves it exactly by

    Delta h_i(x_a) = -delta m^(gamma - alpha - 2 beta) c_i sum_b (sum_j phi_j(x_a) phi_j(x_b)) r_b sigma'(h_i(x_b)),

and sum_j phi_j phi_j = m G_ab (12) with D = m: Delta h = Theta(m^(1 + gamma - alpha - 2 beta)).  To first
order Delta f(x_a) = m^-alpha sum_i c_i sigma'_ia Delta h_ia, a sum of m terms of one sign
(c_i^2 = c_hat^2): Theta(m^(2 + gamma - 2 alpha - 2 beta)).  At initialisation h^0 = Theta(m^(1/2 - beta))
(a sum of m independent centred terms) and, for sigma(0) = 0, f^0 = Theta(m^(1/2 - alpha + min(0, 1/2 - beta))).
"""
from __future__ import annotations

import sympy as sp

from theory.core.derivation import Steps
from theory.core.statement import Equation, Kind, Param, Reading, Statement, Tex, reconstructed

from .dynamics import c_hat, delta, m

R = sp.Rational
theta = sp.Symbol(r"\theta", real=True)

#: (a_1, a_2, a_3), (b_1, b_2, b_3), c of each parameterisation (module docstring)
ABC = {
    "ours": ((0, R(1, 2), 1), (0, 0, 0), -1),
    "ntk": ((0, R(1, 2), R(1, 2)), (0, 0, 0), 0),
    "mf": ((0, 1, 1), (0, 0, 0), -2),
    "mup": ((-R(1, 2), 0, R(1, 2)), (R(1, 2),) * 3, 0),
}
TABLE1 = ("ours", "ntk", "mf")

#: the orders in m the text claims, per Table 1 scaling: (h^0, f^0, Delta h, Delta f) after one step;
#: ours and NTK from Section 2.2, MF's h^0 from Section 4.3, the rest by the module docstring's count
CLAIMED_ORDERS = {
    "ours": (0, -R(1, 2), 0, 0),
    "ntk": (0, 0, -R(1, 2), 0),
    "mf": (-R(1, 2), -1, 0, 0),
}
QUANTITIES = ("h0", "f0", "dh", "df")


def transform(abc, th):
    """The symmetry (35) of [73]: a_l + theta, b_l - theta, c - 2 theta."""
    a, b, c = abc
    return tuple(x + th for x in a), tuple(x - th for x in b), c - 2 * th


def r_exponent(abc):
    """(36): r = min(b_{L+1}, a_{L+1} + c) + a_{L+1} + c + min_{l <= L}(2 a_l - 1{l != 1}), here L = 2."""
    a, b, c = abc
    return sp.Min(b[-1], a[-1] + c) + a[-1] + c + sp.Min(*(2 * a[l] - (1 if l else 0) for l in range(len(a) - 1)))


# ------------------------------------------------------------------------------ statements
dh, df, h0s, f0s = (Tex(s) for s in (r"h_i^1(x)-h_i^0(x)", r"f^1(x)-f^0(x)", r"h_i^0(x)", r"f^0(x)"))
PARAMS = (Param(m, sp.Naturals, "width (D = m)"), Param(delta, sp.Interval.open(0, sp.oo), "step size"),
          Param(c_hat, sp.Interval.open(0, sp.oo), r"$|c_i|$"))

TABLE_1 = Statement(
    id="table.1", ref="Table 1; Section 2.2 ('Feature learning', before (15)); Section 4.3",
    title="three scalings of the P-3L net (D = m): one GD step moves h by Theta(1) (ours, MF) or Theta(m^-1/2) (NTK), and f by Theta(1) in all three",
    kind=Kind.ASYMPTOTIC, params=PARAMS,
    equations=tuple(Equation(f"{name}.{q}", lhs, m ** e, "~")
                    for name in TABLE1 for q, lhs, e in zip(QUANTITIES, (h0s, f0s, dh, df), CLAIMED_ORDERS[name])),
    assumptions=(r"$D=m$, $\phi_j(x)=\sigma(z_j^\top x/\sqrt d)$, $z_j\sim\mathcal N(0,I_d)$, $W^0_{ij}\sim\mathcal N(0,1)$, $c_i=\pm\hat c$",
                 r"$\sigma$ Lipschitz with $\sigma(0)=0$ and $\sigma'\neq0$ near 0 (ReLU, tanh)", "d, n, delta fixed as m grows"),
    where=((Tex(r"\text{ours}"), Tex(r"f=\frac1m\sum_ic_i\sigma(h_i),\ h_i=\frac1{\sqrt m}\sum_jW_{ij}\phi_j,\ W^{k+1}=W^k-m\delta\,\partial\mathcal L/\partial W")),
           (Tex(r"\text{NTK}"), Tex(r"f=\frac1{\sqrt m}\sum_ic_i\sigma(h_i),\ h_i=\frac1{\sqrt m}\sum_jW_{ij}\phi_j,\ W^{k+1}=W^k-\delta\,\partial\mathcal L/\partial W")),
           (Tex(r"\text{MF}"), Tex(r"f=\frac1m\sum_ic_i\sigma(h_i),\ h_i=\frac1m\sum_jW_{ij}\phi_j,\ W^{k+1}=W^k-m^2\delta\,\partial\mathcal L/\partial W"))),
    notes=("Table 1 prints the three models and step rules (the 'where' entries) and nothing else; the orders are "
           "rebuilt: Section 2.2 says under the NTK scaling the features move O(1/sqrt m) while f changes Omega(1), "
           "and that with 1/m features move at least |Delta f|/(c L) (15); Section 4.3 says MF features start near 0. "
           "Exponents: h^0, f^0 at initialisation, Delta h, Delta f after one step (and after any fixed number of steps)."),
    provenance=reconstructed(
        "Table 1 (models, printed) with Section 2.2 and Section 4.3 (the first-step orders)",
        words=("Table 1 prints the three models and step rules only; Section 2.2: under the NTK scaling the "
               "features move O(1/sqrt m) while f changes Omega(1), and with 1/m they move at least "
               "|Delta f|/(c L) (15); Section 4.3: mean-field features start near 0"),
        readings=(
            Reading("one-step", "the orders of h^0, f^0 at initialisation and of Delta h, Delta f after one GD step", 1),
            Reading("fixed-steps", "the same orders after any fixed number of GD steps", 2),
        )),
)

theta1, theta2, theta3 = (Tex(rf"\theta^{{({k})}}") for k in (1, 2, 3))
APP_B = Statement(
    id="app.B", ref="Appendix B, (25)-(30)",
    title="Xavier: with c = sqrt(m) theta^(3), W = sqrt(m) theta^(2), z = sqrt(m) theta^(1), the net (25)-(26) is (27)-(28); for sigma positively homogeneous of degree 1 it is (4)-(5) with D = m, and GD (29) with step delta on theta^(2) is (30) = (9) with step m delta on W",
    kind=Kind.IDENTITY, params=PARAMS,
    equations=(Equation("27", Tex(r"\sum_i\theta^{(3)}_i\sigma(h_i(x))"), Tex(r"\frac1{\sqrt m}\sum_ic_i\sigma(h_i(x))")),
               Equation("homogeneous", Tex(r"f_{(27)-(28)}(x)"), Tex(r"f_{(4)-(5)}(x)")),
               Equation("30", Tex(r"\sqrt m\big(\theta^{(2)}_{ij}-\delta\,\partial\mathcal L/\partial\theta^{(2)}_{ij}\big)"),
                        Tex(r"W_{ij}-m\delta\,\partial\mathcal L/\partial W_{ij}"))),
    assumptions=(r"$D=m$", r"$\sigma(\lambda t)=\lambda\sigma(t)$ for $\lambda>0$ (ReLU, leaky ReLU, $|\cdot|$, linear) for the second and third parts"),
    where=((theta1, Tex(r"\mathcal N(0,\tfrac1{m+d})")), (theta2, Tex(r"\mathcal N(0,\tfrac1{2m})")), (theta3, Tex(r"\mathcal N(0,\tfrac1{m+1})"))),
    notes=("'Homogeneous' must mean positively homogeneous of degree 1: degree p gives f_(27) = m^(-(1+p^2)/2) "
           "sum c sigma(h), which is (4) only at p = 1.  The equivalence is in function space: (28)'s h_i is "
           "m^(-1/2) times (5)'s.  The variances printed are 1/(fan_in + fan_out), half of Glorot's 2/(fan_in + fan_out) "
           "[30]; under them W = sqrt(m) theta^(2) ~ N(0, 1/2) (not Assumption 3's N(0, 1)) and c is Gaussian, not "
           "Rademacher: the laws agree in order (O(1), as the text says), not in constants.  The GD identity (30) is "
           "exact for every initial point."),
)

APP_C = Statement(
    id="app.C", ref="Appendix C, (31)-(36)",
    title="our parameterisation is muP moved by the symmetry (35) with theta = 1/2, so it has r = 0 (36): feature learning in the sense of [73]",
    kind=Kind.IDENTITY, params=(Param(theta, sp.Reals, "the symmetry's shift"),),
    equations=(Equation("35", Tex(r"(a,b,c)_{\mu P}+(\tfrac12,-\tfrac12,-1)"), Tex(r"(a,b,c)_{\text{ours}}")),
               Equation("36", sp.Symbol("r"), sp.S.Zero)),
    assumptions=(r"$D=m\gg d$", "the partially-trained L-layer net of Appendix H (only the second-to-last layer trained)"),
    where=((Tex(r"(a,b,c)_{\text{ours}}"), Tex(r"a=(0,\tfrac12,\dots,\tfrac12,1),\ b_l=0,\ c=-1\ (31)")),
           (Tex(r"(a,b,c)_{\mu P}"), Tex(r"a=(-\tfrac12,0,\dots,0,\tfrac12),\ b_l=\tfrac12,\ c=0\ (32)-(34)"))),
    notes=("(35) leaves every effective weight m^-a w (law N(0, m^(-2(a+b)))) and every GD increment "
           "(m^(-c-2a) times the effective gradient) unchanged, so the two nets have the same trajectory in function "
           "space.  [73]'s classification is for training all layers; here only W is trained, and (36)'s minimum is 0 "
           "over the trained layer alone as well."),
)

STATEMENTS = (TABLE_1, APP_B, APP_C)


# ------------------------------------------------------------------------------ derivations
def _first_step_net(n_neurons=2, D=2, n=2):
    """One GD step of f = s_f sum_i c_i sigma(h_i), h_i = s_h sum_j W_ij phi_j on an explicit net
    with symbolic multipliers s_f, s_h and step eta; returns the exact and the claimed Delta h."""
    s_f, s_h, eta = sp.symbols("s_f s_h eta", positive=True)
    sigma = sp.Function("sigma")
    Phi = sp.Matrix(D, n, lambda j, a: sp.Symbol(f"phi_{j}{a}"))
    y = [sp.Symbol(f"y_{a}") for a in range(n)]
    c = [sp.Symbol(f"c_{i}") for i in range(n_neurons)]
    W = sp.Matrix(n_neurons, D, lambda i, j: sp.Symbol(f"W_{i}{j}"))
    h = lambda Wm: [[s_h * sum(Wm[i, j] * Phi[j, a] for j in range(D)) for a in range(n)] for i in range(n_neurons)]
    h0 = h(W)
    f = [s_f * sum(c[i] * sigma(h0[i][a]) for i in range(n_neurons)) for a in range(n)]
    loss = sum((f[a] - y[a]) ** 2 for a in range(n)) / 2
    dsigma = sp.Function("sigma'")
    # sigma'(h) for SymPy's Subs(Derivative(sigma(u), u), u, h): a plain function, so that expand suffices
    grad = W.applyfunc(lambda w: sp.diff(loss, w).replace(lambda e: isinstance(e, sp.Subs), lambda e: dsigma(e.point[0])))
    h1 = h(W - eta * grad)
    r = [f[a] - y[a] for a in range(n)]
    sp_ = [[dsigma(h0[i][b]) for b in range(n)] for i in range(n_neurons)]
    claimed = [[-eta * s_f * s_h**2 * c[i] * sum((Phi.T * Phi)[a, b] * r[b] * sp_[i][b] for b in range(n))
                for a in range(n)] for i in range(n_neurons)]
    exact = [[h1[i][a] - h0[i][a] for a in range(n)] for i in range(n_neurons)]
    return exact, claimed, (s_f, s_h, eta)


def table1_first_step():
    """The exact first-step increment of h (h is linear in W) on an explicit net, then the
    exponents of m it and the linearised Delta f carry in each scaling, against the claimed ones."""
    s = Steps()
    exact, claimed, (s_f, s_h, eta) = _first_step_net()
    s.zero("one GD step moves h_i(x_a) by exactly -eta s_f s_h^2 c_i sum_b (Phi^T Phi)_ab r_b sigma'(h_i(x_b))",
           (sp.Matrix(exact) - sp.Matrix(claimed)).applyfunc(sp.expand))
    for name in TABLE1:
        (_, beta, alpha), _, cexp = ABC[name]
        scale = {s_f: m ** -alpha, s_h: m ** -beta, eta: m ** -cexp}
        # (Phi^T Phi)_ab = m G_ab (12) with D = m; Delta f sums m terms c_i^2 sigma' sigma' of one sign
        e_dh = sp.powsimp((eta * s_f * s_h**2).subs(scale) * m).as_powers_dict().get(m, 0)
        e_df = sp.powsimp((eta * s_f**2 * s_h**2).subs(scale) * m * m).as_powers_dict().get(m, 0)
        e_h0 = sp.powsimp(s_h.subs(scale) * sp.sqrt(m)).as_powers_dict().get(m, 0)
        got = (e_h0, R(1, 2) - alpha + sp.Min(0, e_h0), e_dh, e_df)
        s.zero(f"{name}: exponents of (h^0, f^0, Delta h, Delta f) from the step rule equal the text's", sp.Matrix(got) - sp.Matrix(CLAIMED_ORDERS[name]))
    return s.done("table.1", "first-step", "one GD step: Delta h = Theta(m^0) (ours, MF), Theta(m^-1/2) (NTK); Delta f = Theta(m^0) in all three")


def _three_layer(sigma, scale, x, z, W, c):
    """(25)-(26) at raw weights (z, W, c) times ``scale``: f = sum_i c_i sigma(sum_j W_ij sigma(z_j.x/sqrt d))."""
    d = len(x)
    phi = [sigma(sum(scale * z[j][k] * x[k] for k in range(d)) / sp.sqrt(d)) for j in range(len(z))]
    return sum(scale * c[i] * sigma(sum(scale * W[i][j] * phi[j] for j in range(len(z)))) for i in range(len(c)))


def xavier_equivalence():
    """(25)-(28) and (30) on an explicit net of 2 neurons per layer, d = 2, with the width m a free
    positive symbol (the identities hold for every m > 0) and sigma(t) = p t + q |t|, the general
    positively homogeneous function of degree 1 (``factor_terms`` lets |.| see the positive factors)."""
    p, q = sp.symbols("p q", real=True)
    sigma = lambda t: p * t + q * sp.Abs(sp.factor_terms(t))
    N, d = 2, 2
    x = [sp.Symbol(f"x_{k}", real=True) for k in range(d)]
    z = [[sp.Symbol(f"z_{j}{k}", real=True) for k in range(d)] for j in range(N)]
    W = [[sp.Symbol(f"W_{i}{j}", real=True) for j in range(N)] for i in range(N)]
    c = [sp.Symbol(f"c_{i}", real=True) for i in range(N)]
    s = Steps()
    f25 = _three_layer(sigma, 1 / sp.sqrt(m), x, z, W, c)
    phi28 = [sigma(sum(z[j][k] * x[k] for k in range(d)) / sp.sqrt(m * d)) for j in range(N)]
    f27 = sum(c[i] * sigma(sum(W[i][j] * phi28[j] for j in range(N)) / sp.sqrt(m)) for i in range(N)) / sp.sqrt(m)
    s.zero("(25)-(26) at theta = (z, W, c)/sqrt(m) is (27)-(28)", sp.expand(f25 - f27))
    phi5 = [sigma(sum(z[j][k] * x[k] for k in range(d)) / sp.sqrt(d)) for j in range(N)]
    f4 = sum(c[i] * sigma(sum(W[i][j] * phi5[j] for j in range(N)) / sp.sqrt(m)) for i in range(N)) / m
    s.zero("sigma positively homogeneous of degree 1: (27)-(28) equals (4)-(5)", sp.expand(f27 - f4))
    # so L_X(theta^(2)) = L(sqrt(m) theta^(2)) for every theta^(2): the chain rule gives (29)-(30)
    t2, Wij = sp.symbols("theta_ij W_ij", real=True)
    Lf = sp.Function("L")
    grad = sp.diff(Lf(sp.sqrt(m) * t2), t2).subs(t2, Wij / sp.sqrt(m))
    dL = sp.Subs(sp.Derivative(Lf(sp.Symbol("w")), sp.Symbol("w")), sp.Symbol("w"), Wij)
    s.zero("(29)-(30): sqrt(m) (theta - delta dL_X/dtheta) at theta = W/sqrt(m) is W - m delta dL/dW",
           sp.expand((sp.sqrt(m) * (Wij / sp.sqrt(m) - delta * grad) - (Wij - m * delta * dL)).doit()))
    return s.done("app.B", "homogeneous", "for sigma(t) = p t + q|t|, (25)-(26) = (27)-(28) = (4)-(5) and GD (29) with step delta is (9) with step m delta")


def mup_equivalence():
    s = Steps()
    moved = transform(ABC["mup"], R(1, 2))
    s.zero("(35) with theta = 1/2 maps muP (32)-(34) to ours (31)", sp.Matrix([*moved[0], *moved[1], moved[2]]) - sp.Matrix([*ABC["ours"][0], *ABC["ours"][1], ABC["ours"][2]]))
    a, b, c = ABC["ours"]
    s.zero("(35) keeps a_l + b_l (the effective weights' law) and c + 2 a_2 (the trained layer's step)",
           sp.Matrix([*(x + y for x, y in zip(*transform((a, b, c), theta)[:2])), transform((a, b, c), theta)[2] + 2 * transform((a, b, c), theta)[0][1]])
           - sp.Matrix([*(x + y for x, y in zip(a, b)), c + 2 * a[1]]))
    s.zero("r of (36) is invariant under (35) (muP moved by any theta)", r_exponent(transform(ABC["mup"], theta)) - r_exponent(ABC["mup"]))
    s.equal("(36): r = 0 for ours", r_exponent(ABC["ours"]), 0)
    s.equal("r = 0 for muP", r_exponent(ABC["mup"]), 0)
    s.equal("and r = 1/2 > 0 for NTK (kernel regime)", r_exponent(ABC["ntk"]), R(1, 2))
    return s.done("app.C", "36", "ours = muP moved by (35) with theta = 1/2; r = 0 (36)")


DERIVATIONS = {("table.1", "first-step"): table1_first_step, ("app.B", "homogeneous"): xavier_equivalence,
               ("app.C", "36"): mup_equivalence}
