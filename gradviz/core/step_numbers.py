"""A step's numbers, gathered on the device and brought to the host in one transfer:
each head's loss (the mean over micro-batches, weighted by size where sizes are given),
the gradient norms, z.grad's norm under retain_grad, each head's junction gradient norm
and their cosines, and each head's cosine with the trunk update (core.update_probe)."""
from __future__ import annotations

import math
from collections.abc import Sequence

import torch

from ..plain.config import Config
from ..plain.records import StepRecord
from .probes import JunctionProbe, grad_norms, norms_and_cosines
from .tap_probe import TapProbe
from .update_probe import UpdateCosineProbe, update_cosines


def measure_step(cfg: Config, record: StepRecord, micro_losses: list[list[torch.Tensor]],
                 junction: JunctionProbe | TapProbe | None, norms: bool,
                 z_tensors: list[torch.Tensor], params: Sequence[torch.Tensor],
                 param_names: list[str], device: torch.device,
                 update: UpdateCosineProbe | None = None) -> None:
    """Everything numeric about this step, gathered in one device-to-host transfer."""
    if len(micro_losses) == 1:
        scalars = list(micro_losses[0])
    elif cfg.micro_batch_sizes:   # sizes given: each micro-batch's mean weighs by its size,
        # so the step's loss is the batch's mean however unequal the parts
        shares = torch.tensor([n / cfg.batch_size for n in cfg.micro_batch_sizes],
                              device=micro_losses[0][0].device)
        stacked = torch.stack([torch.stack(m) for m in micro_losses])
        scalars = list((stacked * shares[:, None]).sum(0))
    else:  # a step's loss is the mean over its micro-batches
        scalars = list(torch.stack([torch.stack(m) for m in micro_losses]).mean(0))
    if norms:
        scalars += grad_norms(params)
    # retain_grad: z.grad of every micro-batch (None where z left the graph)
    z_grads = [z.grad.reshape(-1) for z in z_tensors if z.grad is not None]
    if z_grads:
        scalars.append(torch.cat(z_grads).norm())
    values = torch.stack(scalars)
    g = junction.gram(device) if junction is not None else None
    if g is not None:
        values = torch.cat([values, g])
    u = update.numbers() if update is not None else None
    if u is not None:
        values = torch.cat([values, u.to(values.device)])
    numbers: list[float] = values.tolist()
    names, K = cfg.head_names(), cfg.heads
    record.losses = dict(zip(names, numbers[:K]))
    record.total = sum(w * v for w, v in zip(cfg.weights(), numbers[:K]))
    pos = K
    if norms:
        param_norms = numbers[pos:pos + len(params)]
        pos += len(params)
        record.grad_norms = dict(zip(param_names, param_norms))
        record.global_grad_norm = math.sqrt(sum(n * n for n in param_norms))
    if z_grads:
        record.z_grad_norm = numbers[pos]
        pos += 1
    if g is not None and junction is not None:
        junction_norms, record.cosine = norms_and_cosines(numbers[pos:pos + K * K], K)
        for i, j in junction.unrelated:   # heads at different taps: no common direction
            record.cosine[i][j] = math.nan
        record.junction_grad_norms = dict(zip(names, junction_norms))
        pos += K * K
    if u is not None:
        record.update_cosine = dict(zip(names, update_cosines(numbers[pos:], K)))

