"""The execution layer's speed (``numerics.core.execution``), in one run, against its own serial
baseline:

1. a sweep of CPU-bound tasks (a fuzz campaign split into seeded tasks, ``fuzz_cmd.task``) run
   serially in this process and on a 2-worker ``LocalCluster``: the speed-up (target >= 1.8x on
   2 cores) and its fraction of the ideal 2.0x, with the results checked equal bit for bit;
   each sweep is repeated (``--repeat``, interleaved, so that both meet the same load) and the
   best time of each engine kept;
2. the engine's overhead per task, from no-op tasks (``dict``: the task returns its parameters)
   with the store on: the wall time per task of a batch (throughput) and of one task at a time
   (round trip), minus the serial path's (target <= 50 ms).

What the speed-up measures: the sweep on warm workers.  The one-time costs are timed apart and
printed, never inside a sweep: the cluster's start, the first import of the packs in each
worker, and a first task in every process (lazy imports, Hypothesis' set-up).  The sweep has
enough tasks to balance (default 32): task times vary (about 0.9-1.6 s here), and with few
tasks the last one leaves a worker idle; the run prints the list-scheduling bound of the
measured serial task times on 2 workers (sum(t_i) / the makespan of giving each task, in order,
to the first free worker), the best an engine can do with those tasks, and the mean time of a
task on the workers against serially (a ratio above 1: the workers got less CPU than the serial
process, e.g. on a machine shared with other sessions).

    python bench/bench_execution.py                       # meanfield:eq.14, 32 tasks of 30 examples
    python bench/bench_execution.py --tasks 64 --examples 60 --campaign masking:cor.5.3

The machine's load matters (other processes take the cores): say what else ran beside it.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from numerics.app import fuzz_cmd
from numerics.core import execution, fuzzing, registry

TARGET_SPEEDUP = 1.8
TARGET_OVERHEAD_S = 0.050
WORKERS = 2


def _warm() -> int:
    """Load every pack in this process (what a worker's first fuzz task pays)."""
    return len(registry.packs())


def _timed(fn, *a, **kw):
    t0 = time.perf_counter()
    out = fn(*a, **kw)
    return out, time.perf_counter() - t0


def _strip_times(parts: list[dict]) -> list[dict]:
    return [{k: v for k, v in p.items() if k != "elapsed_s"} for p in parts]


def list_schedule(times: list[float], workers: int) -> float:
    """The makespan of giving each task, in order, to the first free of ``workers`` workers."""
    free = [0.0] * workers
    for t in times:
        i = free.index(min(free))
        free[i] += t
    return max(free)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--campaign", default="meanfield:eq.14", help="the campaign of the sweep (default meanfield:eq.14)")
    ap.add_argument("--tasks", type=int, default=32, help="tasks in the sweep (default 32)")
    ap.add_argument("--examples", type=int, default=30, help="examples per task (default 30)")
    ap.add_argument("--noop", type=int, default=200, help="no-op tasks for the overhead (default 200)")
    ap.add_argument("--round-trips", type=int, default=20, help="one-at-a-time no-op tasks (default 20)")
    ap.add_argument("--repeat", type=int, default=2, help="sweeps on each engine, the best kept (default 2)")
    args = ap.parse_args(argv)

    params = fuzzing.split(args.campaign, args.tasks * args.examples, args.examples, seed=0, deep=False,
                           database=None)
    noop = [{"i": i} for i in range(args.noop)]
    print(f"sweep: {args.campaign}, {args.tasks} tasks of {args.examples} examples (seeds 0..{args.tasks - 1}); "
          f"overhead: {args.noop} no-op tasks, {args.round_trips} round trips; {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.1f} at the start")
    _, t_import = _timed(_warm)
    serial, cluster = execution.Engine(workers=0, quiet=True), execution.Engine(workers=WORKERS, quiet=True)
    with tempfile.TemporaryDirectory() as tmp, serial, cluster:
        _, t_start = _timed(lambda: cluster.client)
        _, t_warm = _timed(cluster.client.run, _warm)
        _, t_first = _timed(fuzz_cmd.task, params[0])  # one task in every process first: lazy imports
        _, t_first_workers = _timed(cluster.client.run, fuzz_cmd.task, params[0])
        sweeps = {"serial": [], "cluster": []}
        for _ in range(args.repeat):  # interleaved, so that both meet the same load; the best of each
            for name, engine in (("serial", serial), ("cluster", cluster)):
                parts, t = _timed(execution.run, fuzz_cmd.task, params, engine, progress=False)
                sweeps[name].append((t, parts))
        (t_serial, serial_parts), (t_parallel, cluster_parts) = (min(sweeps[n], key=lambda x: x[0])
                                                             for n in ("serial", "cluster"))
        overhead = {}
        for name, engine in (("serial", serial), ("cluster", cluster)):
            store = execution.Store(f"{tmp}/{name}")
            _, batch = _timed(execution.run, dict, noop, engine, store=store, progress=False)
            t0 = time.perf_counter()
            for i in range(args.round_trips):
                execution.run(dict, [{"rt": i}], engine, store=store, progress=False)
            overhead[name] = (batch / args.noop, (time.perf_counter() - t0) / args.round_trips)
    (b_serial, t_rt_serial), (b_cluster, t_rt) = overhead["serial"], overhead["cluster"]
    t_noop_serial, t_noop = b_serial * args.noop, b_cluster * args.noop
    same = all(_strip_times(parts) == _strip_times(serial_parts) for runs in sweeps.values() for _, parts in runs)
    per_task = [p["elapsed_s"] for p in serial_parts]  # the best serial sweep's tasks
    on_workers = [p["elapsed_s"] for p in cluster_parts]
    speedup = t_serial / t_parallel
    bound = sum(per_task) / list_schedule(per_task, WORKERS)
    batch = (t_noop - t_noop_serial) / args.noop
    trip = t_rt - t_rt_serial
    print(f"fixed costs (outside the sweeps): packs' import {t_import:.1f} s here; cluster start {t_start:.1f} s; "
          f"first import in the {WORKERS} workers (in parallel) {t_warm:.1f} s; first task {t_first:.2f} s here, "
          f"{t_first_workers:.2f} s on the workers (in parallel)")
    print(f"per task (serial): mean {sum(per_task) / len(per_task):.3f} s, min {min(per_task):.3f} s, "
          f"max {max(per_task):.3f} s; on the workers: mean {sum(on_workers) / len(on_workers):.3f} s "
          f"({sum(on_workers) / sum(per_task):.2f}x the serial task time)")
    print(f"sweep of {args.tasks} tasks on warm workers: serial {t_serial:.2f} s, {WORKERS} workers "
          f"{t_parallel:.2f} s: speed-up {speedup:.2f}x = {speedup / WORKERS:.0%} of the ideal {WORKERS:.1f}x "
          f"(target >= {TARGET_SPEEDUP}x); "
          f"list-scheduling bound of these task times {bound:.2f}x; every sweep's results equal bit for bit: {same}")
    print(f"overhead per no-op task, store on: batch of {args.noop}: {1e3 * t_noop / args.noop:.1f} ms on 2 workers, "
          f"{1e3 * t_noop_serial / args.noop:.2f} ms serial: engine {1e3 * batch:.1f} ms "
          f"(target <= {1e3 * TARGET_OVERHEAD_S:.0f} ms, ratio {batch / TARGET_OVERHEAD_S:.2f}); "
          f"one at a time: {1e3 * t_rt:.1f} ms vs {1e3 * t_rt_serial:.2f} ms serial: "
          f"engine {1e3 * trip:.1f} ms (ratio {trip / TARGET_OVERHEAD_S:.2f})")
    print(f"load average {os.getloadavg()[0]:.1f} at the end")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
