"""A gradient's fingerprint: PROJECTIONS numbers per parameter that equal gradients share
and different ones almost never do (a sign flip, a scale, another direction of the same
length), so that ranks can compare their gradients themselves, not only their norms,
without sending them anywhere.

Each number is the dot product of the parameter's .grad with a fixed pseudo-random unit
vector of the parameter's size. That vector is never made whole: it is w ⊗ v, the outer
product of two short random unit vectors, and the number is wᵀ G v with G the flattened
gradient read as a (rows, cols) matrix, rows * cols = its size. So what is kept is about
2·√n numbers per parameter of n, not n: whole vectors would add the model's size to
the device's memory once per projection. For gradients that differ by D ≠ 0, wᵀ D v is a
polynomial in the random entries that is not zero everywhere, so it is zero with
probability 0; two independent pairs (w, v) make a near-miss on both unlikely. As unit
vectors, each number is at most the gradient's norm in size (the scale a tolerance uses).

The vectors come from a torch.Generator of their own, seeded from the parameter's name
(every rank draws the same ones, whatever its parameters' order), drawn on the CPU in
float64 (the same numbers whatever the device) and kept on the gradient's device, in its
dtype (float32 at least: half precision rounds the number too coarsely to compare). The
global random stream is never drawn from: the user's random numbers stay bit-equal.
"""
from __future__ import annotations

import contextlib
import math
import zlib
from collections.abc import Sequence

import torch

PROJECTIONS = 2
SEED = 0x67726164   # fixed: every rank, every run, the same vectors


def matrix_shape(n: int) -> tuple[int, int]:
    """(rows, cols), rows * cols = n, rows the largest divisor of n up to √n: the two
    vectors together as short as n's factors allow (n prime: one row, a whole vector)."""
    rows = max(math.isqrt(n), 1)
    while n % rows:
        rows -= 1
    return rows, n // rows


def _unit_columns(generator: torch.Generator, length: int) -> torch.Tensor:
    """(length, PROJECTIONS) float64 on the CPU, each column a random unit vector."""
    columns = torch.randn(length, PROJECTIONS, generator=generator, dtype=torch.float64)
    return columns / columns.norm(dim=0)


def _exact_products(device: torch.device) -> contextlib.AbstractContextManager:
    """Autocast off around the products: watch.step() may be called inside the user's
    autocast region, which would make them in half precision."""
    try:
        return torch.autocast(device.type, enabled=False)
    except RuntimeError:   # a device type autocast does not know: it cannot be on
        return contextlib.nullcontext()


class GradFingerprint:
    """Made once from the named parameters; called on a step's gradients."""

    def __init__(self, named_params: Sequence[tuple[str, torch.Tensor]]):
        self.names = [name for name, _ in named_params]
        self._shapes = [matrix_shape(p.numel()) if p.numel() else (0, 0)
                        for _, p in named_params]
        # per parameter: (wᵀ as (PROJECTIONS, rows), v as (cols, PROJECTIONS)), made at
        # the first gradient seen, again only if a gradient comes on another device
        # or in another dtype
        self._vectors: list[tuple[torch.Tensor, torch.Tensor] | None] = [None] * len(
            self.names)

    def _pair(self, i: int, grad: torch.Tensor, dtype: torch.dtype
              ) -> tuple[torch.Tensor, torch.Tensor]:
        pair = self._vectors[i]
        if pair is None or pair[0].device != grad.device or pair[0].dtype != dtype:
            rows, cols = self._shapes[i]
            generator = torch.Generator().manual_seed(
                SEED ^ zlib.crc32(self.names[i].encode("utf-8")))
            w, v = _unit_columns(generator, rows), _unit_columns(generator, cols)
            pair = self._vectors[i] = (w.T.contiguous().to(grad.device, dtype),
                                       v.to(grad.device, dtype))
        return pair

    def __call__(self, grads: list[torch.Tensor | None]) -> torch.Tensor:
        """PROJECTIONS numbers per gradient that is not None, in order, as one 1-D
        tensor to be read with the step's other numbers (no transfer here). Two small
        matrix products per parameter (wᵀ G, then that times both v's), their 2 x 2
        results stacked once and their diagonals taken once."""
        device = next((g.device for g in grads if g is not None), None)
        if device is None:
            return torch.zeros(0)
        with _exact_products(device):
            return self._projected(grads)

    def _projected(self, grads: list[torch.Tensor | None]) -> torch.Tensor:
        blocks = []
        for i, grad in enumerate(grads):
            if grad is None:
                continue
            rows, cols = self._shapes[i]
            dtype = torch.promote_types(grad.dtype, torch.float32)
            if not rows:   # an empty parameter: nothing to project
                blocks.append(torch.zeros(PROJECTIONS, PROJECTIONS, dtype=dtype,
                                          device=grad.device))
                continue
            w_t, v = self._pair(i, grad, dtype)
            matrix = grad.detach().reshape(rows, cols).to(dtype)   # a view, as a rule
            blocks.append(torch.mm(torch.mm(w_t, matrix), v))
        try:   # one device (the usual case): one stack
            stacked = torch.stack(blocks)
        except RuntimeError:   # parameters on several devices: moved to the first's
            stacked = torch.stack([b.to(blocks[0].device, blocks[0].dtype) for b in blocks])
        # the diagonal: projection k is w_k ⊗ v_k (the off-diagonal pairs are not kept)
        return stacked.diagonal(dim1=1, dim2=2).reshape(-1)

    def named(self, numbers: list[float], grads: list[torch.Tensor | None]
              ) -> dict[str, list[float] | None]:
        """The numbers __call__'s tensor held, read back, by parameter name: None for a
        parameter whose .grad was None (as grad_norms has it)."""
        found: dict[str, list[float] | None] = {}
        at = 0
        for name, grad in zip(self.names, grads):
            if grad is None:
                found[name] = None
            else:
                found[name] = numbers[at:at + PROJECTIONS]
                at += PROJECTIONS
        return found
