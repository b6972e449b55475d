"""``maskverify train`` as tasks (``numerics.masking.sweep``): the (kappa, seed) tasks assemble
into the trajectories of the same runs taken one by one (``training.train_one_by_one``, which
runs each (seed, kappa) slice alone), bit for bit with one thread, and the expected
dynamics' tasks equal ``ExpectedGD`` run on all kappas at once."""
from __future__ import annotations

import numpy as np

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
