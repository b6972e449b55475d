"""Normal and bivariate-normal moments as exact SymPy expressions (symbols and closed forms).

A pre-activation z ~ N(mu, s^2), or a pair (z1, z2) with means mu_i, standard deviations
s_i and correlation rho, has truncated moments in closed form:

- ``sigma_tilde`` = E[z 1{z >= 0}] = mu Phi(t) + s varphi(t), t = mu/s (the smoothed ReLU),
  ``relu1_second`` = E[z^2 1{z >= 0}], and ``sigma_hat`` = mu Phi(t) (a proxy some papers use);
- ``P_orthant`` = P(z1 >= 0, z2 >= 0) = Phi_2(a1, a2, rho), ``relu2_first`` = E[z1 1{..}] and
  ``relu2_second`` = E[z1 z2 1{..}], with a_i = mu_i/s_i, q = sqrt(1 - rho^2) and the b_i of
  ``BIVARIATE_WHERE`` (Rosenbaum 1961).

These are the expressions every pack's statements, derivations and certified enclosures use.
"""
from __future__ import annotations

import sympy as sp

from .functions import Phi, Phi2, varphi

# ---------------------------------------------------------------- scalar symbols
z, z1, z2 = sp.symbols("z z_1 z_2", real=True)
mu, mu1, mu2 = sp.symbols("mu mu_1 mu_2", real=True)
s, s1, s2 = sp.symbols("s s_1 s_2", positive=True)
rho = sp.Symbol("rho", real=True)
kappa = sp.Symbol("kappa", positive=True)
a1, a2, b1, b2, q = sp.symbols("a_1 a_2 b_1 b_2 q", real=True)

LAW1 = r"z\sim\mathcal{N}(\mu, s^2)"
LAW2 = (r"(z_1, z_2)\sim\mathcal{N}\left(\begin{pmatrix}\mu_1\\ \mu_2\end{pmatrix},"
        r"\begin{pmatrix}s_1^2 & \rho s_1 s_2\\ \rho s_1 s_2 & s_2^2\end{pmatrix}\right)")

# closed forms in the standardised argument t = mu/s
t = mu / s
sigma_tilde = mu * Phi(t) + s * varphi(t)            # exact smoothed ReLU
sigma_hat = mu * Phi(t)                              # the proxy mu Phi(mu/s)
relu1_second = (mu**2 + s**2) * Phi(t) + mu * s * varphi(t)

# bivariate closed forms (a_i = mu_i/s_i, q = sqrt(1 - rho^2))
P_orthant = Phi2(a1, a2, rho)
relu2_first = mu1 * P_orthant + s1 * (varphi(a1) * Phi(b2) + rho * varphi(a2) * Phi(b1))
relu2_second = ((mu1 * mu2 + rho * s1 * s2) * P_orthant
                + mu1 * s2 * varphi(a2) * Phi(b1) + mu2 * s1 * varphi(a1) * Phi(b2)
                + s1 * s2 * q * varphi(a1) * varphi(b2))
BIVARIATE_WHERE = (
    (a1, mu1 / s1), (a2, mu2 / s2), (q, sp.sqrt(1 - rho**2)),
    (b1, (a1 - rho * a2) / q), (b2, (a2 - rho * a1) / q),
)

