"""Does the step help every head? Per head, the cosine between that head's gradient on the
trunk's parameters (of its own loss L_k, its micro-batches' gradients added with the factor
each micro-batch's loss gets: 1/N, n_i/B or 1) and the trunk gradient the optimizer is
handed (.grad after the step's backward calls). Below 0, the trunk's part of the update
raises that head's loss, to first order (its own layers' update lowers it, and may lower
it more): `sum` can do that to a head that conflicts with the others; UPGrad never does.

Each head's trunk gradient is taken with torch.autograd.grad at the forward, before the
junction probe's hooks are registered (they would count it) and before the backward
calls free the graph; it is a probe, on sampled steps only (one more trunk walk a head).
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import torch


class UpdateCosineProbe:
    def __init__(self, trunk: Sequence[torch.Tensor]):
        self.trunk = list(trunk)
        self._rows: torch.Tensor | None = None   # (heads, trunk parameters), scaled and added
        self.failed = False    # a graph autograd refused to walk: the step will say why

    def add_micro_batch(self, losses: Sequence[torch.Tensor],
                        junctions: Sequence[torch.Tensor], scale: float = 1.0) -> None:
        """Each loss's gradient on the trunk (zero where it does not reach the trunk),
        times scale, the factor the step puts on this micro-batch's losses: unweighted,
        a 40-example part and an 8-example one would count alike, and with equal
        gradients the cosines would not be the full batch's.
        junctions: z (or a model file's trunk outputs), whose .grad autograd.grad fills
        where it retains its grad: put back after, as the backward calls' z.grad is what
        retain_grad shows."""
        if self.failed:
            return
        kept = [(z, z.grad) for z in junctions if z.retains_grad]
        try:
            self._add(losses, scale)
        finally:
            for z, grad in kept:
                z.grad = grad

    def _add(self, losses: Sequence[torch.Tensor], scale: float) -> None:
        rows = []
        for loss in losses:
            try:
                grads = torch.autograd.grad(loss, self.trunk, retain_graph=True,
                                            allow_unused=True)
            # the backward calls raise it again, as the lesson shows (a model file's own
            # backward may raise anything)
            except Exception:
                self.failed = True
                return
            rows.append(torch.cat([(torch.zeros_like(p) if g is None else g).reshape(-1)
                                   for p, g in zip(self.trunk, grads)]))
        stacked = torch.stack(rows) if scale == 1.0 else scale * torch.stack(rows)
        self._rows = stacked if self._rows is None else self._rows + stacked

    def numbers(self) -> torch.Tensor | None:
        """(2K + 1,): each head's dot with the update, each head's squared norm, and the
        update's squared norm (gathered with the step's other numbers: one transfer)."""
        if self._rows is None or self.failed:
            return None
        update = torch.cat([(torch.zeros_like(p) if p.grad is None else p.grad).reshape(-1)
                            for p in self.trunk])
        rows = self._rows
        return torch.cat([rows @ update, (rows * rows).sum(1), (update @ update).reshape(1)])


def update_cosines(values: list[float], heads: int) -> list[float]:
    """The K cosines from UpdateCosineProbe.numbers (NaN where either vector is zero:
    a detached head has no trunk gradient, a step with no trunk update no direction)."""
    dots, squares, update = values[:heads], values[heads:2 * heads], values[2 * heads]

    def cos(k: int) -> float:
        norm = math.sqrt(max(squares[k], 0.0) * max(update, 0.0))
        return math.nan if not norm else min(1.0, max(-1.0, dots[k] / norm))

    return [cos(k) for k in range(heads)]
