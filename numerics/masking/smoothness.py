"""Section 5's smoothness bound for the Gaussian mask: Assumption 5.1 (10), Lemma 5.5 and
Lemmas D.21, D.22, evaluated on concrete networks and masks, and their probabilities.

Setting (Section 3; eq. (2)).  W: (m, d), a: (m,) of +-1, X: (n, d), y: (n,); a mask C of
shape (n, d) (one c_i ~ N(1, kappa^2 I_d) per sample) or a batch (B, n, d);
L_C(W) = 1/2 sum_i e_i^2 with e_i = f(W, x_i . c_i) - y_i, and

    grad_{w_r} L_C = a_r m^{-1/2} sum_i e_i (x_i . c_i) 1{w_r^T (x_i . c_i) >= 0}      (eq. (2)),

taken from torch autograd of the raw L_C (``numerics.masking.network.surrogate_grad``, whose ReLU has
eq. (2)'s derivative 1{z >= 0}).  Per mask draw, ``smoothness`` returns

- ``needed``: the smallest C_1 that Assumption 5.1 (10) with gamma = C_1 n/m (Lemma 5.5)
  needs at this (W, X, y, C):  C_1^needed = max_r m ||grad_{w_r} L_C||^2 / (n L_C)
  (0 where L_C = 0: then every e_i = 0 and the gradient vanishes);
- the two sides of the bounds that do hold, by Cauchy-Schwarz over i (D.21's proof):
  ||grad_{w_r} L_C||^2 <= (2/m) L_C S_r,  S_r = sum_i ||x_i . c_i||^2 1{w_r^T (x_i . c_i) >= 0},
  and S_r <= n M, M = max_i ||x_i . c_i||^2, so C_1^needed <= 2 M <= 2 max_i ||c_i||_inf^2 ||x_i||^2.

Exact probabilities (python-flint Arb balls, rigorous; ``numerics.core.certified``'s conventions):
for c ~ N(1, kappa^2 I_d) the coordinates are independent, so

    P(||c||_inf <= t) = (Phi((t - 1)/kappa) - Phi((-t - 1)/kappa))^d = (1 - q(t))^d,
    q(t) = erfc((t - 1)/(kappa sqrt 2))/2 + erfc((t + 1)/(kappa sqrt 2))/2,

and its complement is formed as -expm1(d log1p(-q)), which keeps every digit when it is tiny.
At Lemma D.22's t = C = 1 + kappa s, s = sqrt(2 log(2d/delta)), (t - 1)/kappa = s exactly and
(t + 1)/kappa = s + 2/kappa (no cancellation).  ``lemma_d22_arb`` judges P >= 1 - delta:
"true" (certified), "false" (certified refutation) or "unknown".
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import torch
from flint import arb

from . import network as nw
from numerics.core.arrays import DTYPE, REAL
from numerics.core.certified import FALSE, TRUE, UNKNOWN, to_arb, workprec

__all__ = [
    "Smoothness", "smoothness", "ratio", "proof_constant", "lemma_d21_rhs",
    "one_neuron_needed", "spiked_mask",
    "sup_norm_failure_arb", "D22", "lemma_d22_arb", "union_bound_arb", "event_failure_arb",
    "violation_probability_arb", "needed_exceeds_bound_arb", "to_float",
]

PREC = 128


# ============================================================================ per mask draw
@dataclass(frozen=True)
class Smoothness:
    """Per mask draw (leading batch shape (B,)): L_C, ||grad_{w_r} L_C||^2 (B, m), S_r (B, m), M (B,).

    ``m``, ``n``: the network's width and number of samples.
    """

    loss: torch.Tensor
    grad_sq: torch.Tensor
    active_sq: torch.Tensor
    max_sq: torch.Tensor
    m: int
    n: int

    @property
    def needed(self) -> torch.Tensor:
        """C_1^needed = max_r m ||grad_{w_r} L_C||^2 / (n L_C) (0 where L_C = 0), shape (B,)."""
        top = self.grad_sq.max(-1).values
        pos = self.loss > 0
        return torch.where(pos, self.m * top / (self.n * torch.where(pos, self.loss, torch.ones_like(self.loss))),
                           torch.zeros_like(top))

    @property
    def top(self) -> torch.Tensor:
        """max_r ||grad_{w_r} L_C||^2, shape (B,)."""
        return self.grad_sq.max(-1).values

    @property
    def cauchy_schwarz_rhs(self) -> torch.Tensor:
        """(2/m) L_C S_r, shape (B, m): D.21's proof, first step."""
        return 2.0 / self.m * self.loss[..., None] * self.active_sq

    @property
    def max_rhs(self) -> torch.Tensor:
        """(2 n/m) M L_C, shape (B,): D.21's proof, second step."""
        return 2.0 * self.n / self.m * self.max_sq * self.loss

    def event_rhs(self, C: float) -> torch.Tensor:
        """2 C^2 (n/m) L_C, shape (B,): D.21's proof, its conclusion on ||c_i||_inf <= C."""
        return 2.0 * C * C * self.n / self.m * self.loss

    def lemma_d21_rhs(self) -> torch.Tensor:
        """sqrt(n)/sqrt(m) L_C^{1/2}, shape (B,): Lemma D.21 as stated."""
        return lemma_d21_rhs(self.n, self.m, self.loss)

    @property
    def cauchy_schwarz_ratio(self) -> torch.Tensor:
        """max_r ||grad_{w_r} L_C||^2 / ((2/m) L_C S_r), shape (B,); <= 1 by Cauchy-Schwarz."""
        return ratio(self.grad_sq, self.cauchy_schwarz_rhs).max(-1).values

    @property
    def max_ratio(self) -> torch.Tensor:
        """max_r ||grad_{w_r} L_C||^2 / ((2n/m) M L_C), shape (B,); <= 1."""
        return ratio(self.top, self.max_rhs)

    def event_ratio(self, C: float) -> torch.Tensor:
        """max_r ||grad_{w_r} L_C||^2 / (2 C^2 (n/m) L_C), shape (B,); <= 1 on ||c_i||_inf <= C."""
        return ratio(self.top, self.event_rhs(C))

    @property
    def lemma_d21_ratio(self) -> torch.Tensor:
        """max_r ||grad_{w_r} L_C||^2 / (sqrt(n/m) L_C^{1/2}), shape (B,); Lemma D.21 claims <= 1."""
        return ratio(self.top, self.lemma_d21_rhs())


def ratio(lhs: torch.Tensor, rhs: torch.Tensor) -> torch.Tensor:
    """lhs/rhs elementwise, 0 where both vanish and inf where only rhs does (rhs >= 0)."""
    pos = rhs > 0
    out = torch.where(pos, lhs / torch.where(pos, rhs, torch.ones_like(rhs)), torch.zeros_like(lhs))
    return torch.where(~pos & (lhs > 0), torch.full_like(out, math.inf), out)


def smoothness(W, a, X, y, C) -> Smoothness:
    """L_C and ||grad_{w_r} L_C||^2 by autograd (eq. (2)) for masks C of shape (n, d) or (B, n, d),
    with the Cauchy-Schwarz quantities S_r and M (module docstring).  Float64 tensors out."""
    t, _ = nw._validate(W, a, X, y)
    W, a, X, y = t["W"], t["a"], t["X"], t["y"]
    Ct = nw._as_tensor("C", C, W.device)
    REAL.check("C", Ct)
    if Ct.ndim == 2:
        Ct = Ct[None]
    if Ct.ndim != 3 or tuple(Ct.shape[1:]) != tuple(X.shape):
        raise ValueError(f"C must have shape (n, d) = {tuple(X.shape)} or (B, n, d), got {tuple(Ct.shape)}")
    loss, g = nw.surrogate_grad(W, a, X, y, Ct)
    V = X * Ct                                                  # (B, n, d): x_i . c_i
    vsq = (V * V).sum(-1)                                       # (B, n)
    act = (torch.einsum("bnd,md->bnm", V, W) >= 0).to(DTYPE)    # eq. (2)'s indicator
    return Smoothness(loss=loss, grad_sq=(g * g).sum(-1), active_sq=torch.einsum("bn,bnm->bm", vsq, act),
                      max_sq=vsq.max(-1).values, m=W.shape[0], n=X.shape[0])


def proof_constant(d: int, kappa: float, delta: float) -> float:
    """C = 1 + kappa sqrt(2 log(2d/delta)) (Lemma D.22; the constant of D.21's proof), float64."""
    _check_d22(d, kappa, delta)
    return 1.0 + kappa * math.sqrt(2.0 * math.log(2.0 * d / delta))


def lemma_d21_rhs(n: int, m: int, loss):
    """Lemma D.21's right side as stated: sqrt(n)/sqrt(m) L_C^{1/2}."""
    return math.sqrt(n / m) * (loss.sqrt() if isinstance(loss, torch.Tensor) else math.sqrt(loss))


def one_neuron_needed(x: float, c: float) -> float:
    """C_1^needed of the one-neuron network m = n = d = 1 (a = 1, w x c > 0, f != y): 2 x^2 c^2.

    f = w x c, e = f - y, L_C = e^2/2 and grad = e x c (eq. (2)), so m ||grad||^2/(n L_C) = 2 x^2 c^2
    whatever w and y are (``theory.masking.smoothness``, part "one_neuron", proves it)."""
    return 2.0 * x * x * c * c


def spiked_mask(n: int, d: int, i: int, k: int, value: float, rest: float = 1.0) -> torch.Tensor:
    """The mask with c_i = value e_k (only coordinate k of sample i survives) and every other
    entry ``rest``; ``rest = 1`` leaves the other samples unmasked."""
    C = torch.full((n, d), float(rest), dtype=DTYPE)
    C[i] = 0.0
    C[i, k] = float(value)
    return C


# ============================================================================ exact probabilities (Arb)
def _check_d22(d, kappa, delta):
    if not (isinstance(d, int) and d >= 1):
        raise ValueError(f"d must be an integer >= 1, got {d!r}")
    if not (math.isfinite(kappa) and kappa > 0):
        raise ValueError(f"kappa must be > 0, got {kappa!r}")
    if not (0 < delta < 1):
        raise ValueError(f"delta must lie in (0, 1), got {delta!r}")


def _erfc_half(x):
    """erfc(x/sqrt 2)/2 = Phi(-x), as a ball."""
    return (x / arb(2).sqrt()).erfc() / 2


def _complement_power(q, power):
    """1 - (1 - q)^power = -expm1(power log1p(-q)), for a ball q in [0, 1)."""
    return -(arb(power) * (-q).log1p()).expm1()


def sup_norm_failure_arb(t, d: int, kappa, *, copies: int = 1, prec: int = PREC):
    """P(max_{j <= copies} ||c_j||_inf > t) = 1 - P(||c||_inf <= t)^copies for independent
    c_j ~ N(1, kappa^2 I_d), t > 0: 1 - (1 - q)^(d copies) with q as in the module docstring."""
    with workprec(prec):
        t, kappa = to_arb(t, "t"), to_arb(kappa, "kappa")
        if not (t > 0 and kappa > 0):
            raise ValueError(f"t and kappa must be > 0, got {t}, {kappa}")
        q = _erfc_half((t - 1) / kappa) + _erfc_half((t + 1) / kappa)
        return _complement_power(q, d * copies)


class D22(NamedTuple):
    """Lemma D.22 at (d, kappa, delta): s = (C - 1)/kappa, the exact failure probability
    F = 1 - P(||c||_inf <= C) (a ball), the slack delta - F = P - (1 - delta), and the outcome."""

    s: arb
    failure: arb
    slack: arb
    outcome: str
    delta: arb

    @property
    def relative(self):
        """F / delta (the lemma holds iff <= 1)."""
        return self.failure / self.delta


def _judge_le(x, bound) -> str:
    if x <= bound:
        return TRUE
    if x > bound:
        return FALSE
    return UNKNOWN


def lemma_d22_arb(d: int, kappa: float, delta: float, *, copies: int = 1, prec: int = PREC) -> D22:
    """Lemma D.22, rigorously: is P(||c||_inf <= 1 + kappa sqrt(2 log(2d/delta))) >= 1 - delta?

    With ``copies`` = n the event is that all of n independent masks satisfy it (the event
    D.21's proof needs, with the same C): P = (1 - q)^(d n)."""
    _check_d22(d, float(kappa), float(delta))
    if not (isinstance(copies, int) and copies >= 1):
        raise ValueError(f"copies must be an integer >= 1, got {copies!r}")
    with workprec(prec):
        kap, dl = to_arb(kappa, "kappa"), to_arb(delta, "delta")
        s = (2 * (2 * arb(d) / dl).log()).sqrt()
        q = _erfc_half(s) + _erfc_half(s + 2 / kap)
        F = _complement_power(q, d * copies)
        return D22(s, F, dl - F, _judge_le(F, dl), dl)


def union_bound_arb(d: int, kappa: float, delta: float, *, prec: int = PREC):
    """delta/(s sqrt(2 pi)) with s = sqrt(2 log(2d/delta)): the union bound with Mills' ratio,
    1 - P <= d (Phi(-s) + Phi(-s - 2/kappa)) <= 2 d varphi(s)/s = delta/(s sqrt(2 pi))
    (``theory.masking.smoothness``, part "union", proves it); an upper bound on D.22's failure."""
    _check_d22(d, float(kappa), float(delta))
    with workprec(prec):
        dl = to_arb(delta, "delta")
        s = (2 * (2 * arb(d) / dl).log()).sqrt()
        return dl / (s * (2 * arb.pi()).sqrt())


def event_failure_arb(d: int, kappa: float, delta: float, copies: int, *, prec: int = PREC):
    """1 - P(||c_j||_inf <= C for all j <= copies), C = 1 + kappa sqrt(2 log(2d/delta)):
    the exact failure probability of D.21's event for n = ``copies`` masks (or n K over K steps)."""
    return lemma_d22_arb(d, kappa, delta, copies=copies, prec=prec).failure


def violation_probability_arb(C1, kappa, *, two_sided: bool = False, prec: int = PREC):
    """P(C_1^needed > C_1) for the counterexample families of errata E9 (n = d = 1, x = 1, y = 0):

    one neuron (w = a = 1): C_1^needed = 2 c^2 if c > 0 and 0 otherwise, so
        P = P(c > t) = Phi((1 - t)/kappa),   t = sqrt(C_1/2);
    two neurons (w = (1, -1), a = (1, 1); ``two_sided``): C_1^needed = 2 c^2, so
        P = P(|c| > t) = Phi((1 - t)/kappa) + Phi((-1 - t)/kappa),
    the most any network with n = d = 1 allows (``needed_exceeds_bound_arb``)."""
    with workprec(prec):
        C1, kap = to_arb(C1, "C1"), to_arb(kappa, "kappa")
        if not (C1 > 0 and kap > 0):
            raise ValueError(f"C1 and kappa must be > 0, got {C1}, {kap}")
        t = (C1 / 2).sqrt()
        p = _erfc_half((t - 1) / kap)
        return p + _erfc_half((t + 1) / kap) if two_sided else p


def needed_exceeds_bound_arb(C1, kappa, d: int, n: int, *, prec: int = PREC):
    """An upper bound on P(C_1^needed > C_1) for every network under Assumption 3.1 (||x_i|| <= 1):
    C_1^needed <= 2 max_i ||c_i||_inf^2, so P <= 1 - P(||c||_inf <= sqrt(C_1/2))^n."""
    with workprec(prec):
        t = (to_arb(C1, "C1") / 2).sqrt()
        return sup_norm_failure_arb(t, d, kappa, copies=n, prec=prec)


def to_float(ball) -> float:
    """The midpoint of a ball as a float (for reports; judging uses the ball)."""
    return float(ball.mid())
