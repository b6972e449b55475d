"""Numerical evaluation of the paper's statements.

Modules, by what they hold:

- ``arrays``: input validation and the numpy <-> torch plumbing every kernel shares.
- ``normal``: univariate standard-normal helpers (density, CDF, tail-stable partial moments).
- ``bvn``: the bivariate normal CDF and orthant moments (our Phi_2 kernel).
- ``closed_form``: the public closed forms of Section 4's Gaussian lemmas.
- ``reference``: the same quantities from their raw definitions, by mpmath quadrature.
- ``certified``: python-flint (Arb) enclosures.
- ``montecarlo``: torch sampling of the raw mask and the z-test used to judge it.
"""
