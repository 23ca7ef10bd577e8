"""What a losses() call may be: a dict of string names to scalar loss tensors, with
optional weights (floats or 0-dim tensors, by name) and a batch size. The run's losses
are the names its first step used, in the order first seen; a later call may name any of
them, in any order and any subset, and a name first seen after the first step is refused
(a step's line has the run's columns). A wrong call is one sentence (kind, words); the
watch says it and leaves the call out."""
from __future__ import annotations

import torch

from .watch_step import Weight

Problem = tuple[str, str]


class LossNames:
    def __init__(self):
        self.names: list[str] = []
        self.key: tuple = ()             # the names as a tuple: the usual call's keys
        self._index: dict[str, int] = {}
        self.fixed = False               # after the first step: no name may be added

    def index(self, losses: object) -> list[int] | Problem:
        """Each loss's index in the run (a new name added while the first step runs),
        or the problem."""
        if not isinstance(losses, dict) or not losses:
            return ("type", "watch.losses() takes a dict of names to scalar loss tensors, "
                    "e.g. {'depth': depth_loss, 'seg': seg_loss}")
        bad = next((k for k in losses if not isinstance(k, str)), None)
        if bad is not None:
            return ("name", f"watch.losses() got the loss name {bad!r} "
                    f"({type(bad).__name__}): names must be strings")
        new = [name for name in losses if name not in self._index]
        if new and self.fixed:
            return ("names", f"watch.losses() got {new[0]!r}, a loss the run's first step "
                    f"did not name (its losses: {self.names}); name every loss in the "
                    "first step")
        for name in new:
            self._index[name] = len(self.names)
            self.names.append(name)
        self.key = tuple(self.names)
        return [self._index[name] for name in losses]


def scalar_values(losses: dict) -> list[torch.Tensor] | Problem:
    """Each loss as a detached 0-dim view (no copy, no graph), or the problem."""
    values = []
    for name, loss in losses.items():
        if not isinstance(loss, torch.Tensor) or loss.numel() != 1:
            what = f"a tensor of shape {tuple(loss.shape)}" if isinstance(
                loss, torch.Tensor) else type(loss).__name__
            return ("scalar", f"watch.losses() got {what} for {name!r}: each loss must be "
                    "a scalar tensor (e.g. loss.mean())")
        value = loss.detach()
        values.append(value.reshape(()) if value.dim() else value)
    return values


def call_weights(losses: dict, weights: object) -> list[Weight] | None | Problem:
    """Each loss's weight in the call's order (1.0 where the dict names none), None
    where no weights were given, or the problem."""
    if weights is None:
        return None
    if not isinstance(weights, dict):
        return ("weights", "watch.losses(weights=...) takes a dict of loss names to "
                f"floats or 0-dim tensors, not {type(weights).__name__}")
    unknown = [k for k in weights if k not in losses]
    if unknown:
        return ("weights", f"watch.losses(weights=...) names {unknown[0]!r}, which is not "
                "one of this call's losses")
    found: list[Weight] = []
    for name in losses:
        w = weights.get(name, 1.0)
        if isinstance(w, torch.Tensor) and w.numel() == 1:
            found.append(w.detach().reshape(()))
        elif isinstance(w, (int, float)) and not isinstance(w, bool):
            found.append(float(w))
        else:
            return ("weights", f"watch.losses(weights=...) got {type(w).__name__} for "
                    f"{name!r}: a weight is a float or a 0-dim tensor")
    return found


def batch_size_problem(size: object) -> Problem | None:
    if size is None or (type(size) is int and size > 0):
        return None
    return ("batch-size", f"watch.losses(batch_size=...) must be a whole number above 0, "
            f"not {size!r}")


def step_without_losses(last_call: str, steps: int) -> Problem | None:
    """What a step() with no losses() since the last one is: a second step() in a step,
    or a step() before any losses() (a step that named no loss says nothing)."""
    if last_call == "step":
        return ("step-twice", f"watch.step() was called again after step {steps - 1} "
                "without watch.losses() since the last one: call watch.step() once per "
                "optimizer step, after its losses() and backward; this step is not "
                "recorded")
    if last_call != "losses":
        return ("step-first", "watch.step() came before any watch.losses(): call "
                "watch.losses({...}) before backward in each step; this step is not "
                "recorded")
    return None


def unstepped_at_end(calls: int, steps: int, recorded: bool) -> Problem | None:
    """What a watch closed as finished says of steps never stepped: losses() calls after
    the last step() (calls of them), or a recorded run with no step at all."""
    if calls:
        return ("no-step", f"watch.losses() was called {calls} time(s) after the last "
                "watch.step(): those losses are not recorded; call watch.step() after "
                "backward in each step")
    if not steps and recorded:
        return ("no-step", "no step was recorded: call watch.losses({...}) before "
                "backward and watch.step() after it in each step")
    return None
