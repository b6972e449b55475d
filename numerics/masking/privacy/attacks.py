"""Membership inference against a target model: ML-Leaks adversary 1 and a loss threshold.

ML-Leaks adversary 1 (Salem et al., NDSS 2019, "ML-Leaks"; the settings of the authors'
code): the attacker trains a shadow model on data disjoint from the target's, with the same
architecture, training and mask; the shadow's posteriors on its own training part
(members, label 1) and on its held-out part (non-members, label 0), reduced to their three
largest values in decreasing order, train scikit-learn's ``LogisticRegression``, on equal
numbers of members and non-members.  The attacker then scores the target's posteriors on the
target's training part (members) and held-out part (non-members): AUC of its membership
probability (``roc_auc_score``), precision and recall of its decisions at probability 1/2.

Loss threshold (Yeom et al., CSF 2018), a second opinion that needs no shadow: the score of
a sample is minus the target's cross-entropy loss on it, and its AUC over members and
non-members is that of every threshold at once.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import precision_score, recall_score, roc_auc_score

TOP = 3


def top_k(post: np.ndarray, k: int = TOP) -> np.ndarray:
    """The k largest posteriors of each row, in decreasing order: (N, classes) -> (N, k)."""
    return -np.sort(-np.asarray(post, dtype=float), axis=1)[:, :k]


def _balanced(members: np.ndarray, nonmembers: np.ndarray, rng: np.random.Generator):
    """Features and labels with as many members as non-members (the larger set subsampled)."""
    n = min(len(members), len(nonmembers))
    a = members[rng.choice(len(members), n, replace=False)] if len(members) > n else members
    b = nonmembers[rng.choice(len(nonmembers), n, replace=False)] if len(nonmembers) > n else nonmembers
    return np.concatenate([a, b]), np.concatenate([np.ones(n, int), np.zeros(n, int)])


@dataclass(frozen=True)
class AttackResult:
    auc: float
    precision: float
    recall: float
    loss_auc: float

    def as_dict(self) -> dict:
        return asdict(self)


def loss_scores(post: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Minus the cross-entropy -log p_y of each sample (higher: more member-like)."""
    p = np.asarray(post, dtype=float)[np.arange(len(y)), y]
    return np.log(np.maximum(p, np.finfo(float).tiny))


def ml_leaks(shadow_in: np.ndarray, shadow_out: np.ndarray, target_in: np.ndarray, target_out: np.ndarray,
             y_in: np.ndarray, y_out: np.ndarray, seed: int = 0) -> AttackResult:
    """Adversary 1 from the posteriors of the shadow on its members/non-members and of the
    target on its members (labels ``y_in``)/non-members (``y_out``); ``seed`` picks the
    subsamples that balance the classes."""
    rng = np.random.default_rng(seed)
    X, lab = _balanced(top_k(shadow_in), top_k(shadow_out), rng)
    attacker = LogisticRegression().fit(X, lab)
    Xt, labt = _balanced(top_k(target_in), top_k(target_out), rng)
    prob = attacker.predict_proba(Xt)[:, 1]
    decide = (prob >= 0.5).astype(int)
    scores, labels = _balanced(loss_scores(target_in, y_in)[:, None],
                               loss_scores(target_out, y_out)[:, None], rng)
    return AttackResult(float(roc_auc_score(labt, prob)), float(precision_score(labt, decide, zero_division=0.0)),
                        float(recall_score(labt, decide, zero_division=0.0)),
                        float(roc_auc_score(labels, scores[:, 0])))
