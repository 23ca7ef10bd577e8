"""How many times a step's backward walks the shared trunk, measured, not assumed.

Every backward pass that reaches the trunk runs the node of its first layer once (the
engine runs each node at most once per pass), so a pre-hook on that node counts the
passes: 1 for sum and backward-list, K for separate, in-loop and autograd-grad, fewer
where heads are cut off. The node belongs to one micro-batch's graph and dies with it,
so the hook never piles up across steps.
"""
from __future__ import annotations

import time

import torch


class TrunkWalks:
    """The trunk passes and the backward time of one optimizer step."""

    def __init__(self, sync: bool):
        """sync: wait for the device before reading the clock (CUDA returns before the
        work is done); the session works it out once, not at every step."""
        self.count = 0
        self.seconds = 0.0
        self._sync = sync

    def watch(self, first_trunk_node: object) -> None:
        """Count every pass through this micro-batch's first trunk node."""
        if first_trunk_node is not None:
            first_trunk_node.register_prehook(self._passed)   # type: ignore[attr-defined]

    def _passed(self, grad_outputs):
        self.count += 1

    def start(self) -> float:
        return time.perf_counter()

    def stop(self, started: float) -> None:
        if self._sync:
            torch.cuda.synchronize()
        self.seconds += time.perf_counter() - started
