"""A seeded synthetic multi-task dataset made in memory: one target per head.

Even heads are regressions (MSE), odd heads 3-way classifications (cross-entropy).
Every target is read off a shared latent feature vector along its own direction; the
directions are spread over up to 144 degrees from head 0's. How two targets correlate
depends on the latent features too, not on the angle alone (seed 0, five heads: head 2,
72 degrees off, already anti-correlates a little), and whether two heads' gradients agree
is what the cosine panel measures: it need not follow either.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import torch

from ..plain.config.config import DATASET_SIZE, INPUT_DIM, LATENT_DIM, NUM_CLASSES  # noqa: F401


def head_task(k: int) -> str:
    return "regression" if k % 2 == 0 else "classification"


def head_output_dim(k: int) -> int:
    return 1 if head_task(k) == "regression" else NUM_CLASSES


@dataclass
class MultiTaskData:
    x: torch.Tensor                 # (DATASET_SIZE, INPUT_DIM)
    targets: list[torch.Tensor]     # per head: (N, 1) float or (N,) long
    seed: int
    _epoch: int = field(default=-1, repr=False)
    _order: torch.Tensor | None = field(default=None, repr=False)

    def batch_indices(self, step: int, batch_size: int) -> torch.Tensor:
        """The examples of optimizer step `step`: consecutive slices of a per-epoch shuffle."""
        per_epoch = max(1, DATASET_SIZE // batch_size)
        epoch, slot = divmod(step, per_epoch)
        order = self._order
        if order is None or self._epoch != epoch:  # one shuffle per epoch, not per step
            g = torch.Generator().manual_seed(self.seed * 7919 + epoch)
            order = torch.randperm(DATASET_SIZE, generator=g)
            self._order, self._epoch = order, epoch
        return order[slot * batch_size:(slot + 1) * batch_size]

    def to(self, device: torch.device) -> MultiTaskData:
        return MultiTaskData(self.x.to(device), [t.to(device) for t in self.targets], self.seed)


def make_data(heads: int, seed: int) -> MultiTaskData:
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(DATASET_SIZE, INPUT_DIM, generator=g)
    mix = torch.randn(INPUT_DIM, LATENT_DIM, generator=g) / math.sqrt(INPUT_DIM)
    latent = torch.tanh(2.0 * x @ mix)                        # (N, LATENT_DIM)
    base = torch.randn(LATENT_DIM, generator=g)
    base = base / base.norm()
    targets = []
    for k in range(heads):
        # Head k's direction turns away from head 0's by an angle that grows with k:
        # the spread of directions, so that the heads' tasks differ by degrees.
        angle = math.pi * k / max(1, heads - 1) * 0.8
        other = torch.randn(LATENT_DIM, generator=g)
        other = other - (other @ base) * base
        other = other / other.norm()
        direction = math.cos(angle) * base + math.sin(angle) * other
        signal = latent @ direction                            # (N,)
        if head_task(k) == "regression":
            noise = 0.05 * torch.randn(DATASET_SIZE, generator=g)
            targets.append((signal + noise).unsqueeze(1))
        else:
            spread = torch.randn(LATENT_DIM, NUM_CLASSES - 1, generator=g) * 0.5
            logits = torch.cat([signal.unsqueeze(1), latent @ spread], dim=1)
            targets.append(logits.argmax(dim=1))
    return MultiTaskData(x, targets, seed)
