"""gradviz.watch's arguments, checked: a wrong one is a sentence the watch says (and
records nothing) instead of an exception in the user's training."""
from __future__ import annotations

import torch
from torch import nn


def optimizers(optimizer: object) -> list:
    if optimizer is None:
        return []
    return list(optimizer) if isinstance(optimizer, (list, tuple)) else [optimizer]


def argument_problem(model: object, every: object, write_every: object,
                      scaler: object, optimizer: object) -> str | None:
    if not isinstance(model, nn.Module):
        return f"watch's model must be a torch.nn.Module, not {type(model).__name__}"
    if isinstance(every, bool) or not isinstance(every, int) or every < 1:
        return f"watch's every must be a whole number >= 1, not {every!r}"
    if isinstance(write_every, bool) or not isinstance(write_every, (int, float)) \
            or not 0 <= write_every <= 60:
        return f"watch's write_every must be seconds from 0 to 60, not {write_every!r}"
    if scaler is not None and not isinstance(scaler, torch.amp.GradScaler):
        return f"watch's scaler must be a torch.amp.GradScaler, not {type(scaler).__name__}"
    bad = next((o for o in optimizers(optimizer)
                if not isinstance(o, torch.optim.Optimizer)), None)
    if bad is not None:
        return (f"watch's optimizer must be a torch.optim.Optimizer (or a list of them), "
                f"not {type(bad).__name__}")
    return None
