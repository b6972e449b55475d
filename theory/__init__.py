"""The paper's objects as exact SymPy expressions (no numpy, no torch).

- ``statement``: the ``Statement`` record, its parameters and the unevaluated
  ``Expectation``/``Indicator`` used to write left-hand sides as definitions.
- ``gaussian``: Section 4's Gaussian-moment lemmas (statements and symbols).
- ``derivations``: the SymPy witnesses that prove or check each lemma's derivation.
- ``catalogue``: every statement, by id, in paper order.
"""
