"""Task functions for ``tests/test_execution.py``, in a module of their own so that Dask's
worker processes can import them (``tests/`` is on ``sys.path``, and a worker spawned by a
``LocalCluster`` inherits the parent's ``sys.path``).

``draw``: seeded CPU work whose result is a deterministic function of its parameters; it logs
each computation (one line per run, ``pid seed``) to ``params["log"]`` so that a test can count
recomputations, and with ``params["hold"]`` it writes its pid to a marker file and sleeps, so that
a test can kill the worker in the middle of the task.  ``toy_fuzz``: a fuzz campaign (x <= 500
over the integers 0..1000, shrinking to x = 501) run by ``numerics.core.fuzzing.run`` with the
example database ``params["database"]``.
"""
from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np
from hypothesis import strategies as st

from numerics.core import fuzzing

TOY = fuzzing.Campaign(
    id="toy", statement="x <= 500", ratio_name="x/500", domain="integers 0..1000", judged="always",
    strategy=st.integers(0, 1000).map(lambda x: {"x": x}), evaluate=lambda ex: (ex["x"] / 500, {}),
    reproducer=lambda ex: f"{ex['x']}/500", threshold=1.0, examples=300)


def draw(params: dict) -> dict:
    if params.get("log"):
        with open(params["log"], "a") as fh:
            fh.write(f"{os.getpid()} {params['seed']}\n")
    if params.get("hold"):
        marker = Path(params["hold"]) / f"{params['seed']}.{os.getpid()}"
        marker.write_text(str(os.getpid()))
        time.sleep(params.get("sleep", 3.0))
    x = np.random.default_rng(params["seed"]).standard_normal(params.get("n", 20_000))
    for _ in range(params.get("rounds", 1)):
        x = np.sin(x) + 0.5 * x
    return {"seed": params["seed"], "sum": float(x.sum()), "max": float(x.max()), "hex": float(x.sum()).hex()}


def toy_fuzz(params: dict) -> dict:
    return fuzzing.to_json(fuzzing.run(TOY, examples=params["examples"], database=params["database"],
                                       progress=False))


def stepped(params: dict) -> dict:
    """``params["steps"]`` steps of a running sum, checkpointed after each (``execution.checkpoint``),
    each step logged (``step i``) to ``params["log"]`` and taking ``params["sleep"]`` seconds; with
    ``params["fail"]`` an existing file, the attempt deletes it and raises after saving step
    ``params["fail_at"]`` (a failure, once)."""
    from numerics.core import execution

    saved = execution.checkpoint()
    state = saved.load() or {"i": 0, "total": 0.0}
    while state["i"] < params["steps"]:
        with open(params["log"], "a") as fh:
            fh.write(f"step {state['i']}\n")
        time.sleep(params.get("sleep", 0.0))
        state = {"i": state["i"] + 1, "total": state["total"] + float(np.sin(state["i"]))}
        saved.save(state)
        fail = Path(params.get("fail", "/nonexistent"))
        if state["i"] == params.get("fail_at") and fail.exists():
            fail.unlink()
            raise RuntimeError("killed")
    return {"total": state["total"]}
