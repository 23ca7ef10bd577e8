"""The floor of a watched loop's cost, for `gradviz bench --watch`: the least code that
records what gradviz.watch records on every step, written inline by hand, with watch's
two calls. Timed beside the watched loop, it says how much of watch's cost any recorder
of the same numbers pays and how much is gradviz's own.

Each step it reads the losses and every parameter's gradient norm back
(`torch._foreach_norm`, one `.item()` each on the CPU, one transfer elsewhere), adds the
total and the global norm, formats one JSON line and writes it with one `os.write`
before step() returns, as watch's default does (so a kill keeps every finished step).
It leaves out everything watch does beyond that: the sampled steps (push, cosines,
memory, the graph), the checks of what the loop hands it, the header, and a valid line
for a NaN (json has none).
"""
from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import cast

import torch
from torch import nn

_item = torch.Tensor.item


class HandWrittenRecorder:
    """watch's losses()/step() on the same loop, by the least code: see the module."""

    def __init__(self, model: nn.Module, loss_names: list[str], path: Path):
        named = list(model.named_parameters())
        self._params = [p for _, p in named]
        self._path = path
        self._fd = -1
        self._values: list[torch.Tensor] = []
        self.steps = 0

        def keyed(names: list[str]) -> str:
            return "{" + ", ".join(json.dumps(n).replace("%", "%%") + ": %r"
                                   for n in names) + "}"
        self._template = (f'{{"step": %d, "losses": {keyed(loss_names)}, "total": %r, '
                          f'"grad_norms": {keyed([n for n, _ in named])}, '
                          f'"global_grad_norm": %r}}\n')
        self._losses = len(loss_names)

    def __enter__(self) -> HandWrittenRecorder:
        self._path.parent.mkdir(parents=True, exist_ok=True)
        self._fd = os.open(self._path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND,
                           0o644)
        return self

    def __exit__(self, *exc_info) -> None:
        os.close(self._fd)

    def flush(self) -> None:
        """Nothing is kept: each line was written by its step()."""

    def losses(self, losses: dict[str, torch.Tensor], features=None) -> None:
        self._values = [loss.detach() for loss in losses.values()]

    def step(self) -> None:
        # every parameter of the bench's loops has a gradient after each backward
        norms = torch._foreach_norm(cast(list[torch.Tensor], [p.grad for p in self._params]))
        scalars = [*self._values, *norms]
        numbers = [*map(_item, scalars)] if scalars[0].is_cpu \
            else torch.stack(scalars).tolist()
        k = self._losses
        total = sum(numbers[:k])
        global_norm = math.sqrt(sum([n * n for n in numbers[k:]]))
        line = self._template % (self.steps, *numbers[:k], total, *numbers[k:], global_norm)
        os.write(self._fd, line.encode())
        self.steps += 1
