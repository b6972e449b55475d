"""Dual activations: E[s(u) t(v)] for a centred bivariate normal pair, as exact SymPy expressions.

The pair is (u, v) ~ N(0, [[a^2, a b cos(theta)], [a b cos(theta), b^2]]) with standard
deviations a, b >= 0 and the angle theta in [0, pi] between the two directions (the law of
(w^T x, w^T x') for w ~ N(0, I), a = |x|, b = |x'|).  Closed forms (the arc-cosine kernels of
Cho & Saul 2009, orders 1 and 0; the arcsine kernel of Williams 1997):

- ReLU:      E[relu(u) relu(v)] = a b (sin(theta) + (pi - theta) cos(theta)) / (2 pi);
- its step:  P(u > 0, v > 0) = (pi - theta) / (2 pi)           (a, b > 0);
- |.|:       E[|u| |v|] = 2 a b (sin(theta) + (pi/2 - theta) cos(theta)) / pi;
- sign:      E[sign(u) sign(v)] = 1 - 2 theta / pi             (a, b > 0);
- leaky ReLU l(u) = max(u, 0) + alpha min(u, 0):
  E[l(u) l(v)] = (1 + alpha^2) k(theta) - 2 alpha k(pi - theta), k the ReLU kernel, and its step
  E[l'(u) l'(v)] = ((1 + alpha^2)(pi - theta) + 2 alpha theta) / (2 pi)   (a, b > 0);
- erf:       E[erf(u) erf(v)] = (2/pi) atan2(2 a b cos(theta), sqrt(R)),
  R = 1 + 2a^2 + 2b^2 + 4 a^2 b^2 sin(theta)^2 (the arcsine written without cancellation:
  (1 + 2a^2)(1 + 2b^2) - 4a^2b^2cos^2 = R);
- erf':      E[erf'(u) erf'(v)] = (4/pi) / sqrt(R).

``theory`` only: these are the right-hand sides statements use; numerics evaluates them.
"""
from __future__ import annotations

import sympy as sp

a, b = sp.symbols("a b", nonnegative=True)
theta = sp.Symbol("theta", real=True)
alpha = sp.Symbol("alpha", real=True)

#: (u, v) as the statements print the law
LAW = (r"(u, v)\sim\mathcal{N}\left(0, \begin{pmatrix}a^2 & ab\cos\theta\\ "
       r"ab\cos\theta & b^2\end{pmatrix}\right)")

R = 1 + 2 * a**2 + 2 * b**2 + 4 * a**2 * b**2 * sp.sin(theta) ** 2


def relu(t):
    return sp.Max(t, 0)


def relu_kernel(th=theta):
    return a * b * (sp.sin(th) + (sp.pi - th) * sp.cos(th)) / (2 * sp.pi)


RELU = relu_kernel()
RELU_STEP = (sp.pi - theta) / (2 * sp.pi)
ABS = 2 * a * b * (sp.sin(theta) + (sp.pi / 2 - theta) * sp.cos(theta)) / sp.pi
SIGN = 1 - 2 * theta / sp.pi
LEAKY = (1 + alpha**2) * relu_kernel() - 2 * alpha * relu_kernel(sp.pi - theta)
LEAKY_STEP = ((1 + alpha**2) * (sp.pi - theta) + 2 * alpha * theta) / (2 * sp.pi)
ERF = 2 / sp.pi * sp.atan2(2 * a * b * sp.cos(theta), sp.sqrt(R))
ERF_PRIME = 4 / sp.pi / sp.sqrt(R)
