"""Does the step help every head? Per head, the cosine between that head's gradient on the
trunk's parameters (of its own loss L_k, summed over the step's micro-batches) and the
trunk gradient the optimizer is handed (.grad after the step's backward calls). Below 0,
the step, to first order, raises that head's loss: `sum` can do that to a head that
conflicts with the others; UPGrad never does.

Each head's trunk gradient is taken with torch.autograd.grad at the forward, before the
junction probe's hooks are registered (they would count it) and before the backward
calls free the graph; it is a probe, on sampled steps only (one more trunk walk a head).
The same walk gives what core.step_effect needs: the gradient of the step's L_k (its
micro-batches weighted as the step's loss is) on the trunk and on head k's own layers,
and the trunk gradient the sum strategy would hand the optimizer.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import torch


class UpdateCosineProbe:
    def __init__(self, trunk: Sequence[torch.Tensor],
                 heads: Sequence[Sequence[torch.Tensor]] | None = None):
        """heads: each head's own parameters, for the step's effect (None: not measured)."""
        self.trunk = list(trunk)
        self.heads = None if heads is None else [list(h) for h in heads]
        self._rows: torch.Tensor | None = None   # (heads, trunk parameters), summed
        # the step's L_k: on the trunk (heads, trunk parameters) and on head k's own
        # layers (one flat vector a head, on that head's device)
        self.trunk_rows: torch.Tensor | None = None
        self.head_rows: list[torch.Tensor] = []
        self._sum: torch.Tensor | None = None     # sum of w_k * scale * grad_trunk L_k
        self.sum_norm = math.nan   # its length, once core.step_numbers has read it
        self.failed = False    # a graph autograd refused to walk: the step will say why

    def add_micro_batch(self, losses: Sequence[torch.Tensor],
                        junctions: Sequence[torch.Tensor],
                        factors: Sequence[float] | None = None, share: float = 1.0) -> None:
        """Each loss's gradient on the trunk (zero where it does not reach the trunk).
        junctions: z (or a model file's trunk outputs), whose .grad autograd.grad fills
        where it retains its grad: put back after, as the backward calls' z.grad is what
        retain_grad shows. factors: each loss's factor in the backward (w_k times the
        micro-batch's scale); share: this micro-batch's weight in the step's loss."""
        if self.failed:
            return
        kept = [(z, z.grad) for z in junctions if z.retains_grad]
        try:
            self._add(losses, factors, share)
        finally:
            for z, grad in kept:
                z.grad = grad

    def _add(self, losses: Sequence[torch.Tensor], factors: Sequence[float] | None,
             share: float) -> None:
        rows, own = [], []
        for k, loss in enumerate(losses):
            head = [] if self.heads is None else self.heads[k]
            try:
                grads = torch.autograd.grad(loss, self.trunk + head, retain_graph=True,
                                            allow_unused=True)
            # the backward calls raise it again, as the lesson shows (a model file's own
            # backward may raise anything)
            except Exception:
                self.failed = True
                return
            rows.append(_flat(self.trunk, grads[:len(self.trunk)]))
            if head:
                own.append(_flat(head, grads[len(self.trunk):]) * share)
        stacked = torch.stack(rows)
        self._rows = stacked if self._rows is None else self._rows + stacked
        if self.heads is not None:
            self._add_effect(stacked, own, factors, share)

    def _add_effect(self, stacked: torch.Tensor, own: list[torch.Tensor],
                    factors: Sequence[float] | None, share: float) -> None:
        weighted = stacked * share
        self.trunk_rows = weighted if self.trunk_rows is None else self.trunk_rows + weighted
        self.head_rows = own if not self.head_rows else \
            [a + b for a, b in zip(self.head_rows, own)]
        if factors is not None:
            summed = torch.tensor(list(factors), device=stacked.device,
                                  dtype=stacked.dtype) @ stacked
            self._sum = summed if self._sum is None else self._sum + summed

    def numbers(self) -> torch.Tensor | None:
        """(2K + 2,): each head's dot with the update, each head's squared norm, the
        update's squared norm and the sum strategy's trunk gradient's (NaN where not
        measured); gathered with the step's other numbers: one transfer."""
        if self._rows is None or self.failed:
            return None
        update = _flat(self.trunk, [p.grad for p in self.trunk])
        rows = self._rows
        summed = (self._sum @ self._sum).reshape(1) if self._sum is not None else \
            torch.full((1,), math.nan, device=rows.device, dtype=rows.dtype)
        return torch.cat([rows @ update, (rows * rows).sum(1), (update @ update).reshape(1),
                          summed])


def _flat(params: Sequence[torch.Tensor], grads: Sequence[torch.Tensor | None]) -> torch.Tensor:
    """The gradients as one vector, zeros where a parameter has none."""
    return torch.cat([(torch.zeros_like(p) if g is None else g).reshape(-1)
                      for p, g in zip(params, grads)])


def update_cosines(values: list[float], heads: int) -> list[float]:
    """The K cosines from UpdateCosineProbe.numbers (NaN where either vector is zero:
    a detached head has no trunk gradient, a step with no trunk update no direction)."""
    dots, squares, update = values[:heads], values[heads:2 * heads], values[2 * heads]

    def cos(k: int) -> float:
        norm = math.sqrt(max(squares[k], 0.0) * max(update, 0.0))
        return math.nan if not norm else min(1.0, max(-1.0, dots[k] / norm))

    return [cos(k) for k in range(heads)]
