"""Special functions as SymPy objects that print as papers write them and differentiate exactly.

- ``Phi(x)``: the standard normal CDF, rewrites to ``erfc``.
- ``varphi(x)``: the standard normal density (a pack whose paper writes phi for something
  else, as the masking paper's exp(-x^2), defines its own function).
- ``Phi2(h, k, rho)``: the standard bivariate normal CDF P(X <= h, Y <= k), corr(X, Y) = rho.
  Its derivatives are the classical ones: dPhi2/dh = varphi(h) Phi((k - rho h)/sqrt(1-rho^2))
  and Plackett's (1954) dPhi2/drho = varphi2(h, k, rho), the bivariate density.
"""
from __future__ import annotations

import sympy as sp


class varphi(sp.Function):
    nargs = 1

    def fdiff(self, argindex=1):
        x = self.args[0]
        return -x * varphi(x)

    def _eval_rewrite_as_exp(self, x, **kwargs):
        return sp.exp(-x**2 / 2) / sp.sqrt(2 * sp.pi)

    def _latex(self, printer):
        return r"\varphi\left(%s\right)" % printer._print(self.args[0])


class Phi(sp.Function):
    nargs = 1

    def fdiff(self, argindex=1):
        return varphi(self.args[0])

    def _eval_rewrite_as_erfc(self, x, **kwargs):
        return sp.erfc(-x / sp.sqrt(2)) / 2

    def _latex(self, printer):
        return r"\Phi\left(%s\right)" % printer._print(self.args[0])


def varphi2(h, k, rho):
    """Standard bivariate normal density at (h, k) with correlation rho."""
    q2 = 1 - rho**2
    return sp.exp(-(h**2 - 2 * rho * h * k + k**2) / (2 * q2)) / (2 * sp.pi * sp.sqrt(q2))


class Phi2(sp.Function):
    nargs = 3

    def fdiff(self, argindex=1):
        h, k, rho = self.args
        q = sp.sqrt(1 - rho**2)
        if argindex == 1:
            return varphi(h) * Phi((k - rho * h) / q)
        if argindex == 2:
            return varphi(k) * Phi((h - rho * k) / q)
        return varphi2(h, k, rho)

    def _latex(self, printer):
        h, k, rho = (printer._print(a) for a in self.args)
        return r"\Phi_2\left(%s, %s; %s\right)" % (h, k, rho)


def to_elementary(expr):
    """Rewrite Phi and varphi in terms of erfc and exp (Phi2 stays: it has no such form)."""
    return expr.replace(Phi, lambda x: sp.erfc(-x / sp.sqrt(2)) / 2).replace(
        varphi, lambda x: sp.exp(-x**2 / 2) / sp.sqrt(2 * sp.pi)
    )
