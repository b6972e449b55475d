"""Section 6's privacy experiments: accuracy and membership inference under Gaussian input masks.

The mask of the paper's experiments: every training input x is multiplied entrywise by
c ~ N(1, kappa^2 I), a fresh c per sample and step, at training time only (evaluation and the
attacks see clean inputs).  Modules:

- ``data``: scikit-learn's bundled digits (default, no download) and CIFAR-10's python
  batches; the authors' four-way split and per-pixel standardisation;
- ``models``: the authors' MLP, standard CNN and improved CNN (adapted to 8x8 where needed);
- ``training``: seeded masked training (Adam), and DP-SGD through Opacus;
- ``attacks``: ML-Leaks adversary 1 (shadow model, top-3 posteriors, logistic regression)
  and a loss-threshold attack;
- ``stats``: the tests that decide the claims (paired intervals over seeds, Page's trend test);
- ``experiment``: the three sub-experiments (accuracy, attack, dp), resumable, and their files;
- ``tasks``: one run (a model; a target and its shadow) as a task of the execution layer;
- ``cli``: ``maskverify privacy``.
"""
