"""One watched step's losses() calls, kept on the device until step(): each call's values,
which of the run's losses they are, their weights and batch size, and (sampled) each
call's Gram block of the pushes; combined at step() into the step's numbers.

The definitions are `gradviz run`'s: a loss named in several calls of one step (micro-
batches) is their mean weighted by the calls' batch sizes (equal sizes where none is
given), which is the whole batch's loss; the step's total is the sum over its losses of
weight * loss (weight 1 where none is given), what the user's backward differentiates;
losses named in different calls (a GAN's D-real, D-fake and G) are each their own line.
"""
from __future__ import annotations

import math

import torch

from ..plain.records.records import StepRecord

Weight = float | torch.Tensor


class StepCalls:
    def __init__(self):
        self.calls = 0
        self.values: list[torch.Tensor] = []   # 0-dim, in call order
        # per call: (its losses' indices in the run, their weights or None, its batch
        # size or None): one append a call, spread per value only where combined
        self.parts: list[tuple[list[int], list[Weight] | None, int | None]] = []
        self.weighted = False                  # a call gave weights
        self.grams: list[tuple[list[int], torch.Tensor]] = []   # sampled: per call
        self.saved: list[int] = []             # sampled: storages the graph kept, per call
        self.own: list[int] = []               # sampled: the saved tensors' own bytes
        self.nodes: int | None = None

    def add(self, index: list[int], values: list[torch.Tensor],
            weights: list[Weight] | None, size: int | None) -> None:
        self.calls += 1
        self.values += values
        self.parts.append((index, weights, size))
        if weights is not None:
            self.weighted = True

    def clear_usual(self) -> None:
        """After the usual step (one call, nothing sampled): only what add() set."""
        self.calls, self.values, self.parts = 0, [], []

    @property
    def index(self) -> list[int]:
        """Per value: its loss's index in the run."""
        return [i for index, _, _ in self.parts for i in index]

    @property
    def weights(self) -> list[Weight]:
        """Per value: its weight (1.0 where its call gave none)."""
        return [w for index, weights, _ in self.parts
                for w in (weights or [1.0] * len(index))]

    @property
    def sizes(self) -> list[int | None]:
        """Per value: its call's batch size (None where not given)."""
        return [size for index, _, size in self.parts for _ in index]

    def tensors(self) -> list[torch.Tensor]:
        """The weights that are tensors (a learned weight): gathered with the values."""
        return [w for w in self.weights if isinstance(w, torch.Tensor)]

    def read_back(self, numbers: list[float], norms: int, scaled: bool, gram: int
                  ) -> tuple[list[float], list[float], list[float], float | None,
                             list[float], list[float]]:
        """The step's one transfer, in the order gathered (values, learned weights,
        norms, the scale, the Gram matrix, the rest: the fingerprint), read back:
        (values, every value's weight as a float, norms, scale, gram, the rest)."""
        at = iter(numbers)
        values = [next(at) for _ in self.values]
        learned = iter([next(at) for _ in self.tensors()])
        weights = [next(learned) if isinstance(w, torch.Tensor) else w for w in self.weights]
        norm_values = [next(at) for _ in range(norms)]
        scale = next(at) if scaled else None
        gram_values = [next(at) for _ in range(gram)]
        return values, weights, norm_values, scale, gram_values, list(at)

    @property
    def sampled(self) -> bool:
        """Whether a call of the step measured its push or memory."""
        return bool(self.grams or self.saved)

    def one_block(self, k: int) -> bool:
        """Whether the step's push, if measured, is one call's block of the run's k
        losses in order (the usual sampled step: its Gram matrix is that block)."""
        return not self.grams or len(self.grams) == 1 and self.grams[0][0] == list(range(k))

    def memory_into(self, record: StepRecord) -> None:
        """The memory measured at the step's calls, where sampled: the last call's and
        the most of them."""
        if self.saved:
            record.saved_bytes, record.saved_bytes_peak = self.saved[-1], max(self.saved)
            record.saved_tensor_bytes = self.own[-1]
            record.saved_tensor_bytes_peak = max(self.own)
            record.graph_nodes = self.nodes

    def gram(self, k: int, device: torch.device, dtype: torch.dtype
             ) -> tuple[torch.Tensor | None, list[list[bool]]]:
        """The step's k x k Gram matrix of the pushes (the calls' blocks summed where
        their losses are), and which entries were measured: losses of different calls
        read different features, so their inner product is not one (a NaN cosine)."""
        if not self.grams:
            return None, [[False] * k for _ in range(k)]
        if len(self.grams) == 1 and self.grams[0][0] == list(range(k)):
            # the usual sampled step: one call naming every loss, in order
            return self.grams[0][1].to(device, dtype), [[True] * k for _ in range(k)]
        measured = [[False] * k for _ in range(k)]
        whole = torch.zeros(k, k, dtype=dtype, device=device)
        for index, block in self.grams:
            at = torch.tensor(index, device=device)
            whole[at[:, None], at[None, :]] += block.to(device, dtype)
            for i in index:
                for j in index:
                    measured[i][j] = True
        return whole, measured

    def combine(self, values: list[float], weights: list[float], k: int
                ) -> tuple[list[float], float, list[float] | None]:
        """(each of the run's k losses for this step, NaN where no call named it; the
        weighted total; each loss's weight, or None where no call gave weights)."""
        sums, terms, weighed, sizes = [0.0] * k, [0.0] * k, [0.0] * k, [0.0] * k
        call_sizes = self.sizes
        equal = any(s is None for s in call_sizes)   # one call without a size: equal
        for i, value, weight, size in zip(self.index, values, weights, call_sizes):
            n = 1.0 if equal or size is None else float(size)
            sums[i] += n * value
            terms[i] += n * weight * value   # weight * loss: the backpropagated term
            weighed[i] += n * weight
            sizes[i] += n
        losses = [s / n if n else math.nan for s, n in zip(sums, sizes)]
        if not self.weighted:   # no weights: the losses' sum
            return losses, sum(v for v, n in zip(losses, sizes) if n), None
        total = sum(t / n for t, n in zip(terms, sizes) if n)
        return losses, total, [w / n if n else math.nan for w, n in zip(weighed, sizes)]
