"""``maskverify train`` as tasks of the execution layer (``numerics.core.execution``): eq. (1)
one task per (kappa, seed), the expected dynamics one task per kappa.

A (kappa, seed) task is ``MaskedGD`` restricted to that kappa and seed: its masks come from the
generator keyed by (mask seed, seed, step) alone (``training.mask_noise``), and its data and W_0
from the config's seeds, so it is the same run as that slice of the batched program (runs stay
paired across kappa), up to the order of float sums (``training.train_one_by_one``).  Each task
runs with one thread (``execution.single_threaded``), so that its result is the same bit for bit
wherever it runs (a serial run, a local cluster, a remote one).  The trajectories are assembled in (seed, kappa)
order as ``training.train`` returns them, and ``fig3a.summarise`` reads them as it does those.
"""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import torch

from numerics.core import execution
from numerics.masking import training as tr


def _config(params: dict) -> tr.Config:
    return tr.Config(**{**params["config"], "kappas": tuple(params["config"]["kappas"])})


def _finite_or_none(values) -> list:
    """JSON for a loss curve: NaN (after a divergence) as None."""
    return [float(v) if math.isfinite(v) else None for v in values]


def masked_task(params: dict) -> dict:
    """Eq. (1) for one (``kappa``, ``seed``) of ``params["config"]``, ``steps`` steps on
    ``device``: the clean losses L(W_k), k = 0..steps, the divergence step (-1: none) and the
    last iterate W."""
    cfg = replace(_config(params), kappas=(params["kappa"],))
    run = tr.MaskedGD(cfg, device=params["device"], seeds=[params["seed"]])
    run.advance(cfg.steps)
    t = run.trajectories()
    return {"loss": _finite_or_none(t.loss[0, 0]), "diverged_at": int(t.diverged_at[0, 0]),
            "W": t.W[0, 0].cpu().double().tolist(), "seconds": t.seconds}


#: expected-dynamics steps between two checkpoints of a task (at Fig. 3(a)'s size 1-4 s a step)
CHECKPOINT_EVERY = 20


def _encode(state: dict) -> dict:
    return dict(state, W=[w.tolist() for w in state["W"]], losses=[_finite_or_none(L) for L in state["losses"]])


def _decode(state: dict) -> dict:
    return dict(state, W=[torch.tensor(w, dtype=torch.float64) for w in state["W"]],
                losses=[[math.nan if v is None else v for v in L] for L in state["losses"]])


def expected_task(params: dict) -> dict:
    """The expected dynamics (``training.ExpectedGD``, seed 0) of one ``kappa`` for ``steps``
    steps: the clean losses L(W^E_k), k = 0..steps.  Saves its state every ``CHECKPOINT_EVERY``
    steps (``execution.checkpoint``: W to the last bit, float reprs being exact) and goes on from
    the last one saved, so an interrupted task loses at most that many steps and ends with the
    same losses, bit for bit."""
    cfg, steps = _config(params), params["steps"]
    saved = execution.checkpoint()
    state = saved.load()
    run = tr.ExpectedGD(cfg, [params["kappa"]]) if state is None else tr.ExpectedGD.from_state(_decode(state), cfg)
    while run.step < steps:
        run.advance(min(CHECKPOINT_EVERY, steps - run.step))
        saved.save(_encode(run.state()))
    return {"loss": _finite_or_none(run.losses[0])}


def run(cfg: tr.Config, engine: execution.Engine, *, store: execution.Store, resume: bool, device: str,
        expected_steps: int, progress: bool) -> tuple[tr.Trajectories, dict | None]:
    """Every (seed, kappa) of ``cfg`` and, with ``expected_steps``, the expected dynamics of every
    kappa > 0, as tasks on ``engine``; the trajectories as ``training.train`` gives them
    (``seconds``: the tasks' compute time summed) and the expected losses by kappa (or None)."""
    base = {"config": {**cfg.as_dict(), "kappas": list(cfg.kappas)}, "device": device}
    grid = [(s, k) for s in range(cfg.seeds) for k in cfg.kappas]
    masked = execution.run(masked_task, [dict(base, seed=s, kappa=k) for s, k in grid], engine, store=store,
                           resume=resume, desc="masked GD (kappa x seed)", progress=progress)
    S, K = cfg.seeds, len(cfg.kappas)
    loss = np.array([[np.nan if v is None else v for v in r["loss"]] for r in masked]).reshape(S, K, -1)
    div = np.array([r["diverged_at"] for r in masked]).reshape(S, K)
    W = torch.tensor([r["W"] for r in masked], dtype=tr.DTYPES[cfg.dtype]).reshape(S, K, cfg.m, cfg.d)
    traj = tr.Trajectories(cfg, loss, div, W, sum(r["seconds"] for r in masked))
    ks = [k for k in cfg.kappas if k > 0]
    if not (expected_steps and ks):
        return traj, None
    steps = min(expected_steps, cfg.steps)
    exp = execution.run(expected_task, [dict(base, kappa=k, steps=steps) for k in ks], engine, store=store,
                        resume=resume, desc="expected dynamics (kappa)", progress=progress)
    return traj, {k: np.array([np.nan if v is None else v for v in r["loss"]]) for k, r in zip(ks, exp)}
