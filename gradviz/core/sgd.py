"""gradviz's "sgd": p -= lr * p.grad for every parameter that has a gradient, the update
torch.optim.SGD makes with its defaults (no momentum, dampening, weight decay or
nesterov), by the same kernel its foreach path calls, so the same numbers bit for bit
(tests/core/test_determinism.py checks it against torch.optim.SGD itself).

Why not torch.optim.SGD: on the models gradviz trains a step takes a third of a
millisecond, and the optimizer's per-call machinery around that one kernel (profiler
hooks, compiler guards, regrouping the tensors each call) cost a sixth of the app's
training speed, measured. Adam, whose update is not one line, stays torch.optim's.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import torch


class PlainSGD:
    """The part of torch.optim.SGD's interface the session uses: step(), zero_grad()
    and param_groups (whose "lr" a new config changes in place)."""

    def __init__(self, params: Iterable[torch.Tensor], lr: float):
        self.params = list(params)
        self.param_groups: list[dict[str, Any]] = [{"params": self.params, "lr": lr}]
        # parameters per device: one update call covers the tensors of one device (the
        # device-mismatch lesson puts a head on another)
        by_device: dict[torch.device, list[torch.Tensor]] = {}
        for p in self.params:
            by_device.setdefault(p.device, []).append(p)
        self._groups = list(by_device.values())

    @torch.no_grad()
    def step(self) -> None:
        lr = self.param_groups[0]["lr"]
        for params in self._groups:
            with_grad = [p for p in params if p.grad is not None]
            if with_grad:
                grads = [p.grad for p in with_grad if p.grad is not None]   # all of them
                torch._foreach_add_(with_grad, grads, alpha=-lr)

    def zero_grad(self, set_to_none: bool = True) -> None:
        for p in self.params:
            if set_to_none:
                p.grad = None
            elif p.grad is not None:
                p.grad.detach_()
                p.grad.zero_()
