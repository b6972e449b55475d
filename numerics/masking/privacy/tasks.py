"""Section 6's runs as tasks of the execution layer (``numerics.core.execution``).

One task is one run of ``experiment.plan``, the smallest unit that stands alone:

- ``fig4`` (accuracy): one (model, kappa, seed): one network trained on the training split,
  its test and training accuracy;
- ``attack`` (attack, and dp's mask and DP-SGD points): one (model, kappa or noise multiplier,
  seed): the target *and* its shadow model (the attack needs both, trained with the same mask
  or DP-SGD noise on their own parts of the four-way split), the ML-Leaks and loss-threshold
  attacks on the target, its accuracy and epsilon.  Splitting target and shadow into two tasks
  would ship their posteriors between tasks for no gain: the grid has enough units.

A task's parameters are JSON (``params``: kind, model, kappa, noise multiplier, seed, epochs, data
folder, data seed, device) and name everything it computes: the data and its split are loaded
from them (``split``: once per process), and training is seeded by (seed, role) alone
(``training.seeds_of``), so a task's result does not depend on where or after which other task
it ran.  Run by the layer, each task has one BLAS and one torch thread
(``execution.single_threaded``), so the serial engine (``--workers 0``), a local cluster and a
remote one give the same numbers bit for bit.
"""
from __future__ import annotations

import functools

from . import attacks, data, training


def params(kind: str, model: str, kappa: float, noise: float | None, seed: int, epochs: int,
           data_dir: str | None, data_seed: int, device: str) -> dict:
    """The JSON parameters of one run (``kind`` "fig4" or "attack"; ``noise``: the DP-SGD noise
    multiplier, None for a masked run; ``data_dir`` None: digits)."""
    return dict(kind=kind, model=model, kappa=float(kappa), noise=None if noise is None else float(noise),
                seed=int(seed), epochs=int(epochs), data=data_dir, data_seed=int(data_seed), device=device)


@functools.lru_cache(maxsize=1)
def split(kind: str, data_dir: str | None, data_seed: int):
    """The standardised data of a run: (train, test) for ``fig4``, ``data.FourParts`` for
    ``attack``; cached for the process's next task of the same data (a worker runs many)."""
    source = data.load(data_dir)
    return data.train_test(source, data_seed) if kind == "fig4" else data.four_parts(source, data_seed)


def run(p: dict, progress=None) -> dict:
    """The task: the result of the run ``p`` (``params``) as JSON; ``progress`` (a tqdm bar,
    in-process runs only) advances per epoch of training."""
    parts = split(p["kind"], p["data"], p["data_seed"])
    if p["kind"] == "fig4":
        return _fig4(p, *parts, progress)
    return _attack(p, parts, progress)


def _fig4(p: dict, train: data.Images, test: data.Images, progress) -> dict:
    recipe = training.fig4_recipe(p["model"], p["epochs"])
    net = training.train(p["model"], train, p["kappa"], p["seed"], "fig4", recipe, device=p["device"],
                         progress=progress).model
    return dict(test_accuracy=training.accuracy(net, test), train_accuracy=training.accuracy(net, train))


def _attack(p: dict, parts: data.FourParts, progress) -> dict:
    recipe = training.attack_recipe(p["epochs"])
    t, s = (training.train(p["model"], getattr(parts, f"{role}_train"), p["kappa"], p["seed"], role, recipe,
                           noise_multiplier=p["noise"], device=p["device"], progress=progress)
            for role in ("target", "shadow"))
    post = {name: training.posteriors(net.model, getattr(parts, part))
            for name, net, part in (("si", s, "shadow_train"), ("so", s, "shadow_test"),
                                    ("ti", t, "target_train"), ("to", t, "target_test"))}
    res = attacks.ml_leaks(post["si"], post["so"], post["ti"], post["to"], parts.target_train.y,
                           parts.target_test.y, seed=p["seed"])
    return dict(res.as_dict(), accuracy=float((post["to"].argmax(1) == parts.target_test.y).mean()),
                train_accuracy=float((post["ti"].argmax(1) == parts.target_train.y).mean()),
                epsilon=t.epsilon, shadow_epsilon=s.epsilon)
