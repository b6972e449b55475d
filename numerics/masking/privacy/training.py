"""Seeded training under the Gaussian input mask, and DP-SGD through Opacus.

Masked training: Adam on the cross-entropy, minibatches; each input x of a batch is replaced
by x . c with c = 1 + kappa z, z ~ N(0, I), a fresh z per sample and step, at training time
only (evaluation sees clean inputs).  Float32 throughout (the claims are about accuracy and
attack success, far above float32's resolution).

Seeding: a run is a function of (seed, role) alone, where ``role`` names the model
("fig4", "target", "shadow"); the initial weights and dropout come from torch's global
generator, seeded inside ``torch.random.fork_rng`` (the caller's state is restored), the
batch order and the mask draws z from generators of their own.  The draws do not depend on
kappa, so the runs of one seed at different kappas share initialisation, order and z
(common random numbers): differences across kappa are paired.

DP-SGD (``noise_multiplier`` given): ``opacus.PrivacyEngine.make_private`` with per-sample
clipping norm ``CLIP`` = 1.0 and Poisson sampling of expected batch size ``batch``; epsilon
from its default (PRV) accountant at ``DELTA`` = 1e-5.  Opacus cannot take BatchNorm (it mixes samples),
so under DP ``opacus.validators.ModuleValidator.fix`` turns the improved CNN's BatchNorm
into GroupNorm.  The DP runs here use no mask (kappa = 0), as the paper's baseline.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from . import models
from .data import Images

CLIP = 1.0
DELTA = 1e-5
ROLES = ("fig4", "target", "shadow")


@dataclass(frozen=True)
class Recipe:
    """Optimiser settings: Adam with learning rate ``lr`` and ``weight_decay``, ``epochs``
    passes over the data in batches of ``batch``."""

    epochs: int
    batch: int
    lr: float = 1e-3
    weight_decay: float = 1e-7

    def __post_init__(self):
        if int(self.epochs) != self.epochs or self.epochs < 1 or int(self.batch) != self.batch or self.batch < 1:
            raise ValueError(f"epochs and batch must be positive integers, got {self.epochs}, {self.batch}")
        if not (self.lr > 0 and self.weight_decay >= 0):
            raise ValueError(f"need lr > 0 and weight_decay >= 0, got {self.lr}, {self.weight_decay}")


def fig4_recipe(model: str, epochs: int = 80) -> Recipe:
    """Fig. 4's settings (authors' code): batch 128, lr 1e-3, weight decay 1e-7 (1e-5 for the improved CNN)."""
    return Recipe(epochs, 128, 1e-3, 1e-5 if model == "improved" else 1e-7)


def attack_recipe(epochs: int = 50) -> Recipe:
    """The ML-Leaks target and shadow models' settings (authors' code): batch 100, lr 1e-3, weight decay 1e-7."""
    return Recipe(epochs, 100)


def seeds_of(seed: int, role: str) -> tuple[int, int, int, int]:
    """(init, order, mask, noise) seeds of a run, from numpy's SeedSequence of (seed, role)."""
    if role not in ROLES:
        raise ValueError(f"role must be one of {ROLES}, got {role!r}")
    state = np.random.SeedSequence([int(seed), ROLES.index(role)]).generate_state(4, np.uint64)
    return tuple(int(s) & ((1 << 63) - 1) for s in state)


@dataclass
class Trained:
    """A trained network (eval mode) and what its training cost: epsilon (DP only)."""

    model: nn.Module
    epsilon: float | None = None


def train(name: str, images: Images, kappa: float, seed: int, role: str, recipe: Recipe, *,
          noise_multiplier: float | None = None, device="cpu", progress=None) -> Trained:
    """Train network ``name`` on ``images`` with the mask of standard deviation ``kappa``
    (or, with ``noise_multiplier``, by DP-SGD); ``progress`` (a tqdm bar) advances per epoch."""
    if not kappa >= 0:
        raise ValueError(f"kappa must be >= 0, got {kappa}")
    if noise_multiplier is not None and not noise_multiplier >= 0:
        raise ValueError(f"noise_multiplier must be >= 0, got {noise_multiplier}")
    device = torch.device(device)
    init, order, mask, noise = seeds_of(seed, role)
    X = torch.as_tensor(images.X, device=device)
    y = torch.as_tensor(images.y, device=device)
    with torch.random.fork_rng(devices=[device] if device.type == "cuda" else []):
        torch.manual_seed(init)
        model = models.build(name, images.shape)
        if noise_multiplier is not None:
            from opacus.validators import ModuleValidator
            model = ModuleValidator.fix(model)
        model.to(device)
        opt = torch.optim.Adam(model.parameters(), lr=recipe.lr, weight_decay=recipe.weight_decay)
        g_order = torch.Generator().manual_seed(order)
        g_mask = torch.Generator(device=device).manual_seed(mask)
        engine, batches = None, None
        if noise_multiplier is None:
            batches = lambda: (torch.randperm(len(X), generator=g_order).to(device).split(recipe.batch))  # noqa: E731
        else:
            from opacus import PrivacyEngine

            loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(X, y), batch_size=recipe.batch,
                                                 generator=g_order)
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", "Secure RNG turned off")
                engine = PrivacyEngine()
                model, opt, loader = engine.make_private(
                    module=model, optimizer=opt, data_loader=loader, noise_multiplier=float(noise_multiplier),
                    max_grad_norm=CLIP, noise_generator=torch.Generator(device=device).manual_seed(noise))
        loss_fn = nn.CrossEntropyLoss()
        model.train()
        with warnings.catch_warnings():
            # Opacus's hooks fire on the first layer, whose input needs no gradient: harmless
            warnings.filterwarnings("ignore", "Full backward hook is firing")
            for _ in range(recipe.epochs):
                for xb, yb in (loader if batches is None else ((X[i], y[i]) for i in batches())):
                    if xb.shape[0] == 0:                     # Poisson sampling can draw an empty batch
                        continue
                    if kappa > 0:
                        z = torch.randn(xb.shape, generator=g_mask, device=device)
                        xb = xb * (1.0 + kappa * z)
                    opt.zero_grad(set_to_none=True)
                    loss_fn(model(xb), yb).backward()
                    opt.step()
                if progress is not None:
                    progress.update(1)
        model.eval()
    eps = None if engine is None else float(engine.get_epsilon(DELTA))
    return Trained(getattr(model, "_module", model), eps)


@torch.no_grad()
def posteriors(model: nn.Module, images: Images, batch: int = 2048) -> np.ndarray:
    """Softmax outputs (N, classes) on clean inputs, float64."""
    dev = next(model.parameters()).device
    X = torch.as_tensor(images.X)
    out = [torch.softmax(model(X[i:i + batch].to(dev)).double(), 1).cpu() for i in range(0, len(X), batch)]
    return torch.cat(out).numpy()


def accuracy(model: nn.Module, images: Images) -> float:
    """Fraction of clean ``images`` classified correctly."""
    return float((posteriors(model, images).argmax(1) == images.y).mean())
