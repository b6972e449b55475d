"""The three networks of the authors' Section 6 code (``STATEMENTS.md``, Section 6), hidden width 100.

- ``mlp``: flatten, Linear(., 100), tanh, Linear(100, 10).
- ``cnn`` (standard): conv 5x5 32 (padding 2), ReLU, max-pool 2; conv 5x5 32 (no padding),
  ReLU, max-pool 2; Linear(., 100), tanh; Linear(100, 10).
- ``improved``: [conv 3x3 32 + BatchNorm + ReLU] x 2, max-pool 2, dropout 0.2;
  [conv 3x3 64 + BatchNorm + ReLU] x 2, max-pool 2, dropout 0.3; Linear(., 100), ReLU,
  dropout 0.5; Linear(100, 10).  The 3x3 convolutions keep the size (padding 1; the
  settings do not give it).

Adaptation to 8x8 digits (ours): the standard CNN's second convolution has no padding on
CIFAR-10's 32x32 (32 -> 16 -> 12 -> 6), but a 5x5 kernel without padding does not fit the 4x4
maps that 8x8 inputs give after the first pool; on inputs smaller than 16x16 it gets
padding 2 (8 -> 4 -> 4 -> 2).  The MLP and the improved CNN need no change.  The width of
the first linear layer follows from the input shape.

For DP-SGD, Opacus cannot compute per-sample gradients through BatchNorm (it mixes the
samples of a batch); ``opacus.validators.ModuleValidator.fix`` replaces it by GroupNorm,
and ``training.train`` applies that fix to the improved CNN under DP only.
"""
from __future__ import annotations

import torch
from torch import nn

MODELS = ("mlp", "cnn", "improved")
HIDDEN = 100


def _conv_block(cin: int, cout: int) -> list[nn.Module]:
    return [nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU()]


def _features(name: str, shape: tuple) -> nn.Sequential:
    c, h, _ = shape
    if name == "mlp":
        return nn.Sequential(nn.Flatten())
    if name == "cnn":
        pad2 = 2 if h < 16 else 0
        return nn.Sequential(nn.Conv2d(c, 32, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
                             nn.Conv2d(32, 32, 5, padding=pad2), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten())
    if name == "improved":
        return nn.Sequential(*_conv_block(c, 32), *_conv_block(32, 32), nn.MaxPool2d(2), nn.Dropout(0.2),
                             *_conv_block(32, 64), *_conv_block(64, 64), nn.MaxPool2d(2), nn.Dropout(0.3),
                             nn.Flatten())
    raise ValueError(f"unknown model {name!r}; known: {', '.join(MODELS)}")


def build(name: str, shape: tuple, classes: int = 10) -> nn.Sequential:
    """The network ``name`` for inputs of ``shape`` (C, H, W), initialised from torch's global
    generator (``training.train`` seeds it)."""
    if len(shape) != 3:
        raise ValueError(f"input shape must be (C, H, W), got {shape}")
    features = _features(name, tuple(shape))
    with torch.no_grad():
        width = features(torch.zeros(1, *shape)).shape[1]
    act = nn.Tanh() if name in ("mlp", "cnn") else nn.ReLU()
    head = [nn.Linear(width, HIDDEN), act] + ([nn.Dropout(0.5)] if name == "improved" else [])
    return nn.Sequential(*features, *head, nn.Linear(HIDDEN, classes))
