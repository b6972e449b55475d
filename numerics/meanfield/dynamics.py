"""Gradient flow and gradient descent of the paper's model in feature space, eq. (11).

Only the pre-activations at the training points, h_ia = h_i(x_a) (an (m, n) tensor), are
evolved: by (11), gradient flow (10) on W moves them as

    hdot_ia = -c_i sum_b G_ab r_b sigma'(h_ib),    r_b = f(x_b) - y_b,   f(x_b) = (1/m) sum_i c_i sigma(h_ib),

with G the Gram matrix (12) -- memory m n and m n^2 + O(m n) operations per evaluation, for any
embedding dimension D.  Gradient descent (9), W <- W - m delta dL/dW, moves them by exactly
delta times this velocity (h is linear in W), so GD is the Euler scheme of (11) with step delta.

``integrate`` runs classical RK4 with ``steps`` and with 2 ``steps`` steps and accepts when
the two agree (Richardson: the error of the finer run is about 1/15 of their difference),
doubling the steps otherwise.  For the piecewise-linear sigma (relu, leaky relu, abs: slope 1
above 0, ``s_-`` below) the velocity jumps where a pre-activation h_ia crosses 0, and RK4 stepped
across a jump is only first order there while step halving, which assumes the smooth order, does
not see it.  So these are stepped with the kinks as events (``rk4``): on a step, each h_ia is held
to its side of 0 (slope pattern P), where (11) is the affine field F_P(h) = -rate c_i sum_b G_ab
r_b P_ib, r = alpha c^T (P h) - y; RK4 on an affine field is its degree-4 Taylor polynomial
h + tau d1 + tau^2/2 d2 + tau^3/6 d3 + tau^4/24 d4 (d1 = F_P(h), d_(k+1) = the linear part of F_P
applied to d_k), so the first tau at which a held h_ia reaches 0 is a root of that polynomial
(bisection to a few ulps of tau); the step goes there, that h_ia is set to exactly 0, its slope
flipped, and the step goes on from there.  The pieces between events are smooth, so RK4's order
and the halving estimate hold again.  Where the field on the new side pushes h_ia back into 0
(it did on the old side too: a Filippov sliding mode, e.g. relu with n > 1, or abs), h_ia is held
at 0 with the sigma'(h_ia) = theta_ia in [s_-, 1] that keeps it there (``_Held``; the field stays
affine), until theta_ia reaches s_- or 1 -- another event, of the same polynomial -- and h_ia
leaves 0 to that slope's side.  (The Filippov solution is what GD (9) and any consistent scheme
tend to as their step goes to 0: they chatter across 0.)  A relu neuron whose velocity below 0
is 0 (n = 1: it stops at 0) is the case theta = 0 of this.  What the events cannot resolve (two
pre-activations of one neuron sliding with no theta in range, or more than ``_EVENTS_PER_STEP``
events in one step) raises ``ArithmeticError``.

Other scalings (Table 1).  With f = m^-a sum_i c_i s(h_i), h_i = D^-b sum_j W_ij phi_j and the step
W <- W - m^e delta dL/dW, one GD step moves h_i(x) by -delta m^(e-a) D^(1-2b) c_i sum_a G(x, x_a) r_a s'(h_ia)
(G of (12)), and h^0 ~ N(0, D^(1-2b) G) for W^0 ~ N(0, 1).  So every scaling is (11) with the output
scale ``alpha`` = m^-a in f and a ``rate`` m^(e-a) D^(1-2b) in front of the velocity, started from
N(0, D^(1-2b) G): ``Scaling``, ``SCALINGS`` (ours, ntk, mf with D = m) and ``make_problem(scaling=...)``.
``gradient_descent_run`` also carries the features at points off the training set (test points): h
is linear in W, so h^k(x) = h^0(x) - delta rate c_i sum_a G(x, x_a) S^k_ia with S^k the sum over the
past steps of r_a s'(h_ia) -- only the cross kernel G(x, x_a) is needed, at the recorded steps.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import torch

from numerics.core.arrays import DTYPE
from numerics.core.compile import compile_expr
from numerics.core.gaussian_kernels import Activation, parse_activation
from theory.meanfield import dynamics as th
from theory.meanfield.scalings import ABC, TABLE1

_K_ARGS = (th.I_l, th.I_r, th.lam1, th.lam2, th.K_s)
#: kappa(lambda_1, lambda_2) of Lemma 1 as printed, and as its proof gives it (3 C_2), as functions
#: of (I_l, I_r, lambda_1, lambda_2, K_sigma')
kappa_printed = compile_expr(th.KAPPA_PRINTED, _K_ARGS)
kappa_proof = compile_expr(th.KAPPA_STAR, _K_ARGS)
#: K(I, lambda_1, lambda_2) of Lemma 3 as printed, of (I_l, I_r, lambda_1, lambda_2)
K_printed = compile_expr(th.K_PRINTED, _K_ARGS[:4])


@dataclass(frozen=True)
class Scaling:
    """A scaling of Table 1 by its exponents: f = m^-a sum_i c_i s(h_i), h_i = D^-b sum_j W_ij phi_j,
    W <- W - m^e delta dL/dW; ``symmetric``: the NTK model's symmetrised initialisation (Appendix I,
    after Chizat et al. [16]): neurons in pairs with equal W_i and opposite c_i, so f^0 = 0."""

    name: str
    a: float
    b: float
    e: float
    symmetric: bool = False

    def alpha(self, m: int) -> float:
        """The output scale m^-a of f."""
        return m ** -self.a

    def rate(self, m: int, D: int) -> float:
        """The factor m^(e-a) D^(1-2b) of (11)'s velocity per unit delta (module docstring)."""
        return m ** (self.e - self.a) * D ** (1 - 2 * self.b)

    def init_variance(self, D: int) -> float:
        """h^0 ~ N(0, D^(1-2b) G) for W^0_ij ~ N(0, 1)."""
        return D ** (1 - 2 * self.b)


def _from_abc(name: str) -> Scaling:
    """The Table 1 scaling ``name`` from its abc-parameterisation (``theory.meanfield.scalings.ABC``,
    initialisation exponents 0): output multiplier m^-a_3 (a = a_3), hidden multiplier m^-a_2 with
    D = m (b = a_2), learning rate m^-c (e = -c); NTK models are symmetrised at initialisation."""
    (_, a2, a3), b_init, c = ABC[name]
    if any(b_init):
        raise ValueError(f"{name}: a non-zero initialisation exponent is not a Table 1 scaling")
    return Scaling(name, float(a3), float(a2), float(-c), symmetric=name == "ntk")


#: Table 1 (D = m in Exp. 3): ours (1/m, 1/sqrt D, step m delta), NTK (1/sqrt m, 1/sqrt D, step delta,
#: symmetrised), MF (1/m, 1/D, step m^2 delta).  "ours" is the paper's model (2)-(3) with GD (9).
SCALINGS = {name: _from_abc(name) for name in TABLE1}


@dataclass(frozen=True)
class Problem:
    """One instance of (11): Gram matrix ``G`` (n, n), targets ``y`` (n,), second-layer
    weights ``c`` (m,), activation, initial pre-activations ``h0`` (m, n); ``alpha``, the output
    scale of f (None: 1/m, eq. (2)) and ``rate``, the factor of the velocity (1: eq. (11))."""

    G: torch.Tensor
    y: torch.Tensor
    c: torch.Tensor
    act: Activation
    h0: torch.Tensor
    alpha: float | None = None
    rate: float = 1.0

    def __post_init__(self):
        m, n = self.h0.shape
        if self.G.shape != (n, n) or self.y.shape != (n,) or self.c.shape != (m,):
            raise ValueError(f"shapes: G {tuple(self.G.shape)}, y {tuple(self.y.shape)}, c {tuple(self.c.shape)}, "
                             f"h0 {tuple(self.h0.shape)} (need (n, n), (n,), (m,), (m, n))")
        for name in ("G", "y", "c", "h0"):
            if not torch.isfinite(getattr(self, name)).all():
                raise ValueError(f"{name} must be finite")
        if self.alpha is None:
            object.__setattr__(self, "alpha", 1.0 / m)
        if not (math.isfinite(self.alpha) and self.alpha > 0 and math.isfinite(self.rate) and self.rate > 0):
            raise ValueError(f"alpha ({self.alpha}) and rate ({self.rate}) must be finite and positive")

    @property
    def m(self) -> int:
        return self.h0.shape[0]

    def to(self, device) -> Problem:
        """The same problem with its tensors on ``device``."""
        return Problem(self.G.to(device), self.y.to(device), self.c.to(device), self.act, self.h0.to(device),
                       self.alpha, self.rate)

    @property
    def c_hat(self) -> float:
        return float(self.c.abs().max())

    def eig(self) -> tuple[float, float]:
        ev = torch.linalg.eigvalsh(self.G)
        return float(ev[0]), float(ev[-1])


def psd_root(G: torch.Tensor) -> torch.Tensor:
    """R with R R^T = G for a symmetric PSD G (eigen-decomposition; a singular G is allowed)."""
    ev, V = torch.linalg.eigh(G)
    return V * ev.clamp(min=0.0).sqrt()


def make_problem(G, y, m: int, c_hat: float, activation, *, seed: int = 0, h0=None,
                 scaling: Scaling | None = None, D: int | None = None) -> Problem:
    """c_i = +-c_hat with probability 1/2 (Assumption 1); h0 ~ N(0, G) independently per neuron
    (W^0 ~ N(0, 1), Assumption 3: h_i^0 = W_i Phi/sqrt D has covariance G) unless ``h0`` is given
    (then used as it is).  With a ``scaling`` (and its embedding dimension ``D``): its alpha and rate, h0 ~ N(0, D^(1-2b) G),
    and for a symmetric one (m even) neuron m/2 + i a copy of neuron i with the opposite c_i."""
    G = torch.as_tensor(G, dtype=DTYPE)
    y = torch.as_tensor(y, dtype=DTYPE)
    if scaling is not None and (D is None or D < 1):
        raise ValueError("a scaling needs the embedding dimension D >= 1")
    symmetric = scaling is not None and scaling.symmetric
    if symmetric and m % 2:
        raise ValueError(f"the symmetrised initialisation needs an even width, got m = {m}")
    k = m // 2 if symmetric else m
    gen = torch.Generator().manual_seed(seed)
    c = c_hat * (2.0 * torch.randint(0, 2, (k,), generator=gen, dtype=DTYPE) - 1.0)
    if h0 is None:
        h0 = torch.randn(k, len(y), generator=gen, dtype=DTYPE) @ psd_root(G).T
        if scaling is not None:
            h0 = h0 * math.sqrt(scaling.init_variance(D))
        if symmetric:
            h0 = torch.cat([h0, h0])
    if symmetric:
        c = torch.cat([c, -c])
    if scaling is None:
        return Problem(G, y, c, parse_activation(activation), torch.as_tensor(h0, dtype=DTYPE))
    return Problem(G, y, c, parse_activation(activation), torch.as_tensor(h0, dtype=DTYPE),
                   scaling.alpha(m), scaling.rate(m, D))


def output(p: Problem, h: torch.Tensor) -> torch.Tensor:
    """f(x_a) = alpha sum_i c_i sigma(h_ia), eq. (2) (alpha = 1/m) and Table 1."""
    return p.alpha * (p.c @ p.act(h))


def loss(p: Problem, h: torch.Tensor) -> float:
    """L = (1/2) sum_a (f(x_a) - y_a)^2, eq. (6) (a sum, not a mean)."""
    r = output(p, h) - p.y
    return float(0.5 * r @ r)


def _drive(p: Problem, h: torch.Tensor) -> torch.Tensor:
    """v_ia = r_a sigma'(h_ia), the factor (11) contracts with G."""
    return (output(p, h) - p.y)[None, :] * p.act.derivative(h)


def velocity(p: Problem, h: torch.Tensor) -> torch.Tensor:
    """hdot_ia = -rate c_i sum_b G_ab r_b sigma'(h_ib), eq. (11) (rate = 1) and Table 1."""
    return -p.rate * p.c[:, None] * (_drive(p, h) @ p.G)


def loss_rate(p: Problem, h: torch.Tensor) -> float:
    """The right side of (14)'s identity: -(c_hat^2/m) sum_i sum_ab G_ab r_a r_b sigma'_ia sigma'_ib
    (1/m is alpha rate for another scaling)."""
    v = _drive(p, h)
    return float(-(p.alpha * p.rate * p.c**2) @ ((v @ p.G) * v).sum(1))


def loss_rate_bound(p: Problem, h: torch.Tensor, lam_min: float) -> float:
    """The right side of (14)'s inequality: -(c_hat^2 lambda_min/m) sum_i sum_a r_a^2 sigma'_ia^2."""
    v = _drive(p, h)
    return float(-(p.alpha * p.rate * p.c**2) @ (v * v).sum(1) * lam_min)


def active_fraction(h: torch.Tensor, lo: float, hi: float) -> float:
    """min_a (1/m) #{i : h_ia in (lo, hi)}: eta^t of (18) for I = (lo, hi), and tilde eta^0 for its middle third."""
    inside = ((h > lo) & (h < hi)).to(DTYPE)
    return float(inside.mean(0).min())


@dataclass
class Trajectory:
    """Recorded states of one run: times (k+1,), pre-activations (k+1, m, n), the measured
    agreement of the step-halving check (max |h_N - h_2N| over the recorded times) and, per
    recorded time, that of the loss, |L_N - L_2N| (``integrate``; empty for one ``rk4`` run)."""

    times: list[float]
    states: list[torch.Tensor]
    steps: int
    halving_error: float = math.nan
    losses: list[float] = field(default_factory=list)
    loss_halving: list[float] = field(default_factory=list)


def _kink_slopes(act: Activation) -> tuple[float, float] | None:
    """(slope above 0, slope below 0) of a piecewise-linear sigma with its kink at 0; None if smooth."""
    return {"relu": (1.0, 0.0), "leaky_relu": (1.0, act.alpha), "abs": (1.0, -1.0)}.get(act.name)


#: the most kink events one step may hold (an h_ia reaching 0, or leaving a sliding mode) before
#: ``rk4`` gives up (``ArithmeticError``)
_EVENTS_PER_STEP = 64


class _Held:
    """(11) with every h_ia held to one side of 0 (``up``: the slope above 0, else the one below)
    or, where ``Z``, at 0 itself (a Filippov sliding mode): there sigma'(h_ia) is the theta_ia in
    [lo, hi] (the two slopes) that keeps hdot_ia = 0, i.e. the drive v_ia = r_a theta_ia solves, per
    neuron i, sum_(b in Z_i) G_ab v_ib = -sum_(b not in Z_i) G_ab r_b P_ib for a in Z_i.  The drive,
    hence the field, is linear in r, and r is affine in h: the field is affine (module docstring)."""

    def __init__(self, p: Problem, up: torch.Tensor, Z: torch.Tensor, slopes):
        self.p, self.Z = p, Z
        self.lo, self.hi = min(slopes), max(slopes)
        self.P = torch.where(Z, 0.0, torch.where(up, slopes[0], slopes[1])).to(DTYPE)
        self.Q = None
        if bool(Z.any()):
            self.Q = torch.eye(p.G.shape[0], dtype=DTYPE).repeat(p.m, 1, 1)
            for i in torch.nonzero(Z.any(1)).flatten().tolist():
                z, nz = torch.nonzero(Z[i]).flatten(), torch.nonzero(~Z[i]).flatten()
                self.Q[i][z] = 0.0
                self.Q[i][z[:, None], nz[None, :]] = -torch.linalg.solve(p.G[z][:, z], p.G[z][:, nz])

    def drive(self, h: torch.Tensor, affine: bool = True) -> tuple[torch.Tensor, torch.Tensor]:
        """(r, v): the residual (less y when not ``affine``: the linear part) and the drive at h."""
        r = self.p.alpha * (self.p.c @ (self.P * h))
        if affine:
            r = r - self.p.y
        w = r[None, :] * self.P
        return r, (w if self.Q is None else torch.einsum("iab,ib->ia", self.Q, w))

    def field(self, h: torch.Tensor, affine: bool = True) -> torch.Tensor:
        """F(h), or its linear part when not ``affine``; exactly 0 on the sliding h_ia."""
        f = -self.p.rate * self.p.c[:, None] * (self.drive(h, affine)[1] @ self.p.G)
        return f if self.Q is None else torch.where(self.Z, 0.0, f)

    def margins(self, h: torch.Tensor, up: torch.Tensor, sgn: torch.Tensor, affine: bool = True) -> torch.Tensor:
        """(3, m, n), all >= 0 while every h_ia keeps its mode: off 0, h_ia on its side; sliding
        (sgn: the sign of r_a where the piece starts), sgn (v - lo r) and sgn (hi r - v): theta in
        [lo, hi].  Affine in h; when not ``affine``, its linear part."""
        r, v = self.drive(h, affine)
        fill = 1.0 if affine else 0.0
        side = torch.where(self.Z, fill, torch.where(up, h, -h))
        if self.Q is None:
            return side[None]
        return torch.stack([side, torch.where(self.Z, sgn * (v - self.lo * r), fill),
                            torch.where(self.Z, sgn * (self.hi * r - v), fill)])


def _first_crossing(coef, left: float) -> tuple[int, float]:
    """coef (5, K): K quartics q(tau) = sum_k coef_k tau^k with q(left) < 0; the index of the one
    that first goes negative in [0, left] and where (bisection on [a, b] with q(a) >= 0 > q(b), to
    the last bit of tau)."""
    def q(t):
        return coef[0] + t * (coef[1] + t * (coef[2] + t * (coef[3] + t * coef[4])))

    a, b = np.zeros(coef.shape[1]), np.full(coef.shape[1], left)
    for _ in range(64):
        mid = 0.5 * (a + b)
        ok = q(mid) >= 0
        a, b = np.where(ok, mid, a), np.where(ok, b, mid)
    k = int(np.argmin(b))
    return k, float(b[k])


def _kink_step(p: Problem, held: _Held, h: torch.Tensor, up: torch.Tensor, Z: torch.Tensor, dt: float, slopes):
    """One RK4 step of length dt from h on the piecewise-linear flow with the kinks as events
    (module docstring); ``up`` and ``Z`` (bool, (m, n)): the side each h_ia is held to, and the
    h_ia held at 0 (sliding); ``held``: their ``_Held``.  Returns (h, held, up, Z)."""
    left = dt
    for _ in range(_EVENTS_PER_STEP):
        d = [held.field(h)]
        for _k in range(3):
            d.append(held.field(d[-1], False))
        end = h + left * (d[0] + left / 2 * (d[1] + left / 3 * (d[2] + left / 4 * d[3])))
        sgn = None if held.Q is None else torch.where(held.drive(h)[0] >= 0, 1.0, -1.0).to(DTYPE)[None, :]
        out = held.margins(end, up, sgn) < 0
        if not bool(out.any()):
            return end, held, up, Z
        # RK4 on the affine field is its degree-4 Taylor polynomial h + sum_k tau^k d_k / k!, and
        # each margin is affine in h: a quartic in tau, whose coefficients are the margins of the d_k
        coef = [held.margins(h, up, sgn)] + [held.margins(dk, up, sgn, False) / math.factorial(k + 1)
                                             for k, dk in enumerate(d)]
        coef = torch.stack(coef).reshape(5, -1)
        which = torch.nonzero(out.reshape(-1)).flatten()
        j, tau = _first_crossing(coef[:, which].numpy(), left)
        kind, idx = divmod(int(which[j]), h.numel())
        h = h + tau * (d[0] + tau / 2 * (d[1] + tau / 3 * (d[2] + tau / 4 * d[3])))
        h.view(-1)[idx] = 0.0
        up, Z = up.clone(), Z.clone()
        if kind == 0:    # h_ia reached 0: on to the other side, or sliding if that side pushes it back
            up.view(-1)[idx] = ~up.view(-1)[idx]
            held = _Held(p, up, Z, slopes)
            v = float(held.field(h).view(-1)[idx])
            if (v < 0) if bool(up.view(-1)[idx]) else (v > 0):
                Z.view(-1)[idx] = True
                held = _Held(p, up, Z, slopes)
                # with another h_ib of the neuron already sliding, its theta moves: one pushed out of
                # [lo, hi] leaves 0 to that end's side (the most violated first)
                for _k in range(h.shape[1]):
                    s = torch.where(held.drive(h)[0] >= 0, 1.0, -1.0).to(DTYPE)[None, :]
                    g = held.margins(h, up, s)[1:]
                    if bool((g >= 0).all()):
                        break
                    bound, jdx = divmod(int(torch.argmin(g)), h.numel())   # 0: theta at lo, 1: at hi
                    if jdx == idx:
                        raise ArithmeticError("kink events: a pre-activation pushed into 0 from both sides "
                                              "with no sigma' in range (not integrated)")
                    Z.view(-1)[jdx] = False
                    up.view(-1)[jdx] = slopes[0] == (max(slopes) if bound == 1 else min(slopes))
                    held = _Held(p, up, Z, slopes)
                else:
                    raise ArithmeticError("kink events: no sliding set with every sigma' in range (not integrated)")
        else:            # theta reached lo (kind 1) or hi (kind 2): off 0 to that slope's side
            Z.view(-1)[idx] = False
            up.view(-1)[idx] = slopes[0] == (max(slopes) if kind == 2 else min(slopes))
            held = _Held(p, up, Z, slopes)
        left -= tau
        if left <= 0:
            return h, held, up, Z
    raise ArithmeticError(f"kink events: more than {_EVENTS_PER_STEP} in one RK4 step of length {dt:g}")


def rk4(p: Problem, T: float, steps: int, records: int) -> Trajectory:
    """Classical RK4 on (11) from h0 over [0, T] with ``steps`` steps, ``records`` + 1 snapshots;
    for a piecewise-linear sigma with the kinks at 0 as events (module docstring)."""
    if steps % records:
        raise ValueError("steps must be a multiple of records")
    dt = T / steps
    h = p.h0.clone()
    times, states = [0.0], [h.clone()]
    every = steps // records
    slopes = _kink_slopes(p.act)
    if slopes is not None:
        # h_ia = 0 at the start: held to the side its field moves it to (below if it stays)
        Z = torch.zeros_like(h, dtype=torch.bool)
        up = (h > 0) | ((h == 0) & (_Held(p, h >= 0, Z, slopes).field(h) > 0))
        held = _Held(p, up, Z, slopes)
    for k in range(1, steps + 1):
        if slopes is not None:
            h, held, up, Z = _kink_step(p, held, h, up, Z, dt, slopes)
        else:
            k1 = velocity(p, h)
            k2 = velocity(p, h + 0.5 * dt * k1)
            k3 = velocity(p, h + 0.5 * dt * k2)
            k4 = velocity(p, h + dt * k3)
            h = h + dt / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
        if k % every == 0:
            times.append(k * dt)
            states.append(h.clone())
    return Trajectory(times, states, steps, losses=[loss(p, s) for s in states])


def integrate(p: Problem, T: float, *, steps: int = 256, records: int = 64, rtol: float = 1e-8,
              max_steps: int = 2**16) -> Trajectory:
    """RK4 with step halving (module docstring): accepts when max |h_N - h_2N| <= rtol (1 + max |h|)
    at every recorded time; raises ``ArithmeticError`` if ``max_steps`` is reached first."""
    coarse = rk4(p, T, steps, records)
    while True:
        fine = rk4(p, T, 2 * steps, records)
        diff = max(float((a - b).abs().max()) for a, b in zip(coarse.states, fine.states))
        scale = 1.0 + max(float(s.abs().max()) for s in fine.states)
        fine.halving_error = diff
        fine.loss_halving = [abs(a - b) for a, b in zip(coarse.losses, fine.losses)]
        if diff <= rtol * scale:
            return fine
        steps *= 2
        if 2 * steps > max_steps:
            raise ArithmeticError(f"RK4 step halving did not reach rtol={rtol:g} with {max_steps} steps "
                                  f"(last difference {diff:.3g})")
        coarse = fine


def gradient_descent(p: Problem, delta: float, steps: int, *, every: int = 1) -> list[float]:
    """The losses of GD (9) with step delta: h <- h + delta * velocity(h), every ``every`` steps."""
    h = p.h0.clone()
    out = [loss(p, h)]
    for k in range(1, steps + 1):
        h = h + delta * velocity(p, h)
        if k % every == 0:
            out.append(loss(p, h))
    return out


@dataclass
class GDRun:
    """Records of ``gradient_descent_run`` at steps ``steps``: the training loss (6), the test
    predictions f^k(x) (records, n_test) and, at the first and last record, the features at the
    training and test points (``h_train``, ``h_test``: (m, n) and (m, n_test) each)."""

    steps: list[int]
    losses: list[float]
    test_outputs: list[torch.Tensor]
    h_train: tuple[torch.Tensor, torch.Tensor]
    h_test: tuple[torch.Tensor, torch.Tensor]


def gradient_descent_run(p: Problem, delta: float, steps: int, *, every: int = 1, G_test=None, h0_test=None,
                         progress=None) -> GDRun:
    """GD (9) (any scaling of Table 1) for ``steps`` steps with step delta, recording every ``every``
    steps; ``G_test`` (n_test, n) = G(x, x_a) and ``h0_test`` (m, n_test) = h^0(x) at test points
    carry f there (module docstring: one (m, n) x (n, n_test) product per record).  ``progress(k)`` is
    called with the number of steps done since the last call.  Raises ``ArithmeticError`` when the
    loss stops being finite (GD diverged)."""
    if steps % every:
        raise ValueError("steps must be a multiple of every")
    if (G_test is None) != (h0_test is None):
        raise ValueError("give both G_test and h0_test, or neither")
    dev = p.G.device
    if G_test is None:
        G_test = torch.zeros(0, p.G.shape[0], dtype=DTYPE, device=dev)
        h0_test = torch.zeros(p.m, 0, dtype=DTYPE, device=dev)
    G_test, h0_test = torch.as_tensor(G_test, dtype=DTYPE).to(dev), torch.as_tensor(h0_test, dtype=DTYPE).to(dev)
    if G_test.shape[1] != p.G.shape[0] or h0_test.shape != (p.m, G_test.shape[0]):
        raise ValueError(f"G_test {tuple(G_test.shape)} and h0_test {tuple(h0_test.shape)} must be (n_test, n) "
                         f"and (m, n_test)")
    h = p.h0.clone()
    S = torch.zeros_like(h)

    def test_features():
        return h0_test - (delta * p.rate) * p.c[:, None] * (S @ G_test.T)

    steps_at, losses, outputs = [0], [loss(p, h)], [p.alpha * (p.c @ p.act(h0_test))]
    for k in range(1, steps + 1):
        v = _drive(p, h)
        S += v
        h = h - (delta * p.rate) * p.c[:, None] * (v @ p.G)
        if k % every == 0:
            L = loss(p, h)
            if not math.isfinite(L):
                raise ArithmeticError(f"GD diverged: loss {L} at step {k} (delta = {delta:g})")
            steps_at.append(k)
            losses.append(L)
            outputs.append(p.alpha * (p.c @ p.act(test_features())))
            if progress:
                progress(every)
    return GDRun(steps_at, losses, outputs, (p.h0, h), (h0_test, test_features()))
