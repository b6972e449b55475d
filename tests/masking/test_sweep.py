"""``maskverify train`` as tasks (``numerics.masking.sweep``): the (kappa, seed) tasks assemble
into the trajectories of the same runs taken one by one (``training.train_one_by_one``, which
runs each (seed, kappa) slice alone), bit for bit with one thread, and the expected
dynamics' tasks equal ``ExpectedGD`` run on all kappas at once, and resume from their checkpoints."""
from __future__ import annotations

import json

import numpy as np
import pytest

from numerics.core import execution
from numerics.masking import sweep
from numerics.masking import training as tr

CFG = tr.Config(n=12, d=3, m=4, steps=15, kappas=(0.0, 0.3, 1.0), seeds=2, vary_init=True)


def test_task_sweep_equals_the_runs_one_by_one(tmp_path):
    with execution.Engine(workers=0, quiet=True) as engine:
        traj, exp = sweep.run(CFG, engine, store=execution.Store(tmp_path), resume=False, device="cpu",
                              expected_steps=4, progress=False)
    with execution.single_threaded():
        ref = tr.train_one_by_one(CFG)
        whole = tr.ExpectedGD(CFG, [0.3, 1.0])
        whole.advance(4)
    assert traj.loss.shape == (2, 3, 16) and np.array_equal(traj.loss, ref.loss, equal_nan=True)
    assert np.array_equal(traj.diverged_at, ref.diverged_at) and bool((traj.W == ref.W).all())
    assert sorted(exp) == [0.3, 1.0]
    for k, losses in whole.result().items():
        assert np.array_equal(exp[k], losses, equal_nan=True)
    assert len(list(tmp_path.glob("*.json"))) == 2 * 3 + 2  # one record per task


def test_expected_task_resumes_from_its_checkpoint_bit_for_bit(tmp_path, monkeypatch):
    """A task interrupted after its checkpoint at step 4 (of 7, a save every 2 steps) goes on from
    step 4 on its next attempt, and its losses equal those of an uninterrupted task bit for bit."""
    params = {"config": {**CFG.as_dict(), "kappas": list(CFG.kappas)}, "device": "cpu", "kappa": 0.3, "steps": 7}
    monkeypatch.setattr(sweep, "CHECKPOINT_EVERY", 2)
    with execution.single_threaded():
        ref = sweep.expected_task(params)  # outside a task: nothing kept
    store = execution.Store(tmp_path)
    save = execution.Checkpoint.save

    def killed_at_4(self, state):
        save(self, state)
        if state["step"] == 4:
            raise RuntimeError("killed")

    monkeypatch.setattr(execution.Checkpoint, "save", killed_at_4)
    with execution.Engine(workers=0, quiet=True) as engine, pytest.raises(execution.TasksFailed):
        execution.run(sweep.expected_task, [params], engine, store=store, progress=False)
    monkeypatch.setattr(execution.Checkpoint, "save", save)
    key = execution.Store.key(sweep.expected_task, params, execution.closure_version(sweep.expected_task))
    assert json.loads(store.partial_path(key).read_text())["step"] == 4
    steps = []
    advance = tr.ExpectedGD.advance
    monkeypatch.setattr(tr.ExpectedGD, "advance", lambda self, n, progress=None: (steps.append(n), advance(self, n)))
    with execution.Engine(workers=0, quiet=True) as engine:
        out = execution.run(sweep.expected_task, [params], engine, store=store, resume=True, progress=False)
    assert steps == [2, 1] and out == [ref]  # steps 5-7 only, and the same losses
    assert not store.partial_path(key).exists() and store.get(key)["result"] == ref
