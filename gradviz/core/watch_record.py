"""A watched step's numbers, once on the host, as the StepRecord the stream writes."""
from __future__ import annotations

import math

from ..plain.records import StepRecord
from .watch_probe import gram_numbers


def step_record(step: int, names: list[str], param_names: list[str], calls: int,
                numbers: list[float], grads: list, complete: bool) -> StepRecord:
    """numbers: each call's losses (calls * k, call by call), each present gradient's
    norm, then the Gram matrix's k*k numbers where sampled. complete: every parameter
    has a .grad (the usual step)."""
    k = len(names)
    values = numbers[:k * calls]
    # the step's loss: the mean over its losses() calls (one call: the value itself)
    losses = dict(zip(names, values if calls == 1 else
                      [sum(values[i::k]) / calls for i in range(k)]))
    rest = numbers[k * calls:]
    if complete:
        measured, gram = rest[:len(grads)], rest[len(grads):]
        norms: dict[str, float | None] = dict(zip(param_names, measured))
    else:
        present = iter(rest)
        norms = {name: None if g is None else next(present)
                 for name, g in zip(param_names, grads)}
        measured, gram = [n for n in norms.values() if n is not None], list(present)
    record = StepRecord(step=step, losses=losses, total=sum(losses.values()),
                        grad_norms=norms, global_grad_norm=global_norm(measured))
    if gram:
        push, record.cosine = gram_numbers(gram, k)
        record.junction_grad_norms = dict(zip(names, push))
    return record


def global_norm(norms: list[float]) -> float | None:
    """The norm of all gradients together, from each one's (as clip_grad_norm_'s)."""
    return math.sqrt(sum([n * n for n in norms])) if norms else None


def unscaled(record: StepRecord, scale: float, skipped: bool) -> StepRecord:
    """The record of gradients a GradScaler scaled by scale, as they are unscaled: the
    norms divided by it (exact for its powers of two), the scale and the skip noted."""
    if record.grad_norms is not None:
        record.grad_norms = {k: None if v is None else v / scale
                             for k, v in record.grad_norms.items()}
        record.global_grad_norm = global_norm(
            [v for v in record.grad_norms.values() if v is not None])
    if record.grad_fingerprint is not None:   # projections: linear in the gradient
        record.grad_fingerprint = {k: None if v is None else [x / scale for x in v]
                                   for k, v in record.grad_fingerprint.items()}
    record.amp_scale, record.amp_skipped = scale, skipped
    return record
