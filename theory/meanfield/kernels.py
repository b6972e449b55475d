"""Eq. (23): the limiting Gram matrix Gbar^(1) of the P-3L network, and the derivative kernel.

For z ~ N(0, I_d), (u, v) = (z^T x_a/sqrt d, z^T x_b/sqrt d) is the centred normal pair of
``theory.core.dual_kernels`` with a = |x_a|/sqrt d, b = |x_b|/sqrt d and theta the angle between
x_a and x_b, so Gbar^(1)_ab = E[s(u) s(v)] (eq. (23)) and the derivative kernel
E[s'(u) s'(v)] -- the factor the initial tangent kernel of (13) multiplies G_ab by in the
infinite-width limit -- are dual activations.  The definitions are the paper's; the closed
forms on the right are the classical ones (Cho & Saul 2009; Williams 1997), ours to check.
tanh has none: its right side is the polar integral the numerics evaluate.
"""
from __future__ import annotations

import sympy as sp

from theory.core import dual_kernels as dk
from theory.core.statement import Equation, Expectation, Kind, Param, Reading, Statement, reconstructed

u, v, r, phi = sp.symbols("u v r phi", real=True)
a, b, theta, alpha = dk.a, dk.b, dk.theta, dk.alpha
x_a, x_b, d = sp.symbols("x_a x_b d")

PARAMS = (
    Param(a, sp.Interval(0, sp.oo), r"$\|x_a\|/\sqrt d$, the standard deviation of $z^\top x_a/\sqrt d$"),
    Param(b, sp.Interval(0, sp.oo), r"$\|x_b\|/\sqrt d$"),
    Param(theta, sp.Interval(0, sp.pi), r"the angle between $x_a$ and $x_b$"),
    Param(alpha, sp.Interval.Ropen(0, 1), "the negative-side slope of the leaky ReLU"),
)
WHERE = ((sp.Symbol("a"), sp.Symbol(r"\|x_a\|/\sqrt{d}")), (sp.Symbol("b"), sp.Symbol(r"\|x_b\|/\sqrt{d}")),
         (sp.Symbol(r"\cos\theta"), sp.Symbol(r"x_a^\top x_b/(\|x_a\|\|x_b\|)")))


def leaky(t):
    return sp.Max(t, 0) + alpha * sp.Min(t, 0)


def leaky_step(t):
    return sp.Piecewise((1, t > 0), (alpha, t < 0), (0, True))


def step(t):
    return sp.Piecewise((1, t > 0), (0, True))


def polar(f, g):
    """The polar form of E[f(u) g(v)]: (1/2pi) int_0^2pi int_0^oo f(a r cos phi) g(b r cos(phi - theta)) r e^{-r^2/2}."""
    body = f(a * r * sp.cos(phi)) * g(b * r * sp.cos(phi - theta)) * r * sp.exp(-r**2 / 2) / (2 * sp.pi)
    return sp.Integral(body, (r, 0, sp.oo), (phi, 0, 2 * sp.pi))


def sech2(t):
    return sp.sech(t) ** 2


EQ23 = Statement(
    id="eq.23",
    ref="eq. (23)",
    title=r"the limiting Gram matrix $\bar G^{(1)}_{ab}=\mathbb{E}_z[\sigma(z^\top x_a/\sqrt d)\sigma(z^\top x_b/\sqrt d)]$, per activation",
    kind=Kind.IDENTITY,
    params=PARAMS,
    equations=(
        Equation("relu", Expectation(dk.relu(u) * dk.relu(v), dk.LAW), dk.RELU),
        Equation("abs", Expectation(sp.Abs(u) * sp.Abs(v), dk.LAW), dk.ABS),
        Equation("leaky_relu", Expectation(leaky(u) * leaky(v), dk.LAW), dk.LEAKY),
        Equation("erf", Expectation(sp.erf(u) * sp.erf(v), dk.LAW), dk.ERF),
        Equation("tanh", Expectation(sp.tanh(u) * sp.tanh(v), dk.LAW), polar(sp.tanh, sp.tanh)),
    ),
    assumptions=(r"$z\sim\mathcal N(0, I_d)$ (Appendix I)",),
    where=WHERE,
    notes=("The paper prints the definition (23) only; the closed forms are the arc-cosine kernel of order 1 "
           "(Cho & Saul 2009), its combinations for |.| and leaky ReLU, and the arcsine kernel (Williams 1997) "
           "written as atan2(2ab cos theta, sqrt(1 + 2a^2 + 2b^2 + 4a^2b^2 sin^2 theta))."),
)

EQ23_PRIME = Statement(
    id="eq.23.prime",
    ref="derivative kernel of (13) (sigma' as defined below Assumption 1)",
    title=r"the derivative kernel $\mathbb{E}_z[\sigma'(z^\top x_a/\sqrt d)\sigma'(z^\top x_b/\sqrt d)]$, per activation",
    kind=Kind.IDENTITY,
    params=PARAMS,
    equations=(
        Equation("relu", Expectation(step(u) * step(v), dk.LAW), dk.RELU_STEP),
        Equation("abs", Expectation(sp.sign(u) * sp.sign(v), dk.LAW), dk.SIGN),
        Equation("leaky_relu", Expectation(leaky_step(u) * leaky_step(v), dk.LAW), dk.LEAKY_STEP),
        Equation("erf", Expectation(sp.diff(sp.erf(u), u) * sp.diff(sp.erf(v), v), dk.LAW), dk.ERF_PRIME),
        Equation("tanh", Expectation(sech2(u) * sech2(v), dk.LAW), polar(sech2, sech2)),
    ),
    assumptions=(r"$z\sim\mathcal N(0, I_d)$", r"$a, b > 0$ for the step kernels (a zero input gives $\sigma'(0)=0$, kernel 0)"),
    where=WHERE,
    notes=("sigma' = 0 where sigma is not differentiable (the paper's convention below Assumption 1), so "
           "relu'(0) = |.|'(0) = 0. In the infinite-width limit the initial tangent kernel of the shallow net, "
           "(1/m) sum_i sigma'(h_i(x_a)) sigma'(h_i(x_b)) G_ab of (13), tends to G_ab times this kernel."),
    provenance=reconstructed(
        "the tangent kernel of eq. (13) at initialisation (W ~ N(0, 1), Assumption 3)",
        words="(13)'s tangent kernel at initialisation; below Assumption 1: sigma' = 0 where sigma is not differentiable",
        readings=(
            Reading("positive-inputs", "the closed forms for a, b > 0, whatever sigma'(0) is (z^T x = 0 has probability 0)", 1),
            Reading("zero-input", "and, with sigma'(0) = 0, the step kernels vanish at a zero input", 2),
        )),
)
