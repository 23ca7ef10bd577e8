"""Where a watched process stands under torch.distributed, and the model behind a
DistributedDataParallel (or DataParallel) wrapper, whose parameter names are the user's."""
from __future__ import annotations

from pathlib import Path

import torch
from torch import nn


def rank_and_world() -> tuple[int | None, int]:
    """(rank, world size) inside an initialised process group; (None, 1) outside one."""
    dist = torch.distributed
    if dist.is_available() and dist.is_initialized():
        return dist.get_rank(), dist.get_world_size()
    return None, 1


def stream_folder(out: Path, rank: int | None) -> Path:
    """Each rank writes its own stream, out/rank-N; a single process writes into out."""
    return out if rank is None else out / f"rank-{rank}"


def unwrapped(model: nn.Module) -> nn.Module:
    """The module a DDP or DataParallel wrapper holds (its names lack "module.")."""
    wrappers = (nn.parallel.DistributedDataParallel, nn.DataParallel)
    while isinstance(model, wrappers):
        model = model.module
    return model
