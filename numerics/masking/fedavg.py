"""Distributed training under Gaussian input masks: FedAvg with local steps (the paper's Fig. 3(b)).

The paper's Fig. 3(b) ("Distributed training with Gaussian mask for different kappa and
number of local steps") models a fading channel: what reaches the learner is x_i . c_i with
c_i = 1 + kappa g_i, g_i ~ N(0, I_d), fresh per sample and per gradient step, exactly the
mask of eq. (1).  The paper publishes no other setting of that figure; ours are below.

FedAvg (McMahan et al. 2017, Algorithm 1, full participation, full-batch local steps).
The n samples are split into P = ``workers`` contiguous shards S_p of n_s = n / P rows
(P must divide n).  Worker p minimises P times its shard's half squared error under masks,

    L^p_C(W) = P * 1/2 sum_{i in S_p} (f(W, x_i . c_i) - y_i)^2,

so that sum_p L^p_C / P = L_C of eq. (1).  Round t, from the global iterate W_t:

    V^p_0 = W_t,
    V^p_{l+1} = V^p_l - eta P grad_W L_{C_{t,l}}^{S_p}(V^p_l),   l = 0 .. local_steps - 1,
    W_{t+1} = (1/P) sum_p V^p_{local_steps},

with grad_W L^{S_p} the shard's part of eq. (2) (``training.masked_loss_grad`` on the
shard's rows).  Only W is trained; a is fixed.  With local_steps = 1,
W_{t+1} = W_t - eta sum_p grad L^{S_p}_{C_t}(W_t) = W_t - eta grad L_{C_t}(W_t): a round
*is* one step of eq. (1) on the full data.  With P = 1 and any local_steps, the local
steps are eq. (1) itself.

Masks.  The standard normal draws of local step l of round t are
``training.mask_noise((n, d), cfg.mask_seed, seed, t * local_steps + l)`` (the full (n, d)
array; worker p uses the rows of S_p), i.e. those of global gradient step
k = t * local_steps + l in ``training.MaskedGD``.  Hence FedAvg with local_steps = 1, or
with one worker, reproduces ``training.MaskedGD`` (up to the order of float sums), and runs
are paired across kappa (common random numbers), as in ``training``.

Recorded: the global clean loss L(W_t) = 1/2 sum_i (f(W_t, x_i) - y_i)^2 on all n samples,
mask off (``training.clean_losses``), after every round t = 0 .. rounds; the x axes are the
round t and the total gradient steps t * local_steps.  A run whose clean loss is not finite
or exceeds ``training.DIVERGED`` after a round is declared diverged at that round: its W is
set to 0 after every later round and its losses are NaN (reported in ``diverged_at`` and
in fig3b.json), as in ``training.MaskedGD``.

Rounds.  ``cfg.steps`` is the number of gradient steps per run (per worker), so a run with
local_steps L takes cfg.steps / L rounds (L must divide cfg.steps): every local-steps value
does the same computation and differs in how often it communicates.

Execution.  ``backend="sim"``: one process runs the P workers one after the other, each a
batched tensor program over (seed, kappa) (W of shape (S, K, m, d)).
``backend="gloo"`` (CPU) or ``"nccl"`` (CUDA, one GPU per worker): one process per worker,
started with ``torch.multiprocessing`` (spawn) on the loopback interface (MASTER_ADDR
127.0.0.1, a free port), or by torchrun; the average is all_reduce(SUM) / P, and rank 0
returns the trajectories.  Under torchrun:

    torchrun --nproc-per-node 4 -m numerics.masking.fedavg OUT_DIR [--quick] [--backend gloo]

(``python -m numerics.masking.fedavg OUT_DIR`` without torchrun runs the same in one process).
"""
from __future__ import annotations

from theory.core.io import atomic_write

import argparse
import csv
import io
import json
import math
import os
import pickle
import socket
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as torch_mp
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from tqdm import tqdm

from . import training as tr

BACKENDS = ("sim", "gloo", "nccl")
#: our settings for Fig. 3(b) (the paper states none; n, d, m, eta, steps are Fig. 3(a)'s);
#: see ``reproduce_fig3b``
FIG3B = dict(n=tr.FIG3A["n"], d=tr.FIG3A["d"], m=tr.FIG3A["m"], lr=tr.FIG3A["lr"], steps=tr.FIG3A["steps"],
             kappas=(0.0, 0.2, 0.6, 1.0), seeds=2, workers=4, local_steps=(1, 5, 10))
#: a few seconds' version for tests
FIG3B_QUICK = dict(n=40, d=5, m=10, lr=0.05, steps=60, kappas=(0.0, 1.0), seeds=2,
                   workers=2, local_steps=(1, 3))
LINESTYLES = ("-", "--", ":", "-.")


def check_setup(cfg: tr.Config, workers: int, local_steps) -> tuple[int, ...]:
    """Validate the FedAvg settings against ``cfg``; return the local-steps values as a tuple."""
    if isinstance(workers, bool) or int(workers) != workers or workers < 1:
        raise ValueError(f"workers must be a positive integer, got {workers!r}")
    if cfg.n % workers:
        raise ValueError(f"n = {cfg.n} samples cannot be split into {workers} equal shards "
                         f"(n must be divisible by workers)")
    values = (local_steps,) if np.ndim(local_steps) == 0 else tuple(local_steps)
    if not values:
        raise ValueError("local_steps must not be empty")
    for L in values:
        if isinstance(L, bool) or int(L) != L or L < 1:
            raise ValueError(f"every local_steps value must be a positive integer, got {L!r}")
        if cfg.steps % L:
            raise ValueError(f"steps = {cfg.steps} gradient steps per run is not a whole number of rounds "
                             f"of {L} local steps (steps must be divisible by local_steps)")
    if len(set(values)) != len(values):
        raise ValueError(f"local_steps values must be distinct, got {values}")
    return tuple(int(L) for L in values)


class FedAvg:
    """FedAvg rounds (module docstring) for every (seed, kappa) of ``cfg`` at once.

    This process holds the workers ``shards`` (default: all P of them, the single-process
    simulation, which runs them one after the other); ``reduce`` sums a tensor in place over
    all processes (all_reduce(SUM)), None when this process holds every shard.  ``W`` is the
    global iterate (S, K, m, d).  Each worker's step is ``training.masked_loss_grad`` on its
    shard's rows, so a process of the distributed run does a simulated worker's arithmetic.
    """

    def __init__(self, cfg: tr.Config, *, workers: int, local_steps: int, shards=None, reduce=None,
                 device="cpu"):
        check_setup(cfg, workers, local_steps)
        self.cfg, self.workers, self.local_steps, self.reduce = cfg, workers, local_steps, reduce
        self.device = torch.device(device)
        self.dtype = tr.DTYPES[cfg.dtype]
        self.shards = list(range(workers)) if shards is None else [int(p) for p in shards]
        n_s = cfg.n // workers
        self.rows = [slice(p * n_s, (p + 1) * n_s) for p in self.shards]
        p = tr.problem(cfg, self.device)
        self.X, self.y, self.a = p.X, p.y, p.a                       # all n samples; a (S or 1, 1, m)
        S, K = cfg.seeds, len(cfg.kappas)
        self.kappa = torch.tensor(cfg.kappas, dtype=self.dtype, device=self.device)[None, :, None, None]
        self.W = p.W0.expand(S, K, cfg.m, cfg.d).clone()
        self.round = 0
        self.ws, self.ws_clean = tr.Workspace(), tr.Workspace()     # shard-sized and n-sized buffers
        self.log = tr.RunLog(S, K, self.device)
        self.log.record(tr.clean_losses(self.W, self.a, self.X, self.y, self.ws_clean), 0)

    def _noise(self, step: int) -> torch.Tensor:
        """The draws of gradient step ``step`` for all n samples: (S, 1, n, d)."""
        cfg = self.cfg
        g = self.ws.get("g", (cfg.seeds, 1, cfg.n, cfg.d), self.W)
        for s in range(cfg.seeds):
            tr.mask_noise((cfg.n, cfg.d), cfg.mask_seed, s, step, out=g[s, 0])
        return g

    def advance(self, rounds: int, progress=None) -> None:
        """Take ``rounds`` rounds, recording the global clean loss after each; ``progress``
        (a tqdm bar or None) advances by local_steps gradient steps per round."""
        L, P, S, K = self.local_steps, self.workers, *self.W.shape[:2]
        for _ in range(rounds):
            V = self.ws.get("V", (len(self.shards), *self.W.shape), self.W)
            V.copy_(self.W.expand_as(V))                                 # every worker starts at W_t
            for l in range(L):
                g = self._noise(self.round * L + l)
                for v, rows in zip(V, self.rows):
                    n_s = rows.stop - rows.start
                    C = torch.mul(self.kappa, g[:, :, rows], out=self.ws.get("C", (S, K, n_s, self.cfg.d), v))
                    _, G = tr.masked_loss_grad(v, self.a, self.X[rows], self.y[rows], C.add_(1), self.ws)
                    v.sub_(G, alpha=self.cfg.lr * P)
            total = V.sum(0)
            if self.reduce is not None:
                self.reduce(total)
            self.W = total.div_(P)
            self.round += 1
            self.log.record(tr.clean_losses(self.W, self.a, self.X, self.y, self.ws_clean), self.round)
            self.W[~self.log.alive] = 0.0
            if progress is not None:
                progress.update(L)


@dataclass
class FedAvgResult:
    """FedAvg trajectories for each local-steps value L: ``loss[L][s, j, t]`` is the global
    clean loss after round t (t = 0 .. cfg.steps / L; NaN after a divergence) of seed s and
    kappa j; ``diverged_at[L][s, j]`` the round a run diverged at (-1: never); ``W[L]`` the
    last global iterate (S, K, m, d).  ``config.steps`` is the gradient steps per run.
    ``seconds``: wall time of ``run_fedavg`` (spawned processes: including their start-up;
    under torchrun: rank 0's run)."""

    config: tr.Config
    workers: int
    local_steps: tuple
    loss: dict
    diverged_at: dict
    W: dict
    backend: str
    device: str
    seconds: float = 0.0

    def rounds(self, L: int) -> np.ndarray:
        return np.arange(self.loss[L].shape[-1])

    def steps(self, L: int) -> np.ndarray:
        """Total gradient steps (per worker) after each round: t * L."""
        return self.rounds(L) * L


def _run(cfg, workers, local_steps, *, shards, reduce, device, show) -> tuple[dict, dict, dict]:
    loss, div, W = {}, {}, {}
    with tqdm(total=cfg.steps * len(local_steps), unit="step", disable=not show, desc="FedAvg") as bar:
        for L in local_steps:
            bar.set_postfix(local_steps=L)
            run = FedAvg(cfg, workers=workers, local_steps=L, shards=shards, reduce=reduce, device=device)
            run.advance(cfg.steps // L, bar)
            loss[L], div[L], W[L] = run.log.values.copy(), run.log.diverged_at, run.W.cpu()
    return loss, div, W


def _rank_part(cfg, workers, local_steps, backend, device, progress) -> FedAvgResult | None:
    """This process's worker of an initialised process group; the result on rank 0, else None."""
    rank, world = dist.get_rank(), dist.get_world_size()
    if world != workers:
        raise ValueError(f"the process group has {world} processes but workers = {workers}")
    if backend == "nccl":
        dev = torch.device("cuda", int(os.environ.get("LOCAL_RANK", rank)))
        torch.cuda.set_device(dev)
    else:
        dev = torch.device(device)
    t0 = time.perf_counter()
    loss, div, W = _run(cfg, workers, local_steps, shards=[rank], device=dev, show=progress and rank == 0,
                        reduce=lambda t: dist.all_reduce(t, op=dist.ReduceOp.SUM))
    if rank:
        return None
    return FedAvgResult(cfg, workers, local_steps, loss, div, W, backend, str(dev), time.perf_counter() - t0)


def _spawned(rank: int, spec: dict, port: int, out: str) -> None:
    """Entry point of a spawned worker process: join the loopback group and run its shard."""
    torch.set_num_threads(1)
    os.environ["MASTER_ADDR"], os.environ["MASTER_PORT"] = "127.0.0.1", str(port)
    if spec["backend"] == "gloo" and "GLOO_SOCKET_IFNAME" not in os.environ \
            and "lo" in {name for _, name in socket.if_nameindex()}:
        os.environ["GLOO_SOCKET_IFNAME"] = "lo"
    dist.init_process_group(spec["backend"], rank=rank, world_size=spec["workers"])
    try:
        result = _rank_part(spec["cfg"], spec["workers"], spec["local_steps"], spec["backend"],
                            spec["device"], spec["progress"])
        if result is not None:
            with open(out, "wb") as f:
                pickle.dump(result, f)
    finally:
        dist.destroy_process_group()


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_fedavg(cfg: tr.Config, *, workers: int, local_steps: int | list = 1, backend: str = "sim",
               device: str = "cpu", progress: bool = False, threads: int | None = None) -> FedAvgResult | None:
    """FedAvg (module docstring) for every (seed, kappa) of ``cfg`` and every local-steps value.

    Each run takes ``cfg.steps`` gradient steps per worker, i.e. cfg.steps / L rounds for
    local_steps = L (L must divide cfg.steps; ``workers`` must divide cfg.n).
    ``backend``: "sim" (one process, on ``device``), "gloo" (``workers`` CPU processes;
    device must be "cpu") or "nccl" (``workers`` processes, GPU r for rank r; device
    "cuda").  The processes are spawned here, unless a process group is already initialised
    (torchrun): then this process is one worker and only rank 0 gets the result (the others
    get None).  ``progress``: a tqdm bar over gradient steps (rank 0's, when distributed).
    ``threads``: torch's intra-op threads for a "sim" run (restored afterwards; None: leave
    as is); spawned workers always use one thread each.
    """
    local_steps = check_setup(cfg, workers, local_steps)
    if threads is not None and (isinstance(threads, bool) or int(threads) != threads or threads < 1):
        raise ValueError(f"threads must be a positive integer or None, got {threads!r}")
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    if backend == "gloo" and torch.device(device).type != "cpu":
        raise ValueError(f"backend 'gloo' runs on the CPU; got device {device!r}")
    if backend == "nccl":
        if torch.device(device).type != "cuda":
            raise ValueError(f"backend 'nccl' runs on CUDA; got device {device!r}")
        if not dist.is_initialized() and torch.cuda.device_count() < workers:
            raise ValueError(f"backend 'nccl' needs one GPU per worker: {workers} workers, "
                             f"{torch.cuda.device_count()} GPUs")
    t0 = time.perf_counter()
    if backend == "sim":
        with tr.torch_threads(threads):
            loss, div, W = _run(cfg, workers, local_steps, shards=None, reduce=None, device=device, show=progress)
        return FedAvgResult(cfg, workers, local_steps, loss, div, W, backend, str(device),
                            time.perf_counter() - t0)
    if dist.is_initialized():
        return _rank_part(cfg, workers, local_steps, backend, device, progress)
    spec = dict(cfg=cfg, workers=workers, local_steps=local_steps, backend=backend, device=device,
                progress=progress)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "rank0.pkl")
        torch_mp.spawn(_spawned, args=(spec, _free_port(), out), nprocs=workers, join=True)
        with open(out, "rb") as f:
            result = pickle.load(f)
    result.seconds = time.perf_counter() - t0
    return result


# -- Fig. 3(b) -------------------------------------------------------------------------------

def summary(result: FedAvgResult) -> list[dict]:
    """Per (kappa, local steps): the clean loss after all cfg.steps gradient steps and after
    the rounds of the largest local-steps value (the same communication), mean and standard
    error (std with ddof 1 / sqrt(runs)) over the seeds that did not diverge."""
    cfg = result.config
    common = cfg.steps // max(result.local_steps)

    def stats(v: np.ndarray) -> dict:
        ok = v[np.isfinite(v)]
        return dict(mean=float(ok.mean()) if ok.size else None,
                    stderr=float(ok.std(ddof=1) / math.sqrt(ok.size)) if ok.size > 1 else None,
                    per_seed=[float(x) if math.isfinite(x) else None for x in v])

    rows = []
    for j, kappa in enumerate(cfg.kappas):
        for L in result.local_steps:
            loss = result.loss[L][:, j]
            rows.append(dict(kappa=kappa, local_steps=L, rounds=cfg.steps // L,
                             final=stats(loss[:, -1]), common_round=common, at_common_round=stats(loss[:, common]),
                             diverged_at_round=result.diverged_at[L][:, j].tolist()))
    return rows


def describe(result: FedAvgResult) -> str:
    """The final clean losses as lines 'kappa  L  mean +- stderr' (for the command line)."""
    lines = [f"FedAvg, {result.workers} workers, {result.config.steps} gradient steps per run, "
             f"{result.config.seeds} seeds ({result.backend}, {result.seconds:.1f} s): final clean loss"]
    for r in summary(result):
        f = r["final"]
        div = sum(t >= 0 for t in r["diverged_at_round"])
        value = "all diverged" if f["mean"] is None else f"{f['mean']:.4g}" + (
            f" +- {f['stderr']:.2g}" if f["stderr"] is not None else "")
        lines.append(f"  kappa {r['kappa']:<5g} local steps {r['local_steps']:<3d} {value}"
                     + (f"  ({div} diverged)" if div else ""))
    return "\n".join(lines)


def _over_seeds(v: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean, min and max over axis 0 of the finite entries (NaN where there are none,
    i.e. every seed diverged; without numpy's all-NaN warnings)."""
    ok = np.isfinite(v)
    count = ok.sum(0)
    some = count > 0
    mean = np.where(some, np.where(ok, v, 0.0).sum(0) / np.maximum(count, 1), np.nan)
    lo = np.where(some, np.where(ok, v, np.inf).min(0), np.nan)
    hi = np.where(some, np.where(ok, v, -np.inf).max(0), np.nan)
    return mean, lo, hi


def figure(result: FedAvgResult) -> Figure:
    """Two panels, clean loss (log) against rounds and against total gradient steps: one colour
    per kappa, one line style per local-steps value; line = mean over seeds, band = min..max."""
    cfg = result.config
    fig = Figure(figsize=(11.5, 4.4), layout="constrained")
    axes = fig.subplots(1, 2, sharey=True)
    colours = [f"C{j}" for j in range(len(cfg.kappas))]
    for ax, xname in zip(axes, ("rounds", "steps")):
        for j in range(len(cfg.kappas)):
            for i, L in enumerate(result.local_steps):
                x = getattr(result, xname)(L)
                mean, lo, hi = _over_seeds(result.loss[L][:, j])
                ax.plot(x, mean, color=colours[j], ls=LINESTYLES[i % len(LINESTYLES)], lw=1.3)
                ax.fill_between(x, lo, hi, color=colours[j], alpha=0.18, lw=0)
        ax.set_yscale("log")
        ax.grid(True, which="major", alpha=0.3)
    axes[0].set_xscale("symlog", linthresh=1)
    axes[0].set_xlim(0, cfg.steps // min(result.local_steps))
    axes[0].set_xlabel("communication round t (linear below 1, log above)")
    axes[1].set_xlabel("total gradient steps per worker (t x local steps)")
    axes[0].set_ylabel(r"clean loss $L(W_t)$")
    kappa_handles = [Line2D([], [], color=c, lw=2, label=f"$\\kappa$ = {k:g}") for c, k in zip(colours, cfg.kappas)]
    step_handles = [Line2D([], [], color="k", lw=1.3, ls=LINESTYLES[i % len(LINESTYLES)],
                           label=f"{L} local step" + "s" * (L > 1)) for i, L in enumerate(result.local_steps)]
    axes[0].legend(handles=kappa_handles, loc="lower left", fontsize=8)
    axes[1].legend(handles=step_handles, loc="lower left", fontsize=8)
    fig.suptitle(f"Fig. 3(b): FedAvg under Gaussian masks, {result.workers} workers, n = {cfg.n}, d = {cfg.d}, "
                 f"m = {cfg.m}, $\\eta$ = {cfg.lr:g}, {cfg.seeds} seeds (mean, band min..max)", fontsize=10)
    return fig


def save_fig3b(result: FedAvgResult, out_dir) -> list[Path]:
    """Write fig3b.png, fig3b.pdf, fig3b.json (settings, final losses, seconds) and fig3b.csv
    (seed, kappa, local_steps, round, steps, loss; empty loss after a divergence) into
    ``out_dir`` (created if needed), each atomically (temporary file, then os.replace)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / f"fig3b.{ext}" for ext in ("png", "pdf", "json", "csv")]
    fig = figure(result)
    for path in paths[:2]:
        atomic_write(path, lambda tmp, fmt=path.suffix[1:]: fig.savefig(tmp, format=fmt, dpi=150))
    cfg = result.config
    payload = {
        "figure": "fig3b", "paper": "Fig. 3(b)",
        "settings_note": "the paper states no settings for Fig. 3(b); these are ours",
        "algorithm": "FedAvg, full participation, contiguous shards, full-batch local steps on P x the shard's "
                     "half squared error under masks c = 1 + kappa g; W_{t+1} = mean of the workers' W",
        "config": {**cfg.as_dict(), "steps_meaning": "gradient steps per run (per worker)"},
        "workers": result.workers, "local_steps": list(result.local_steps),
        "rounds": {str(L): cfg.steps // L for L in result.local_steps},
        "backend": result.backend, "device": result.device, "seconds": result.seconds,
        "seconds_note": "wall time of run_fedavg; spawned processes include their start-up",
        "band": "min..max over seeds; line: mean over seeds",
        "results": summary(result),
    }
    atomic_write(paths[2], json.dumps(payload, indent=1))
    buf = io.StringIO()
    writer = csv.writer(buf)
    writer.writerow(("seed", "kappa", "local_steps", "round", "steps", "loss"))
    for L in result.local_steps:
        for s in range(cfg.seeds):
            for j, kappa in enumerate(cfg.kappas):
                for t, v in enumerate(result.loss[L][s, j].tolist()):
                    writer.writerow((s, kappa, L, t, t * L, repr(v) if math.isfinite(v) else ""))
    atomic_write(paths[3], buf.getvalue())
    return paths


def fig3b_config(quick: bool = False) -> tuple[tr.Config, int, tuple]:
    """(Config, workers, local_steps) of our Fig. 3(b) settings (``FIG3B`` or ``FIG3B_QUICK``)."""
    s = dict(FIG3B_QUICK if quick else FIG3B)
    workers, local_steps = s.pop("workers"), s.pop("local_steps")
    return tr.Config(**s), workers, local_steps


def reproduce_fig3b(out_dir, *, quick: bool = False, backend: str = "sim", device: str = "cpu",
                    progress: bool = True, workers: int | None = None) -> list[Path]:
    """Run our Fig. 3(b) and write fig3b.{png,pdf,json,csv} into ``out_dir``.

    Default settings (``FIG3B``; the paper gives none for Fig. 3(b), so n, d, m, eta and
    the steps are those of its Fig. 3(a)): n = 500 samples (unit inputs, random labels in
    [-1, 1], ``numerics.masking.data``), d = 20, m = 100, tau = 1, eta = 0.005, 4 workers of 125
    samples each, local steps in {1, 5, 10}, kappa in {0, 0.2, 0.6, 1.0}, 2000 gradient
    steps per run (2000, 400, 200 rounds), 2 seeds (mask streams; same data and init),
    float64.  The simulation runs on one CPU thread: its products (125 x 20 by 20 x 100,
    batched over 8 runs) are too small to gain from intra-op threads, and on a busy machine
    two threads were 15 times slower than one.  About a minute on two busy cores.
    ``quick``: ``FIG3B_QUICK`` (n = 40, d = 5, m = 10, 2 workers, local
    steps {1, 3}, kappa in {0, 1}, 60 steps), a few seconds.  ``workers`` overrides the
    number of workers (torchrun uses its world size).  Returns the written paths (empty on
    ranks other than 0 under torchrun).
    """
    cfg, default_workers, local_steps = fig3b_config(quick)
    result = run_fedavg(cfg, workers=default_workers if workers is None else workers, local_steps=local_steps,
                        backend=backend, device=device, progress=progress, threads=1)
    return [] if result is None else save_fig3b(result, out_dir)


def main(argv=None) -> int:
    """``python -m numerics.masking.fedavg OUT_DIR``, or the same under ``torchrun --nproc-per-node P``."""
    ap = argparse.ArgumentParser(prog="python -m numerics.masking.fedavg", description=reproduce_fig3b.__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", help="output directory")
    ap.add_argument("--quick", action="store_true", help="the small settings (a few seconds)")
    ap.add_argument("--backend", choices=BACKENDS, default=None,
                    help="default: sim, or gloo under torchrun")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--no-progress", action="store_true")
    args = ap.parse_args(argv)
    under_torchrun = "TORCHELASTIC_RUN_ID" in os.environ
    backend = args.backend or ("gloo" if under_torchrun else "sim")
    if not under_torchrun:
        paths = reproduce_fig3b(args.out, quick=args.quick, backend=backend, device=args.device,
                                progress=not args.no_progress)
    else:
        if backend == "sim":
            ap.error("under torchrun the backend is gloo or nccl")
        dist.init_process_group(backend)
        try:
            paths = reproduce_fig3b(args.out, quick=args.quick, backend=backend, device=args.device,
                                    progress=not args.no_progress, workers=dist.get_world_size())
        finally:
            dist.destroy_process_group()
    for p in paths:
        print(p)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
