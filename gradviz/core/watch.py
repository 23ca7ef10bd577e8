"""gradviz.watch: record the user's own training loop (losses, gradient norms, each
loss's push at the features, memory, the graph) into a run folder, as it runs, without
changing what it computes.

A guest in someone else's training: every failure of the watch's own (writing, a probe,
a call in the wrong place) becomes one `gradviz:` line on stderr and the loop goes on,
bit-equal to an unwatched one (strict=True raises WatchError instead, for tests).
"""
from __future__ import annotations

import errno
import math
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

import torch
from torch import nn

from ..plain.records.records import StepRecord
from ..plain.run_files.report import SAMPLED_NULLS
from ..plain.run_files.watch_end import exception_end
from ..plain.runs.open_run import open_run
from ..plain.watch import watch_exit
from ..plain.watch.watch_complaints import Complaints, WatchError
from ..plain.watch.watch_recording import Recording
from .grad_fingerprint import GradFingerprint
from .watch_amp import ScalerState, scaled_unsaid
from .watch_arguments import argument_problem, optimizers
from .watch_criterion import CriterionHooks, criterion_problem
from .watch_losses import (
    LossNames,
    batch_size_problem,
    call_weights,
    scalar_values,
    step_without_losses,
    unstepped_at_end,
)
from .watch_probe import gathered, gram_numbers, number_dtype, read_numbers
from .watch_ranks import rank_and_world, unwrapped
from .watch_record import global_norm, step_record
from .watch_sample import StepSampler
from .watch_step import StepCalls

DEFAULT_EVERY = 20   # per-loss push, cosines, memory and the graph: every this many steps
# steps.jsonl's lines: by default each written before step() returns, so that a killed
# script keeps every finished step; write_every=S (seconds) has a thread write them a
# block at a time every S seconds (and the rest when the watch is closed), which costs
# the loop less (the default MLP's: docs/benchmarks.md, 4 December 2026) and loses the
# steps of the last S seconds before a kill
WRITE_BLOCKS_S = 0.1   # a block's spacing that docs and benchmarks name
_item, _floating = torch.Tensor.item, torch.Tensor.is_floating_point
_detach = torch.Tensor.detach
_now = time.time   # each step's line says when it ended (a viewer's wall-time axis)

__all__ = ["Watch", "WatchError", "watch"]


class Watch:
    """One watched loop: `watch = gradviz.watch(...)` ... `watch.close()`, or a with
    block (see watch())."""

    def __init__(self, model: nn.Module, out: str | Path, every: int = DEFAULT_EVERY,
                 write_every: float = 0.0, *, features: object = None,
                 optimizer: object = None, scaler: torch.amp.GradScaler | None = None,
                 criterion: object = None, loss_names: Sequence[str] | None = None,
                 overwrite: bool = False, strict: bool = False):
        self._say = Complaints(strict)
        self.steps = 0
        self._names = LossNames()
        self._all: list[int] = []               # the run's loss indices, in order
        self._usual_key: tuple | None = None     # the run's names, once fixed
        self._numbers_key: tuple | None = None  # the writer's key for an unsampled line
        self._last_call = ""                    # "losses" or "step": the call before
        self._ended = False
        self._step_calls = StepCalls()
        self.every, self._scaler = DEFAULT_EVERY, None
        self._criterion: CriterionHooks | None = None
        problem = argument_problem(model, every, write_every, scaler, optimizer) or \
            criterion_problem(criterion, loss_names)
        if problem:
            self._say("arguments", f"{problem}; this run is not recorded (the training "
                      "goes on)")
            self._ended = True
            return
        self.every = every
        self._scaler = None if scaler is None else ScalerState(scaler)
        self.params = list(unwrapped(model).named_parameters())
        self._tensors = [p for _, p in self.params]
        self._param_names = [name for name, _ in self.params]
        self._fingerprint = GradFingerprint(self.params)
        first = next((p for _, p in self.params), None)
        self.device = first.device if first is not None else torch.device("cpu")
        self.dtype = number_dtype(self.device)
        self.rank, self.world_size = rank_and_world()
        self.out = Path(out)
        self._sampler = StepSampler(unwrapped(model), self.params, self.dtype, self._say,
                                    features)
        self._step_hooks = [opt.register_step_pre_hook(self._before_optimizer_step)
                            for opt in optimizers(optimizer)]
        if criterion is not None:
            # each call of the loop's loss module: watch.losses({name: loss})
            self._criterion = CriterionHooks(
                criterion, loss_names,   # type: ignore[arg-type]
                lambda name, loss: self.losses({name: loss}), self._say)
        self._open(model, float(write_every), overwrite)

    def _before_optimizer_step(self, optimizer, args, kwargs) -> None:
        """optimizer=: each optimizer.step() records the step first (returns None:
        the step is the optimizer's own). A step with no losses() since the last one
        (the other optimizer of a GAN stepping) records nothing and says nothing."""
        if self._step_calls.calls:
            self.step()

    def _open(self, model: nn.Module, write_every: float, overwrite: bool) -> None:
        self._rec = Recording(self.out, self.rank, {
            "model": type(unwrapped(model)).__name__, "device": str(self.device),
            "param_names": self._param_names, "every": self.every, "rank": self.rank,
            "world_size": self.world_size, "amp": self._scaler is not None},
            write_every, overwrite, self._say)
        self.out, self.folder = self._rec.out, self._rec.folder
        if self._rec.writer is None:
            self._ended = True
            return
        watch_exit.register(self)

    def __enter__(self) -> Watch:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self.end(exception_end(exc))

    def close(self) -> None:
        """End the recording: write what is kept, say in the folder that the run
        finished. An unclosed watch is closed when the interpreter exits."""
        self.end({"how": "finished"})

    def end(self, ended: dict) -> None:
        """Close the stream, recording how it ended (see watch_end); once."""
        if self._ended:
            return
        self._ended = True
        watch_exit.unregister(self)
        if hasattr(self, "_sampler"):
            self._sampler.remove()
        for handle in getattr(self, "_step_hooks", []):
            handle.remove()
        if self._criterion is not None:
            self._criterion.remove()
        recorded = self._rec.writer is not None
        self._rec.end(self.steps, ended)
        if ended.get("how") != "finished":   # a step cut short by an error is no misuse
            return
        problem = unstepped_at_end(self._step_calls.calls, self.steps, recorded)
        if problem is not None:
            self._say(*problem)

    def flush(self) -> None:
        """Write every finished step's line now (with write_every above 0 they are
        otherwise written every write_every seconds, and when the watch is closed)."""
        if not self._ended:
            self._rec.flush(self.steps)

    def open_window(self) -> subprocess.Popen:
        """`gradviz open` on this run's folder, in a process of its own (a notebook's
        kernel imports no Qt): the window follows the folder as the loop writes it."""
        return open_run(self.out)

    def losses(self, losses: dict[str, torch.Tensor],
               features: torch.Tensor | dict[str, torch.Tensor] | str | nn.Module
               | list | None = None, *, weights: dict | None = None,
               batch_size: int | None = None) -> None:
        """Before the user's backward: named scalar losses (and the features they share,
        for each loss's push: a tensor, a dict of them, or a submodule by name). Called
        again in the step with the same names: one more micro-batch; with other names
        (a GAN's D and G losses): more losses of the step. weights: by name, what each
        loss is multiplied by in what is backpropagated (floats or 0-dim tensors);
        batch_size: this call's examples (unequal micro-batches weigh by it)."""
        if self._ended:
            return
        try:
            if type(losses) is dict and tuple(losses) == self._usual_key and \
                    weights is None and batch_size is None:
                # the usual call (every loss, nothing else): kept as cheaply as it can
                # be, each loss a detached view
                values = []
                for loss in losses.values():
                    if type(loss) is not torch.Tensor or loss.dim():
                        break   # a subclass, or not 0-dim: the full check below
                    values.append(_detach(loss))
                else:
                    self._step_calls.add(self._all, values, None, None)
                    self._last_call = "losses"
                    if self.steps % self.every == 0:
                        self._measure(losses, self._all, None, features)
                    return
            self._take(losses, features, weights, batch_size)
        except WatchError:
            raise
        except Exception as exc:   # the watch's own fault: never the user's loop's
            self._say("losses", f"watch.losses() failed at step {self.steps} ({exc!r}); "
                      "the training goes on")

    def _take(self, losses: dict, features: object, weights: object,
              batch_size: object) -> None:
        usual = type(losses) is dict and tuple(losses) == self._names.key and \
            weights is None and batch_size is None
        if usual:
            index, values, call_w = self._all, scalar_values(losses), None
        else:
            found = self._names.index(losses)
            if isinstance(found, tuple):
                return self._refused(found)
            index, values = found, scalar_values(losses)
            call_w = call_weights(losses, weights)
            problem = batch_size_problem(batch_size)
            if problem is not None:
                return self._refused(problem)
            self._all = list(range(len(self._names.names)))
            self._usual_key = self._names.key if self._names.fixed else None
            self._numbers_key = None if self._rec.writer is None else \
                self._rec.writer.numbers_key(self._names.names, self._param_names)
        if isinstance(values, tuple):
            return self._refused(values)
        if isinstance(call_w, tuple):
            return self._refused(call_w)
        size = batch_size if isinstance(batch_size, int) else None
        self._step_calls.add(index, values, call_w, size)
        self._last_call = "losses"
        if self.steps % self.every == 0:
            self._measure(losses, index, call_w, features)
        return None

    def _measure(self, losses: dict, index: list[int], weights: list | None,
                 features: object) -> None:
        """A sampled step's call: the push, the memory, the graph where it is new."""
        graph = self._sampler.measure(self._step_calls, losses, index, weights, features)
        if graph is not None and self._rec.writer is not None:
            self._rec.writer.add_graph(self.steps, graph.to_dict())

    def _refused(self, problem: tuple[str, str]) -> None:
        self._say("losses-" + problem[0], problem[1] + "; this call is not recorded (the "
                  "training goes on)")

    def step(self) -> StepRecord | None:
        """After the user's backward, before optimizer.step(): record the step (its
        gradients as they are now) and start the next. Returns what was recorded, or
        None where nothing was (said why, once)."""
        if self._ended:
            return None
        if self._criterion is not None:
            self._criterion.stepped()
        try:
            return self._step()
        except WatchError:
            raise
        except OSError as exc:
            self._rec.failed(exc, self.steps)
        except Exception as exc:   # the watch's own fault: never the user's loop's
            self._say("step", f"watch.step() failed at step {self.steps} ({exc!r}); the "
                      "training goes on")
        self.steps += 1
        self._step_calls = StepCalls()
        return None

    def _step(self) -> StepRecord | None:
        calls = self._step_calls
        if not calls.calls:   # nothing to record: not counted either
            problem = step_without_losses(self._last_call, self.steps)
            if problem is not None:
                self._say(*problem)
            self._last_call = "step"
            return None
        self._last_call = "step"
        if not self._names.fixed:
            self._names.fixed = True
            self._usual_key = self._names.key
        grads = [p.grad for p in self._tensors]
        present = [g for g in grads if g is not None]
        norms = torch._foreach_norm(present) if present else []
        k = len(self._names.names)
        # the usual step: one call naming every loss in the run's order (values taken
        # as they come), every gradient there, nothing to convert or combine
        usual = calls.calls == 1 and len(present) == len(grads) and \
            self._numbers_key is not None and self._scaler is None and \
            not calls.weighted and calls.parts[0][0] == self._all and (
                not calls.sampled or self.world_size == 1 and calls.one_block(k))
        if usual:
            record = self._usual(calls, norms)
        else:
            record = self._sampled(calls, grads, present, norms)
            if self._rec.writer is not None:
                self._rec.writer.add_step(record, calls.calls, _now())
        self._stepped(usual and not calls.sampled)
        return record

    def _stepped(self, only_values: bool) -> None:
        """A recorded step's end: on a sampled step, the folder looked for (a removed one
        ends the recording) and, early in the run, a GradScaler the watch was not told
        of; then the next step's calls (only_values: the step's calls set nothing but
        their values, which are cleared, the cheapest)."""
        if self.steps % self.every == 0:
            if self._rec.writer is not None and self._rec.writer.gone():
                self._rec.failed(OSError(errno.ENOENT, "the folder was removed"),
                                 self.steps)
            if self._scaler is None and "scaled" not in self._say.said:
                words = scaled_unsaid(self.steps, self.every)
                if words is not None:
                    self._say("scaled", words)
        self.steps += 1
        if only_values:
            self._step_calls.clear_usual()
        else:
            self._step_calls = StepCalls()

    def _sampled(self, calls: StepCalls, grads: list, present: list[torch.Tensor],
                 norms: Sequence[torch.Tensor]) -> StepRecord:
        """A step other than the usual one: several calls, weights, the push, AMP."""
        k = len(self._names.names)
        scale = self._scaler.scale_tensor() if self._scaler is not None else None
        learned = calls.tensors()
        scalars = [*calls.values, *learned, *norms] + ([] if scale is None else [scale])
        gram, measured = calls.gram(k, self.device, self.dtype)
        # a sampled step under ranks: each gradient's fingerprint too, so that ranks
        # compare their gradients, not only their norms (a gradient with its sign
        # flipped has the same norm); one process has no other rank to compare with
        prints = self._fingerprint(grads) if self.world_size > 1 and \
            self.steps % self.every == 0 else None
        numbers = read_numbers(scalars, gram, self.device, prints)   # one transfer
        values, weights, norm_values, scale_value, gram_values, printed = calls.read_back(
            numbers, len(norms), scale is not None, k * k if gram is not None else 0)
        if scale_value is not None and not all(map(math.isfinite, norm_values)):
            # a scaled gradient's norm can pass float32's range (2**126 times a few)
            # where every element is finite: measured again in float64, where only an
            # inf or a NaN among the elements (a step scaler.step skips) is not finite
            norm_values = torch.stack(torch._foreach_norm(present, 2, dtype=torch.float64)
                                      ).tolist()
        losses, total, loss_weights = calls.combine(values, weights, k)
        record = step_record(self.steps, self._names.names, self._param_names, losses,
                             total, norm_values, grads, len(present) == len(grads),
                             gram_values, measured)
        if loss_weights is not None:
            record.loss_weights = dict(zip(self._names.names, loss_weights))
        calls.memory_into(record)
        if prints is not None:
            record.grad_fingerprint = self._fingerprint.named(printed, grads)
        if scale_value is not None:
            assert self._scaler is not None
            record = self._scaler.as_unscaled(record, scale_value)
        return record

    def _usual(self, calls: StepCalls, norms: Sequence[torch.Tensor]) -> StepRecord:
        """The usual step (one losses() call naming every loss, every parameter with a
        .grad; sampled by that call alone, or not), recorded, and handed to the writer
        as plain numbers, formatted later."""
        values, k = calls.values, len(calls.values)
        if calls.sampled:   # the Gram matrix read with the numbers
            gram = calls.grams[0][1] if calls.grams else None
            numbers = read_numbers([*values, *norms], gram, self.device)
            gram_values = numbers[len(numbers) - k * k:] if gram is not None else []
            numbers = numbers[:len(numbers) - len(gram_values)]
        elif values[0].is_cpu and (not norms or norms[0].is_cpu) and \
                all(map(_floating, values)):
            # on the CPU each number read alone is cheaper than one stack and its
            # read (no transfer to save); item() and tolist() give the same floats
            # (an integer value is promoted by the stack: read there, as before)
            numbers = [*map(_item, values), *map(_item, norms)]
        else:   # the step's one transfer
            numbers = gathered([*values, *norms], None, self.device).tolist()
        names = self._names.names
        losses, norm_values = numbers[:k], numbers[k:]
        total = sum(losses)   # as sum(record.losses.values()) adds them
        whole = global_norm(norm_values)
        record = StepRecord.numbers_only(self.steps, dict(zip(names, losses)), total,
                                         dict(zip(self._param_names, norm_values)), whole)
        sampled = SAMPLED_NULLS
        if calls.sampled:
            if gram_values:
                push, record.cosine = gram_numbers(gram_values, k)
                record.junction_grad_norms = dict(zip(names, push))
            calls.memory_into(record)
            sampled = record.sampled_json()
        writer = self._rec.writer
        if writer is not None:
            if whole is None or self._numbers_key is None:
                writer.add_step(record, 1, _now())
            else:
                writer.add_numbers(self._numbers_key, self.steps, numbers, total, whole, 1,
                                   _now(), sampled)
        return record


def watch(model: nn.Module, out: str | Path, every: int = DEFAULT_EVERY,
          write_every: float = 0.0, *, features: object = None, optimizer: object = None,
          scaler: torch.amp.GradScaler | None = None, criterion: object = None,
          loss_names: Sequence[str] | None = None, overwrite: bool = False,
          strict: bool = False) -> Watch:
    """Watch a training loop (docs/watch.md): `watch = gradviz.watch(model, out=...)`
    or a with block; each step watch.losses({...}) before backward and watch.step()
    before optimizer.step(); watch.close() at the end (else at exit). Writes out (or
    out/rank-N), else its next free sibling where out holds a run or is being written.
    features: a submodule (name, module, list or dict) whose output the losses share,
    taken by a forward hook. optimizer: each optimizer.step() records the step first.
    scaler: an AMP GradScaler (norms unscaled, scale and skips noted). criterion: the
    loss module the loop calls (its k-th call in a step is loss_names[k]), or a dict of
    names to loss modules: their outputs are the step's losses, with no watch.losses()
    line. Every failure of the watch's own is one `gradviz:` line on stderr;
    strict=True raises WatchError."""
    return Watch(model, out, every, write_every, features=features, optimizer=optimizer,
                 scaler=scaler, criterion=criterion, loss_names=loss_names,
                 overwrite=overwrite, strict=strict)
