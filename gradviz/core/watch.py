"""gradviz.watch: record the user's own training loop (losses, gradient norms, each
loss's push at the features, memory, the graph) into a run folder, as it runs, without
changing what it computes."""
from __future__ import annotations

import math
import subprocess
import warnings
from pathlib import Path

import torch
from torch import nn

from ..plain.open_run import open_run
from ..plain.records import StepRecord
from ..plain.watch_metrics import METRICS, write_metrics
from ..plain.watch_stream import StreamWriter
from .watch_graph import saved_bytes, step_graph
from .watch_probe import feature_list, gathered, gram_numbers, junction_gram, number_dtype
from .watch_ranks import rank_and_world, stream_folder, unwrapped

DEFAULT_EVERY = 20   # per-loss push, cosines, memory and the graph: every this many steps
# steps.jsonl's lines: by default each written before step() returns, so that a killed
# script keeps every finished step; write_every=S (seconds) has a thread write them a
# block at a time every S seconds (and the rest when the with block ends), which costs
# the loop less (the default MLP's: docs/benchmarks.md, 4 December 2026) and loses the
# steps of the last S seconds before a kill
WRITE_BLOCKS_S = 0.1   # a block's spacing that docs and benchmarks name
_item, _floating = torch.Tensor.item, torch.Tensor.is_floating_point


class Watch:
    """One watched loop. Use as a context manager (see watch())."""

    def __init__(self, model: nn.Module, out: str | Path, every: int = DEFAULT_EVERY,
                 write_every: float = 0.0):
        if not isinstance(model, nn.Module):
            raise TypeError(f"gradviz.watch: model must be a torch.nn.Module, "
                            f"not {type(model).__name__}")
        if isinstance(every, bool) or not isinstance(every, int) or every < 1:
            raise ValueError(f"gradviz.watch: every must be a whole number >= 1, not {every!r}")
        if isinstance(write_every, bool) or not isinstance(write_every, (int, float)) \
                or not 0 <= write_every <= 60:
            raise ValueError(f"gradviz.watch: write_every must be seconds from 0 to 60, "
                             f"not {write_every!r}")
        self.every = every
        self.params = list(unwrapped(model).named_parameters())
        self._tensors = [p for _, p in self.params]
        self._param_names = [name for name, _ in self.params]
        first = next((p for _, p in self.params), None)
        self.device = first.device if first is not None else torch.device("cpu")
        self.dtype = number_dtype(self.device)
        self.rank, self.world_size = rank_and_world()
        self.out = Path(out)
        self.folder = stream_folder(self.out, self.rank)
        self.steps = 0
        self._writer = StreamWriter(self.folder, {
            "model": type(unwrapped(model)).__name__, "device": str(self.device),
            "param_names": [name for name, _ in self.params], "every": every,
            "rank": self.rank, "world_size": self.world_size}, every_s=float(write_every))
        self._names: list[str] | None = None
        self._key: tuple | None = None          # the names as a tuple, to compare
        self._numbers_key: tuple | None = None  # the writer's key for an unsampled line
        self._last_graph_key: tuple | None = None
        self._new_step()

    def _new_step(self) -> None:
        self._calls = 0
        self._values: list[torch.Tensor] = []   # each call's losses, 0-dim, in order
        self._gram: torch.Tensor | None = None
        self._saved: list[int] = []
        self._nodes: int | None = None

    @property
    def sampled(self) -> bool:
        """Whether this step measures the push, cosines, memory and graph."""
        return self.steps % self.every == 0

    def __enter__(self) -> Watch:
        self._writer.open()
        return self

    def __exit__(self, *exc_info) -> None:
        self._writer.close(self.steps)
        try:   # the steps as a table, as `gradviz run --out` writes one
            write_metrics(self.folder)
        except OSError as exc:   # the stream itself is whole: only the table is missing
            warnings.warn(f"gradviz.watch: {self.folder / METRICS} not written "
                          f"({exc.strerror or exc})", stacklevel=2)

    def flush(self) -> None:
        """Write every finished step's line now (with write_every above 0 they are
        otherwise written every write_every seconds, and when the with block ends)."""
        self._writer.flush()

    def open_window(self) -> subprocess.Popen:
        """`gradviz open` on this run's folder, in a process of its own (a notebook's
        kernel imports no Qt): the window follows the folder as the loop writes it."""
        return open_run(self.out)

    def losses(self, losses: dict[str, torch.Tensor],
               features: torch.Tensor | dict[str, torch.Tensor] | None = None) -> None:
        """Before the user's backward: the step's named scalar losses (and the features
        they share, for each loss's push). Called again in the same step: one more
        micro-batch (gradient accumulation)."""
        if type(losses) is not dict or tuple(losses) != self._key:
            self._check(losses)   # the first call, or names that differ: raises
        values = []   # kept only once every value has passed
        for loss in losses.values():   # detached: a view of the value, no copy, no graph
            if not isinstance(loss, torch.Tensor):
                self._check(losses)
            value = loss.detach()
            if value.dim():   # a 0-dim value is one number; another must hold one
                if value.numel() != 1:
                    self._check(losses)
                value = value.reshape(())
            values.append(value)
        self._values += values
        self._calls += 1
        if self.steps % self.every == 0:
            self._sample(losses, feature_list(features))

    def _check(self, losses: object) -> None:
        if not isinstance(losses, dict) or not losses or not all(
                isinstance(k, str) and isinstance(v, torch.Tensor) and v.numel() == 1
                for k, v in losses.items()):
            raise TypeError("gradviz.watch: losses() takes a dict of names to scalar "
                            "loss tensors, e.g. {'depth': depth_loss, 'seg': seg_loss}")
        names = list(losses)
        if self._names is None:
            self._names, self._key = names, tuple(names)
            self._numbers_key = self._writer.numbers_key(names, self._param_names)
        elif names != self._names:
            raise ValueError(f"gradviz.watch: losses() got {names}; this run's losses "
                             f"are {self._names} (the same names, in the same order)")

    def _sample(self, losses: dict[str, torch.Tensor], features: list[torch.Tensor]) -> None:
        tensors = list(losses.values())
        if features:
            gram = junction_gram(tensors, features, self.dtype).to(self.device)
            self._gram = gram if self._gram is None else self._gram + gram
        held, self._nodes, fingerprint = saved_bytes(
            tensors, [p for _, p in self.params], features)
        self._saved.append(held)
        if self._calls == 1 and fingerprint != self._last_graph_key:
            self._last_graph_key = fingerprint
            graph = step_graph(losses, self.params, features)
            self._writer.add_graph(self.steps, graph.to_dict())

    def step(self) -> StepRecord:
        """After the user's backward, before optimizer.step(): record the step (its
        gradients as they are now) and start the next. Returns what was recorded."""
        values = self._values
        if not values or self._names is None:
            raise RuntimeError("gradviz.watch: step() before losses(): call "
                               "watch.losses({...}) before backward in each step")
        grads = [p.grad for p in self._tensors]
        present = [g for g in grads if g is not None]
        norms = torch._foreach_norm(present) if present else []
        if self._calls == 1 and len(present) == len(grads) and self._gram is None and \
                not self._saved and self._numbers_key is not None:
            if values[0].is_cpu and (not norms or norms[0].is_cpu) and \
                    all(map(_floating, values)):
                # on the CPU each number read alone is cheaper than one stack and its
                # read (no transfer to save); item() and tolist() give the same floats
                # (an integer value is promoted by the stack: read there, as before)
                numbers = [*map(_item, values), *map(_item, norms)]
            else:   # the step's one transfer
                numbers = gathered([*values, *norms], None, self.device).tolist()
            record = self._usual(numbers)
            self.steps += 1
            self._values, self._calls = [], 0   # nothing else was set: not sampled
            return record
        # the step's one transfer
        numbers = gathered([*values, *norms], self._gram, self.device).tolist()
        record = self._record(numbers, grads, len(present) == len(grads))
        self._writer.add_step(record, self._calls)
        self.steps += 1
        self._new_step()
        return record

    def _usual(self, numbers: list[float]) -> StepRecord:
        """The usual step (one losses() call, every parameter with a .grad, not sampled),
        recorded, and handed to the writer as plain numbers, formatted later."""
        names = self._names or []
        k = len(names)
        losses, norms = numbers[:k], numbers[k:]
        total = sum(losses)   # as sum(record.losses.values()) adds them
        global_norm = math.sqrt(sum([n * n for n in norms])) if norms else None
        record = StepRecord(step=self.steps, losses=dict(zip(names, losses)), total=total,
                            grad_norms=dict(zip(self._param_names, norms)),
                            global_grad_norm=global_norm)
        if global_norm is None or self._numbers_key is None:
            self._writer.add_step(record, 1)
        else:
            self._writer.add_numbers(self._numbers_key, self.steps, numbers, total,
                                     global_norm, 1)
        return record

    def _record(self, numbers: list[float], grads: list, complete: bool) -> StepRecord:
        """complete: every parameter has a .grad (the usual step)."""
        names, k, calls = self._names or [], len(self._names or []), self._calls
        values = numbers[:k * calls]
        # the step's loss: the mean over its losses() calls (one call: the value itself)
        losses = dict(zip(names, values if calls == 1 else
                          [sum(values[i::k]) / calls for i in range(k)]))
        rest = numbers[k * calls:]
        if complete:
            measured, gram = rest[:len(grads)], rest[len(grads):]
            norms: dict[str, float | None] = dict(zip(self._param_names, measured))
        else:
            present = iter(rest)
            norms = {name: None if g is None else next(present)
                     for name, g in zip(self._param_names, grads)}
            measured, gram = [n for n in norms.values() if n is not None], list(present)
        record = StepRecord(step=self.steps, losses=losses, total=sum(losses.values()),
                            grad_norms=norms, global_grad_norm=math.sqrt(
                                sum([n * n for n in measured])) if measured else None)
        if gram:
            push, record.cosine = gram_numbers(gram, k)
            record.junction_grad_norms = dict(zip(names, push))
        if self._saved:
            record.saved_bytes, record.saved_bytes_peak = self._saved[-1], max(self._saved)
            record.graph_nodes = self._nodes
        return record


def watch(model: nn.Module, out: str | Path, every: int = DEFAULT_EVERY,
          write_every: float = 0.0) -> Watch:
    """Watch a training loop: `with gradviz.watch(model, out="runs/exp1") as watch:`,
    then each step watch.losses({...}, features=z) before backward and watch.step()
    after it, before optimizer.step(). Writes out (out/rank-N under torch.distributed):
    each step's line before step() returns, so a killed script keeps every finished
    step; with write_every=S (seconds, e.g. 0.1) a thread writes the lines a block at a
    time every S seconds and the rest when the with block is left (also by an
    exception): cheaper for the loop, and a kill loses the steps of its last S seconds."""
    return Watch(model, out, every, write_every)
