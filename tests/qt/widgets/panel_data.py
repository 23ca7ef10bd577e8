"""Made-up runs with known numbers: the ground truth the panel tests compare against."""
from __future__ import annotations

import numpy as np

from gradviz.plain.records.history import History
from gradviz.plain.records.records import StepRecord


def head_names(heads: int) -> list[str]:
    return [f"head{k}" for k in range(heads)]


def param_names(heads: int) -> list[str]:
    names = ["trunk.0.weight", "trunk.0.bias", "trunk.2.weight", "trunk.2.bias"]
    return names + [f"heads.{k}.{i}.{p}" for k in range(heads) for i in (0, 2)
                    for p in ("weight", "bias")]


def make_records(heads: int = 3, steps: int = 60, sample_every: int = 5, seed: int = 0,
                 cosine=None, first_step: int = 0) -> list[StepRecord]:
    """Records whose every number is drawn here: the ground truth the panels must show
    (drawn all at once: a 50,000-step run took a second drawn step by step)."""
    rng = np.random.default_rng(seed)
    names, params = head_names(heads), param_names(heads)
    losses = rng.uniform(0.05, 2.0, (steps, heads))
    totals = losses.sum(axis=1).tolist()
    norms = rng.uniform(0.01, 1.0, (steps, len(params))).tolist()
    cos = (np.broadcast_to(np.asarray(cosine, dtype=float), (steps, heads, heads))
           if cosine is not None else rng.uniform(-1, 1, (steps, heads, heads))).tolist()
    global_norms = rng.uniform(0.1, 3.0, steps).tolist()
    junction = rng.uniform(0.01, 0.1, (steps, heads)).tolist()
    saved = rng.integers(0, 50_000, steps).tolist()
    peaks = rng.integers(50_000, 90_000, steps).tolist()
    nodes = rng.integers(0, 100, steps).tolist()
    out = []
    for i, (t, row) in enumerate(zip(range(first_step, first_step + steps), losses.tolist())):
        sampled = t % sample_every == 0
        out.append(StepRecord(
            step=t, losses=dict(zip(names, row)), total=totals[i],
            grad_norms=dict(zip(params, norms[i])), global_grad_norm=global_norms[i],
            junction_grad_norms=dict(zip(names, junction[i])) if sampled else None,
            cosine=cos[i] if sampled else None,
            saved_bytes=saved[i] if sampled else None,
            saved_bytes_peak=peaks[i] if sampled else None,
            # the built-in model's batches are gathered copies: no saved view of a
            # bigger tensor, so the saved tensors' own bytes are the storages'
            saved_tensor_bytes_peak=peaks[i] if sampled else None,
            graph_nodes=nodes[i] if sampled else None))
    return out


def make_history(records: list[StepRecord], heads: int | None = None) -> History:
    heads = heads or len(records[0].losses)
    h = History(head_names(heads), param_names(heads))
    h.extend(records)
    return h
