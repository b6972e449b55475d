"""Numerical evaluation of the packs' statements.

- ``numerics.core``: generic kernels and witnesses (arrays, the normal and bivariate-normal
  kernels, mpmath references, Arb enclosures, Monte Carlo, tolerances, fuzz runner, the
  ``PaperPack`` record and the registry); it names no paper.
- ``numerics.<pack>``: one paper's models, references, experiments and ``PACK``.
- ``numerics.app``: the command line, check runner, report and LaTeX export; it knows the
  packs only through the registry.
"""
