"""What optimizer.step() did, on the steps that measure the update cosine: the length of
the trunk's change, that over the change plain SGD would make from the sum's gradient,
and each head's loss change on the same batch, real (re-evaluated after the step) and
to first order split into its trunk part and its own layers' part.

A probe: it copies the parameters before the step and, after it, runs the step's
forward again under no_grad with the BatchNorm statistics put back, so training goes
on exactly as without it (no random draws, no state kept). Built-in model only: a model
file's forward is its own code, which may do anything when run twice.
"""
from __future__ import annotations

import math
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import cast

import torch
from torch import nn

from ..plain.config.config import Config
from ..plain.records.records import StepRecord
from .forward import Carried, forward
from .model import MultiHeadNet
from .step_numbers import step_losses
from .update_probe import UpdateCosineProbe


@dataclass
class Replay:
    """One micro-batch as the step's forward ran it: its inputs, targets and (rnn) the
    hidden state it started from."""
    x: torch.Tensor
    targets: list[torch.Tensor]
    h0: torch.Tensor | None


class StepEffect:
    def __init__(self, trunk: Sequence[torch.Tensor], heads: Sequence[Sequence[torch.Tensor]]):
        self.trunk = list(trunk)
        self.heads = [list(h) for h in heads]
        self.replays: list[Replay] = []
        self._before: list[torch.Tensor] = []

    def keep(self, x: torch.Tensor, targets: list[torch.Tensor],
             carried: Carried | None) -> None:
        """A micro-batch, before its forward (which replaces carried.h with h_T)."""
        h0 = None if carried is None else carried.h.detach()
        self.replays.append(Replay(x, list(targets), h0))

    def before_step(self) -> None:
        with torch.no_grad():
            self._before = [p.detach().clone() for p in self._params()]

    def _params(self) -> list[torch.Tensor]:
        return self.trunk + [p for head in self.heads for p in head]

    def numbers(self, probe: UpdateCosineProbe, losses_after: torch.Tensor) -> torch.Tensor | None:
        """(1 + 3K,) after the step: |d trunk|^2; each head's grad_trunk L_k . d trunk and
        grad_head_k L_k . d head_k; each L_k re-evaluated (None: the probe has no rows)."""
        rows = probe.trunk_rows
        if rows is None or probe.failed or len(probe.head_rows) != len(self.heads):
            return None
        with torch.no_grad():
            deltas = [p.detach() - b for p, b in zip(self._params(), self._before)]
            d_trunk = torch.cat([d.reshape(-1) for d in deltas[:len(self.trunk)]])
            rest = iter(deltas[len(self.trunk):])
            head_parts = []
            for head, row in zip(self.heads, probe.head_rows):
                d_head = torch.cat([next(rest).reshape(-1) for _ in head])
                head_parts.append((row @ d_head).to(d_trunk.device))
            return torch.cat([(d_trunk @ d_trunk).reshape(1), rows @ d_trunk,
                              torch.stack(head_parts), losses_after.to(d_trunk.device)])


# model -> (its trunk's parameters, each head's, its buffers): listed once per model,
# not on every sampled step (walking the modules for them took about a tenth of what a
# sampled step adds). A model keeps its parameter and buffer tensors for life (a reset
# builds a new model); training changes their values in place.
_PARTS: weakref.WeakKeyDictionary[nn.Module, tuple[list[torch.Tensor],
                                                   list[list[torch.Tensor]],
                                                   list[torch.Tensor]]] = \
    weakref.WeakKeyDictionary()


def _listed(model: nn.Module) -> tuple[list[torch.Tensor], list[list[torch.Tensor]],
                                       list[torch.Tensor]]:
    parts = _PARTS.get(model)
    if parts is None:
        trunk = cast(nn.Module, model.trunk)
        heads = cast(nn.ModuleList, model.heads)
        parts = (list(trunk.parameters()), [list(h.parameters()) for h in heads],
                 list(model.buffers()))
        _PARTS[model] = parts
    return parts


def losses_after(model: MultiHeadNet, head_layers: list[tuple], cfg: Config,
                 replays: list[Replay]) -> torch.Tensor:
    """(K,) each head's loss of the step's batch with the parameters as they are now,
    the micro-batches weighted as the step's loss is; running statistics put back."""
    buffers = _listed(model)[2]
    kept = [b.clone() for b in buffers]
    # no graph: nothing to retain
    quiet = replace(cfg, retain_grad=False) if cfg.retain_grad else cfg
    try:
        with torch.no_grad():
            micro = []
            for r in replays:
                carried = None if r.h0 is None else Carried(r.h0)
                micro.append(forward(model, head_layers, quiet, r.x, r.targets, carried).losses)
            return torch.stack(step_losses(cfg, micro))
    finally:
        with torch.no_grad():
            for buffer, old in zip(buffers, kept):
                buffer.copy_(old)


def fill_record(record: StepRecord, names: list[str], values: list[float], lr: float | None,
                sum_norm: float) -> None:
    """The numbers of StepEffect.numbers (on the host) into the step's record; lr: plain
    SGD's (None under another optimizer, whose step length the gradient does not fix)."""
    K = len(names)
    step = math.sqrt(max(values[0], 0.0))
    record.trunk_step = step
    if lr is not None and sum_norm > 0:
        record.trunk_step_vs_sum = step / (lr * sum_norm)
    trunk, head, after = values[1:1 + K], values[1 + K:1 + 2 * K], values[1 + 2 * K:]
    record.loss_change = {n: a - record.losses[n] for n, a in zip(names, after)}
    record.loss_change_trunk = dict(zip(names, trunk))
    record.loss_change_head = dict(zip(names, head))


def model_parts(model: MultiHeadNet | nn.Module
                ) -> tuple[list[torch.Tensor], list[list[torch.Tensor]]]:
    """The trunk's parameters and each head's own (the built-in model and a model
    file's both have .trunk and .heads), as fresh lists of the model's own."""
    trunk, heads, _ = _listed(model)
    return list(trunk), [list(h) for h in heads]
