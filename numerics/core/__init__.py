"""The generic numerical core (names no paper).

- ``arrays``: input validation and the numpy <-> torch plumbing every kernel shares.
- ``normal``: univariate standard-normal helpers (density, CDF, tail-stable partial moments).
- ``bvn``: the bivariate normal CDF and orthant moments (the Phi_2 kernel); ``ddarith``:
  error-free transformations.
- ``closed_form``: the public float64 kernels (``bvn_cdf``, ``relu_moment1``, ``relu_moment2``,
  ..., and the half-space/wedge moments of c ~ N(1, kappa^2 I)).
- ``reference``: the same quantities from their raw definitions, by mpmath quadrature.
- ``certified``: python-flint (Arb) enclosures; ``montecarlo``: sampling and estimates;
  ``tolerance``: tolerances with reasons and z-tests; ``floors``: statistics of training curves.
- ``fuzzing``: the Hypothesis campaign runner; ``strategies``: full-range Hypothesis strategies.
- ``pack`` and ``registry``: the ``PaperPack`` record and the registry of installed packs.
"""
