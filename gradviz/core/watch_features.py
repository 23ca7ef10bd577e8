"""The features a watch measures the push at, named by module: `features="encoder"` (a
submodule's name, the module itself, or a list or dict of them for deep supervision).
Each named module's output is kept by a forward hook as the model runs, so the model
needs no edit; the hook returns nothing, so the output and everything computed from it
are the model's own (bit-equal). A kept output is handed to the next losses() call and
let go then, so no graph is held longer than the step holds it.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import torch
from torch import nn
from torch.utils.hooks import RemovableHandle

Named = str | nn.Module


class FeatureHooks:
    def __init__(self, model: nn.Module):
        self.model = model
        self._handles: dict[int, RemovableHandle] = {}
        self._names: dict[int, str] = {}
        self._outputs: dict[int, object] = {}   # module id -> its latest output

    def watch(self, named: Named | Sequence[Named] | Mapping[str, Named]
              ) -> dict[str, nn.Module]:
        """The modules named (hooked from now on), by a label. ValueError (a sentence)
        where a name is not a submodule of the model."""
        if isinstance(named, (str, nn.Module)):
            items: list[tuple[str | None, Named]] = [(None, named)]
        elif isinstance(named, Mapping):
            items = list(named.items())
        else:
            items = [(None, n) for n in named]
        modules = {}
        for label, item in items:
            module = self._module(item)
            name = self._name(module, item)
            modules[label or name] = module
            if id(module) not in self._handles:
                self._names[id(module)] = name
                self._handles[id(module)] = module.register_forward_hook(
                    self._keeper(id(module)))
        return modules

    def _module(self, item: Named) -> nn.Module:
        if isinstance(item, nn.Module):
            return item
        if not isinstance(item, str):
            raise ValueError(f"features must name a submodule (a string or a module), "
                             f"not {type(item).__name__}")
        try:
            return self.model.get_submodule(item)
        except AttributeError:
            raise ValueError(f"the model has no submodule {item!r} (features= names one "
                             "of model.named_modules())") from None

    def _name(self, module: nn.Module, item: Named) -> str:
        if isinstance(item, str):
            return item
        return next((n for n, m in self.model.named_modules() if m is module),
                    type(module).__name__)

    def _keeper(self, key: int):
        outputs = self._outputs

        def keep(module, args, output):   # a forward hook: returns None, changes nothing
            if torch.is_grad_enabled():   # (an evaluation's output pushes nothing)
                outputs[key] = output
            else:
                outputs.pop(key, None)
        return keep

    def take(self, modules: dict[str, nn.Module]) -> dict[str, torch.Tensor] | None:
        """The modules' latest outputs (tensors that carry a gradient), let go of; None
        where a module has not run since the last take."""
        found: dict[str, torch.Tensor] = {}
        for label, module in modules.items():
            output = self._outputs.pop(id(module), None)
            for i, tensor in enumerate(_tensors(output)):
                found[label if i == 0 else f"{label}[{i}]"] = tensor
        return found or None

    def remove(self) -> None:
        for handle in self._handles.values():
            handle.remove()
        self._handles.clear()
        self._outputs.clear()


def _tensors(output: object) -> list[torch.Tensor]:
    """A module's output as tensors: itself, or the tensors of a tuple, list or dict."""
    if isinstance(output, torch.Tensor):
        return [output]
    if isinstance(output, (tuple, list)):
        return [t for t in output if isinstance(t, torch.Tensor)]
    if isinstance(output, dict):
        return [t for t in output.values() if isinstance(t, torch.Tensor)]
    return []
