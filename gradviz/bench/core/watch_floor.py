"""The floor of a watched loop's cost, for `gradviz bench --watch`: the least code that
records the numbers gradviz.watch records, written inline by hand, with watch's two
calls. Timed beside the watched loop, it says how much of watch's cost any recorder of
the same numbers pays and how much is gradviz's own.

Each step it reads the losses and every parameter's gradient norm back
(`torch._foreach_norm`, one `.item()` each on the CPU, one transfer elsewhere), adds the
total and the global norm and the wall time, formats one JSON line and writes it with
one `os.write` before step() returns, as watch's default does (so a kill keeps every
finished step). Every `every`-th step (watch's sampled steps) it also takes, before the
backward, each loss's push at the features (one `torch.autograd.grad` per loss, the
graph kept for the user's backward) and their cosines, and the bytes the graph holds
for backward and its node count (gradviz's own read-only walk: no PyTorch API reads a
graph's saved bytes, so any recorder of them walks the nodes the same way), and writes
them in that step's line. It leaves out what watch does beyond the numbers: the graph's
drawing, the checks of what the loop hands it, its faults and the folder's header, and a
valid line for a NaN (json has none).
"""
from __future__ import annotations

import json
import math
import os
import time
from pathlib import Path
from typing import cast

import torch
from torch import nn

from ...core.autograd_walk import held_saved_memory, reachable_nodes, storage_key

_item = torch.Tensor.item


class HandWrittenRecorder:
    """watch's losses()/step() on the same loop, by the least code: see the module."""

    def __init__(self, model: nn.Module, loss_names: list[str], path: Path, every: int):
        named = list(model.named_parameters())
        self._params = [p for _, p in named]
        self._param_storages = {storage_key(p) for p in self._params}
        self._path = path
        self._every = every
        self._fd = -1
        self._values: list[torch.Tensor] = []
        self._gram: torch.Tensor | None = None
        self._memory = (0, 0, 0)
        self.steps = 0

        def keyed(names: list[str]) -> str:
            return "{" + ", ".join(json.dumps(n).replace("%", "%%") + ": %r"
                                   for n in names) + "}"
        self._template = (f'{{"step": %d, "losses": {keyed(loss_names)}, "total": %r, '
                          f'"grad_norms": {keyed([n for n, _ in named])}, '
                          f'"global_grad_norm": %r%s, "wall_time": %r}}\n')
        self._sampled = (f', "junction_grad_norms": {keyed(loss_names)}, "cosine": %s, '
                         '"saved_bytes": %d, "saved_tensor_bytes": %d, "graph_nodes": %d')
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
        if self.steps % self._every == 0 and features is not None:
            # the bench's losses all reach the features, which require grad
            rows = [torch.autograd.grad(loss, features, retain_graph=True)[0].reshape(-1)
                    for loss in losses.values()]
            matrix = torch.stack(rows).double()
            self._gram = matrix @ matrix.T
            nodes = reachable_nodes([loss.grad_fn for loss in losses.values()])
            self._memory = (*held_saved_memory(nodes, self._param_storages), len(nodes))

    def step(self) -> None:
        # every parameter of the bench's loops has a gradient after each backward
        norms = torch._foreach_norm(cast(list[torch.Tensor], [p.grad for p in self._params]))
        scalars = [*self._values, *norms]
        numbers = [*map(_item, scalars)] if scalars[0].is_cpu \
            else torch.stack(scalars).tolist()
        k = self._losses
        total = sum(numbers[:k])
        global_norm = math.sqrt(sum([n * n for n in numbers[k:]]))
        sampled = ""
        if self._gram is not None:
            gram = self._gram.tolist()
            push = [math.sqrt(max(gram[i][i], 0.0)) for i in range(k)]
            cosine = [[gram[i][j] / (push[i] * push[j]) for j in range(k)] for i in range(k)]
            sampled = self._sampled % (*push, json.dumps(cosine), *self._memory)
            self._gram = None
        line = self._template % (self.steps, *numbers[:k], total, *numbers[k:], global_norm,
                                 sampled, time.time())
        os.write(self._fd, line.encode())
        self.steps += 1
