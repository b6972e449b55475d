"""``maskverify privacy`` as tasks of the execution layer (``numerics.masking.privacy.tasks``):
a tiny sweep of every sub-experiment on digits writes the same result files, byte for byte,
serially (``--workers 0``) and on a 2-worker ``LocalCluster``; a resumed run takes the tasks
stored in ``--store`` and trains only the missing ones.  The one-line exit-2 errors of the
engine's options are tested with the other commands' in ``tests/test_execution.py``."""
from __future__ import annotations

import json

import pytest
import torch

from numerics.app.cli import main
from numerics.masking.privacy import training

#: 3 kappas (the fewest the trend tests take), 2 seeds, one model, one epoch, one DP noise multiplier
TINY = ["--model", "mlp", "--kappa", "0", "0.5", "1", "--seeds", "2", "--epochs", "1", "--noise", "1",
        "--no-progress"]
#: the result files; the PDFs are left out: matplotlib stamps each with its creation time
RESULTS = ("runs.json", "accuracy.json", "accuracy.csv", "attack.json", "attack.csv", "dp.json", "dp.csv",
           "fig4.png", "fig5.png", "fig6_7.png", "fig9_mlp.png")


@pytest.fixture(autouse=True)
def keep_threads():
    before = torch.get_num_threads()
    yield
    torch.set_num_threads(before)


def _workers(store) -> list[str]:
    return [json.loads(p.read_text())["worker"] for p in store.glob("*.json")]


def test_serial_and_two_workers_write_the_same_files_byte_for_byte(tmp_path, capsys):
    for name, workers in (("serial", "0"), ("cluster", "2")):
        argv = ["privacy", "all", *TINY, "--workers", workers, "--out", str(tmp_path / name),
                "--store", str(tmp_path / f"{name}-tasks")]
        assert main(argv) == 0, capsys.readouterr().err
    # 6 accuracy runs, 6 attack runs (target + shadow), 2 DP-SGD runs; dp reuses attack's mask runs
    assert _workers(tmp_path / "serial-tasks") == ["local"] * 14
    cluster = _workers(tmp_path / "cluster-tasks")
    assert len(cluster) == 14 and len(set(cluster)) == 2 and "local" not in cluster  # both workers ran tasks
    for name in RESULTS:
        assert (tmp_path / "serial" / name).read_bytes() == (tmp_path / "cluster" / name).read_bytes(), name


def test_resume_takes_the_stored_tasks_and_trains_only_the_missing(tmp_path, monkeypatch):
    trained = []
    real = training.train

    def counted(name, images, kappa, seed, role, *a, **kw):
        trained.append((name, kappa, seed, role))
        return real(name, images, kappa, seed, role, *a, **kw)

    monkeypatch.setattr(training, "train", counted)
    base = ["privacy", "accuracy", *TINY, "--workers", "0", "--store", str(tmp_path / "tasks")]
    assert main([*base, "--out", str(tmp_path / "a")]) == 0
    assert len(trained) == 6
    # a fresh --out (no runs.json) with the third seed: only seed 2's three kappas train
    assert main([*base, "--seeds", "3", "--resume", "--out", str(tmp_path / "b")]) == 0
    assert sorted(trained[6:]) == [("mlp", k, 2, "fig4") for k in (0.0, 0.5, 1.0)]
    a, b = (json.loads((tmp_path / d / "runs.json").read_text())["runs"] for d in "ab")
    assert len(b) == 9 and all(b[k] == v for k, v in a.items())
    # everything stored: nothing trains, and the files are those of the run that computed them
    assert main([*base, "--seeds", "3", "--resume", "--out", str(tmp_path / "c")]) == 0
    assert len(trained) == 9
    for name in ("runs.json", "accuracy.json", "accuracy.csv"):
        assert (tmp_path / "b" / name).read_bytes() == (tmp_path / "c" / name).read_bytes(), name
