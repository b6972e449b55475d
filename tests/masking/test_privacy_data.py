"""Data of the Section 6 privacy experiments: digits, the CIFAR-10 loader (on a tiny
synthetic file in the batches' format), the four-way split and the standardisation."""
from __future__ import annotations

import argparse
import pickle

import numpy as np
import pytest

from numerics.core.cliargs import UsageError
from numerics.masking.privacy import cli, data


def _write_cifar(folder, n=8, bad=None):
    """Six python batches of n random 32x32x3 images each; ``bad`` names one to break."""
    rng = np.random.default_rng(0)
    for name in data.CIFAR_FILES:
        batch = {b"data": rng.integers(0, 256, (n, 3072), dtype=np.uint8), b"labels": list(rng.integers(0, 10, n))}
        if name == bad:
            batch = {b"data": batch[b"data"][:, :100], b"labels": batch[b"labels"]}
        with open(folder / name, "wb") as fh:
            pickle.dump(batch, fh)


def test_digits_are_bundled_8x8_images():
    src = data.digits()
    assert src.name == "digits" and src.test is None
    assert src.train.X.shape == (1797, 1, 8, 8) and src.train.X.dtype == np.float32
    assert set(np.unique(src.train.y)) == set(range(10)) and src.train.X.max() == 16


def test_the_cifar_loader_reads_the_python_batches(tmp_path):
    _write_cifar(tmp_path)
    src = data.cifar10(tmp_path)
    assert src.train.X.shape == (40, 3, 32, 32) and src.test.X.shape == (8, 3, 32, 32)
    with open(tmp_path / "data_batch_1", "rb") as fh:
        first = pickle.load(fh, encoding="bytes")
    # row-major 3 x 32 x 32: the first 1024 values are the red plane
    assert np.array_equal(src.train.X[0, 0].ravel(), first[b"data"][0, :1024].astype(np.float32))
    assert list(src.train.y[:8]) == list(first[b"labels"])
    sub = tmp_path / "cifar-10-batches-py"
    sub.mkdir()
    _write_cifar(sub)
    assert len(data.cifar10(tmp_path).pooled()) == 48


@pytest.mark.parametrize("case", ["missing", "malformed", "not a pickle", "no folder"])
def test_missing_or_malformed_cifar_is_one_clear_message(tmp_path, case):
    if case == "missing":
        _write_cifar(tmp_path)
        (tmp_path / "test_batch").unlink()
        match = "test_batch is missing"
    elif case == "malformed":
        _write_cifar(tmp_path, bad="data_batch_3")
        match = "data_batch_3 holds data"
    elif case == "not a pickle":
        _write_cifar(tmp_path)
        (tmp_path / "data_batch_2").write_bytes(b"not a pickle")
        match = "data_batch_2 is not a CIFAR-10 python batch"
    else:
        tmp_path = tmp_path / "nowhere"
        match = "not a directory"
    with pytest.raises(ValueError, match=match):
        data.cifar10(tmp_path)
    parser = argparse.ArgumentParser()
    cli.add_subcommand(parser.add_subparsers())
    args = parser.parse_args(["privacy", "accuracy", "--data", str(tmp_path), "--no-progress",
                              "--out", str(tmp_path.parent / "out")])
    with pytest.raises(UsageError, match=match):
        args.func(args)


def test_four_parts_are_disjoint_standardised_quarters():
    src = data.digits()
    p = data.four_parts(src, seed=3)
    parts = (p.target_train, p.shadow_train, p.target_test, p.shadow_test)
    assert all(len(x) == 1797 // 4 for x in parts)
    idx = data.split_indices(1797, 449, seed=3)
    assert len(np.unique(np.concatenate(idx))) == 4 * 449
    pool = src.pooled()
    for part, i in zip(parts, idx):
        assert np.array_equal(part.y, pool.y[i])
    for train in (p.target_train, p.shadow_train):
        assert np.allclose(train.X.mean(0), 0.0, atol=1e-5)
        std = train.X.std(0)
        assert np.all(std <= 1.0 + 1e-5)                 # divided by max(std, 1)
    with pytest.raises(ValueError, match="need at least"):
        data.four_parts(src, part=1000)


def test_standardise_uses_the_training_statistics_with_the_clip():
    a = data.Images(np.array([[[[0.0, 10.0]]], [[[0.0, 30.0]]]], dtype=np.float32), np.array([0, 1]))
    b = data.Images(np.array([[[[2.0, 20.0]]]], dtype=np.float32), np.array([0]))
    sa, sb = data.standardise(a, b)
    # pixel 0: mean 0, std 0 -> clipped to 1; pixel 1: mean 20, std 10
    assert np.allclose(sb.X.ravel(), [2.0, 0.0]) and np.allclose(sa.X[:, 0, 0, 1], [-1.0, 1.0])


def test_fig4_split_is_stratified_and_standardised():
    tr_, te = data.train_test(data.digits(), seed=0)
    assert len(tr_) + len(te) == 1797 and abs(len(te) - 1797 / 4) < 1
    assert np.allclose(np.bincount(te.y) / len(te), np.bincount(tr_.y) / len(tr_), atol=0.01)
