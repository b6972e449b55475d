"""Long work as a bag of independent tasks, run by Dask distributed: one machine or many.

A *task* is ``fn(params) -> result``: ``fn`` a module-level function (importable on every
worker), ``params`` a dict of plain JSON values, ``result`` strict JSON (no NaN or infinity:
encode them as strings).  A task is seeded by its parameters and deterministic, so its result
does not depend on where, or in which order, it ran; ``run`` returns the results in the order of
the parameters, each decoded from the JSON it was stored as, so a serial run, a local cluster
and a remote one return the same values bit for bit.

Where the tasks run (``Engine``, from the command-line options of ``add_arguments``):

* ``--workers N`` (default: the machine's cores): an embedded ``distributed.LocalCluster`` of
  N single-threaded worker processes (``processes=True, threads_per_worker=1``; Dask's nanny
  sets ``OMP_NUM_THREADS=1`` and its kin in each, and not, here, its ``MALLOC_TRIM_THRESHOLD_``,
  which made large-temporary tasks 1.6x slower), started and closed by the command; every task,
  wherever it runs, has one BLAS and one torch thread (``single_threaded``);
* ``--workers 0``: serially in this process, without Dask (for a debugger, or a machine where
  spawning processes is not allowed); results, store and progress are the same;
* ``--scheduler ADDRESS`` (or the environment variable ``MASKVERIFY_SCHEDULER``): a running
  cluster (``dask scheduler`` / ``dask worker``, dask-jobqueue, dask-cuda); its workers need this
  package installed and the store's directory mounted at the same path.

The store (``Store``): the run's directory holds one JSON record per finished task, written
atomically (``theory.core.io.write_json``) by this process as soon as the task's result
arrives, named by a hash of the task function's name, its parameters and the code's version.
The code's version is, by default, the package version and a hash of the code of the module that
defines the task function and of every module of its own package that it imports, directly or not
(``closure_version``): it changes when the task's code or a helper of its pack changes (an edit to
``numerics.masking.network`` makes a stored ``numerics.masking.sweep`` task stale), and not when an
unrelated file, a comment or a docstring does, as a git commit would; the core (``numerics.core``) is
held by its own tests and is not in a pack task's closure.  A task that depends on the whole tree (a
pytest run) passes ``tree_version`` instead (the git commit and a hash of the uncommitted changes).  ``--resume`` skips the tasks whose record is
stored; without it every task runs and its record is replaced.  A record that cannot be read as
this task's (cut short, empty, not JSON, of another shape, another task's or version's) is set
aside in ``unreadable/`` beside the records, with a count in the output, and its task reruns: the
readable records are never lost.  A partial state that cannot be read is set aside the same way and
its task starts afresh.  The store's directory is checked before any task runs (it must be, or be
creatable as, a folder one can write in: ``cliargs.check_output``).

Checkpoints (``checkpoint``): a long task may save its partial state as it goes, in the store's
``partial/KEY.json`` (same key), and on its next attempt, when the run resumes, start from the last
state saved: a task killed after hours (a lost worker, an interrupted command, the end of a
machine's session) loses only the steps since its last save, and a task rescheduled after its
worker died goes on from there too.  The record of a finished task replaces its partial state; a
run without ``--resume`` first removes its tasks' partial states (they start afresh), and without a
store nothing is kept.

Faults: a worker that dies (crash, SIGKILL, lost node) has its task rescheduled on another by
the scheduler (Dask's ``distributed.scheduler.allowed-failures``, default 3 deaths per task);
``retries`` reruns a task that raised.  A task that still fails is reported (``TasksFailed``) after
every other task has finished and been stored.  A killed client leaves every record it wrote;
Ctrl-C cancels the futures, closes the client and the local cluster, and exits with status 130
(records are whole or absent: atomic writes).

Why Dask: a pip dependency that runs the same code on a laptop (LocalCluster), a workstation and
a university cluster (dask-jobqueue's SLURM/PBS/SGE clusters), with futures, worker-death
rescheduling, retries, worker resources (GPUs) and a dashboard, and nothing to run beside it;
Ray would serve as well but brings its own object store and daemon, which a laptop user must
start.
"""
from __future__ import annotations

import contextlib
import contextvars
import hashlib
import importlib.metadata
import inspect
import json
import logging
import os
import platform
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from theory.core.io import write_json

from . import interrupts
from .cliargs import UsageError, check_output, count, output

SCHEDULER_ENV = "MASKVERIFY_SCHEDULER"
"""The environment variable naming a running scheduler (used when neither option is given)."""
CONNECT_TIMEOUT_S = 5.0
"""How long a connection to ``--scheduler`` may take before it counts as unreachable."""

Task = Callable[[dict], Any]


class TasksFailed(RuntimeError):
    """Some tasks raised (or lost their workers too often); the others are stored.
    ``failures``: (params, one-line error) per failed task."""

    def __init__(self, failures: list[tuple[dict, str]]):
        self.failures = failures
        params, err = failures[0]
        super().__init__(f"{len(failures)} task(s) failed; first {json.dumps(params)}: {err}")


# ----------------------------------------------------------------------------- code version
def module_version(fn: Task) -> str:
    """The package version and a hash of the source of the module defining ``fn`` (the package
    version alone for a function without Python source, such as a builtin)."""
    try:
        version = importlib.metadata.version("maskverify")
    except importlib.metadata.PackageNotFoundError:
        version = "0"
    fn = getattr(fn, "func", fn)  # a functools.partial: the function it wraps
    try:
        source = inspect.getsource(sys.modules[fn.__module__])
    except (TypeError, OSError, KeyError, AttributeError):
        return version
    return f"{version}+{hashlib.sha256(source.encode()).hexdigest()[:16]}"


def _imports(module: str, path: Path) -> set[str]:
    """The modules the source file ``path`` of ``module`` imports (absolute names; relative
    imports resolved; ``from a import b`` gives ``a`` and ``a.b``, one of which is a module)."""
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parent = ".".join(parts[:len(parts) - node.level + 1])
                base = f"{parent}.{base}" if base else parent
            out.add(base)
            out |= {f"{base}.{a.name}" for a in node.names}
    return out


def closure_version(fn: Task, within: str | None = None) -> str:
    """The package version and a hash of the source of the module defining ``fn`` and of every
    module of the package ``within`` (default: the first two components of the module's name,
    e.g. ``numerics.masking``) that it imports, directly or not, in any function: the version a
    committed record needs (an edit to the code of a helper of the task's own pack makes it stale;
    edits to comments and docstrings, and edits elsewhere, the core's included, do not: the core is
    held by its own tests).  The hash is of each module's code (``_code_of``)."""
    import importlib.util

    fn = getattr(fn, "func", fn)
    name = fn.__module__
    within = within or ".".join(name.split(".")[:2])
    seen: dict[str, Path] = {}
    todo = [name]
    while todo:
        mod = todo.pop()
        if mod in seen or not (mod == within or mod.startswith(within + ".")):
            continue
        try:
            spec = importlib.util.find_spec(mod)
        except (ImportError, ValueError):
            spec = None
        if spec is None or not spec.origin or not spec.origin.endswith(".py"):
            continue
        seen[mod] = Path(spec.origin)
        todo += sorted(_imports(mod, seen[mod]))
    h = hashlib.sha256()
    for mod in sorted(seen):
        h.update(mod.encode() + b"\0" + _code_of(seen[mod]).encode() + b"\0")
    base = module_version(fn).split("+")[0]
    return f"{base}+closure-{h.hexdigest()[:16]}"


def _code_of(path: Path) -> str:
    """The code of a Python file without its comments, docstrings and layout (``ast.dump`` of its
    tree, docstrings removed): what a task computes, so that an edit to prose alone keeps its
    records."""
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and body
                and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            node.body = body[1:] or [ast.Pass()]
    return ast.dump(tree, include_attributes=False)


def tree_version(root: str | os.PathLike) -> str:
    """The git commit of ``root`` and a hash of its uncommitted changes to tracked files
    (``git diff HEAD``); the package version where ``root`` is not a git checkout."""
    def git(*a):
        return subprocess.run(["git", *a], cwd=root, capture_output=True, check=True).stdout

    try:
        head = git("rev-parse", "HEAD").decode().strip()
        diff = git("diff", "HEAD")
    except (OSError, subprocess.CalledProcessError):
        return module_version(tree_version)
    return f"{head}+{hashlib.sha256(diff).hexdigest()[:16]}"


# ----------------------------------------------------------------------------- store
class Store:
    """One JSON record per finished task in ``root``: ``{fn, params, version, result,
    elapsed_s, worker, finished, host}``, file ``KEY.json``, ``KEY`` = sha256 of (fn, params,
    version).

    ``also``: folders of records read after ``root`` and never written (``read_only``): e.g. the
    records a pack commits (``PaperPack.records``), from which a report draws a figure while
    anything it computes goes to its own store.  A record found there is listed in ``taken``
    (its provenance: ``provenance``); a record there that cannot be read is skipped, not moved."""

    #: where unreadable records and partial states are set aside (``set_aside``)
    ASIDE = "unreadable"

    def __init__(self, root: str | os.PathLike, *, also: Sequence[str | os.PathLike] = (), read_only: bool = False,
                 version_of: Callable[[Task], str] | None = None):
        self.root = Path(root).resolve()
        #: the code version of a task stored here, where ``run`` is given none (default
        #: ``closure_version``)
        self.version_of = version_of
        self.read_only = read_only
        self.also = tuple(Store(p, read_only=True) for p in also)
        self.set_aside: list[tuple[Path, str]] = []  # (where it went, why), in the order found
        self.taken: list[dict] = []  # the records read from ``also`` (the committed ones a run used)
        self.reused = 0  # records read from ``root`` itself
        self.written = 0  # records this object wrote (tasks computed)

    @staticmethod
    def _key(name: str, params, version) -> str:
        blob = json.dumps({"fn": name, "params": params, "version": version}, sort_keys=True, allow_nan=False)
        return hashlib.sha256(blob.encode()).hexdigest()[:32]

    @staticmethod
    def key(fn: Task, params: dict, version: str) -> str:
        return Store._key(f"{fn.__module__}.{fn.__qualname__}", params, version)

    def path(self, key: str) -> Path:
        return self.root / f"{key}.json"

    def get(self, key: str) -> dict | None:
        """The record of task ``key``, or None when there is none or it cannot be read as that task's:
        not JSON, not an object with ``fn``, ``params``, ``version`` and a non-null ``result``, or one
        whose fields hash to another key (module docstring).  An unreadable one is ``_put_aside``
        (left where it is in a read-only store).  Then the ``also`` folders, in order."""
        rec = self._get(key)
        if rec is not None:
            self.reused += 1
        else:
            for layer in self.also:
                rec = layer._get(key)
                if rec is not None:
                    self.taken.append(rec)
                    break
        return rec

    def _get(self, key: str) -> dict | None:
        path = self.path(key)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except (OSError, UnicodeDecodeError) as exc:
            return self._put_aside(path, f"unreadable ({type(exc).__name__})")
        try:
            rec = json.loads(text)
        except json.JSONDecodeError:
            return self._put_aside(path, "not JSON (cut short or empty?)")
        if not (isinstance(rec, dict) and {"fn", "params", "version", "result"} <= rec.keys()
                and rec["result"] is not None and isinstance(rec["fn"], str)):
            return self._put_aside(path, "not a task record (fn, params, version, result)")
        try:
            mine = self._key(rec["fn"], rec["params"], rec["version"]) == key
        except (TypeError, ValueError):
            mine = False
        if not mine:
            return self._put_aside(path, "another task's record (its fields hash to another key)")
        return rec

    def _put_aside(self, path: Path, why: str) -> None:
        """Move ``path`` into ``ASIDE/`` (``set_aside``) and note it in ``self.set_aside``; a
        read-only store only notes it."""
        if self.read_only:
            self.set_aside.append((path, why + " (left in place: a read-only store)"))
            return None
        self.set_aside.append((set_aside(path, self.root / self.ASIDE), why))
        return None

    def check(self) -> None:
        """``UsageError`` unless the store's directory is, or can be made, a folder one writes in."""
        check_output(self.root, "dir", "--store")

    def partial_path(self, key: str) -> Path:
        """Where the task ``key`` keeps its partial state (``checkpoint``) until it finishes."""
        return self.root / "partial" / f"{key}.json"

    def put(self, key: str, record: dict) -> None:
        if self.read_only:
            raise RuntimeError(f"{self.root} is a read-only store")
        self.root.mkdir(parents=True, exist_ok=True)
        write_json(self.path(key), record)
        self.written += 1
        self.partial_path(key).unlink(missing_ok=True)


def provenance(records: Sequence[dict]) -> dict:
    """What a set of task records says of where they come from: how many, the code versions
    they were computed for, the earliest and latest time they finished (UTC), the hosts and
    workers that computed them, and their summed compute time.  Records written before these
    fields existed count as 'unknown'."""
    times = sorted(r["finished"] for r in records if isinstance(r.get("finished"), str))
    return {"records": len(records),
            "versions": sorted({str(r.get("version")) for r in records}),
            "functions": sorted({str(r.get("fn")) for r in records}),
            "finished": [times[0], times[-1]] if times else None,
            "hosts": sorted({str(r.get("host", "unknown")) for r in records}),
            "compute_s": round(sum(float(r.get("elapsed_s") or 0.0) for r in records), 1)}


@dataclass
class Records:
    """The task records a figure (or any producer) draws from, as a report hands them over:
    ``store`` is where this run writes the records it computes (the report's own folder), reading
    first its own records and then the committed ones (``Store(also=...)``), keyed by
    ``closure_version``; ``rerun`` (``--rerun``): the committed records are not read, so every
    task is computed once (a second figure of the same runs takes them from the report's own
    folder: ``resume`` stays True).  ``engine`` runs
    what is not stored (a local cluster started only when something is to run).  ``summary()``
    tells the report how the figure was made."""

    store: Store
    resume: bool = True
    engine: Engine | None = None
    rerun: bool = False

    @classmethod
    def for_report(cls, out: str | os.PathLike, committed: str | os.PathLike | None, *, rerun: bool = False,
                   engine: Engine | None = None) -> Records:
        also = () if rerun or committed is None else (committed,)
        return cls(Store(out, also=also, version_of=closure_version), resume=True, rerun=rerun,
                   engine=engine or Engine())

    def summary(self) -> dict:
        """{"source": "stored records" (every task drawn from the committed ones), "computed"
        (none), or "stored records and computed"; the committed records' ``provenance``; how many
        tasks were computed here and how many taken from this run's own store (a figure sharing an
        experiment with one drawn before it)}."""
        st = self.store
        taken, n_new = st.taken, st.written
        source = ("stored records" if taken and not n_new else "stored records and computed" if taken
                  else "computed" if n_new or not st.reused else "this run's records")
        return {"source": source, "rerun": self.rerun,
                "committed": str(st.also[0].root) if st.also else None,
                "stored": provenance(taken), "computed": n_new, "reused": st.reused, "written_to": str(st.root)}


def set_aside(path: Path, folder: Path) -> Path:
    """Move the unreadable file ``path`` into ``folder`` (made if missing) under its own name, or
    ``NAME.1.json``, ``NAME.2.json``, ... so that nothing set aside earlier is overwritten; returns
    where it went.  Nothing is deleted: a user can look at what was there."""
    path, folder = Path(path), Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    dest, n = folder / path.name, 1
    while dest.exists():
        dest, n = folder / f"{path.stem}.{n}{path.suffix}", n + 1
    os.replace(path, dest)
    return dest


# ----------------------------------------------------------------------------- checkpoints
@dataclass(frozen=True)
class Checkpoint:
    """The partial state of the running task (``checkpoint()``): ``load`` returns the state an earlier
    attempt saved (None for a first attempt, or without a store), ``save`` writes one (strict JSON,
    atomically: a kill leaves the previous state or the new one)."""

    path: Path | None = None

    def load(self) -> Any | None:
        """The state an earlier attempt saved; None for none, or for one that is not JSON (a torn
        or foreign file: set aside beside the store's unreadable records, the task starts afresh)."""
        if self.path is None:
            return None
        try:
            return json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, UnicodeDecodeError, json.JSONDecodeError):
            logging.getLogger(__name__).warning("partial state %s cannot be read: set aside, the task starts afresh",
                                                self.path)
            set_aside(self.path, self.path.parent.parent / Store.ASIDE)
            return None

    def save(self, state: Any) -> None:
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            write_json(self.path, state)


_CHECKPOINT: contextvars.ContextVar[Checkpoint] = contextvars.ContextVar("maskverify_checkpoint",
                                                                         default=Checkpoint())


def checkpoint() -> Checkpoint:
    """The running task's ``Checkpoint`` (module docstring); outside a task, one that keeps nothing."""
    return _CHECKPOINT.get()


# ----------------------------------------------------------------------------- engine
#: memory a local worker process takes once it has imported the package (torch, numpy, Dask), measured
#: ~350 MiB resident; 512 MiB leaves room for a task's own arrays
WORKER_BYTES = 512 * 2**20


def max_local_workers() -> int:
    """The most worker processes a local cluster may start on this machine: 8 per core, and no more
    than the available memory holds at ``WORKER_BYTES`` each (100,000 hung, starting processes)."""
    from .cliargs import memory_available

    return max(1, min(8 * default_workers(), memory_available() // WORKER_BYTES))


def default_workers() -> int:
    """The cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def _dashboard_available() -> bool:
    import importlib.util

    return importlib.util.find_spec("bokeh") is not None


@dataclass
class Engine:
    """Where tasks run: ``scheduler`` (an address), else a local cluster of ``workers`` processes
    (None: the cores), or serially in this process (``workers == 0``).  A context manager: the
    client (``self.client``, None when serial) lives inside the ``with`` block, from its first use."""

    workers: int | None = None
    scheduler: str | None = None
    quiet: bool = False

    def __post_init__(self):
        self._client = None
        self._cluster = None
        if self.workers is not None and self.workers < 0:
            raise UsageError(f"--workers must be >= 0, got {self.workers}")
        if self.workers is not None and self.scheduler:
            raise UsageError("give either --workers (a local cluster) or --scheduler (a running one), not both")

    @property
    def serial(self) -> bool:
        return not self.scheduler and self.workers == 0

    def _say(self, text: str) -> None:
        if not self.quiet:
            print(text, file=sys.stderr, flush=True)

    def __enter__(self) -> Engine:
        return self

    @property
    def client(self):
        """The Dask client (None when serial), connected or started on first use, so that a run
        with nothing to do (everything stored) starts no cluster."""
        if self.serial or self._client is not None:
            return self._client
        import dask
        from distributed import Client, LocalCluster

        if self.scheduler:
            try:
                self._client = Client(self.scheduler, timeout=CONNECT_TIMEOUT_S)
            except (OSError, ValueError, TypeError) as exc:  # TimeoutError is an OSError
                reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
                raise UsageError(f"cannot reach the Dask scheduler {self.scheduler!r} within "
                                 f"{CONNECT_TIMEOUT_S:g} s ({reason})") from None
            n = len(self._client.scheduler_info(n_workers=-1).get("workers", {}))
            where = f"scheduler {self.scheduler} ({n} workers now)"
        else:
            n = self.workers or default_workers()
            # Dask's nanny starts each worker with MALLOC_TRIM_THRESHOLD_=65536, which also turns off
            # glibc's adaptive mmap threshold: every large temporary is then mapped and unmapped
            # afresh, and Fig. 3(a)'s expected-dynamics step took 3.6 s of CPU instead of 2.3 s
            # (measured in one process either way, 2026-12-02).  Our workers keep glibc's default.
            with dask.config.set({"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None}):
                self._cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                             dashboard_address=":0" if _dashboard_available() else None,
                                             silence_logs=logging.CRITICAL, preload=[__name__])
            self._client = Client(self._cluster)
            where = f"local cluster of {n} worker processes ({self._cluster.scheduler_address})"
        board = self._client.dashboard_link if _dashboard_available() else "off (needs bokeh)"
        self._say(f"dask: {where}; dashboard {board}")
        return self._client

    def __exit__(self, *exc) -> None:
        if self._client is not None:
            self._client.close()
        if self._cluster is not None:
            self._cluster.close()
        self._client = self._cluster = None


def dask_setup(worker) -> None:
    """Run by Dask in each local worker process at its start (``preload``): Ctrl-C in a terminal
    reaches the whole process group, and the client, not each worker, handles it (it cancels the
    tasks and closes the cluster); a worker then ignores SIGINT instead of dying with a traceback."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def add_arguments(parser, *, store: str, workers_flags: tuple[str, ...] = ("--workers",),
                  resume_flag: str = "--resume") -> None:
    """The execution options of a long command: ``--workers N``, ``--scheduler ADDRESS``,
    ``--store DIR`` (default ``store``), ``--resume``.  A command whose own ``--workers`` or
    ``--resume`` means something else renames them (``workers_flags``, ``resume_flag``)."""
    g = parser.add_argument_group("execution (Dask distributed; one task per record in --store)")
    g.add_argument(*workers_flags, dest="exec_workers", metavar="N", default=None,
                   type=count(0, max_local_workers, "8 per core, 512 MiB each: for more, start a cluster and pass --scheduler"),
                   help=f"worker processes of a local Dask cluster (default: the cores, {default_workers()}); "
                        "0: serially in this process, without Dask")
    g.add_argument("--scheduler", dest="exec_scheduler", metavar="ADDRESS", default=None,
                   help=f"a running Dask scheduler (tcp://host:8786) instead of a local cluster "
                        f"(default: ${SCHEDULER_ENV} if set)")
    g.add_argument("--store", dest="exec_store", metavar="DIR", type=output("dir"), default=Path(store),
                   help=f"the run's directory: one record per finished task, and the partial state of a "
                        f"checkpointed one (default {store})")
    if resume_flag is not None:  # None: the command's own --resume also resumes its tasks
        g.add_argument(resume_flag, dest="exec_resume", action="store_true",
                       help="skip the tasks already stored in --store (same parameters and code version), and "
                            "continue checkpointed ones from their partial state")


def chosen(args) -> bool:
    """Whether the options (or the environment) ask for the engine: ``--workers``, ``--scheduler``,
    ``MASKVERIFY_SCHEDULER`` or the engine's own resume flag given."""
    return (args.exec_workers is not None or bool(args.exec_scheduler) or bool(os.environ.get(SCHEDULER_ENV))
            or getattr(args, "exec_resume", False))


def engine_from_args(args, *, quiet: bool = False) -> Engine:
    """The ``Engine`` the options of ``add_arguments`` ask for (the environment's scheduler when
    neither ``--workers`` nor ``--scheduler`` is given)."""
    scheduler = args.exec_scheduler
    if scheduler is None and args.exec_workers is None:
        scheduler = os.environ.get(SCHEDULER_ENV) or None
    return Engine(workers=args.exec_workers, scheduler=scheduler, quiet=quiet)


# ----------------------------------------------------------------------------- running
@contextlib.contextmanager
def single_threaded():
    """Run the block with one BLAS/OpenMP thread (``threadpoolctl``) and one torch thread (when
    torch is loaded), restoring the counts after.  Every task runs so, here as on a worker (whose
    nanny sets ``OMP_NUM_THREADS=1``): the order of a product's float sums, and so its last bits,
    then do not depend on where the task ran; the parallelism is across tasks."""
    from threadpoolctl import threadpool_limits

    torch = sys.modules.get("torch")
    before = torch.get_num_threads() if torch is not None else None
    with threadpool_limits(limits=1):
        if torch is not None:
            torch.set_num_threads(1)
        try:
            yield
        finally:
            if torch is not None:
                torch.set_num_threads(before)


def _call(fn: Task, params: dict, partial: str | None = None) -> tuple[str, float, str]:
    """Run one task (on a worker or here, ``single_threaded``, with its ``Checkpoint`` at ``partial``):
    its result as JSON text, seconds, where it ran."""
    t0 = time.perf_counter()
    token = _CHECKPOINT.set(Checkpoint(None if partial is None else Path(partial)))
    try:
        with single_threaded():
            result = fn(params)
    finally:
        _CHECKPOINT.reset(token)
    text = json.dumps(result, allow_nan=False)
    try:
        from distributed import get_worker
        where = get_worker().address
    except (ImportError, ValueError):
        where = "local"
    return text, time.perf_counter() - t0, where


def _one_line(exc: BaseException) -> str:
    return f"{type(exc).__name__}: " + ((str(exc).strip().splitlines() or [""])[0])


def run(fn: Task, params: Sequence[dict], engine: Engine, *, store: Store | None = None,
        resume: bool = False, version: str | None = None, retries: int = 0, desc: str = "tasks",
        progress: bool = True, resources: dict | None = None) -> list:
    """Run ``fn`` on every dict of ``params`` on ``engine`` (inside its ``with`` block) and return
    the results in order.  ``store``: write each finished task's record at once, and keep the
    partial states of checkpointed tasks (``checkpoint``); with ``resume``, take stored results
    instead of running, and let each task go on from its partial state (without, those are removed).  ``version``: the code's version in the key (default
    the store's ``version_of``, else ``closure_version(fn)``).  ``resources``: Dask worker resources each task needs (e.g.
    ``{"GPU": 1}``; workers started with ``--resources GPU=1``).  Raises ``TasksFailed`` after
    the rest finished if a task failed; Ctrl-C cancels everything and exits with status 130."""
    from tqdm import tqdm

    params = [dict(p) for p in params]
    version = version or (getattr(store, "version_of", None) or closure_version)(fn)
    keys = [Store.key(fn, p, version) for p in params]
    results: dict[str, Any] = {}
    if store is not None:
        store.check()
    if store is not None and resume:
        for k in keys:
            rec = store.get(k)
            if rec is not None:
                results[k] = rec["result"]
    todo = list(dict.fromkeys(k for k in keys if k not in results))  # duplicates run once
    by_key = dict(zip(keys, params))
    failures: list[tuple[dict, str]] = []
    client = None if engine.serial or not todo else engine.client  # connects (or fails) before the bar
    bar = tqdm(total=len(set(keys)), initial=len(set(keys)) - len(todo), desc=desc, unit="task",
               disable=not progress, dynamic_ncols=True)
    if store is not None and resume and len(todo) < len(set(keys)):
        bar.write(f"{desc}: {len(set(keys)) - len(todo)} of {len(set(keys))} tasks stored in {store.root}, "
                  f"{len(todo)} to run")
    if store is not None and store.set_aside:
        bar.write(f"{desc}: {len(store.set_aside)} unreadable record(s) set aside in {store.root / Store.ASIDE}; "
                  "their tasks run again")

    def partial(k: str) -> str | None:
        return None if store is None else str(store.partial_path(k))

    if store is not None and not resume:
        for k in todo:  # a fresh run: no task takes an earlier run's partial state
            store.partial_path(k).unlink(missing_ok=True)

    def finish(k: str, text: str, elapsed: float, where: str) -> None:
        results[k] = json.loads(text)
        if store is not None:
            store.put(k, {"fn": f"{fn.__module__}.{fn.__qualname__}", "params": by_key[k], "version": version,
                          "result": results[k], "elapsed_s": elapsed, "worker": where,
                          "finished": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                          "host": platform.node() or "unknown"})
        bar.update(1)

    futures = []
    try:
        if client is None:
            for k in todo:
                interrupts.check()  # between tasks: an interrupt a callback swallowed stops the run
                bar.set_postfix_str(f"failed {len(failures)}, running 1", refresh=True)
                try:
                    finish(k, *_call(fn, by_key[k], partial(k)))
                except Exception as exc:  # a task's own error, reported with the others at the end
                    failures.append((by_key[k], _one_line(exc)))
        else:
            from distributed import as_completed

            futures = [client.submit(_call, fn, by_key[k], partial(k), key=f"{fn.__name__}-{k}", pure=False,
                                     retries=retries, resources=resources) for k in todo]
            key_of = {f.key: k for f, k in zip(futures, todo)}
            last = 0.0
            for fut in as_completed(futures):
                interrupts.check()
                if fut.status == "finished":
                    finish(key_of[fut.key], *fut.result())
                else:
                    failures.append((by_key[key_of[fut.key]], _one_line(fut.exception())))
                fut.release()
                if time.monotonic() - last > 0.5:  # the scheduler's view, at most twice a second
                    threads = client.nthreads()  # a worker may hold more tasks than it runs
                    running = sum(min(len(v), threads.get(w, 1)) for w, v in client.processing().items())
                    bar.set_postfix_str(f"failed {len(failures)}, running {running}", refresh=False)
                    last = time.monotonic()
    except KeyboardInterrupt:
        import signal

        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not cut the cleanup
        try:
            if futures:
                engine.client.cancel(futures)
            bar.close()
            stored = f"; {len(results)} of {len(set(keys))} tasks done" + (
                f" and stored in {store.root}: rerun with --resume to continue" if store is not None else "")
            print(f"\ninterrupted{stored}", file=sys.stderr)
            engine.__exit__(None, None, None)
        finally:
            signal.signal(signal.SIGINT, previous)
        raise SystemExit(130) from None
    bar.set_postfix_str(f"failed {len(failures)}, running 0")
    bar.close()
    if failures:
        raise TasksFailed(failures)
    return [results[k] for k in keys]
