"""Each head's push at its tap, for a model file's heads (any modules, not the built-in
Sequential whose first layer the JunctionProbe hooks): the gradient head k's loss sends
into the trunk output it reads, caught by hooks on the head's own autograd nodes that
consume that output. No node is added to the graph: the user's loop is drawn as it is.
"""
from __future__ import annotations

import torch

from .probes import collector


def consumers(start: object, z_node: object, output_nr: int) -> list[tuple[object, int]]:
    """(node, input slot) of every node reachable from start that reads output
    output_nr of z_node; the walk stops at z_node, so it stays inside the head."""
    found: list[tuple[object, int]] = []
    seen, stack = {id(start)}, [start]
    while stack:
        node = stack.pop()
        for slot, (nxt, nr) in enumerate(getattr(node, "next_functions", ())):
            if nxt is None:
                continue
            if nxt is z_node:
                if nr == output_nr:
                    found.append((node, slot))
                continue
            if id(nxt) not in seen:
                seen.add(id(nxt))
                stack.append(nxt)
    return found


class TapProbe:
    """JunctionProbe's job for heads that may read different trunk outputs (taps)."""

    def __init__(self, heads: int):
        self.heads = heads
        self._micro: list[list[torch.Tensor | None]] = []
        self._shapes: list[list[tuple[int, ...]]] = []
        self.taps = [0] * heads
        # pairs of heads at different taps: no cosine (their gradients live in
        # different tensors); measure_step writes NaN there
        self.unrelated: set[tuple[int, int]] = set()

    def start(self) -> None:
        """A new micro-batch."""
        self._micro.append([None] * self.heads)
        self._shapes.append([()] * self.heads)

    def forget_current(self) -> None:
        """Drop what this micro-batch's hooks caught so far: another probe's own passes
        (the update cosine's autograd.grad) ran through the head's nodes, and only the
        backward calls' gradients are the heads' pushes. In place: the hooks hold it."""
        if self._micro:
            self._micro[-1][:] = [None] * self.heads

    def watch(self, k: int, tap: int, z: tuple[object, int], z_shape: tuple[int, ...],
              head_out: torch.Tensor) -> None:
        """Hook head k's nodes that read z = (its trunk node, output number)."""
        slots = self._micro[-1]
        self._shapes[-1][k] = z_shape
        self.taps[k] = tap
        z_node, nr = z
        if z_node is None or head_out.grad_fn is None:
            return   # a detached head: its push stays zero
        for node, slot in consumers(head_out.grad_fn, z_node, nr):
            node.register_hook(collector(slots, k, slot))   # type: ignore[attr-defined]

    def gram(self, device: torch.device) -> torch.Tensor | None:
        """(K * K,) the dot products of heads' pushes at the same tap (0 across taps)."""
        if not self._micro:
            return None
        rows = []
        for k in range(self.heads):
            parts = [torch.zeros(shapes[k], device=device) if (g := slots[k]) is None else g
                     for slots, shapes in zip(self._micro, self._shapes)]
            rows.append(torch.cat([p.reshape(-1) for p in parts]))
        K = self.heads
        gram = torch.zeros(K, K, device=device)
        groups: dict[tuple[int, int], list[int]] = {}
        for k, row in enumerate(rows):
            groups.setdefault((self.taps[k], row.numel()), []).append(k)
        self.unrelated = {(i, j) for i in range(K) for j in range(K)
                          if (self.taps[i], rows[i].numel()) != (self.taps[j], rows[j].numel())}
        for members in groups.values():
            g = torch.stack([rows[k] for k in members])
            index = torch.tensor(members, device=device)
            gram[index.unsqueeze(1), index.unsqueeze(0)] = g @ g.T
        return gram.reshape(-1)
