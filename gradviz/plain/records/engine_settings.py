"""The window's settings of the engine, as one record: sent whole at every change and
replayed to a fresh engine, so that a restart keeps all of them or none. Plain data: the
window's model composes it from its fields, the protocol carries it."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class EngineSettings:
    delay_ms: int = 0                # between steps (or phases)
    animate_phases: bool = False     # Play goes phase by phase, at the delay
    stop_at: int | None = None       # step index where Play pauses itself (None: never)
    show_saved: bool = False         # the graph draws the tensors backward saved
    track_node_grads: bool = True    # measure the gradient through every graph node
    # a slide's sweep pace: one box's turn (ms) in a backward call's sweep, which a
    # played backward phase is held for (plain.graph.sweep_pace); 0: the delay alone
    sweep_box_ms: int = 0
