"""The meanfield paper (Chen, Vanden-Eijnden, Bruna, *On Feature Learning in Neural Networks with
Global Convergence Guarantees*, ICLR 2022) as exact SymPy statements and derivations.

- ``kernels``: eq. (23) Gbar^(1) and the derivative kernel, per activation;
- ``dynamics``: eqs. (11), (14), (16), Lemma 1 (18)-(19), Lemma 3 (56);
- ``derivations``: the SymPy witnesses; ``paper``: the ``Paper`` record.
"""
