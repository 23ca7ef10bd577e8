"""The multi-head network: a shared trunk whose output z (the junction) feeds K heads.

The trunk is an MLP, or a recurrent cell unrolled over a short sequence whose hidden state
the caller carries from step to step. Either way it ends in a Linear layer, so z is not
itself saved by the trunk; each head's first Linear saves z for its weight gradient (which
is what makes `detach_()` bite). No in-place operations in the graph (a BatchNorm1d, when
asked for, updates its running statistics in place: buffers, outside the graph).
"""
from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

from ..plain.config.config import HEAD_HIDDEN, SEQ_LEN, STEP_FEATURES  # noqa: F401
from .data import INPUT_DIM, head_output_dim, head_task


def _trunk(width: int, depth: int, batch_norm: bool = False) -> nn.Sequential:
    layers: list[nn.Module] = []
    size = INPUT_DIM
    for i in range(depth):
        layers.append(nn.Linear(size, width))
        if batch_norm and i == 0:
            # one BatchNorm1d, between Linear and tanh: it normalizes by the statistics of
            # the examples it is given, so a micro-batch's gradient is no longer a part of
            # the full batch's (config refuses it at depth 1, where z would be its output)
            layers.append(nn.BatchNorm1d(width))
        if i < depth - 1:
            layers.append(nn.Tanh())
        size = width
    return nn.Sequential(*layers)


def _head(width: int, k: int) -> nn.Sequential:
    return nn.Sequential(nn.Linear(width, HEAD_HIDDEN), nn.Tanh(),
                         nn.Linear(HEAD_HIDDEN, head_output_dim(k)))


class RecurrentTrunk(nn.Module):
    """h_t = tanh(ih(x_t) + hh(h_{t-1})) over SEQ_LEN steps, then z = readout(h_T).

    Unrolled by hand (not nn.RNN) so the autograd graph shows each time step."""

    def __init__(self, width: int):
        super().__init__()
        self.width = width
        self.ih = nn.Linear(STEP_FEATURES, width)
        self.hh = nn.Linear(width, width)
        self.readout = nn.Linear(width, width)

    def cell(self, x_t: torch.Tensor, h: torch.Tensor):
        """One time step: (ih(x_t), hh(h), the new h); the parts are kept for the graph."""
        from_input, from_state = self.ih(x_t), self.hh(h)
        return from_input, from_state, torch.tanh(from_input + from_state)

    def forward(self, x: torch.Tensor, h: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """x (B, INPUT_DIM), h (B, width) -> z (B, width), h_T (B, width)."""
        for x_t in time_steps(x):
            h = self.cell(x_t, h)[2]
        return self.readout(h), h


def time_steps(x: torch.Tensor) -> list[torch.Tensor]:
    """x (B, INPUT_DIM) read as SEQ_LEN steps of (B, STEP_FEATURES)."""
    steps = x.view(x.shape[0], SEQ_LEN, STEP_FEATURES)
    return [steps[:, t] for t in range(SEQ_LEN)]


class MultiHeadNet(nn.Module):
    def __init__(self, heads: int, width: int, depth: int, kind: str = "mlp",
                 batch_norm: bool = False):
        super().__init__()
        self.kind = kind
        self.trunk = _trunk(width, depth, batch_norm) if kind == "mlp" else RecurrentTrunk(width)
        # the head modules; the name is kept: it is their parameters' prefix
        # ("heads.1.0.weight" in the graph, the reports' columns and the loop code)
        self.heads = nn.ModuleList(_head(width, k) for k in range(heads))

    def forward(self, x: torch.Tensor) -> list[torch.Tensor]:
        """Every head's output, the rnn starting from a zero state (the session runs the
        trunk and heads itself, to carry the state and to detach)."""
        if isinstance(self.trunk, RecurrentTrunk):
            z, _ = self.trunk(x, x.new_zeros(x.shape[0], self.trunk.width))
        else:
            z = self.trunk(x)
        return [head(z) for head in self.heads]


def head_loss(k: int, output: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """MSE for regression heads, cross-entropy for classification heads."""
    if head_task(k) == "regression":
        return F.mse_loss(output, target)
    return F.cross_entropy(output, target)
