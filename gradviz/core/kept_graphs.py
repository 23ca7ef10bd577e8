"""keep graphs: `running_loss += total` without `.item()` holds every step's graph
alive. What that holds for good is counted here, from the walks the session measures;
the graphs themselves stay alive through `running`, as in the loop a user wrote."""
from __future__ import annotations

import torch

from ..plain.config.config import Config
from .forward import LiveGraph


class KeptGraphs:
    def __init__(self) -> None:
        self.clear()

    def clear(self) -> None:
        """Let go of every kept graph (keep graphs turned off, or a reset)."""
        self.running: torch.Tensor | None = None   # the leaked running loss
        self.nodes = self.saved_bytes = self.saved_tensor_bytes = 0
        self.adds = 0   # adds made by `running += total` in the step in progress

    def keep_if_asked(self, cfg: Config, live: LiveGraph) -> None:
        """`running += total`, as the loop without .item() does, where keep graphs is on."""
        if not cfg.keep_graphs:
            return
        if cfg.strategy == "separate":  # no total was built: sum the terms, as a loop would
            total = live.terms[0]
            for t in live.terms[1:]:
                total = total + t
            self.adds += len(live.terms) - 1
        else:
            total = live.backward_calls[-1].target   # the total, all terms added
        if self.running is None:
            self.running = total
        else:
            self.running = self.running + total
            self.adds += 1

    def bank(self, nodes: int, saved_bytes: int, saved_tensor_bytes: int,
             leaves: int) -> None:
        """Count a graph now held for good (a walk's four numbers: plain.graph.walk_cache's
        Walk); the parameters' AccumulateGrad nodes (leaves) are shared by every step's
        graph, not added."""
        self.nodes += nodes - leaves + self.adds
        self.saved_bytes += saved_bytes
        self.saved_tensor_bytes += saved_tensor_bytes
        self.adds = 0

    def end_step(self) -> None:
        self.adds = 0
