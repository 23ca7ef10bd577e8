"""Made-up runs with known numbers: the ground truth the panel tests compare against."""
from __future__ import annotations

import numpy as np

from gradviz.plain.history import History
from gradviz.plain.records import StepRecord


def head_names(heads: int) -> list[str]:
    return [f"head{k}" for k in range(heads)]


def param_names(heads: int) -> list[str]:
    names = ["trunk.0.weight", "trunk.0.bias", "trunk.2.weight", "trunk.2.bias"]
    return names + [f"heads.{k}.{i}.{p}" for k in range(heads) for i in (0, 2)
                    for p in ("weight", "bias")]


def make_records(heads: int = 3, steps: int = 60, sample_every: int = 5, seed: int = 0,
                 cosine=None, first_step: int = 0) -> list[StepRecord]:
    """Records whose every number is drawn here: the ground truth the panels must show."""
    rng = np.random.default_rng(seed)
    names, params = head_names(heads), param_names(heads)
    out = []
    for t in range(first_step, first_step + steps):
        losses = rng.uniform(0.05, 2.0, heads)
        sampled = t % sample_every == 0
        norms = dict(zip(params, rng.uniform(0.01, 1.0, len(params)).tolist()))
        cos = cosine if cosine is not None else rng.uniform(-1, 1, (heads, heads))
        out.append(StepRecord(
            step=t, losses=dict(zip(names, losses.tolist())), total=float(losses.sum()),
            grad_norms=norms, global_grad_norm=float(rng.uniform(0.1, 3.0)),
            junction_grad_norms=(dict(zip(names, rng.uniform(0.01, 0.1, heads).tolist()))
                                 if sampled else None),
            cosine=np.asarray(cos).tolist() if sampled else None,
            saved_bytes=int(rng.integers(0, 50_000)) if sampled else None,
            saved_bytes_peak=int(rng.integers(50_000, 90_000)) if sampled else None,
            graph_nodes=int(rng.integers(0, 100)) if sampled else None))
    return out


def make_history(records: list[StepRecord], heads: int | None = None) -> History:
    heads = heads or len(records[0].losses)
    h = History(head_names(heads), param_names(heads))
    h.extend(records)
    return h
