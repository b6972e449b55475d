"""SymPy witnesses of ``theory.meanfield.steps`` (and of the algebra of ``thm.1.proof``): the chain
rule behind (7)-(9) and (13) on explicit small networks, the slopes of the activations (16) and
Assumption 2 name, the algebra of Appendix E (57)-(61) and Appendix F (78)-(82); and three
refutations: the cubic of (16) (errata E7), (37)'s printed first line (errata E8).
"""
from __future__ import annotations

import sympy as sp
from sympy.calculus.util import minimum

from . import dynamics as dy
from . import steps as stp
from . import theorems as thm
from .derivations import _flow, _small_network
from theory.core.derivation import Steps


def _static_network(m=2, n=2, D=2, sigma=None, with_point=False):
    """f, L and W of an explicit net with constant weights W_ij, embedding phi_ja, c = (c, -c, ...),
    sigma a generic differentiable function unless given; with_point adds an input x off the data."""
    ch = dy.c_hat
    c = [ch if i % 2 == 0 else -ch for i in range(m)]
    Phi = sp.Matrix(D, n, lambda j, a: sp.Symbol(f"phi_{j}{a}"))
    W = sp.Matrix(m, D, lambda i, j: sp.Symbol(f"W_{i}{j}"))
    y = [sp.Symbol(f"y_{a}") for a in range(n)]
    sigma = sigma or sp.Function("sigma")
    h = [[sum(W[i, j] * Phi[j, a] for j in range(D)) / sp.sqrt(D) for a in range(n)] for i in range(m)]
    f = [sum(c[i] * sigma(h[i][a]) for i in range(m)) / m for a in range(n)]
    return dict(c=c, Phi=Phi, W=W, y=y, h=h, f=f, sigma=sigma, m=m, n=n, D=D,
                L=sum((f[a] - y[a]) ** 2 for a in range(n)) / 2)


def _dsigma(net, u):
    s = sp.Symbol("s")
    return sp.Subs(sp.Derivative(net["sigma"](s), s), s, u)


def eq8():
    """(8) by differentiating the raw loss of an explicit net (m = n = D = 2), and (9) = W - m delta (8)."""
    net = _static_network()
    m, n, D = net["m"], net["n"], net["D"]
    st = Steps()
    for i in range(m):
        for j in range(D):
            grad = sp.diff(net["L"], net["W"][i, j])
            formula = net["c"][i] / (m * sp.sqrt(D)) * sum(
                (net["f"][a] - net["y"][a]) * _dsigma(net, net["h"][i][a]) * net["Phi"][j, a] for a in range(n))
            st.zero(f"dL/dW_{i}{j} of the raw loss equals (8)", sp.expand((grad - formula).doit()))
            update = net["W"][i, j] - m * stp.delta * grad
            printed = net["W"][i, j] - stp.delta / sp.sqrt(D) * net["c"][i] * sum(
                (net["f"][a] - net["y"][a]) * _dsigma(net, net["h"][i][a]) * net["Phi"][j, a] for a in range(n))
            st.zero(f"W_{i}{j} - m delta dL/dW_{i}{j} equals (9)'s right side", sp.expand((update - printed).doit()))
    return st.done("eq.8", "8", "on m = n = D = 2, (8) is the gradient of the raw loss and (9) is W - m delta (8)")


def eq13():
    """(13) at the data and at a point x off the data, under the flow (10), on m = n = D = 2."""
    net = _small_network()
    m, n = net["m"], net["n"]
    D = net["Phi"].shape[0]
    phi_x = [sp.Symbol(f"phi_{j}x") for j in range(D)]
    sigma = sp.Function("sigma")
    s = sp.Symbol("s")
    hx = [sum(net["W"][i, j] * phi_x[j] for j in range(D)) / sp.sqrt(D) for i in range(m)]
    fx = sum(net["c"][i] * sigma(hx[i]) for i in range(m)) / m
    dsx = [sp.Subs(sp.Derivative(sigma(s), s), s, hx[i]) for i in range(m)]
    Gx = [sum(phi_x[j] * net["Phi"][j, a] for j in range(D)) / D for a in range(n)]
    st = Steps()
    first = sum(net["c"][i] * dsx[i] * _flow(hx[i], net) for i in range(m)) / m
    st.zero("(13), first line: d f(x)/dt = (1/m) sum_i c_i sigma'(h_i(x)) d h_i(x)/dt", sp.expand(_flow(fx, net) - first.doit()))
    second = -dy.c_hat**2 / m * sum(dsx[i] * sum(Gx[a] * net["res"][a] * net["sp"][i][a] for a in range(n)) for i in range(m))
    st.zero("(13), second line, with c_i^2 = c_hat^2 and G(x, x_a) = Phi(x)^T Phi(x_a)/D", sp.expand(_flow(fx, net) - second.doit()))
    for b in range(n):
        fb = net["res"][b] + sp.Symbol(f"y_{b}")
        second_b = -dy.c_hat**2 / m * sum(net["sp"][i][b] * sum(net["G"][b, a] * net["res"][a] * net["sp"][i][a] for a in range(n))
                                          for i in range(m))
        st.zero(f"(13) at the data point x_{b}", sp.expand(_flow(fb, net) - second_b.doit()))
    return st.done("eq.13", "13b", "on m = n = D = 2, the flow (10) moves f at any x as (13) says")


# ------------------------------------------------------------------------------ (16)'s examples
def _slopes(expr):
    """sigma' on t > 0 and on t < 0 (the pieces of a piecewise-linear sigma)."""
    tp, tn = sp.Symbol("t_p", positive=True), sp.Symbol("t_n", negative=True)
    return sp.diff(expr.subs(stp.t_, tp), tp), sp.diff(expr.subs(stp.t_, tn), tn)


def pl_examples():
    a = stp.alpha
    st = Steps()
    st.equal("linear: sigma' = 1 everywhere", sp.diff(stp.PL_EXAMPLES["linear"], stp.t_), 1)
    up, down = _slopes(stp.PL_EXAMPLES["leaky_relu"])
    st.equal("leaky ReLU: slope 1 on t > 0", up, 1)
    st.equal("leaky ReLU: slope alpha on t < 0 (so inf |sigma'| = alpha, 0 < alpha < 1)", down, a)
    ds = sp.diff(stp.PL_EXAMPLES["smoothed_leaky_relu"], stp.t_)
    st.equal("smoothed leaky ReLU: sigma' - alpha = (1 - alpha) e^t/(1 + e^t)", sp.simplify(ds - a - (1 - a) * sp.exp(stp.t_) / (1 + sp.exp(stp.t_))), 0)
    beta = sp.Symbol("beta", positive=True)          # 1 - alpha > 0
    st.compare("... which is > 0 (beta = 1 - alpha > 0), so sigma' > alpha", beta * sp.exp(stp.t_) / (1 + sp.exp(stp.t_)), ">", 0)
    st.equal("... and sigma' -> alpha as t -> -oo: inf |sigma'| = alpha", sp.limit(ds, stp.t_, -sp.oo), a)
    return st.done("eq.16.examples", "linear, leaky, smoothed", "linear (K = 1), leaky ReLU and its smoothing alpha t + (1 - alpha) softplus(t) (K = alpha) have |sigma'| >= K > 0")


def cubic_refuted():
    """sigma(t) = t^3: sigma'(0) = 0, so inf |sigma'| = 0; at W = 0 (every h = 0) the flow has dL/dt = 0
    while (16)'s right side -2 c^2 lambda_min K^2 L is negative for every K > 0 (y != 0)."""
    st = Steps()
    cubic = stp.PL_EXAMPLES["cubic"]
    st.equal("cubic: inf over R of |sigma'(t)| = |3 t^2| is 0", minimum(sp.Abs(sp.diff(cubic, stp.t_)), stp.t_, sp.S.Reals), 0)
    net = _small_network()
    sub = {net["W"][i, j]: 0 for i in range(net["m"]) for j in range(net["W"].shape[1])}
    loss = sum(rr**2 for rr in net["res"]) / 2
    rate = _flow(loss, net)
    cube = sp.Lambda(sp.Symbol("u"), sp.Symbol("u") ** 3)
    rate0 = rate.replace(sp.Function("sigma"), cube).doit().subs(sub)
    loss0 = loss.replace(sp.Function("sigma"), cube).doit().subs(sub)
    st.equal("on m = n = D = 2 with sigma = t^3 at W = 0: dL/dt = 0", sp.simplify(rate0), 0)
    y0 = sp.Symbol("y_0")
    st.compare("while L = |y|^2/2 > 0 (y = (1, 0)): (16) asks 0 <= -2 c^2 lambda_min K^2 L < 0",
               loss0.subs({y0: 1, sp.Symbol("y_1"): 0}), ">", 0)
    return st.done("eq.16.examples", "cubic", "sigma = t^3 has inf |sigma'| = 0, and (16) fails at W = 0 for every K > 0")


def asm2_examples():
    """sup |sigma'| and inf_I |sigma'| by hand-checked monotonicity (faster than ``calculus.util``'s search):
    sigma' even, maximal at 0 and decreasing in |t|, so its infimum over I = (-1, 1) is its value at |t| = 1."""
    t, tp = stp.t_, sp.Symbol("t_p", positive=True)
    q, u = sp.Symbol("q", positive=True), sp.Symbol("u", real=True)
    st = Steps()
    th = sp.diff(sp.tanh(t), t)
    st.equal("tanh: sigma' = 1 - tanh^2", th, 1 - sp.tanh(t) ** 2)
    st.compare("... <= 1 for real t, with equality at t = 0 (L_sigma = 1)", th, "<=", 1)
    st.equal("... at t = 0", th.subs(t, 0), 1)
    st.equal("tanh': even", th.subs(t, -t) - th, 0)
    st.equal("tanh': its derivative on t > 0 is -2 tanh(t)/cosh(t)^2", sp.diff(th.subs(t, tp), tp) + 2 * sp.tanh(tp) / sp.cosh(tp) ** 2, 0)
    st.compare("... < 0: decreasing in |t|, so inf over I = (-1, 1) is 1 - tanh(1)^2", -2 * sp.tanh(tp) / sp.cosh(tp) ** 2, "<", 0)
    st.compare("K = 1 - tanh(1)^2 > 0", 1 - sp.tanh(1) ** 2, ">", 0)
    sig = 1 / (1 + sp.exp(-t))
    sg = sp.diff(sig, t)
    st.equal("sigmoid: sigma' = 1/4 - (s - 1/2)^2, s = sigmoid(t)", sg - (sp.Rational(1, 4) - (sig - sp.Rational(1, 2)) ** 2), 0)
    st.compare("... <= 1/4 (L_sigma = 1/4), with equality at t = 0", sp.Rational(1, 4) - (u - sp.Rational(1, 2)) ** 2, "<=", sp.Rational(1, 4))
    st.equal("... at t = 0", sg.subs(t, 0), sp.Rational(1, 4))
    st.equal("sigmoid': even", sg.subs(t, -t) - sg, 0)
    dsg = sp.diff(sg, t)
    st.equal("sigmoid'': (1 - e^t) e^t/(1 + e^t)^3", dsg - (1 - sp.exp(t)) * sp.exp(t) / (1 + sp.exp(t)) ** 3, 0)
    st.compare("... < 0 on t > 0 (e^t = 1 + q, q > 0): inf over I is sigma'(1) = e^-1/(1 + e^-1)^2 > 0",
               -q * (1 + q) / (2 + q) ** 3, "<", 0)
    st.equal("sigma'(1) = e^-1/(1 + e^-1)^2", sg.subs(t, 1) - sp.exp(-1) / (1 + sp.exp(-1)) ** 2, 0)
    up, down = _slopes(sp.Max(t, 0))
    st.equal("ReLU: slope 1 on (0, oo) = I (K = 1)", up, 1)
    st.equal("ReLU: slope 0 on t < 0, so L_sigma = max(1, 0) = 1", down, 0)
    return st.done("asm.2.examples", "tanh, sigmoid, relu", "tanh (L = 1, K = 1 - tanh(1)^2 on (-1, 1)), sigmoid (L = 1/4, K = e^-1/(1 + e^-1)^2 on (-1, 1)), ReLU (L = 1, K = 1 on (0, oo)) satisfy Assumption 2")


# ------------------------------------------------------------------------------ Appendix D (37) as printed
def eq37_refuted():
    """(37)'s first line prints sigma'(h_i(x_a)) sigma'(h_i(x_a)): at ReLU, d = 1, x = (1, -1) (G = [[1, -1],
    [-1, 1]]), m = 1, W = 1, c = 1, y = (0, 1) (so r = (1, -1), sigma' = (1, 0)) it is -2, while dL/dt = -1."""
    G = sp.Matrix([[1, -1], [-1, 1]])
    r = [1, -1]
    s = [1, 0]
    c = 1
    true = -c**2 * sum(G[a, b] * r[a] * r[b] * s[a] * s[b] for a in range(2) for b in range(2))
    printed = -c**2 * sum(G[a, b] * r[a] * r[b] * s[a] * s[a] for a in range(2) for b in range(2))
    st = Steps()
    st.equal("(14)'s identity: dL/dt = -1", true, -1)
    st.equal("(37)'s first line as printed: -2", printed, -2)
    st.compare("they differ: the printed first line is not dL/dt", printed, "<", true)
    return st.done("lemma.1", "37", "ReLU, m = 1, n = 2, x = (1, -1): (37)'s printed first line is -2, dL/dt = -1")


# ------------------------------------------------------------------------------ Appendix E, (57)-(61)
def thm1_algebra():
    """thm.1.proof's constants: from Lemma 1 with kappa* = 3 C_2 and the events L^0 <= |y|^2,
    tilde eta^0 > K, the choice c_hat = c_hat_0* (lambda_2/lambda_1)(1 + s), s >= 0, gives
    eta^t >= 2^(-2/3) K and the rate r = 2^(1/3) K_s^2 K of (60)-(61)."""
    K, y, sl = thm.K_act, thm.y_norm, sp.Symbol("s", nonnegative=True)
    kappa = dy.KAPPA_STAR
    c = thm.C0_STAR * dy.lam2 / dy.lam1 * (1 + sl)
    st = Steps()
    st.equal("c_hat_0* lambda_2/lambda_1 = 2 kappa* |y|/K^(3/2) (the statement's c0* is (58) with kappa*)",
             sp.simplify(thm.C0_STAR * dy.lam2 / dy.lam1 - 2 * kappa * y / K ** sp.Rational(3, 2)), 0)
    loss_term = kappa * y / c                     # kappa* (sqrt L^0 - sqrt L^t)/c_hat <= kappa* |y|/c_hat
    st.compare("(57*)-(58*): at c_hat >= c_hat_0* lambda_2/lambda_1, kappa* |y|/c_hat <= K^(3/2)/2",
               sp.simplify(loss_term - K ** sp.Rational(3, 2) / 2), "<=", 0)
    st.equal("(59): (K^(3/2) - K^(3/2)/2)^(2/3) = 2^(-2/3) K", sp.simplify((K ** sp.Rational(3, 2) / 2) ** sp.Rational(2, 3) - K / sp.cbrt(4)), 0)
    st.equal("(60): 2 c^2 lambda K_s^2 L 2^(-2/3) K has the rate r = 2^(1/3) K_s^2 K (61), the statement's r",
             sp.simplify(2 * dy.K_s**2 * K / sp.cbrt(4) - thm.R_PROOF), 0)
    return st.done("thm.1.steps", "57-61", "Appendix E (57)-(61) with kappa*: c_hat_0* = 2 kappa* |y| lambda_1/(K^(3/2) lambda_2) gives eta^t >= 2^(-2/3) K and r = 2^(1/3) K_s^2 K")


# ------------------------------------------------------------------------------ Appendix F, (78)-(82)
def thm2_algebra():
    lb1, lb2 = stp.lamb1, stp.lamb2
    p, q = sp.Symbol("p", nonnegative=True), sp.Symbol("q", nonnegative=True)
    st = Steps()
    # lambda_min(G) = lb1 (1/2 + p) >= lb1/2 and lambda_max(G) = lb2 (2 - q) <= 2 lb2 (q < 2)
    K1 = lambda l1, l2: sp.Rational(9, 2) * l2 / (l1 * dy.K_s) * (dy.I_r - dy.I_l)
    ratio = sp.simplify(K1(lb1 * (sp.Rational(1, 2) + p), lb2 * (2 - q)) / K1(lb1, lb2))
    st.equal("K_1(lambda_min(G), lambda_max(G))/K_1(lbar_1, lbar_2) = (2 - q)/(1/2 + p)", sp.simplify(ratio - (2 - q) / (sp.Rational(1, 2) + p)), 0)
    st.compare("(78): 4 (1/2 + p) - (2 - q) = 4p + q >= 0, so the ratio is <= 4", sp.expand(4 * (sp.Rational(1, 2) + p) - (2 - q)), ">=", 0)
    K, K1b, y, sl = sp.Symbol("K", positive=True), sp.Symbol("K_1", positive=True), thm.y_norm, sp.Symbol("s", nonnegative=True)
    c = 8 * K1b * y / K ** sp.Rational(3, 2) * (1 + sl)           # (80), with slack s
    st.compare("(79)-(80): 4 K_1 |y|/c_hat <= K^(3/2)/2", sp.simplify(4 * K1b * y / c - K ** sp.Rational(3, 2) / 2), "<=", 0)
    st.equal("(81): (K^(3/2)/2)^(2/3) = 2^(-2/3) K", sp.simplify((K ** sp.Rational(3, 2) / 2) ** sp.Rational(2, 3) - K / sp.cbrt(4)), 0)
    st.compare("(82): 2 lambda_min(G) 2^(-2/3) - 2^(-2/3) lbar_1 = 2^(1/3) p lbar_1 >= 0",
               sp.expand(2 * lb1 * (sp.Rational(1, 2) + p) / sp.cbrt(4) - lb1 / sp.cbrt(4)), ">=", 0)
    return st.done("thm.2.steps", "78-82", "Appendix F: (78)'s factor 4, (81)'s 2^(-2/3) and (82)'s second line follow from lambda_min(G) >= lbar_1/2, lambda_max(G) <= 2 lbar_2 and (80)")


DERIVATIONS = {("eq.8", "8"): eq8, ("eq.13", "13b"): eq13, ("eq.16.examples", "linear, leaky, smoothed"): pl_examples,
               ("asm.2.examples", "tanh, sigmoid, relu"): asm2_examples, ("thm.1.steps", "57-61"): thm1_algebra,
               ("thm.2.steps", "78-82"): thm2_algebra}
REFUTATIONS = {("eq.16.examples", "cubic"): cubic_refuted, ("lemma.1", "37"): eq37_refuted}
