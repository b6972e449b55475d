"""The execution layer (``numerics.core.execution``) against a real Dask cluster: a sweep on a
2-worker ``LocalCluster`` of processes equals the serial run bit for bit; a scheduler that cannot
be reached and a bad ``--workers`` are one-line usage errors (exit 2) of every command in
``COMMANDS``; ``--resume`` skips stored tasks.  Slow tier: a worker SIGKILLed in the middle of a
task, a client killed and resumed, and two workers finding the same counterexample, which the
shared example database then holds once."""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import _exec_tasks as tasks  # tests/ is on sys.path (no package __init__)
from numerics.app.cli import main
from numerics.core import execution, fuzzing

ROOT = Path(__file__).resolve().parent.parent
SWEEP = [{"seed": s, "n": 5000} for s in range(6)]


def _serial(fn, params, **kw):
    with execution.Engine(workers=0, quiet=True) as engine:
        return execution.run(fn, params, engine, progress=False, **kw)


def _log_lines(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


def test_two_worker_cluster_equals_the_serial_run_bit_for_bit():
    with execution.Engine(workers=2, quiet=True) as engine:
        assert len(engine.client.scheduler_info(n_workers=-1)["workers"]) == 2
        parallel = execution.run(tasks.draw, list(reversed(SWEEP)), engine, progress=False)
        pids = set(engine.client.run(os.getpid).values())
    assert len(pids) == 2 and os.getpid() not in pids  # two worker processes, not this one
    serial = _serial(tasks.draw, list(reversed(SWEEP)))
    assert parallel == serial  # floats compared exactly; "hex" spells the bits out
    assert [r["seed"] for r in parallel] == [5, 4, 3, 2, 1, 0]  # in the order of the parameters
    assert len({r["hex"] for r in parallel}) == len(SWEEP)


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


#: a short run of each command on the engine (``{tmp}``: the test's folder); its one-line errors are tested alike
COMMANDS = {"fuzz": ["fuzz", "meanfield:eq.14", "--examples", "2", "--no-progress"],
            "privacy": ["privacy", "accuracy", "--model", "mlp", "--kappa", "0", "0.5", "1", "--seeds", "2",
                        "--epochs", "1", "--no-progress", "--out", "{tmp}/out"]}


def _command(name: str, tmp_path) -> list[str]:
    return [a.format(tmp=tmp_path) for a in COMMANDS[name]]


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("argv", [
    ["--scheduler", "tcp://127.0.0.1:{port}"],
    ["--scheduler", "no-port-here"],
    ["--workers", "2", "--scheduler", "tcp://127.0.0.1:{port}"],
])
def test_unreachable_scheduler_is_a_one_line_usage_error(command, argv, capsys, monkeypatch, tmp_path):
    monkeypatch.setattr(execution, "CONNECT_TIMEOUT_S", 0.5)
    argv = [a.format(port=_closed_port()) for a in argv]
    code = main([*_command(command, tmp_path), "--store", str(tmp_path / "store"), *argv])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"maskverify {command}: error: ") and ("scheduler" in err or "--workers" in err)


def test_scheduler_from_the_environment_is_used(capsys, monkeypatch, tmp_path):
    monkeypatch.setattr(execution, "CONNECT_TIMEOUT_S", 0.5)
    monkeypatch.setenv(execution.SCHEDULER_ENV, f"tcp://127.0.0.1:{_closed_port()}")
    code = main(["fuzz", "meanfield:eq.14", "--examples", "2", "--no-progress", "--store", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2 and "cannot reach the Dask scheduler" in err and err.count("\n") == 1


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("workers", ["-1", "two", "1.5"])
def test_bad_workers_is_a_one_line_usage_error(command, workers, capsys, tmp_path):
    with pytest.raises(SystemExit) as exc:
        main([*_command(command, tmp_path), "--workers", workers])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and err.count("\n") == 1 and "--workers" in err


def test_resume_skips_stored_tasks_and_a_fresh_run_recomputes(tmp_path):
    log, store = tmp_path / "runs.log", execution.Store(tmp_path / "store")
    params = [dict(p, log=str(log)) for p in SWEEP[:4]]
    first = _serial(tasks.draw, params[:2], store=store)
    assert len(_log_lines(log)) == 2 and len(list(store.root.glob("*.json"))) == 2
    again = _serial(tasks.draw, params, store=store, resume=True)
    assert len(_log_lines(log)) == 4  # only the two tasks not stored ran
    assert again[:2] == first and again == _serial(tasks.draw, SWEEP[:4])
    assert _serial(tasks.draw, params, store=store, resume=True) == again and len(_log_lines(log)) == 4
    _serial(tasks.draw, params, store=store)  # without --resume every task runs again
    assert len(_log_lines(log)) == 8
    record = json.loads(store.path(execution.Store.key(tasks.draw, params[0], execution.closure_version(tasks.draw)))
                        .read_text())
    assert record["params"] == params[0] and record["result"] == first[0]


def test_checkpointed_task_resumes_and_a_fresh_run_starts_afresh(tmp_path):
    """A task that saved its state at step 3 of 6 and was killed runs steps 3-5 only when the run
    resumes, with the uninterrupted result; a run without resume discards the partial state."""
    log, fail, store = tmp_path / "steps.log", tmp_path / "fail", execution.Store(tmp_path / "store")
    params = [{"steps": 6, "fail_at": 3, "fail": str(fail), "log": str(log)}]
    straight = tasks.stepped({"steps": 6, "log": str(tmp_path / "straight.log")})

    def attempt(resume):
        log.write_text("")
        try:
            return _serial(tasks.stepped, params, store=store, resume=resume)
        except execution.TasksFailed:
            return None

    fail.touch()
    assert attempt(False) is None and _log_lines(log) == [f"step {i}" for i in range(3)]
    assert len(list((store.root / "partial").glob("*.json"))) == 1
    assert attempt(True) == [straight] and _log_lines(log) == [f"step {i}" for i in range(3, 6)]
    assert not list((store.root / "partial").glob("*.json"))  # the record replaced the partial state
    fail.touch()
    assert attempt(False) is None  # killed at step 3 again
    assert attempt(False) == [straight] and _log_lines(log) == [f"step {i}" for i in range(6)]


def test_split_campaign_merges_like_its_tasks():
    """The split is a function of the numbers given (never of the workers), task i has seed S+i,
    and the merged result sums the counts and keeps the worst ratio and the first shrunk failure."""
    params = fuzzing.split("pack:toy", examples=700, chunk=300, seed=4, deep=False, database="/db")
    assert [(p["examples"], p["seed"], p["database"]) for p in params] == [(300, 4, None), (300, 5, None),
                                                                          (100, 6, None)]
    parts = [fuzzing.to_json(fuzzing.run(tasks.TOY, examples=p["examples"], seed=p["seed"], progress=False))
             for p in params]
    merged = fuzzing.merge(parts)
    assert merged.examples_tried == sum(p["examples_tried"] for p in parts)
    assert merged.worst_ratio == max(float(p["worst_ratio"]) for p in parts)
    first_failure = next(p for p in parts if p["failed"])
    assert merged.failed and merged.shrunk_counterexample == first_failure["shrunk_counterexample"] == {"x": 501}


# ----------------------------------------------------------------------------- slow tier
@pytest.mark.slow
def test_worker_killed_mid_task_the_sweep_completes_once_and_equals_serial(tmp_path):
    hold = tmp_path / "hold"
    hold.mkdir()
    params = [dict(p, hold=str(hold), sleep=2.0) for p in SWEEP[:4]]
    killed = []

    def kill_first_started():
        while not killed:
            started = sorted(hold.iterdir())
            if started:
                pid = int(started[0].read_text())
                os.kill(pid, signal.SIGKILL)
                killed.append((started[0].name, pid))
            time.sleep(0.05)

    with execution.Engine(workers=2, quiet=True) as engine:
        watcher = threading.Thread(target=kill_first_started, daemon=True)
        watcher.start()
        store = execution.Store(tmp_path / "store")
        results = execution.run(tasks.draw, params, engine, store=store, progress=False)
        watcher.join(timeout=5)
    assert killed, "no worker was killed"
    seed = int(killed[0][0].split(".")[0])
    reruns = [m.name for m in hold.iterdir() if m.name.startswith(f"{seed}.")]
    assert len(reruns) == 2  # the killed task started again, in another process
    assert results == _serial(tasks.draw, SWEEP[:4]) and len(results) == 4
    assert len(list(store.root.glob("*.json"))) == 4  # every result once


@pytest.mark.slow
def test_worker_killed_after_a_checkpoint_the_task_goes_on_from_it(tmp_path):
    """SIGKILL the worker running a checkpointed task once it has saved step 3 of 8: the scheduler
    reschedules the task, which goes on from its partial state (step 0 runs once) to the
    uninterrupted result."""
    log, store = tmp_path / "steps.log", execution.Store(tmp_path / "store")
    params = [{"steps": 8, "sleep": 0.3, "log": str(log)}]
    straight = tasks.stepped({"steps": 8, "log": str(tmp_path / "straight.log")})
    killed = []

    def kill_after_step_3(client):
        while not killed:
            for path in (store.root / "partial").glob("*.json"):
                try:
                    step = json.loads(path.read_text())["i"]
                except (OSError, ValueError):
                    continue
                if step >= 3:
                    pid = next(iter(client.run(os.getpid).values()))
                    os.kill(pid, signal.SIGKILL)
                    killed.append(step)
            time.sleep(0.02)

    with execution.Engine(workers=1, quiet=True) as engine:
        watcher = threading.Thread(target=kill_after_step_3, args=(engine.client,), daemon=True)
        watcher.start()
        result = execution.run(tasks.stepped, params, engine, store=store, progress=False)
        watcher.join(timeout=5)
    assert killed, "no worker was killed"
    lines = _log_lines(log)
    assert result == [straight] and lines.count("step 0") == 1
    assert sorted(set(lines)) == [f"step {i}" for i in range(8)] and len(lines) <= 8 + 1  # at most the step cut short twice


@pytest.mark.slow
def test_client_killed_then_resume_completes_without_recomputing(tmp_path):
    store, log = tmp_path / "store", tmp_path / "runs.log"
    script = ("import sys; sys.path[:0] = [{root!r}, {tests!r}]; import _exec_tasks as t\n"
              "from numerics.core import execution as ex\n"
              "if __name__ == '__main__':\n"
              "    with ex.Engine(workers=2, quiet=True) as e:\n"
              "        ex.run(t.draw, {params!r}, e, store=ex.Store({store!r}), resume=True, progress=False)\n")
    params = [{"seed": s, "n": 5000, "log": str(log), "hold": str(tmp_path), "sleep": 0.7} for s in range(10)]
    path = tmp_path / "client.py"
    path.write_text(script.format(root=str(ROOT), tests=str(ROOT / "tests"), params=params, store=str(store)))
    proc = subprocess.Popen([sys.executable, str(path)], cwd=ROOT, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while len(list(store.glob("*.json"))) < 3 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        assert proc.poll() is None, "the client ended before it could be killed"
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # the client and its local cluster, mid-sweep
        proc.wait()
    before = {p.name: p.stat().st_ino for p in store.glob("*.json")}
    assert 3 <= len(before) < len(params), "the client was not killed mid-sweep"
    ran_before = len(_log_lines(log))
    with execution.Engine(workers=2, quiet=True) as engine:
        results = execution.run(tasks.draw, params, engine, store=execution.Store(store), resume=True,
                                progress=False)
    after = {p.name: p.stat().st_ino for p in store.glob("*.json")}
    assert all(after[name] == ino for name, ino in before.items())  # stored records untouched
    assert len(_log_lines(log)) - ran_before == len(params) - len(before)  # only the missing ones ran
    assert results == _serial(tasks.draw, [{"seed": s, "n": 5000} for s in range(10)])


@pytest.mark.slow
def test_two_workers_find_the_same_counterexample_the_database_holds_it_once(tmp_path):
    from hypothesis.database import DirectoryBasedExampleDatabase

    db = tmp_path / "db"
    params = [{"task": i, "examples": 300, "database": str(db)} for i in range(2)]
    with execution.Engine(workers=2, quiet=True) as engine:
        parts = execution.run(tasks.toy_fuzz, params, engine, progress=False)
    assert all(p["failed"] and p["shrunk_counterexample"] == {"x": 501} for p in parts)
    saved = list(DirectoryBasedExampleDatabase(str(db)).fetch(b"maskverify-fuzz:toy:default"))
    assert len(saved) == 1
    replay = fuzzing.run(tasks.TOY, database=str(db), progress=False)  # a later run replays it first
    assert replay.failed and replay.examples_tried == 1 and replay.shrunk_counterexample == {"x": 501}


def test_local_workers_keep_glibcs_default_malloc_settings():
    """Dask's nanny would start each worker with MALLOC_TRIM_THRESHOLD_ set, which turns off glibc's
    adaptive mmap threshold and made a large-temporary workload 1.6 x slower: the engine's local
    workers start without it (and with one BLAS thread, as the nanny sets)."""
    with execution.Engine(workers=1, quiet=True) as engine:
        env = next(iter(engine.client.run(lambda: dict(os.environ)).values()))
    assert "MALLOC_TRIM_THRESHOLD_" not in env and env.get("OMP_NUM_THREADS") == "1"
