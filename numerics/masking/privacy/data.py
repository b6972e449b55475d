"""Data of the Section 6 experiments: scikit-learn's digits (default) or CIFAR-10.

- ``digits()``: scikit-learn's bundled 8x8 digits (1,797 images, 10 classes, pixel values
  0..16), shipped with the library, so no download: what CI and the tests use.
- ``cifar10(directory)``: the standard python batches (``data_batch_1`` .. ``data_batch_5``,
  ``test_batch``: pickled dicts with ``data`` (N, 3072) uint8, row-major 3 x 32 x 32, and
  ``labels``), in ``directory`` or its ``cifar-10-batches-py`` subfolder.  Missing or
  malformed files raise ``ValueError`` with one clear message (the CLI reports it with exit
  status 2).  The batches are pickles: load only files you trust (the format is the
  dataset's own).

Two ways of cutting a data set, as in the authors' code (``STATEMENTS.md``, Section 6):

- ``train_test``: for Fig. 4, CIFAR-10's own train/test batches; digits has none, so a
  stratified split (scikit-learn's ``train_test_split``, a quarter for test);
- ``four_parts``: for the attacks (ML-Leaks), train and test pooled, shuffled and cut into
  four disjoint equal parts (target train, shadow train, target test, shadow test) of
  10,520 images on CIFAR-10, a quarter of the pool (449) on digits.

``standardise(train, *others)``: per-pixel mean and standard deviation of ``train``, the
standard deviation clipped below at 1 (the authors' rule; on digits it also keeps the
always-blank border pixels finite), applied to every array.
"""
from __future__ import annotations

import pickle
from dataclasses import dataclass
from pathlib import Path

import numpy as np

#: the authors' part size of the ML-Leaks split on CIFAR-10
CIFAR_PART = 10_520
CIFAR_FILES = tuple(f"data_batch_{i}" for i in range(1, 6)) + ("test_batch",)
CLASSES = 10


@dataclass(frozen=True)
class Images:
    """Images X (N, C, H, W) float32 and labels y (N,) int64."""

    X: np.ndarray
    y: np.ndarray

    def __post_init__(self):
        if self.X.ndim != 4 or self.y.shape != (self.X.shape[0],):
            raise ValueError(f"need X (N, C, H, W) and y (N,), got {self.X.shape} and {self.y.shape}")

    def __len__(self) -> int:
        return self.X.shape[0]

    @property
    def shape(self) -> tuple:
        return tuple(self.X.shape[1:])

    def take(self, index) -> Images:
        return Images(self.X[index], self.y[index])


@dataclass(frozen=True)
class Source:
    """A data set as it comes: a name, and its train and test images (the test may be None)."""

    name: str
    train: Images
    test: Images | None

    def pooled(self) -> Images:
        if self.test is None:
            return self.train
        return Images(np.concatenate([self.train.X, self.test.X]), np.concatenate([self.train.y, self.test.y]))


def digits() -> Source:
    """scikit-learn's digits as (1797, 1, 8, 8) float32 images with values 0..16; no test set."""
    from sklearn.datasets import load_digits

    d = load_digits()
    return Source("digits", Images(d.images.astype(np.float32)[:, None], d.target.astype(np.int64)), None)


def _batch(path: Path) -> Images:
    if not path.is_file():
        raise ValueError(f"CIFAR-10: {path} is missing (need {', '.join(CIFAR_FILES)})")
    try:
        with open(path, "rb") as fh:
            raw = pickle.load(fh, encoding="bytes")
        data = np.asarray(raw[b"data"], dtype=np.uint8)
        labels = np.asarray(raw[b"labels"], dtype=np.int64)
    except (pickle.UnpicklingError, EOFError, KeyError, TypeError, ValueError, AttributeError) as exc:
        raise ValueError(f"CIFAR-10: {path} is not a CIFAR-10 python batch ({type(exc).__name__}: {exc})") from None
    if data.ndim != 2 or data.shape[1] != 3 * 32 * 32 or labels.shape != (data.shape[0],):
        raise ValueError(f"CIFAR-10: {path} holds data {data.shape} and labels {labels.shape}; "
                         "need (N, 3072) and (N,)")
    if data.shape[0] == 0 or labels.min() < 0 or labels.max() >= CLASSES:
        raise ValueError(f"CIFAR-10: {path} is empty or has labels outside 0..{CLASSES - 1}")
    return Images(data.reshape(-1, 3, 32, 32).astype(np.float32), labels)


def cifar10(directory) -> Source:
    """The CIFAR-10 python batches in ``directory`` (or its ``cifar-10-batches-py``)."""
    directory = Path(directory)
    if not directory.is_dir():
        raise ValueError(f"--data {directory}: not a directory")
    if not (directory / CIFAR_FILES[0]).exists() and (directory / "cifar-10-batches-py").is_dir():
        directory = directory / "cifar-10-batches-py"
    parts = [_batch(directory / name) for name in CIFAR_FILES]
    train = Images(np.concatenate([p.X for p in parts[:5]]), np.concatenate([p.y for p in parts[:5]]))
    return Source("cifar10", train, parts[5])


def load(directory=None) -> Source:
    """digits when ``directory`` is None, else CIFAR-10 from it."""
    return digits() if directory is None else cifar10(directory)


def standardise(train: Images, *others: Images) -> list[Images]:
    """(x - mean) / max(std, 1) per pixel, with mean and std of ``train``; for every array given."""
    mean = train.X.mean(0, dtype=np.float64)
    std = np.maximum(train.X.std(0, dtype=np.float64), 1.0)
    return [Images(((im.X - mean) / std).astype(np.float32), im.y) for im in (train, *others)]


def train_test(source: Source, seed: int = 0) -> tuple[Images, Images]:
    """Fig. 4's split, standardised with the training images: the source's own test set, or
    (digits) a stratified quarter of the images chosen by ``seed``."""
    if source.test is not None:
        train, test = source.train, source.test
    else:
        from sklearn.model_selection import train_test_split

        idx = np.arange(len(source.train))
        a, b = train_test_split(idx, test_size=0.25, random_state=seed, stratify=source.train.y)
        train, test = source.train.take(np.sort(a)), source.train.take(np.sort(b))
    return tuple(standardise(train, test))


@dataclass(frozen=True)
class FourParts:
    """The ML-Leaks split, each model's parts standardised with its own training part."""

    target_train: Images
    target_test: Images
    shadow_train: Images
    shadow_test: Images


def split_indices(n: int, part: int, seed: int) -> list[np.ndarray]:
    """Four disjoint index sets of ``part`` indices into range(n), from one permutation
    (numpy generator of ``seed``): target train, shadow train, target test, shadow test."""
    order = np.random.default_rng(seed).permutation(n)
    return [order[i * part:(i + 1) * part] for i in range(4)]


def four_parts(source: Source, seed: int = 0, part: int | None = None) -> FourParts:
    """Pool, shuffle (numpy generator of ``seed``) and cut into four disjoint parts of ``part``
    images (default: 10,520 on CIFAR-10, a quarter of the pool otherwise)."""
    pool = source.pooled()
    if part is None:
        part = CIFAR_PART if source.name == "cifar10" else len(pool) // 4
    if not 1 <= part <= len(pool) // 4:
        raise ValueError(f"{source.name}: parts of {part} images need at least {4 * part}, have {len(pool)}")
    tt, st, te, se = (pool.take(i) for i in split_indices(len(pool), part, seed))
    tt, te = standardise(tt, te)
    st, se = standardise(st, se)
    return FourParts(tt, te, st, se)
