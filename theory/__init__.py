"""Statements of machine-learning theory papers as exact SymPy expressions (no numpy, no torch).

``theory.core`` is the generic machinery; ``theory.<pack>`` holds one paper's statements and
derivations (``theory.masking``: the Gaussian input masking paper).
"""
