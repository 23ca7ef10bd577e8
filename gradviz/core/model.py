"""The multi-head network: a shared trunk whose output z (the junction) feeds K heads.

The trunk ends in a Linear layer, so z is not itself saved by the trunk; each head's
first Linear saves z for its weight gradient (which is what makes `detach_()` bite).
No in-place operations anywhere.
"""
from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

from .data import INPUT_DIM, head_output_dim, head_task

HEAD_HIDDEN = 16


def _trunk(width: int, depth: int) -> nn.Sequential:
    layers: list[nn.Module] = []
    size = INPUT_DIM
    for i in range(depth):
        layers.append(nn.Linear(size, width))
        if i < depth - 1:
            layers.append(nn.Tanh())
        size = width
    return nn.Sequential(*layers)


def _head(width: int, k: int) -> nn.Sequential:
    return nn.Sequential(nn.Linear(width, HEAD_HIDDEN), nn.Tanh(),
                         nn.Linear(HEAD_HIDDEN, head_output_dim(k)))


class MultiHeadNet(nn.Module):
    def __init__(self, heads: int, width: int, depth: int):
        super().__init__()
        self.trunk = _trunk(width, depth)
        self.heads = nn.ModuleList(_head(width, k) for k in range(heads))

    def forward(self, x: torch.Tensor) -> list[torch.Tensor]:
        z = self.trunk(x)
        return [head(z) for head in self.heads]


def head_loss(k: int, output: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """MSE for regression heads, cross-entropy for classification heads."""
    if head_task(k) == "regression":
        return F.mse_loss(output, target)
    return F.cross_entropy(output, target)
