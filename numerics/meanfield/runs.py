"""What Experiments 2 and 3 share: a store of finished runs (``--resume``), the device, the loss
normalisation, the CSV and figure writers and the common command-line options.

Loss normalisation.  (6) is a sum over the n training points, and GD (9) with delta = 1 on it is
past the edge of stability of the linearised dynamics at the experiments' sizes (the initial
tangent kernel's largest eigenvalue grows like n: 8.45 at n = 600 in Exp. 3, so delta < 0.24 is
needed).  ``loss="mean"`` takes the mean-squared error (1/n) sum_a (f(x_a) - y_a)^2 (PyTorch's
``MSELoss``), whose gradient is 2/n times that of (6): GD with step delta on it is GD on (6) with
step 2 delta / n (``effective_delta``).  ``loss="sum"`` is (6) as printed.
"""
from __future__ import annotations

import contextlib
import csv
import io
import json
import sys
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import torch

from numerics.core import execution
from numerics.core.cliargs import UsageError, check_memory, count, output, real
from theory.core.io import atomic_write, write_json

LOSSES = ("mean", "sum")


def effective_delta(loss: str, delta: float, n: int) -> float:
    """The step of GD on (6) equal to GD with step ``delta`` on the chosen loss (module docstring)."""
    if loss not in LOSSES:
        raise ValueError(f"loss must be one of {LOSSES}, got {loss!r}")
    return delta if loss == "sum" else 2.0 * delta / n


def device(name: str) -> torch.device:
    """``auto``: cuda if available, else cpu; ``cuda`` without a device is a usage error."""
    if name == "auto":
        name = "cuda" if torch.cuda.is_available() else "cpu"
    if name == "cuda" and not torch.cuda.is_available():
        raise UsageError("--device cuda: no CUDA device is available (torch.cuda.is_available() is False)")
    return torch.device(name)


class RunStore:
    """Finished runs, keyed by a string, in the JSON file ``path`` (None: in memory only) with the
    settings they belong to; each ``put`` rewrites the file atomically.  ``resume``: keep the runs of
    a file written with the same settings (other settings: a usage error, not a silent mix)."""

    def __init__(self, path: Path | None, settings: dict, resume: bool):
        self.path, self.runs = (Path(path) if path else None), {}
        self.settings = json.loads(json.dumps(settings))     # as a JSON file holds it (tuples -> lists)
        if resume and self.path and self.path.exists():
            saved = self._read()
            if saved is None:
                return
            if saved.get("settings") != self.settings:
                raise UsageError(f"--resume: {self.path} was written with other settings; remove it or change --out")
            self.runs = saved["runs"]

    def _read(self) -> dict | None:
        """The saved ``{settings, runs}``, or None when the file cannot be read as one (cut short,
        not JSON, another shape): it is then set aside in ``unreadable/`` beside it, said on stderr,
        and every run runs again (``execution.set_aside``)."""
        try:
            saved = json.loads(self.path.read_text(encoding="utf-8"))
            if isinstance(saved, dict) and isinstance(saved.get("runs"), dict) and "settings" in saved:
                return saved
        except (OSError, UnicodeDecodeError, json.JSONDecodeError):
            pass
        where = execution.set_aside(self.path, self.path.parent / "unreadable")
        print(f"--resume: {self.path} is not a store of runs; set aside as {where}, its runs run again",
              file=sys.stderr)
        return None

    def __contains__(self, key: str) -> bool:
        return key in self.runs

    def put(self, key: str, run: dict) -> None:
        self.runs[key] = run
        if self.path:
            self.path.parent.mkdir(parents=True, exist_ok=True)  # made with the first run, not before
            write_json(self.path, {"settings": self.settings, "runs": self.runs})


def write_csv(path: Path, header: list[str], rows) -> Path:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    w.writerows(rows)
    return atomic_write(path, buf.getvalue())


def save_figure(fig, path: Path, pdf: bool) -> list[Path]:
    """``path`` (PNG) and, with ``pdf``, the same figure beside it as PDF."""
    out = [atomic_write(path, lambda tmp: fig.savefig(tmp, format="png", dpi=120))]
    if pdf:
        out.append(atomic_write(path.with_suffix(".pdf"), lambda tmp: fig.savefig(tmp, format="pdf")))
    return out


def add_common_options(p, cfg, *, name: str) -> None:
    """--steps --every --delta --loss --seeds (default None: the base configuration's, ``cfg`` or
    --full's), --seed --device --threads --out --resume --pdf --no-progress."""
    p.add_argument("--steps", type=count(1), help=f"GD steps per run (default {cfg.steps})")
    p.add_argument("--every", type=count(1), help=f"record every this many steps (default {cfg.every})")
    p.add_argument("--delta", type=real(0.0, open_lo=True), help=f"GD step size delta (default {cfg.delta:g})")
    p.add_argument("--loss", choices=LOSSES,
                   help=f"mean: GD on (1/n) sum (f - y)^2 (PyTorch MSELoss); sum: on (6) as printed (default {cfg.loss})")
    p.add_argument("--seeds", type=count(1), help=f"seeds per setting (default {cfg.seeds})")
    p.add_argument("--seed", type=count(0), default=0, help="first seed (default 0): seeds SEED, SEED+1, ...")
    p.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto", help="auto: cuda if available")
    p.add_argument("--threads", type=count(0), default=1, metavar="N",
                   help="CPU threads for torch (default 1: these problems are small and a busy machine's "
                        "cores are shared; 0: torch's choice)")
    p.add_argument("--out", type=output("dir"), default=".", help=f"directory for {name}.json, .csv, .png (created if missing)")
    p.add_argument("--resume", action="store_true", help=f"keep the finished runs in OUT/{name}_runs.json")
    p.add_argument("--pdf", action="store_true", help="also write the figures as PDF")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    execution.add_arguments(p, store=f"results/tasks/{name}", resume_flag=None)


@dataclass
class Tasks:
    """``execute``'s jobs as tasks of the execution layer (``numerics.core.execution``): the
    engine, the store of task records and whether to resume from it."""

    engine: execution.Engine
    store: execution.Store
    resume: bool


def config(cls, fields: dict):
    """A frozen config dataclass from its ``asdict`` as JSON holds it (lists back to tuples)."""
    return cls(**{k: tuple(v) if isinstance(v, list) else v for k, v in fields.items()})


def execute(store: RunStore, jobs: dict, steps: int, *, progress: bool, desc: str, tasks: Tasks | None = None) -> dict:
    """Run ``jobs`` (key -> (task, params), ``task(params, progress_callback=None) -> dict``, a
    module-level function of JSON parameters) not already in ``store``, storing each when it
    finishes; returns every run by key.  Here, one after another under one tqdm bar counting GD
    steps; with ``tasks``, as tasks on its engine (each also recorded in its store at once)."""
    from tqdm import tqdm

    todo = [k for k in jobs if k not in store]
    if tasks is not None and todo:
        by_task: dict = {}
        for k in todo:
            by_task.setdefault(jobs[k][0], []).append(k)
        for task, keys in by_task.items():
            done = execution.run(task, [jobs[k][1] for k in keys], tasks.engine, store=tasks.store,
                                 resume=tasks.resume, desc=desc, progress=progress)
            for k, r in zip(keys, done):
                store.put(k, r)
        return {k: store.runs[k] for k in jobs}
    with tqdm(total=steps * len(todo), desc=desc, unit="step", disable=not progress) as bar:
        for key in todo:
            bar.set_postfix_str(key)
            task, params = jobs[key]
            store.put(key, task(params, bar.update))
    return {k: store.runs[k] for k in jobs}


@contextlib.contextmanager
def threads(n: int):
    """Set torch's CPU threads to ``n`` (0: leave them) for the block, and restore them after."""
    old = torch.get_num_threads()
    if n:
        torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(old)


#: at most this many neurons' features at the first training and test point are kept for the scatter plots
SCATTER = 2048


def grew(run: dict) -> bool:
    """Whether a finished run ends with a larger training error than it started with (GD unstable)."""
    return "diverged" not in run and run["train_mse"][-1] > run["train_mse"][0]


def measure(emb, y_test, delta: float, steps: int, every: int, dev, progress, *, scatter: bool) -> dict:
    """GD (``dynamics.gradient_descent_run``) on the network ``emb`` (``embeddings.Embedded``) on
    device ``dev``, and what the experiments read off it, per recorded step: ``train_mse`` (1/n)
    sum (f - y)^2 = 2 L/n, ``test_mse`` and ``test_cls`` (the fraction of test points with
    sign f != y; for +-1 labels); at the end the feature movement: ``move_rel`` ||h^T - h^0||_F /
    ||h^0||_F and ``move_abs`` (1/(m N)) sum_i sum_x |h_i^T(x) - h_i^0(x)| (the left side of (15),
    averaged over x), over the training and test points together; ``scatter``: h_i(x_1) (training)
    and h_i(x'_1) (test) at the start and the end for up to ``SCATTER`` neurons.  A diverged run
    returns {"diverged": message}."""
    from . import dynamics as dy

    p = emb.problem.to(dev)
    yt = torch.as_tensor(y_test, dtype=p.y.dtype, device=dev)
    try:
        r = dy.gradient_descent_run(p, delta, steps, every=every, G_test=emb.G_test, h0_test=emb.h0_test,
                                    progress=progress)
    except ArithmeticError as exc:
        return {"diverged": str(exc)}
    n = p.y.shape[0]
    h0 = torch.cat([r.h_train[0], r.h_test[0]], 1)
    dh = torch.cat([r.h_train[1], r.h_test[1]], 1) - h0
    out = {"train_mse": [2.0 * L / n for L in r.losses],
           "test_mse": [float(((f - yt) ** 2).mean()) for f in r.test_outputs],
           "test_cls": [float((torch.sign(f) != yt).to(f.dtype).mean()) for f in r.test_outputs],
           "move_rel": float(dh.norm() / h0.norm()), "move_abs": float(dh.abs().mean())}
    if scatter:
        idx = torch.linspace(0, p.m - 1, min(p.m, SCATTER), device=dev).round().long()
        out["scatter"] = {name: [h[idx, 0].tolist() for h in pair]
                          for name, pair in (("train", r.h_train), ("test", r.h_test))}
    return out


def cell(v, width: int, spec: str) -> str:
    """One right-aligned summary-table cell; ``-`` for a missing value."""
    return f"{v:>{width}{spec}}" if v is not None else f"{'-':>{width}}"


def command(args, base, fields, *, name: str, run, write, summary, check=None, keyed=()) -> int:
    """The body of ``maskverify meanfield-<name>``: ``base`` (``Config()`` or the ``--full`` one)
    with every ``(field, value)`` of ``fields`` whose value was given replacing its default and
    ``--seed``; ``check(cfg)`` may raise ``UsageError``; finished runs are kept in
    ``OUT/<name>_runs.json`` under the settings that do not enumerate runs (``keyed`` fields,
    ``seeds`` and ``seed`` blanked), so ``--resume`` reuses them; then the files and the summary."""
    out = Path(args.out)
    cfg = replace(base, **{k: (tuple(v) if isinstance(v, list) else v) for k, v in fields if v is not None},
                  seed=args.seed)
    if cfg.steps % cfg.every:
        raise UsageError(f"--steps ({cfg.steps}) must be a multiple of --every ({cfg.every})")
    if check is not None:
        check(cfg)
    # the largest run holds X (n, d), the features (m, n) with their optimiser's copies and the
    # (n, n) Gram: an estimate from the shapes, generous by design, before anything runs
    n, m = max(cfg.ns), max(getattr(cfg, "ms", None) or (cfg.m,))
    check_memory(8.0 * (2 * n * cfg.d + 12 * m * n + 4 * n * n + 6 * m * cfg.d),
                 f"maskverify meanfield-{name} at these sizes")
    dev = device(args.device)
    blank = {k: () for k in keyed}
    store = RunStore(out / f"{name}_runs.json", asdict(replace(cfg, **blank, seeds=0, seed=0)), args.resume)
    with threads(args.threads), execution.engine_from_args(args) as engine:
        tasks = Tasks(engine, execution.Store(args.exec_store), args.resume) if execution.chosen(args) else None
        try:
            result = run(cfg, dev=dev, store=store, progress=not args.no_progress, tasks=tasks)
        except execution.TasksFailed as exc:
            print(f"maskverify meanfield-{name}: {exc}", file=sys.stderr)
            return 1
    out.mkdir(parents=True, exist_ok=True)
    for path in write(result, out, args.pdf):
        print(f"wrote {path}")
    summary(result)
    return 0


def produce(cfg, run, write, out_dir, progress: bool) -> list[Path]:
    """A report figure: ``run(cfg)`` on one thread, then ``write`` its files into ``out_dir``."""
    with threads(1):
        return write(run(cfg, progress=progress), Path(out_dir))
