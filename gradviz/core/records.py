"""Plain records of what a session did: per phase and per optimizer step (no tensors)."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from .events import Event


def _finite_or_none(value: Any) -> Any:
    """JSON has no NaN or infinity: write them as null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite_or_none(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite_or_none(v) for v in value]
    return value


@dataclass(frozen=True)
class BackwardRecord:
    micro_batch: int
    loss: str
    retain_graph: bool


@dataclass(frozen=True)
class PhaseRecord:
    """One unit of single-stepping: what was just done."""
    step: int
    name: str                  # "zero_grad", "forward", "backward", "optimizer step"
    detail: str                # e.g. "backward 2 of 3: head1 (retain_graph=True)"
    micro_batch: int = 0
    step_done: bool = False    # this phase completed the optimizer step
    event: Event | None = None  # set when this phase raised or diverged


@dataclass
class StepRecord:
    step: int
    losses: dict[str, float]
    total: float
    grad_norms: dict[str, float] | None = None
    global_grad_norm: float | None = None
    junction_grad_norms: dict[str, float] | None = None
    cosine: list[list[float]] | None = None
    saved_bytes: int | None = None
    saved_bytes_peak: int | None = None
    graph_nodes: int | None = None
    z_grad_norm: float | None = None   # retain_grad: the norm of z.grad after the backward
    backward_calls: list[BackwardRecord] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        data = {
            "step": self.step, "losses": self.losses, "total": self.total,
            "grad_norms": self.grad_norms, "global_grad_norm": self.global_grad_norm,
            "junction_grad_norms": self.junction_grad_norms, "cosine": self.cosine,
            "saved_bytes": self.saved_bytes, "saved_bytes_peak": self.saved_bytes_peak,
            "graph_nodes": self.graph_nodes, "z_grad_norm": self.z_grad_norm,
            "backward_calls": [vars(c) for c in self.backward_calls],
            "events": [e.to_dict() for e in self.events],
        }
        return _finite_or_none(data)
