"""A watched step's numbers, once on the host, as the StepRecord the stream writes."""
from __future__ import annotations

import math

from ..plain.records.records import StepRecord
from .watch_probe import gram_numbers


def step_record(step: int, names: list[str], param_names: list[str], losses: list[float],
                total: float, norms: list[float], grads: list, complete: bool,
                gram: list[float], measured: list[list[bool]]) -> StepRecord:
    """The step's record from its numbers on the host: each loss (NaN where the step
    named it in no call), the total, each present gradient's norm, and the Gram matrix's
    k*k numbers where sampled (measured: which entries were). complete: every parameter
    has a .grad (the usual step)."""
    if complete:
        named: dict[str, float | None] = dict(zip(param_names, norms))
    else:
        present = iter(norms)
        named = {name: None if g is None else next(present)
                 for name, g in zip(param_names, grads)}
    record = StepRecord(step=step, losses=dict(zip(names, losses)), total=total,
                        grad_norms=named, global_grad_norm=global_norm(norms))
    if gram:
        k = len(names)
        push, cosine = gram_numbers(gram, k)
        record.cosine = [[c if measured[i][j] else math.nan for j, c in enumerate(row)]
                         for i, row in enumerate(cosine)]
        record.junction_grad_norms = {n: p if measured[i][i] else math.nan
                                      for i, (n, p) in enumerate(zip(names, push))}
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
