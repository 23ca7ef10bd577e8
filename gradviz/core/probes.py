"""Measurements taken during a step: gradient norms and per-loss junction gradients.

Norms are computed on the device and gathered into one tensor, so a recorded step
costs one device-to-host transfer. Junction gradients are read by hooks on each head's
first autograd node, which belong to this step's graph and die with it (hooks on
persistent nodes such as AccumulateGrad would pile up, one more every step: that
slowed a tiny model from ~3,800 to ~9 steps/s within seconds).
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import torch


def grad_norms(params: Sequence[torch.Tensor]) -> list[torch.Tensor]:
    """The gradient norm of each parameter whose .grad is not None, in order, as 0-dim
    device tensors (one fused kernel); grads_missing says which are left out."""
    present = [p.grad for p in params if p.grad is not None]
    return list(torch._foreach_norm(present)) if present else []


def grads_missing(params: Sequence[torch.Tensor]) -> list[int]:
    """The places of the parameters whose .grad is None: no gradient reached them (a
    detached head's trunk) or zero_grad(set_to_none=True) left them so. Their norm is
    not 0.0 (a gradient of zeros) but none at all, and is reported as such."""
    return [i for i, p in enumerate(params) if p.grad is None]


def _input_slot(node: object, source: object) -> int | None:
    for i, (nxt, _) in enumerate(getattr(node, "next_functions", ())):
        if nxt is source:
            return i
    return None


def collector(slots: list, k: int, slot: int) -> Callable:
    """A node hook adding the gradient at input `slot` into slots[k] (every call of a
    backward that runs through the node adds, as the gradient at z adds up)."""
    def hook(grad_inputs, grad_outputs):
        g = grad_inputs[slot]
        if g is not None:
            slots[k] = g.detach() if slots[k] is None else slots[k] + g.detach()
    return hook


class JunctionProbe:
    """Collects, per head, the gradient that head's loss sends into the junction z."""

    def __init__(self, heads: int):
        self.heads = heads
        # per micro-batch: per head, the summed gradient at z (None until one arrives)
        self._micro: list[list[torch.Tensor | None]] = []
        self._shapes: list[tuple[int, ...]] = []
        self.unrelated: set[tuple[int, int]] = set()   # every head reads the same z

    def watch(self, z_node: object, z_shape: tuple[int, ...],
              head_first_outputs: list[torch.Tensor]) -> None:
        """Start a micro-batch: hook each head's first node where it reads z's node."""
        slots: list[torch.Tensor | None] = [None] * self.heads
        self._micro.append(slots)
        self._shapes.append(z_shape)
        for k, out in enumerate(head_first_outputs):
            node = out.grad_fn
            if node is None:
                continue
            slot = _input_slot(node, z_node)
            if slot is not None:
                node.register_hook(collector(slots, k, slot))

    def stacked(self, device: torch.device) -> torch.Tensor | None:
        """(heads, examples * width): each head's junction gradient over the whole batch."""
        if not self._micro:
            return None
        arrived = [g for g in self._micro[0] if g is not None]
        if len(self._micro) == 1 and len(arrived) == self.heads:
            return torch.stack(arrived).reshape(self.heads, -1)   # the usual case
        rows = []
        for k in range(self.heads):
            parts = [torch.zeros(shape, device=device) if (g := slots[k]) is None else g
                     for slots, shape in zip(self._micro, self._shapes)]
            rows.append(torch.cat([p.reshape(-1) for p in parts]))
        return torch.stack(rows)


    def gram(self, device: torch.device) -> torch.Tensor | None:
        g = self.stacked(device)
        return None if g is None else junction_gram(g)


def junction_gram(g: torch.Tensor) -> torch.Tensor:
    """(K * K,) every pair of heads' junction gradients' dot product, flattened.

    Their norms and cosines follow from these K * K numbers on the host (norms_and_cosines):
    one matrix product on the device instead of the dozen small kernels that normalising
    the rows there takes (each costs more than the arithmetic, at this size)."""
    return (g @ g.T).reshape(-1)


def norms_and_cosines(gram: list[float], heads: int) -> tuple[list[float], list[list[float]]]:
    """Each head's junction gradient norm, and the K x K cosines (NaN where either
    gradient is zero: a detached head has no direction to agree with). Plain loops, no
    nested function: this runs every step the junction is probed."""
    norms = [math.sqrt(max(gram[k * heads + k], 0.0)) for k in range(heads)]
    rows = []
    for i, n_i in enumerate(norms):
        row = []
        for j, n_j in enumerate(norms):
            # rounding can put a cosine a hair outside [-1, 1]
            row.append(min(1.0, max(-1.0, gram[i * heads + j] / (n_i * n_j)))
                       if n_i and n_j else math.nan)
        rows.append(row)
    return norms, rows
