"""Which module call made which autograd nodes: each call's output node and its inputs'
nodes, recorded as the forward pass runs them, so the module view groups ops exactly."""
from __future__ import annotations

import weakref
from dataclasses import dataclass

import torch
from torch import nn

from ..plain.graph_data import ModuleCall

# model -> {id(module): its name}; named_modules() walked once per model, not per step
_PATHS: weakref.WeakKeyDictionary[nn.Module, dict[int, str]] = weakref.WeakKeyDictionary()


@dataclass
class CallRecord:
    call: ModuleCall
    output_fn: object               # the autograd node that made the call's output
    input_fns: tuple                # its inputs' nodes: what the call did not make


def module_paths(model: nn.Module) -> dict[int, str]:
    paths = _PATHS.get(model)
    if paths is None:
        paths = {id(m): name for name, m in model.named_modules()}
        _PATHS[model] = paths
    return paths


def describe(module: nn.Module) -> str:
    """A module's kind and sizes as a room reads them: "Linear 8→32", "Tanh"."""
    kind = type(module).__name__
    if isinstance(module, nn.Linear):
        return f"{kind} {module.in_features}→{module.out_features}"
    return kind


class ModuleCalls:
    """The module calls of one forward pass, in the order they ran."""

    def __init__(self, model: nn.Module):
        self.paths = module_paths(model)
        self.records: list[CallRecord] = []

    def run(self, module: nn.Module, x: torch.Tensor, step: int | None = None) -> torch.Tensor:
        out = module(x)
        self.add(module, (x,), out, step)
        return out

    def add(self, module: nn.Module, inputs: tuple, out: torch.Tensor,
            step: int | None = None, kind: str = "", detail: str = "") -> None:
        """Record a call already made; kind and detail name a call that is no module's
        own forward (the rnn cell's tanh(ih + hh), which runs in the trunk's method)."""
        path = self.paths.get(id(module), type(module).__name__)
        call = ModuleCall(path if step is None else f"{path}@{step}", path,
                          kind or type(module).__name__, detail or describe(module),
                          tuple(int(s) for s in out.shape), step)
        self.records.append(CallRecord(call, out.grad_fn,
                                       tuple(t.grad_fn for t in inputs if t.grad_fn is not None)))
