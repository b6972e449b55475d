"""FedAvg under Gaussian masks (``numerics.masking.fedavg``, the paper's Fig. 3(b)).

With one local step a FedAvg round is one step of eq. (1) on the full data, and with one
worker the local steps are eq. (1) itself: both must reproduce ``training.MaskedGD``.  The
gloo processes must reproduce the single-process simulation.  Fig. 3(b)'s files are written.
"""
from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from dataclasses import replace

import numpy as np
import pytest
import torch

from numerics.masking import fedavg as fa
from numerics.masking import training as tr
from numerics.core.tolerance import Tol

CFG = tr.Config(n=40, d=5, m=10, lr=0.05, steps=30, kappas=(0.0, 0.5, 1.0), seeds=2)
#: FedAvg with P workers does the arithmetic of eq. (1) in another order: the gradient is
#: summed per shard and then over shards, and W - eta sum_p G_p is formed as the mean of
#: P copies of W - eta P G_p.  Each step differs by a few ulps; over 30 steps of a
#: Lipschitz map (no ReLU pattern flips at a distance ~1e-15 from 0) the trajectories stay
#: within a few hundred ulps (measured: <= 5e-16 relative).
SUM_ORDER = Tol(rtol=1e-12, why="same arithmetic in another summation order, 30 steps")


@pytest.fixture(autouse=True, scope="module")
def one_thread():
    """These tensors are tiny: intra-op threads only cost here (on a busy 2-core machine two
    threads made the kernels ~15 times slower than one)."""
    with tr.torch_threads(1):
        yield


def _close(a, b, tol: Tol, what: str):
    a, b = np.asarray(a), np.asarray(b)
    err = np.max(np.abs(a - b) / np.abs(b).clip(min=1e-300))
    assert err <= tol.rtol, f"{what}: relative difference {err:.2e} > {tol}"


@pytest.fixture(scope="module")
def masked_gd():
    return {vary: tr.train(replace(CFG, vary_init=vary)) for vary in (False, True)}


@pytest.mark.parametrize("workers", [2, 4])
@pytest.mark.parametrize("vary_init", [False, True])
def test_one_local_step_is_a_step_of_eq1(masked_gd, workers, vary_init):
    ref = masked_gd[vary_init]
    r = fa.run_fedavg(replace(CFG, vary_init=vary_init), workers=workers, local_steps=1)
    assert r.loss[1].shape == ref.loss.shape
    _close(r.loss[1], ref.loss, SUM_ORDER, f"clean losses, {workers} workers")
    _close(r.W[1], ref.W, SUM_ORDER, f"last W, {workers} workers")
    np.testing.assert_array_equal(r.steps(1), np.arange(CFG.steps + 1))


@pytest.mark.parametrize("local_steps", [3, 5])
def test_one_worker_is_eq1_for_any_local_steps(masked_gd, local_steps):
    ref = masked_gd[False]
    r = fa.run_fedavg(CFG, workers=1, local_steps=local_steps)
    assert r.loss[local_steps].shape[-1] == CFG.steps // local_steps + 1
    _close(r.loss[local_steps], ref.loss[..., ::local_steps], SUM_ORDER, f"one worker, {local_steps} local steps")
    _close(r.W[local_steps], ref.W, SUM_ORDER, "last W, one worker")
    np.testing.assert_array_equal(r.steps(local_steps), np.arange(0, CFG.steps + 1, local_steps))


def test_local_steps_with_several_workers_are_not_eq1(masked_gd):
    """The equalities above are not vacuous: with 2 workers and 3 local steps the workers
    drift apart between averages, and the trajectory leaves eq. (1)'s."""
    ref = masked_gd[False]
    r = fa.run_fedavg(CFG, workers=2, local_steps=3)
    rel = np.max(np.abs(r.loss[3][..., 1:] / ref.loss[..., 3::3] - 1))
    assert rel > 1e-6, f"FedAvg with local steps equals eq. (1) to {rel:.1e}"


def test_runs_are_paired_and_do_not_depend_on_their_batch():
    both = fa.run_fedavg(CFG, workers=2, local_steps=[1, 3])
    alone = fa.run_fedavg(replace(CFG, kappas=(1.0,)), workers=2, local_steps=[3, 1])
    for L in (1, 3):
        np.testing.assert_array_equal(alone.loss[L][:, 0], both.loss[L][:, 2])
        # kappa = 0 is noise free: every seed follows the same path
        np.testing.assert_array_equal(both.loss[L][0, 0], both.loss[L][1, 0])
        assert not np.array_equal(both.loss[L][0, 2], both.loss[L][1, 2])


@pytest.mark.parametrize("kwargs, match", [
    (dict(workers=3), "divisible by workers"),
    (dict(workers=0), "workers must be a positive integer"),
    (dict(workers=2, local_steps=7), "divisible by local_steps"),
    (dict(workers=2, local_steps=0), "positive integer"),
    (dict(workers=2, local_steps=[]), "must not be empty"),
    (dict(workers=2, local_steps=[1, 1]), "distinct"),
    (dict(workers=2, backend="mpi"), "backend must be one of"),
    (dict(workers=2, backend="gloo", device="cuda"), "runs on the CPU"),
    (dict(workers=2, backend="nccl", device="cpu"), "runs on CUDA"),
])
def test_bad_settings_raise(kwargs, match):
    with pytest.raises(ValueError, match=match):
        fa.run_fedavg(CFG, **kwargs)


def test_a_diverging_run_is_detected_not_silent(tmp_path):
    cfg = replace(CFG, lr=3.0, kappas=(0.0, 1.0))
    r = fa.run_fedavg(cfg, workers=2, local_steps=[1, 3])
    for L in (1, 3):
        div, loss = r.diverged_at[L], r.loss[L]
        assert (div > 0).all(), f"L = {L}: lr = 3 should diverge, diverged_at = {div}"
        for s, j in np.ndindex(div.shape):
            assert np.isfinite(loss[s, j, :div[s, j]]).all()
            assert np.isnan(loss[s, j, div[s, j]:]).all()
        assert (r.W[L] == 0).all()
    assert "diverged" in fa.describe(r)
    data = json.loads(fa.save_fig3b(r, tmp_path)[2].read_text())
    assert all(row["final"]["mean"] is None and min(row["diverged_at_round"]) > 0 for row in data["results"])


def test_gloo_processes_reproduce_the_simulation():
    """Two gloo processes on the loopback interface against the one-process simulation.

    Each process runs its shard's arithmetic as the simulation does (a batch of one worker
    instead of two, which the matmul kernels need not treat identically), and all_reduce(SUM)
    of two tensors is a + b in some order, which IEEE addition does not distinguish; so the
    trajectories agree to the last bit or nearly (measured: bitwise).  SUM_ORDER allows for a
    kernel that blocks a batch differently.
    """
    cfg = replace(CFG, steps=12, kappas=(0.0, 1.0))
    sim = fa.run_fedavg(cfg, workers=2, local_steps=[1, 3])
    gloo = fa.run_fedavg(cfg, workers=2, local_steps=[1, 3], backend="gloo")
    assert gloo.backend == "gloo" and gloo.local_steps == (1, 3)
    for L in (1, 3):
        _close(gloo.loss[L], sim.loss[L], SUM_ORDER, f"gloo vs sim, {L} local steps")
        _close(gloo.W[L], sim.W[L], SUM_ORDER, "last W, gloo vs sim")
        np.testing.assert_array_equal(gloo.diverged_at[L], sim.diverged_at[L])


def test_fig3b_quick_writes_png_pdf_json_csv(tmp_path):
    paths = fa.reproduce_fig3b(tmp_path, quick=True, progress=False)
    assert [p.name for p in paths] == ["fig3b.png", "fig3b.pdf", "fig3b.json", "fig3b.csv"]
    assert paths[0].read_bytes().startswith(b"\x89PNG") and paths[1].read_bytes().startswith(b"%PDF")
    assert not list(tmp_path.glob("*.tmp"))
    cfg, workers, local_steps = fa.fig3b_config(quick=True)
    data = json.loads(paths[2].read_text())
    assert data["workers"] == workers and data["local_steps"] == list(local_steps)
    assert data["config"]["steps"] == cfg.steps and data["seconds"] > 0
    assert len(data["results"]) == len(cfg.kappas) * len(local_steps)
    for row in data["results"]:
        assert row["final"]["mean"] > 0 and len(row["final"]["per_seed"]) == cfg.seeds
    with paths[3].open() as f:
        rows = list(csv.DictReader(f))
    assert set(rows[0]) == {"seed", "kappa", "local_steps", "round", "steps", "loss"}
    assert len(rows) == cfg.seeds * len(cfg.kappas) * sum(cfg.steps // L + 1 for L in local_steps)
    last = [r for r in rows if int(r["local_steps"]) == local_steps[-1] and int(r["steps"]) == cfg.steps]
    finals = {(float(r["kappa"])): float(r["loss"]) for r in last if r["seed"] == "0"}
    for row in data["results"]:
        if row["local_steps"] == local_steps[-1]:
            assert finals[row["kappa"]] == row["final"]["per_seed"][0]


@pytest.mark.slow
def test_torchrun_writes_fig3b(tmp_path):
    """``torchrun --nproc-per-node 2 -m numerics.masking.fedavg OUT --quick`` (gloo) gives the files."""
    torchrun = os.path.join(os.path.dirname(sys.executable), "torchrun")
    out = tmp_path / "out"
    subprocess.run([torchrun, "--standalone", "--nproc-per-node", "2", "-m", "numerics.masking.fedavg", str(out),
                    "--quick", "--no-progress"], check=True, timeout=300, env={**os.environ, "OMP_NUM_THREADS": "1"})
    data = json.loads((out / "fig3b.json").read_text())
    assert data["backend"] == "gloo" and data["workers"] == 2


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
def test_cuda_one_local_step_is_eq1_and_nccl_reproduces_the_simulation():
    """On CUDA (whose generator draws other masks than the CPU's): FedAvg with one local step
    against ``training.MaskedGD`` on the device, and one nccl process against the simulation."""
    ref = tr.train(CFG, device="cuda")
    gpu = fa.run_fedavg(CFG, workers=2, local_steps=1, device="cuda")
    _close(gpu.loss[1], ref.loss, SUM_ORDER, "cuda, one local step vs eq. (1)")
    sim = fa.run_fedavg(CFG, workers=1, local_steps=3, device="cuda")
    nccl = fa.run_fedavg(CFG, workers=1, local_steps=3, backend="nccl", device="cuda")
    _close(nccl.loss[3], sim.loss[3], SUM_ORDER, "nccl vs simulation, one worker")
