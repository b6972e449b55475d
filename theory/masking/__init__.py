"""The masking paper (*Convergence Analysis of Two-Layer Neural Networks under Gaussian Input
Masking*, arXiv 2602.17423 v1) as exact SymPy statements and derivations.

- ``gaussian``: Section 4's Gaussian-moment lemmas; ``network``: the masked network, Definition
  4.1, Theorem 4.2, Remark 4.4; ``ntk``: eq. (11); ``convergence``: Theorems 5.2, 5.6,
  Corollaries 5.3, 5.4; ``smoothness``: Assumption 5.1 (10), Lemma 5.5, Appendix D.
- ``derivations_*``: the SymPy witnesses; ``catalogue``: every statement by short id;
  ``paper``: the ``Paper`` record (``theory.masking.paper.PAPER``).
"""
