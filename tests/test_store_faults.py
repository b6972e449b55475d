"""The execution store survives what a crashed disk, a careless edit or another tool leaves in it
(issue 35): a record cut short, emptied, of the wrong shape or another task's is set aside in
``unreadable/`` (nothing is deleted), its task reruns and the readable records are kept; a torn
partial state is set aside and its task starts afresh; a store that cannot be written is refused
before any task runs."""
from __future__ import annotations

import json

import pytest

import _exec_tasks as tasks  # tests/ is on sys.path (no package __init__)
from numerics.core import execution
from numerics.core.cliargs import UsageError

SWEEP = [{"seed": s, "n": 500} for s in range(4)]


def _serial(fn, params, **kw):
    with execution.Engine(workers=0, quiet=True) as engine:
        return execution.run(fn, params, engine, progress=False, **kw)


def _key(p):
    return execution.Store.key(tasks.draw, p, execution.closure_version(tasks.draw))


BAD = {
    "cut short": lambda text: text[: len(text) // 2],
    "emptied": lambda text: "",
    "not a record": lambda text: json.dumps({"not": "a record"}),
    "a list": lambda text: "[1, 2, 3]",
    "null result": lambda text: json.dumps({**json.loads(text), "result": None}),
    "another task's": lambda text: json.dumps({**json.loads(text), "params": {"seed": 99, "n": 500}}),
    "not UTF-8": lambda text: "\udcff",
}


@pytest.mark.parametrize("damage", sorted(BAD))
def test_an_unreadable_record_is_set_aside_and_its_task_reruns(damage, tmp_path, capsys):
    log, store = tmp_path / "runs.log", execution.Store(tmp_path / "store")
    params = [dict(p, log=str(log)) for p in SWEEP]
    first = _serial(tasks.draw, params, store=store)
    path = store.path(_key(params[1]))
    text = path.read_text()
    if damage == "not UTF-8":
        path.write_bytes(b"\xff\xfe{")
    else:
        path.write_text(BAD[damage](text))
    with execution.Engine(workers=0, quiet=True) as engine:
        again = execution.run(tasks.draw, params, engine, store=store, resume=True, progress=True, desc="sweep")
    assert again == first
    assert [line.split()[1] for line in log.read_text().splitlines()] == ["0", "1", "2", "3", "1"]  # only it reran
    [(where, why)] = store.set_aside
    assert where.parent == store.root / execution.Store.ASIDE and where.exists() and why
    said = capsys.readouterr()
    assert "1 unreadable record(s) set aside" in said.out + said.err
    assert json.loads(path.read_text())["result"] == first[1]  # rewritten whole


def test_setting_aside_never_overwrites_an_earlier_one(tmp_path):
    store = execution.Store(tmp_path / "store")
    _serial(tasks.draw, SWEEP[:1], store=store)
    path = store.path(_key(SWEEP[0]))
    for _ in range(2):
        path.write_text("{")
        _serial(tasks.draw, SWEEP[:1], store=store, resume=True)
    assert sorted(p.name for p in (store.root / execution.Store.ASIDE).iterdir()) == sorted([path.name, f"{path.stem}.1.json"])


def test_a_torn_partial_state_is_set_aside_and_the_task_starts_afresh(tmp_path):
    log, store = tmp_path / "steps.log", execution.Store(tmp_path / "store")
    params = [{"steps": 4, "log": str(log)}]
    key = execution.Store.key(tasks.stepped, params[0], execution.closure_version(tasks.stepped))
    store.partial_path(key).parent.mkdir(parents=True)
    store.partial_path(key).write_text('{"step": 2, "tot')
    straight = tasks.stepped({"steps": 4, "log": str(tmp_path / "straight.log")})
    assert _serial(tasks.stepped, params, store=store, resume=True) == [straight]
    assert log.read_text().split("\n")[:4] == [f"step {i}" for i in range(4)]  # from step 0
    assert (store.root / execution.Store.ASIDE / f"{key}.json").exists()


@pytest.mark.parametrize("where", ["/proc/maskverify-store", "FILE", "FILE/child"])
def test_a_store_that_cannot_be_written_is_refused_before_any_task(where, tmp_path):
    (tmp_path / "FILE").write_text("x")
    log = tmp_path / "runs.log"
    root = where.replace("FILE", str(tmp_path / "FILE"))
    with pytest.raises(UsageError, match="--store"):
        _serial(tasks.draw, [dict(SWEEP[0], log=str(log))], store=execution.Store(root))
    assert not log.exists()


def test_fuzz_resume_survives_a_record_cut_short(tmp_path, capsys):
    """Through the command: the cut record is set aside, its task reruns, the result is the same."""
    from numerics.app.cli import main

    argv = ["fuzz", "masking:cor.5.3", "--examples", "4", "--chunk", "2", "--seed", "0", "--workers", "0",
            "--store", str(tmp_path / "st"), "--no-progress", "--json", str(tmp_path / "a.json")]
    assert main(argv) == 0
    [first, _] = sorted((tmp_path / "st").glob("*.json"))
    first.write_text(first.read_text()[:50])
    capsys.readouterr()
    assert main([*argv[:-1], str(tmp_path / "b.json"), "--resume"]) == 0
    said = capsys.readouterr()
    assert "1 unreadable record(s) set aside" in said.out + said.err
    a, b = (json.loads((tmp_path / f).read_text()) for f in ("a.json", "b.json"))
    assert {k: v for k, v in a.items() if k != "elapsed_s"} == {k: v for k, v in b.items() if k != "elapsed_s"}


@pytest.mark.parametrize("content", [b"", b"not a checkpoint", b"PK\x03\x04cut"])
def test_train_resume_from_a_bad_checkpoint_is_one_line(content, tmp_path, capsys):
    from numerics.app.cli import main
    from numerics.masking.train_cmd import CHECKPOINT

    (tmp_path / CHECKPOINT).write_bytes(content)
    assert main(["train", "--out", str(tmp_path), "--resume", "--steps", "1", "--seeds", "1", "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and CHECKPOINT in err and "start afresh" in err and "Traceback" not in err


@pytest.mark.parametrize("content", ["", "{", "[1, 2]", '{"settings": {}}'])
def test_a_bad_file_of_runs_is_set_aside_and_its_runs_run_again(content, tmp_path, capsys):
    from numerics.masking.privacy.experiment import STORE, Store as PrivacyRuns
    from numerics.meanfield.runs import RunStore

    mf = tmp_path / "exp2_runs.json"
    mf.write_text(content)
    assert RunStore(mf, {"a": 1}, resume=True).runs == {} and not mf.exists()
    (tmp_path / STORE).write_text(content)
    assert PrivacyRuns(tmp_path, {"data": "digits"}, resume=True).runs == {} and not (tmp_path / STORE).exists()
    assert sorted(p.name for p in (tmp_path / "unreadable").iterdir()) == sorted(["exp2_runs.json", STORE])
    assert capsys.readouterr().err.count("set aside") == 2
