"""The generic core of ``theory`` (SymPy only; it names no paper).

- ``statement``: ``Statement``, its parameters, provenance, and the unevaluated
  ``Expectation``/``Indicator`` used to write left-hand sides as definitions.
- ``functions``: Phi, varphi, Phi2 as SymPy functions; ``gaussian``: normal and bivariate-normal
  moments in closed form.
- ``derivation``: the ``Derivation`` record and the normaliser derivations are checked with.
- ``pack``: the ``Paper`` record a pack builds; ``latex``: the LaTeX printer and export.
- ``io``: the atomic-write helper.
"""
