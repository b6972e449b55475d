"""Training under Gaussian input masks: eq. (1) batched over seeds and kappa, and the
expected dynamics.

Masked gradient descent, eq. (1):  W_{k+1} = W_k - eta grad_W L_{C_k}(W_k), full batch,
a fresh mask c_{k,i} = 1 + kappa g_{k,i}, g ~ N(0, I_d), per sample and step; only W is
trained, a is fixed.  The gradient is eq. (2):
    grad_{w_r} L_C(W) = a_r m^{-1/2} sum_i (f(W, x_i . c_i) - y_i) 1{w_r^T(x_i . c_i) >= 0} (x_i . c_i).
What is recorded is the *clean* loss L(W_k) = 1/2 sum_i (f(W_k, x_i) - y_i)^2 (mask off),
as in the paper's Fig. 3(a).

Every (seed, kappa) run is one slice of a single tensor program: W has shape (S, K, m, d).
Runs are paired: for a given seed, every kappa starts from the same data and W_0 and uses
the same standard normal draws g_{k,i} (common random numbers), so that differences
between kappas are not blurred by different noise.  The draws of seed s at step k come
from a generator seeded by (mask seed, s, k) alone, so a run's trajectory does not
depend on which other runs share its batch, and a run can be resumed at any step.

The expected dynamics replace the sampled gradient by E_C[grad L_C(W)] (exact, from
``numerics.masking.network.expected_loss_and_grad``): W^E_{k+1} = W^E_k - eta E_C[grad L_C(W^E_k)].
Masked minus expected isolates what the sampling adds (variance); expected minus
kappa = 0 is the bias of the masked gradient.
"""
from __future__ import annotations

import contextlib
import math
import time
from dataclasses import asdict, dataclass, replace

import numpy as np
import torch

from . import network as nw
from .data import LABELS, initialisation, synthetic_data

DTYPES = {"float64": torch.float64, "float32": torch.float32}
#: the paper's Fig. 3(a) (Section 6); tau is not stated there and is ours
FIG3A = dict(n=500, d=20, m=100, lr=0.005, steps=2000, kappas=(0.0, 0.05, 0.2, 0.4, 0.6, 1.0, 2.0))
#: a run whose clean loss exceeds this (or is not finite) is declared diverged and stopped
DIVERGED = 1e30


@dataclass(frozen=True)
class Config:
    """One experiment: data, network, optimiser, the (seed, kappa) grid and the arithmetic.

    Seeds index the mask streams; with ``vary_init`` they also index W_0 and a (else every
    seed starts from the init of ``init_seed``).  The data are those of ``data_seed``.
    """

    n: int = FIG3A["n"]
    d: int = FIG3A["d"]
    m: int = FIG3A["m"]
    lr: float = FIG3A["lr"]
    steps: int = FIG3A["steps"]
    kappas: tuple = FIG3A["kappas"]
    seeds: int = 4
    tau: float = 1.0
    labels: str = "random"
    data_seed: int = 0
    init_seed: int = 0
    mask_seed: int = 0
    vary_init: bool = False
    dtype: str = "float64"

    def __post_init__(self):
        object.__setattr__(self, "kappas", tuple(float(k) for k in self.kappas))
        for name in ("n", "d", "m", "seeds"):
            v = getattr(self, name)
            if int(v) != v or v < 1:
                raise ValueError(f"{name} must be a positive integer, got {v!r}")
        for name in ("steps", "data_seed", "init_seed", "mask_seed"):
            v = getattr(self, name)
            if int(v) != v or v < 0:
                raise ValueError(f"{name} must be a non-negative integer, got {v!r}")
        for name in ("lr", "tau"):
            v = getattr(self, name)
            if not (v > 0 and math.isfinite(v)):
                raise ValueError(f"{name} must be a positive finite number, got {v!r}")
        if not self.kappas:
            raise ValueError("kappas must not be empty")
        for k in self.kappas:
            if not (k >= 0 and math.isfinite(k)):
                raise ValueError(f"every kappa must be finite and >= 0, got {k!r}")
        if len(set(self.kappas)) != len(self.kappas):
            raise ValueError(f"kappas must be distinct, got {self.kappas}")
        if self.labels not in LABELS:
            raise ValueError(f"labels must be one of {LABELS}, got {self.labels!r}")
        if self.dtype not in DTYPES:
            raise ValueError(f"dtype must be one of {tuple(DTYPES)}, got {self.dtype!r}")

    def as_dict(self) -> dict:
        return asdict(self)

    def same_experiment(self, other: "Config") -> bool:
        """Equal but for the number of steps (a longer run continues a shorter one)."""
        return replace(self, steps=0) == replace(other, steps=0)


@dataclass
class Problem:
    """The tensors of an experiment: X (n, d), y (n,), a (S or 1, 1, m), W_0 (S or 1, 1, m, d)."""

    X: torch.Tensor
    y: torch.Tensor
    a: torch.Tensor
    W0: torch.Tensor


def problem(cfg: Config, device="cpu") -> Problem:
    """Data and initialisation of ``cfg`` on ``device`` in ``cfg.dtype`` (see ``numerics.masking.data``)."""
    dt = DTYPES[cfg.dtype]
    X, y = synthetic_data(cfg.n, cfg.d, cfg.data_seed, labels=cfg.labels)
    inits = range(cfg.seeds) if cfg.vary_init else [0]
    Ws, As = zip(*(initialisation(cfg.m, cfg.d, cfg.tau, cfg.init_seed + s) for s in inits))
    t = lambda v: torch.as_tensor(np.asarray(v), dtype=dt, device=device)  # noqa: E731
    return Problem(t(X), t(y), t(As)[:, None, :], t(Ws)[:, None, :, :])


def mask_noise(shape, *key: int, device="cpu", dtype=torch.float64, out=None) -> torch.Tensor:
    """Standard normal draws of ``shape`` that are a function of the integers ``key`` alone
    (eq. (1) uses key = (mask seed, seed, step)), on ``device``, returned in ``dtype`` (or
    written into ``out``).  Drawn in float64 whatever the dtype, so that a float32 run sees
    the float64 run's masks rounded."""
    key = np.random.SeedSequence([int(k) for k in key]).generate_state(2, np.uint64)[0]
    if out is not None:
        device = out.device
    g = torch.Generator(device=device).manual_seed(int(key) & ((1 << 63) - 1))
    draws = torch.randn(shape, generator=g, device=device, dtype=torch.float64)
    if out is None:
        return draws.to(dtype)
    return out.copy_(draws)


@contextlib.contextmanager
def torch_threads(n: int | None):
    """Run the block with ``n`` torch CPU threads (None: unchanged), restoring the count after.

    Small products gain nothing from intra-op threads, and on a busy machine lose a lot
    (two threads were ~15x slower than one for the 50 x 50 products of the tests)."""
    before = torch.get_num_threads()
    torch.set_num_threads(before if n is None else n)
    try:
        yield
    finally:
        torch.set_num_threads(before)


class Workspace:
    """Reusable buffers for the batched kernels, allocated once per shape.

    Reusing them is not only faster: allocating and freeing the ~10 MB temporaries of a
    Fig. 3(a) step thousands of times makes glibc's heap grow without bound (seen here:
    6 GB after 600 steps), whereas with the buffers memory stays flat.
    """

    def __init__(self):
        self._buffers = {}

    def get(self, name: str, shape, like: torch.Tensor) -> torch.Tensor:
        shape = tuple(shape)
        buf = self._buffers.get(name)
        if buf is None or buf.shape != shape or buf.dtype != like.dtype or buf.device != like.device:
            buf = self._buffers[name] = torch.empty(shape, dtype=like.dtype, device=like.device)
        return buf


def _batch(A, B) -> tuple:
    """The broadcast of A's and B's batch shapes (all but the last two dimensions).

    numpy's rule, computed here: ``torch.broadcast_shapes`` imports SymPy on first use (~1 s
    in every fresh worker process).
    """
    a, b = tuple(A.shape[:-2]), tuple(B.shape[:-2])
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + a, (1,) * (n - len(b)) + b
    if any(x != y and 1 not in (x, y) for x, y in zip(a, b)):
        raise ValueError(f"batch shapes {a} and {b} do not broadcast")
    return tuple(max(x, y) for x, y in zip(a, b))


def clean_losses(W, a, X, y, ws: Workspace | None = None):
    """L(W) = 1/2 sum_i (f(W, x_i) - y_i)^2 with f(W, x) = m^{-1/2} sum_r a_r ReLU(w_r^T x),
    batched: W (..., m, d), a (..., m), X (n, d), y (n,) -> (...)."""
    ws = ws or Workspace()
    batch, (m, n) = _batch(W, X), (W.shape[-2], X.shape[-2])
    Z = torch.matmul(X, W.transpose(-1, -2), out=ws.get("Z", (*batch, n, m), W)).relu_()
    f = torch.matmul(Z, a[..., :, None].expand(*batch, m, 1), out=ws.get("f", (*batch, n, 1), W))
    return 0.5 * ((f[..., 0] / math.sqrt(m) - y) ** 2).sum(-1)


def masked_loss_grad(W, a, X, y, C, ws: Workspace | None = None):
    """(L_C(W), grad_W L_C(W)) by eq. (2), batched: W (..., m, d), a (..., m), X (n, d),
    y (n,), masks C (..., n, d) -> ((...), (..., m, d)).  The ReLU's derivative is eq. (2)'s
    indicator 1{z >= 0}.  The gradient is a buffer of ``ws``: copy it to keep it."""
    ws = ws or Workspace()
    batch = _batch(W, C)
    m, n, d = W.shape[-2], X.shape[-2], X.shape[-1]
    av = a[..., :, None].expand(*batch, m, 1)
    Xc = torch.mul(X, C, out=ws.get("Xc", (*batch, n, d), W))
    Z = torch.matmul(Xc, W.transpose(-1, -2), out=ws.get("Z", (*batch, n, m), W))
    act = torch.ge(Z, 0, out=ws.get("act", (*batch, n, m), W))
    resid = torch.matmul(Z.mul_(act), av, out=ws.get("f", (*batch, n, 1), W)).div_(math.sqrt(m))
    resid -= y[:, None]
    loss = 0.5 * (resid ** 2).sum((-1, -2))
    G = torch.matmul(act.transpose(-1, -2), Xc.mul_(resid), out=ws.get("G", (*batch, m, d), W))
    return loss, G.mul_(av).div_(math.sqrt(m))


class RunLog:
    """Clean losses and divergences of a batch of runs (S seeds, K kappas).

    ``record(L, index)`` stores the losses L (S, K) at ``index`` (a step or a round): a run
    whose loss is not finite or exceeds ``DIVERGED`` is declared diverged there (``diverged_at``,
    -1 for never), stops (``alive`` False), and records NaN from then on.  The losses live in
    one growing array, not a list of small ones: small arrays kept between the large
    temporaries of each step fragment the heap (seen here: +60 kB a step).
    """

    def __init__(self, S: int, K: int, device):
        self.alive = torch.ones(S, K, dtype=torch.bool, device=device)
        self.diverged_at = np.full((S, K), -1)
        self._loss = np.full((S, K, 16), np.nan)
        self.count = 0

    @property
    def values(self) -> np.ndarray:
        """The losses recorded so far, (S, K, count)."""
        return self._loss[..., : self.count]

    def record(self, L: torch.Tensor, index: int) -> torch.Tensor:
        """Append L (S, K); return the runs that diverged now (bool (S, K))."""
        bad = self.alive & ~(torch.isfinite(L) & (L < DIVERGED))
        if bad.any():
            for s, j in bad.nonzero().tolist():
                self.diverged_at[s, j] = index
            self.alive &= ~bad
        if self.count == self._loss.shape[-1]:
            grown = np.full(self._loss.shape[:-1] + (2 * self.count,), np.nan)
            grown[..., : self.count] = self._loss
            self._loss = grown
        self._loss[..., self.count] = torch.where(self.alive, L, torch.nan).double().cpu().numpy()
        self.count += 1
        return bad

    def state(self) -> dict:
        return dict(alive=self.alive.cpu(), diverged_at=self.diverged_at.copy(), losses=self.values.copy())

    def restore(self, state: dict) -> None:
        self.alive = state["alive"].to(self.alive.device)
        self.diverged_at = np.asarray(state["diverged_at"]).copy()
        self._loss = np.array(state["losses"], dtype=float)
        self.count = self._loss.shape[-1]


@dataclass
class Trajectories:
    """Clean losses L(W_k) of every run: ``loss[s, j, k]`` for seed s, kappa j, step k
    (k = 0..steps; NaN after a divergence), and the step each run diverged at (-1: never)."""

    config: Config
    loss: np.ndarray
    diverged_at: np.ndarray
    W: torch.Tensor                      # the last iterate, (S, K, m, d)
    seconds: float = 0.0

    @property
    def steps(self) -> int:
        return self.loss.shape[-1] - 1


class MaskedGD:
    """Eq. (1) for every (seed, kappa) of a ``Config`` at once; ``advance`` steps it on.

    ``seeds`` restricts the batch to some seeds (the others are not run): the trajectory of
    a seed is the same whichever seeds share its batch.
    """

    def __init__(self, cfg: Config, *, device="cpu", seeds=None):
        self.cfg = cfg
        self.device = torch.device(device)
        self.dtype = DTYPES[cfg.dtype]
        self.seeds = list(range(cfg.seeds)) if seeds is None else [int(s) for s in seeds]
        if not self.seeds or any(not 0 <= s < cfg.seeds for s in self.seeds):
            raise ValueError(f"seeds must be a non-empty subset of 0..{cfg.seeds - 1}, got {self.seeds}")
        p = problem(cfg, self.device)
        pick = (lambda t: t[self.seeds]) if cfg.vary_init else (lambda t: t)  # noqa: E731
        self.X, self.y = p.X, p.y
        self.a = pick(p.a)                                               # (S or 1, 1, m)
        K = len(cfg.kappas)
        self.kappa = torch.tensor(cfg.kappas, dtype=self.dtype, device=self.device)[None, :, None, None]
        self.W = pick(p.W0).expand(len(self.seeds), K, cfg.m, cfg.d).clone()
        self.step = 0
        self.seconds = 0.0                  # spent in advance()
        self.ws = Workspace()
        self.log = RunLog(len(self.seeds), K, self.device)
        self.log.record(clean_losses(self.W, self.a, self.X, self.y, self.ws), 0)

    @property
    def losses(self) -> np.ndarray:
        """Clean losses so far, (S, K, step + 1)."""
        return self.log.values

    @property
    def diverged_at(self) -> np.ndarray:
        return self.log.diverged_at

    def _noise(self) -> torch.Tensor:
        shape = (self.cfg.n, self.cfg.d)
        g = self.ws.get("g", (len(self.seeds), 1, *shape), self.W)
        for i, s in enumerate(self.seeds):
            mask_noise(shape, self.cfg.mask_seed, s, self.step, out=g[i, 0])
        return g                                                         # (S, 1, n, d)

    def advance(self, steps: int, progress=None) -> None:
        """Take ``steps`` steps of eq. (1), recording the clean loss after each."""
        t0 = time.perf_counter()
        for _ in range(steps):
            C = torch.mul(self.kappa, self._noise(), out=self.ws.get("C", self.W.shape[:2] + self.X.shape, self.W))
            _, G = masked_loss_grad(self.W, self.a, self.X, self.y, C.add_(1), self.ws)
            if not self.log.alive.all():
                G[~self.log.alive] = 0.0                                 # a stopped run stays at 0
            self.W.sub_(G, alpha=self.cfg.lr)
            self.step += 1
            bad = self.log.record(clean_losses(self.W, self.a, self.X, self.y, self.ws), self.step)
            if bad.any():
                self.W[bad] = 0.0                                        # stopped: its losses are NaN
            if progress is not None:
                progress.update(1)
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)
        self.seconds += time.perf_counter() - t0

    def trajectories(self) -> Trajectories:
        return Trajectories(replace(self.cfg, steps=self.step), self.losses.copy(), self.diverged_at.copy(),
                            self.W.clone(), self.seconds)

    # -- checkpointing: everything needed to continue bit for bit
    def state(self) -> dict:
        return dict(config=self.cfg.as_dict(), seeds=self.seeds, step=self.step, W=self.W.cpu(),
                    seconds=self.seconds, **self.log.state())

    @classmethod
    def from_state(cls, state: dict, cfg: Config, *, device="cpu") -> "MaskedGD":
        old = Config(**{**state["config"], "kappas": tuple(state["config"]["kappas"])})
        if not cfg.same_experiment(old):
            raise ValueError("the checkpoint is of another experiment: "
                             + ", ".join(f"{k}={v!r} (now {getattr(cfg, k)!r})"
                                         for k, v in old.as_dict().items()
                                         if k != "steps" and getattr(cfg, k) != v))
        run = cls(cfg, device=device, seeds=state["seeds"])
        run.step = int(state["step"])
        run.W = state["W"].to(run.device, run.dtype)
        run.log.restore(state)
        run.seconds = float(state["seconds"])
        return run


def train(cfg: Config, *, device="cpu", progress=None) -> Trajectories:
    """Run eq. (1) for every (seed, kappa) of ``cfg`` in one batched program."""
    run = MaskedGD(cfg, device=device)
    run.advance(cfg.steps, progress)
    return run.trajectories()


def train_one_by_one(cfg: Config, *, device="cpu", progress=None) -> Trajectories:
    """The same runs as ``train``, one (seed, kappa) at a time in a Python loop (the baseline
    of ``bench/bench_training.py``; same trajectories up to the order of float sums)."""
    t0 = time.perf_counter()
    S, K = cfg.seeds, len(cfg.kappas)
    loss = np.empty((S, K, cfg.steps + 1))
    div = np.empty((S, K), dtype=int)
    Ws = torch.empty(S, K, cfg.m, cfg.d, dtype=DTYPES[cfg.dtype])
    for j, kappa in enumerate(cfg.kappas):
        for s in range(S):
            run = MaskedGD(replace(cfg, kappas=(kappa,)), device=device, seeds=[s])
            run.advance(cfg.steps, progress)
            t = run.trajectories()
            loss[s, j], div[s, j], Ws[s, j] = t.loss[0, 0], t.diverged_at[0, 0], t.W[0, 0].cpu()
    return Trajectories(cfg, loss, div, Ws, time.perf_counter() - t0)


class ExpectedGD:
    """Gradient descent on the exact E_C[grad L_C(W)] from one W_0, for several kappas.

    W^E_{k+1} = W^E_k - eta E_C[grad L_C(W^E_k)] (``numerics.masking.network.expected_loss_and_grad``),
    float64 on the CPU (the exact kernel's arithmetic), starting from the W_0 of seed
    ``seed`` (the shared W_0 unless ``cfg.vary_init``).  ``losses[j]`` holds the clean
    losses L(W^E_k), k = 0.., of kappa ``kappas[j]`` (NaN from a divergence on).  One step
    costs one exact evaluation per kappa: 1-3 s at Fig. 3(a)'s size on one core
    (n m^2 pairs of neurons), 0.03 s at n = 100, m = 20.
    """

    def __init__(self, cfg: Config, kappas=None, *, seed: int = 0):
        if not 0 <= seed < cfg.seeds:
            raise ValueError(f"seed must be in 0..{cfg.seeds - 1}, got {seed}")
        p = problem(replace(cfg, dtype="float64"))
        self.cfg, self.seed = cfg, int(seed)
        self.kappas = [float(k) for k in (cfg.kappas if kappas is None else kappas)]
        self.X, self.y = p.X, p.y
        k0 = self.seed if cfg.vary_init else 0
        self.a = p.a[k0, 0]
        self.W = [p.W0[k0, 0].clone() for _ in self.kappas]
        L0 = float(nw.clean_loss(self.W[0], self.a, self.X, self.y))
        self.losses = [[L0] for _ in self.kappas]
        self.step = 0

    def advance(self, steps: int, progress=None) -> None:
        for _ in range(steps):
            for j, kappa in enumerate(self.kappas):
                if math.isfinite(self.losses[j][-1]):
                    _, G = nw.expected_loss_and_grad(self.W[j], self.a, self.X, self.y, kappa)
                    self.W[j] = self.W[j] - self.cfg.lr * G
                    L = float(nw.clean_loss(self.W[j], self.a, self.X, self.y))
                    self.losses[j].append(L if math.isfinite(L) and L < DIVERGED else math.nan)
                else:
                    self.losses[j].append(math.nan)
                if progress is not None:
                    progress.update(1)
            self.step += 1

    def result(self) -> dict:
        """{kappa: clean losses L(W^E_k), k = 0..step}."""
        return {k: np.array(L) for k, L in zip(self.kappas, self.losses)}

    def state(self) -> dict:
        return dict(kappas=self.kappas, seed=self.seed, step=self.step, W=[w.clone() for w in self.W],
                    losses=[list(L) for L in self.losses])

    @classmethod
    def from_state(cls, state: dict, cfg: Config) -> "ExpectedGD":
        run = cls(cfg, state["kappas"], seed=state["seed"])
        run.step, run.W, run.losses = int(state["step"]), list(state["W"]), [list(L) for L in state["losses"]]
        return run


def model_flops(cfg: Config, runs: int | None = None) -> float:
    """Floating-point operations of one step of eq. (1) for ``runs`` runs (default: all):
    the masked forward pass, the gradient and the clean evaluation are each one (n x d) by
    (d x m)-sized product, 2 n m d multiply-adds; elementwise work is not counted."""
    runs = cfg.seeds * len(cfg.kappas) if runs is None else runs
    return 3 * 2.0 * cfg.n * cfg.m * cfg.d * runs
