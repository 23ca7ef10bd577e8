"""A step's numbers, gathered on the device and brought to the host in one transfer:
each head's loss (its micro-batches' losses weighted by their sizes: the batch's loss),
the gradient norms, z.grad's norm under retain_grad, each head's junction gradient norm
and their cosines, and each head's cosine with the trunk update (core.update_probe)."""
from __future__ import annotations

import math
from collections.abc import Sequence

import torch

from ..plain.config.config import Config
from ..plain.records.records import StepRecord
from .probes import JunctionProbe, norms_and_cosines
from .tap_probe import TapProbe
from .update_probe import UpdateCosineProbe, update_cosines


def step_losses(cfg: Config, micro_losses: list[list[torch.Tensor]]) -> list[torch.Tensor]:
    """Each head's loss of the step, from its micro-batches' (0-dim device tensors)."""
    if len(micro_losses) == 1:
        return list(micro_losses[0])
    stacked = torch.stack([torch.stack(m) for m in micro_losses])
    if cfg.micro_batch_sizes:   # sizes given: each micro-batch's mean weighs by its size,
        # so the step's loss is the batch's mean however unequal the parts
        shares = torch.tensor(micro_shares(cfg, len(micro_losses)), device=stacked.device)
        return list((stacked * shares[:, None]).sum(0))
    return list(stacked.mean(0))   # equal parts: the mean weighs each by its size


def micro_shares(cfg: Config, count: int) -> list[float]:
    """Each micro-batch's weight in the step's loss: n_i / B where sizes are given, else
    1 / N (one micro-batch: 1)."""
    if count > 1 and cfg.micro_batch_sizes:
        return [n / cfg.batch_size for n in cfg.micro_batch_sizes]
    return [1.0 / count] * count


def measure_step(cfg: Config, record: StepRecord, micro_losses: list[list[torch.Tensor]],
                 junction: JunctionProbe | TapProbe | None, norms: bool,
                 z_tensors: list[torch.Tensor], params: Sequence[torch.Tensor],
                 param_names: list[str], device: torch.device,
                 update: UpdateCosineProbe | None = None,
                 head_names: list[str] | None = None,
                 weights: Sequence[float] | None = None) -> None:
    """Everything numeric about this step, gathered in one device-to-host transfer on
    an accelerator, read one by one on the CPU (head_names, weights: the config's,
    where the caller has them already)."""
    scalars = step_losses(cfg, micro_losses)
    if norms:
        # each .grad read once (a Python tensor object each time it is read)
        grads = [p.grad for p in params]
        present = [g for g in grads if g is not None]
        missing = [] if len(present) == len(grads) else \
            [i for i, g in enumerate(grads) if g is None]
        if present:
            scalars += torch._foreach_norm(present)   # one fused call (probes.grad_norms)
    # retain_grad: z.grad of every micro-batch (None where z left the graph)
    z_grads = [z.grad.reshape(-1) for z in z_tensors if z.grad is not None]
    if z_grads:
        scalars.append(torch.cat(z_grads).norm())
    g = junction.gram(device) if junction is not None else None
    u = update.numbers() if update is not None else None
    numbers: list[float]
    if g is None and u is None and device.type == "cpu":
        # on the CPU there is no transfer to save: each number read alone, the same
        # floats, in half the time of a stack and .tolist() (~40 thousand instructions
        # of a step's ~3.4 million, counted by callgrind)
        numbers = [s.item() for s in scalars]
    else:
        values = torch.stack(scalars)
        if g is not None:
            values = torch.cat([values, g])
        if u is not None:
            values = torch.cat([values, u.to(values.device)])
        numbers = values.tolist()
    names = head_names if head_names is not None else cfg.head_names()
    weights = weights if weights is not None else cfg.weights()
    K = cfg.heads
    record.losses = dict(zip(names, numbers[:K]))
    record.total = sum(w * v for w, v in zip(weights, numbers[:K]))
    pos = K
    if norms:
        count = len(present)
        present_norms = numbers[pos:pos + count]
        param_norms = _with_none(present_norms, missing)
        pos += count
        record.grad_norms = dict(zip(param_names, param_norms))
        # over the gradients there are (a missing one adds nothing, as in
        # clip_grad_norm_); None where no parameter has one
        record.global_grad_norm = None if not count else \
            math.sqrt(sum([n * n for n in present_norms]))
    if z_grads:
        record.z_grad_norm = numbers[pos]
        pos += 1
    if g is not None and junction is not None:
        junction_norms, record.cosine = norms_and_cosines(numbers[pos:pos + K * K], K)
        for i, j in junction.unrelated:   # heads at different taps: no common direction
            record.cosine[i][j] = math.nan
        record.junction_grad_norms = dict(zip(names, junction_norms))
        pos += K * K
    if u is not None and update is not None:
        record.update_cosine = dict(zip(names, update_cosines(numbers[pos:], K)))
        # None where no trunk parameter has a .grad (every head detached): no gradient
        if any(p.grad is not None for p in update.trunk):
            record.trunk_grad_norm = math.sqrt(max(numbers[pos + 2 * K], 0.0))
        update.sum_norm = math.sqrt(max(numbers[pos + 2 * K + 1], 0.0))   # NaN: not known


def _with_none(norms: list[float], missing: list[int]) -> list[float | None]:
    """The present parameters' norms, with None put in at the missing places."""
    if not missing:
        return list(norms)
    values: list[float | None] = list(norms)
    for i in missing:   # ascending: each insert lands at its final place
        values.insert(i, None)
    return values
