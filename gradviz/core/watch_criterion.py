"""Losses taken where the loop computes them: `gradviz.watch(..., criterion=criterion,
loss_names=["D_real", "D_fake", "G"])` hooks the loss module the loop already calls
(pytorch/examples' `criterion = nn.BCELoss()`), so the loop needs no watch.losses()
line. The k-th call of a step (counted from the last watch.step()) is the k-th name;
`criterion={"depth": l1, "seg": ce}` names one module per loss instead. A call made
without grad (an evaluation) is no loss of the step.

The hook is a forward hook that returns nothing: the loss the loop gets is the module's
own output, so what the loop computes is unchanged (bit-equal).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import torch
from torch import nn
from torch.utils.hooks import RemovableHandle

Take = Callable[[str, torch.Tensor], None]


def criterion_problem(criterion: object, loss_names: object) -> str | None:
    """What is wrong with watch's criterion= and loss_names=, in a sentence, or None."""
    if criterion is None:
        return None if loss_names is None else \
            "watch's loss_names= names the calls of criterion=, which was not given"
    if isinstance(criterion, Mapping):
        if loss_names is not None:
            return ("watch's criterion= is a dict of names to loss modules: it names "
                    "its losses itself, so loss_names= is not taken beside it")
        bad = next((k for k, v in criterion.items()
                    if not isinstance(k, str) or not isinstance(v, nn.Module)), None)
        if bad is not None or not criterion:
            return ("watch's criterion= dict must map loss names (strings) to loss "
                    "modules (e.g. {'depth': nn.L1Loss()})")
        return None
    if not isinstance(criterion, nn.Module):
        return (f"watch's criterion= must be the loss module the loop calls (e.g. "
                f"nn.BCELoss()), or a dict of names to them, not {type(criterion).__name__}")
    if loss_names is not None and (
            isinstance(loss_names, str) or not isinstance(loss_names, Sequence)
            or not loss_names or not all(isinstance(n, str) for n in loss_names)
            or len(set(loss_names)) != len(loss_names)):
        return ("watch's loss_names= must be a list of different strings, one per call "
                f"of the criterion in a step, not {loss_names!r}")
    return None


class CriterionHooks:
    """Forward hooks on the loop's loss modules, handing each call's output, named, to
    take (the watch's losses())."""

    def __init__(self, criterion: nn.Module | Mapping[str, nn.Module],
                 loss_names: Sequence[str] | None, take: Take,
                 say: Callable[[str, str], None]):
        self._take, self._say = take, say
        self._names = list(loss_names) if loss_names is not None else None
        self.calls = 0   # the shared module's calls since the last step
        self._handles: list[RemovableHandle] = []
        if isinstance(criterion, Mapping):
            for name, module in criterion.items():
                self._handles.append(module.register_forward_hook(self._named(name)))
        else:
            self._handles.append(criterion.register_forward_hook(self._counted))

    def _named(self, name: str):
        def hook(module, args, output):   # returns None: the output is the module's
            if torch.is_grad_enabled() and isinstance(output, torch.Tensor):
                self._take(name, output)
        return hook

    def _counted(self, module, args, output) -> None:
        if not torch.is_grad_enabled() or not isinstance(output, torch.Tensor):
            return
        k, self.calls = self.calls, self.calls + 1
        if self._names is None:
            self._take("loss" if k == 0 else f"loss {k + 1}", output)
        elif k < len(self._names):
            self._take(self._names[k], output)
        else:
            self._say("criterion-calls", f"the criterion was called {k + 1} times in a "
                      f"step, more than loss_names= names ({len(self._names)}); those "
                      "calls are not recorded: name every call in loss_names=")

    def stepped(self) -> None:
        """A step ended: the next call is the step's first."""
        self.calls = 0

    def remove(self) -> None:
        for handle in self._handles:
            handle.remove()
        self._handles.clear()
