"""SymPy witnesses of the meanfield pack: eq. (23) and the derivative kernel from their polar
definitions, the arcsine kernel by Price's theorem, the chain rule behind (11) and (14), the
constant of Lemma 1's proof, and the two refutations (Lemma 1's kappa, Lemma 3's K).

Polar form.  With (u, v) = (a r cos(phi), b r cos(phi - theta)), r e^{-r^2/2} dr dphi/(2 pi) the
law of the whitened pair, a positively homogeneous s of degree p (s(t) = slope(sign t) |t|^p)
gives E[s(u) s(v)] = (a b)^p M_p / (2 pi) * sum over the four arcs between the zeros of
cos(phi) and cos(phi - theta) of slope * slope * int cos(phi)^p cos(phi - theta)^p dphi, with
M_p = int_0^oo r^(2p+1) e^{-r^2/2} dr.  For 0 < theta < pi the arcs are (theta - pi/2, pi/2)
(u, v > 0), (pi/2, theta + pi/2) (u < 0 < v), (theta + pi/2, 3pi/2) (u, v < 0) and
(3pi/2, theta + 3pi/2) (v < 0 < u).
"""
from __future__ import annotations

import sympy as sp

from theory.core import dual_kernels as dk
from theory.core.derivation import Steps

from . import dynamics as dy
from . import theorems as _thm

phi, r = sp.symbols("phi r", real=True)
th = sp.Symbol("theta", positive=True)            # 0 < theta < pi on the arcs below
ARCS = ((th - sp.pi / 2, sp.pi / 2, 1, 1), (sp.pi / 2, th + sp.pi / 2, -1, 1),
        (th + sp.pi / 2, 3 * sp.pi / 2, -1, -1), (3 * sp.pi / 2, th + 3 * sp.pi / 2, 1, -1))


def _polar_kernel(slopes, power):
    """(a b)^p M_p/(2 pi) sum_arcs slope(su) slope(sv) int cos(phi)^p cos(phi - theta)^p dphi."""
    moment = sp.integrate(r ** (2 * power + 1) * sp.exp(-r**2 / 2), (r, 0, sp.oo))
    total = sp.S.Zero
    for lo, hi, su, sv in ARCS:
        # product to sum: cos(phi) cos(phi - theta) = (cos(2 phi - theta) + cos(theta))/2
        body = (sp.cos(2 * phi - th) + sp.cos(th)) / 2 if power else sp.S.One
        total += slopes[su] * slopes[sv] * sp.integrate(body, (phi, lo, hi))
    scale = (dk.a * dk.b) ** power if power else 1
    return scale * moment * total / (2 * sp.pi)


def _piecewise_linear(statement, part, slopes, power, closed):
    s = Steps()
    derived = _polar_kernel(slopes, power)
    s.zero(f"E[s s] from the polar definition, slopes {slopes[1]} (t > 0) and {slopes[-1]} (t < 0)",
           sp.expand(sp.expand_trig(derived - closed.subs(dk.theta, th))))
    return s.done(statement, part, f"{part}: the polar integral of the definition equals the closed form for 0 < theta < pi")


def relu():
    return _piecewise_linear("eq.23", "relu", {1: 1, -1: 0}, 1, dk.RELU)


def abs_():
    return _piecewise_linear("eq.23", "abs", {1: 1, -1: -1}, 1, dk.ABS)


def leaky():
    return _piecewise_linear("eq.23", "leaky_relu", {1: 1, -1: dk.alpha}, 1, dk.LEAKY)


def relu_step():
    return _piecewise_linear("eq.23.prime", "relu", {1: 1, -1: 0}, 0, dk.RELU_STEP)


def sign():
    return _piecewise_linear("eq.23.prime", "abs", {1: 1, -1: -1}, 0, dk.SIGN)


def leaky_step():
    return _piecewise_linear("eq.23.prime", "leaky_relu", {1: 1, -1: dk.alpha}, 0, dk.LEAKY_STEP)


def erf_price():
    """Price's theorem: d/dc E[erf(u) erf(v)] = E[erf'(u) erf'(v)] at covariance c; with
    E[erf'(u) erf'(v)] = (4/pi) E[e^{-u^2 - v^2}] = (4/pi) det(I + 2 Sigma)^{-1/2} and value 0 at
    c = 0 (erf is odd), the arcsine form follows; the atan2 form is the same angle."""
    a, b = dk.a, dk.b
    c = sp.Symbol("c", real=True)
    Sigma = sp.Matrix([[a**2, c], [c, b**2]])
    det = (sp.eye(2) + 2 * Sigma).det()
    arcsine = 2 / sp.pi * sp.asin(2 * c / sp.sqrt((1 + 2 * a**2) * (1 + 2 * b**2)))
    s = Steps()
    s.zero("d/dc of the arcsine form equals (4/pi) det(I + 2 Sigma)^(-1/2)",
           sp.simplify(sp.diff(arcsine, c) - 4 / sp.pi / sp.sqrt(det)))
    s.zero("the arcsine form vanishes at c = 0", arcsine.subs(c, 0))
    s.zero("det(I + 2 Sigma) at c = a b cos(theta) is R = 1 + 2a^2 + 2b^2 + 4a^2b^2 sin^2(theta)",
           sp.expand(sp.simplify(det.subs(c, a * b * sp.cos(dk.theta)) - dk.R)))
    s.zero("the derivative kernel (4/pi)/sqrt(R) is (4/pi) det(I + 2 Sigma)^(-1/2)",
           sp.simplify(dk.ERF_PRIME - 4 / sp.pi / sp.sqrt(det.subs(c, a * b * sp.cos(dk.theta)))))
    # sin(atan2(y, x)) = y / sqrt(x^2 + y^2) for x > 0: the atan2 form is the arcsine of 2c/sqrt((1+2a^2)(1+2b^2))
    y, x = 2 * a * b * sp.cos(dk.theta), sp.sqrt(dk.R)
    s.zero("x^2 + y^2 of the atan2 form is (1 + 2a^2)(1 + 2b^2)",
           sp.expand(sp.expand_trig(x**2 + y**2 - (1 + 2 * a**2) * (1 + 2 * b**2)).subs(sp.sin(dk.theta)**2, 1 - sp.cos(dk.theta)**2)))
    return s.done("eq.23", "erf", "the arcsine kernel from Price's theorem; atan2 form = arcsine form")


def _small_network(m=2, n=2, D=2):
    """The chain rule of (7)-(14) on an explicit small network: symbols for the embedding phi_ja,
    targets y_a, W_ij(t) functions of time, sigma a generic differentiable function, c = (c, -c)."""
    t = sp.Symbol("t")
    ch = dy.c_hat
    c = [ch if i % 2 == 0 else -ch for i in range(m)]
    Phi = sp.Matrix(D, n, lambda j, a: sp.Symbol(f"phi_{j}{a}"))
    y = [sp.Symbol(f"y_{a}") for a in range(n)]
    W = sp.Matrix(m, D, lambda i, j: sp.Function(f"W_{i}{j}")(t))
    sigma = sp.Function("sigma")
    h = [[sum(W[i, j] * Phi[j, a] for j in range(D)) / sp.sqrt(D) for a in range(n)] for i in range(m)]
    f = [sum(c[i] * sigma(h[i][a]) for i in range(m)) / m for a in range(n)]
    res = [f[a] - y[a] for a in range(n)]
    G = Phi.T * Phi / D
    sp_ = [[sp.Subs(sp.Derivative(sigma(sp.Symbol("s")), sp.Symbol("s")), sp.Symbol("s"), h[i][a]) for a in range(n)] for i in range(m)]
    # gradient flow (10)
    Wdot = {sp.Derivative(W[i, j], t): -c[i] / sp.sqrt(D) * sum(res[a] * sp_[i][a] * Phi[j, a] for a in range(n))
            for i in range(m) for j in range(D)}
    return dict(t=t, c=c, Phi=Phi, W=W, h=h, res=res, G=G, sp=sp_, Wdot=Wdot, m=m, n=n)


def _flow(expr, net):
    return sp.diff(expr, net["t"]).subs(net["Wdot"]).doit()


def eq11():
    net = _small_network()
    s = Steps()
    for i in range(net["m"]):
        for a in range(net["n"]):
            rhs = -net["c"][i] * sum(net["G"][a, b] * net["res"][b] * net["sp"][i][b] for b in range(net["n"]))
            s.zero(f"dh_{i}(x_{a})/dt under (10) equals (11)", sp.expand(_flow(net["h"][i][a], net) - rhs.doit()))
    return s.done("eq.11", "h", "on m = n = D = 2, (10) induces (11) with G = Phi^T Phi / D (12)")


def eq14():
    net = _small_network()
    m, n = net["m"], net["n"]
    loss = sum(rr**2 for rr in net["res"]) / 2
    rhs = -dy.c_hat**2 / m * sum(net["G"][a, b] * net["res"][a] * net["res"][b] * net["sp"][i][a] * net["sp"][i][b]
                                 for i in range(m) for a in range(n) for b in range(n))
    s = Steps()
    s.zero("dL/dt under (10) equals the quadratic form of (14)", sp.expand(_flow(loss, net) - rhs.doit()))
    return s.done("eq.14", "identity", "on m = n = D = 2 with c = (c_hat, -c_hat), (10) gives the identity of (14)")


def lemma1_constant():
    """The constant of Lemma 1's proof: (52)'s last step and what (53) x 3/2 yields."""
    t = sp.Symbol("t")
    L = sp.Function("L", positive=True)(t)
    s = Steps()
    s.zero("Ldot L^(-1/2) = sqrt(2) d/dt (2L)^(1/2): (52) drops this sqrt(2)",
           sp.simplify(sp.diff(L, t) / sp.sqrt(L) - sp.sqrt(2) * sp.diff(sp.sqrt(2 * L), t)))
    w = dy.I_r - dy.I_l
    s.zero("3 C_2 = 9 lambda_2/(sqrt(2) lambda_1 K (I_r - I_l))",
           sp.simplify(dy.KAPPA_STAR - 9 * dy.lam2 / (sp.sqrt(2) * dy.lam1 * dy.K_s * w)))
    s.zero("(3/2) sqrt(2) C_2 (what (53) gives) = 9 lambda_2/(2 lambda_1 K (I_r - I_l))",
           sp.simplify(dy.KAPPA_53 - 9 * dy.lam2 / (2 * dy.lam1 * dy.K_s * w)))
    s.zero("the printed kappa is the proof's times (I_r - I_l)^2",
           sp.simplify(dy.KAPPA_PRINTED - dy.KAPPA_53 * w**2))
    return s.done("lemma.1.proof", "kappa*", "the proof's chain (46)-(53) gives kappa* = 3 C_2, with (I_r - I_l) in the denominator")


#: Lemma 1's counterexample (errata E1): ReLU, d = n = 1, x = 1 (G = 1), m = 2, c = (2, -2),
#: W^0 = (1, 1), y = 1, I = (3/4, 5/4) (K_sigma' = 1 on I, middle third (11/12, 13/12) holds h^0 = 1)
CE1 = dict(c_hat=2, y=1, G=1, I=(sp.Rational(3, 4), sp.Rational(5, 4)), h0=1)


def lemma1_trajectory(t):
    """The exact gradient flow of CE1 while both pre-activations stay positive: r = -e^{-4t},
    h_1 = 1 + (1 - e^{-4t})/2, h_2 = 1 - (1 - e^{-4t})/2, L = e^{-8t}/2."""
    e = sp.exp(-4 * t)
    return dict(r=-e, h1=1 + (1 - e) / 2, h2=1 - (1 - e) / 2, L=e**2 / 2)


def lemma1_refuted():
    t = sp.Symbol("t", nonnegative=True)
    ch, G = CE1["c_hat"], CE1["G"]
    tr = lemma1_trajectory(t)
    s = Steps()
    f = (ch * tr["h1"] - ch * tr["h2"]) / 2            # relu(h) = h while h > 0
    s.zero("r = f - y on the trajectory", sp.simplify(f - CE1["y"] - tr["r"]))
    s.zero("dh_1/dt = -c_1 G r sigma'(h_1) (11)", sp.simplify(sp.diff(tr["h1"], t) + ch * G * tr["r"]))
    s.zero("dh_2/dt = -c_2 G r sigma'(h_2) (11)", sp.simplify(sp.diff(tr["h2"], t) - ch * G * tr["r"]))
    s.true("h_2 stays >= 1/2 > 0 (ReLU linear)", sp.Ge(tr["h2"].subs(t, sp.oo), sp.Rational(1, 2)))
    t1 = sp.log(2)
    lo, hi = CE1["I"]
    s.true("at t = log 2 both neurons have left I (eta^t = 0)",
           sp.And(sp.Gt(tr["h1"].subs(t, t1), hi), sp.Lt(tr["h2"].subs(t, t1), lo)))
    subs = {dy.lam1: G, dy.lam2: G, dy.K_s: 1, dy.I_l: lo, dy.I_r: hi}
    rhs = 1 - dy.KAPPA_PRINTED.subs(subs) * (sp.sqrt(tr["L"].subs(t, 0)) - sp.sqrt(tr["L"].subs(t, t1))) / ch
    s.compare("the printed right side of (19) at t = log 2 is positive: (19) fails, 0 >= it is false",
              sp.nsimplify(rhs), ">", 0)
    return s.done("lemma.1", "19", "ReLU, m = 2, n = d = 1: (19) with the printed kappa fails at t = log 2")


#: Lemma 3's smallest counterexample (errata E2): ReLU, I = (0, 2500), G_aa = 50 (x = sqrt(50), d = 1)
CE2 = dict(I=(0, 2500), G=50)


def lemma3_refuted():
    lo, hi = CE2["I"]
    K = dy.K_PRINTED.subs({dy.I_l: lo, dy.I_r: hi, dy.lam1: CE2["G"], dy.lam2: CE2["G"]})
    s = Steps()
    s.zero("K(I, 50, 50) = 25/(3 sqrt(2 pi) e)", sp.simplify(K - 25 / (3 * sp.sqrt(2 * sp.pi) * sp.E)))
    s.compare("K > 1 >= eta^0, so P(eta^0 > K) = 0 < 1 - delta for every m, delta", K, ">", 1)
    return s.done("lemma.3", "56", "ReLU, I = (0, 2500), G = 50: the printed K exceeds 1")


def lemma2_repaired():
    """The steps of ``lemma.2.proof`` (Appendix E.1 repaired): sub-Gaussian proxy, Chernoff, the
    repaired union bound, the repaired (66), and the width they give."""
    h, s_, a, G = sp.Symbol("h", real=True), sp.Symbol("s", real=True), sp.Symbol("a", positive=True), sp.Symbol("G", positive=True)
    u, v, mm = sp.symbols("u v m", positive=True)
    dens = sp.exp(-h**2 / (2 * G)) / sp.sqrt(2 * sp.pi * G)
    st = Steps()
    # |X| <= a |h|, X symmetric: E e^{sX} = sum_k s^{2k} E X^{2k}/(2k)! <= E cosh(s a h) = exp(s^2 a^2 G/2)
    st.zero("E cosh(s a h) = exp(s^2 a^2 G/2) for h ~ N(0, G): the proxy of a symmetric X with |X| <= a |h|",
            sp.simplify(sp.integrate(sp.cosh(s_ * a * h) * dens, (h, -sp.oo, sp.oo), conds="none") - sp.exp(s_**2 * a**2 * G / 2)))
    # Chernoff for the mean of m iid with proxy v: P(f >= u) <= exp(m (-s u + s^2 v/2)), minimised at s = u/v
    expo = mm * (-s_ * u + s_**2 * v / 2)
    st.zero("Chernoff: the exponent m(-s u + s^2 v/2) is stationary at s = u/v", sp.diff(expo, s_).subs(s_, u / v))
    st.zero("... where it equals -m u^2/(2 v)", sp.simplify(expo.subs(s_, u / v) + mm * u**2 / (2 * v)))
    p_, q_ = sp.symbols("p q", nonnegative=True)          # p, q = f_1^2, f_2^2
    st.zero("union bound repaired (pigeonhole, n = 2): 2 max(p, q) - p - q = |p - q| >= 0, so p + q >= |y|^2 forces "
            "max(f_a^2) >= |y|^2/2 (|y|^2/n in general)",
            sp.simplify((2 * sp.Max(p_, q_) - p_ - q_ - sp.Abs(p_ - q_)).rewrite(sp.Piecewise)))
    st.zero("(66) repaired: |f| <= rho |y| gives L^0 <= (1 + rho)^2 |y|^2/2, which is |y|^2 at rho = sqrt(2) - 1",
            sp.expand((1 + _thm.RHO) ** 2 / 2 - 1))
    # 2n exp(-m rho^2 |y|^2/(2 n c^2 L^2 G_max)) = delta  <=>  m = the repaired width
    mw = _thm.WIDTH_LEMMA2_STAR
    tail = 2 * _thm.n * sp.exp(-mw * _thm.RHO**2 * _thm.y_norm**2 / (2 * _thm.n * _thm.c_hat**2 * _thm.L_s**2 * _thm.G_max))
    st.zero("at m = m*_min the repaired union bound 2n exp(-m rho^2 |y|^2/(2 n c^2 L^2 G_max)) equals delta",
            sp.simplify(sp.expand_log(tail - _thm.delta, force=True)))
    return st.done("lemma.2.proof", "55*", "every step of Lemma 2's repaired proof; the width m*_min = 2 n c^2 L^2 G_max log(2n/delta)/((sqrt 2 - 1)^2 |y|^2)")


def lemma2_union_refuted():
    """(64)'s first inequality for sigma(t) = t, n = 2, m = 1, c = 1, G = I_2, |y| = 2: f ~ N(0, I_2),
    P(f_1^2 + f_2^2 >= 4) = e^{-2} (chi-square with 2 degrees of freedom) while
    sum_a P(|f_a| >= 2) = 2 erfc(sqrt 2)."""
    st = Steps()
    r = sp.Symbol("r", positive=True)
    lhs = sp.integrate(r * sp.exp(-r**2 / 2), (r, 2, sp.oo))      # polar: P(|f| >= 2) for f ~ N(0, I_2)
    st.zero("P(f_1^2 + f_2^2 >= 4) = e^{-2}", sp.simplify(lhs - sp.exp(-2)))
    g = sp.Symbol("g", real=True)
    one = 2 * sp.integrate(sp.exp(-g**2 / 2) / sp.sqrt(2 * sp.pi), (g, 2, sp.oo))
    st.zero("P(|f_a| >= 2) = erfc(sqrt 2)", sp.simplify(one - sp.erfc(sp.sqrt(2))))
    st.compare("(64)'s first inequality fails: P(sum_a f_a^2 >= |y|^2) > sum_a P(|f_a| >= |y|)",
               sp.exp(-2), ">", 2 * sp.erfc(sp.sqrt(2)))
    return st.done("lemma.2", "64", "sigma(t) = t, n = 2, m = 1, G = I, |y| = 2: e^{-2} = 0.1353 > 2 erfc(sqrt 2) = 0.0910")


def lemma2_cross_term_refuted():
    """(66)'s middle step at n = 1, y = 1, f = -1 (so sum_a f_a^2 = |y|^2, the event of (64) holds)."""
    f, yv = -1, 1
    st = Steps()
    st.compare("sum_a f_a^2 <= |y|^2 holds", sp.Integer(f) ** 2, "<=", yv**2)
    st.compare("but (1/2)(f - y)^2 = 2 > (1/2) f^2 + (1/2) y^2 = 1: (66) drops -f y",
               sp.Rational(1, 2) * (f - yv) ** 2, ">", sp.Rational(1, 2) * f**2 + sp.Rational(1, 2) * yv**2)
    st.compare("and L^0 = 2 > |y|^2 = 1", sp.Rational(1, 2) * (f - yv) ** 2, ">", yv**2)
    return st.done("lemma.2", "66", "n = 1, y = 1, f^0 = -1: sum f^2 <= |y|^2 but L^0 = 2 |y|^2")


DERIVATIONS = {
    ("eq.23", "relu"): relu, ("eq.23", "abs"): abs_, ("eq.23", "leaky_relu"): leaky, ("eq.23", "erf"): erf_price,
    ("eq.23.prime", "relu"): relu_step, ("eq.23.prime", "abs"): sign, ("eq.23.prime", "leaky_relu"): leaky_step,
    ("eq.11", "h"): eq11, ("eq.14", "identity"): eq14, ("lemma.1.proof", "kappa*"): lemma1_constant,
    ("lemma.2.proof", "55*"): lemma2_repaired,
}
REFUTATIONS = {("lemma.1", "19"): lemma1_refuted, ("lemma.3", "56"): lemma3_refuted,
               ("lemma.2", "64"): lemma2_union_refuted, ("lemma.2", "66"): lemma2_cross_term_refuted}
