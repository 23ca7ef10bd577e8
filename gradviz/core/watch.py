"""gradviz.watch: record the user's own training loop (losses, gradient norms, each
loss's push at the features, memory, the graph) into a run folder, as it runs, without
changing what it computes.

A guest in someone else's training: every failure of the watch's own (writing, a probe,
a call in the wrong place) becomes one `gradviz:` line on stderr and the loop goes on,
bit-equal to an unwatched one (strict=True raises WatchError instead, for tests).
"""
from __future__ import annotations

import contextlib
import errno
import subprocess
from collections.abc import Sequence
from pathlib import Path

import torch
from torch import nn

from ..plain import watch_exit
from ..plain.open_run import open_run
from ..plain.records import StepRecord
from ..plain.watch_claim import Claim, claim, release
from ..plain.watch_complaints import Complaints, WatchError
from ..plain.watch_end import exception_end
from ..plain.watch_metrics import write_metrics
from ..plain.watch_stream import DISK_FULL, StreamWriter
from .grad_fingerprint import GradFingerprint
from .watch_amp import ScalerState, caller_frame, scaler_in_callers
from .watch_features import FeatureHooks
from .watch_graph import saved_memory, step_graph
from .watch_losses import LossNames, batch_size_problem, call_weights, scalar_values
from .watch_probe import feature_list, gathered, junction_gram, number_dtype
from .watch_ranks import rank_and_world, unwrapped
from .watch_record import global_norm, step_record, unscaled
from .watch_step import StepCalls

DEFAULT_EVERY = 20   # per-loss push, cosines, memory and the graph: every this many steps
# steps.jsonl's lines: by default each written before step() returns, so that a killed
# script keeps every finished step; write_every=S (seconds) has a thread write them a
# block at a time every S seconds (and the rest when the watch is closed), which costs
# the loop less (the default MLP's: docs/benchmarks.md, 4 December 2026) and loses the
# steps of the last S seconds before a kill
WRITE_BLOCKS_S = 0.1   # a block's spacing that docs and benchmarks name
_item, _floating = torch.Tensor.item, torch.Tensor.is_floating_point
_FREED = ("backward through the graph a second time", "already been freed")

__all__ = ["Watch", "WatchError", "watch"]


class Watch:
    """One watched loop: `watch = gradviz.watch(...)` ... `watch.close()`, or a with
    block (see watch())."""

    def __init__(self, model: nn.Module, out: str | Path, every: int = DEFAULT_EVERY,
                 write_every: float = 0.0, *, features: object = None,
                 optimizer: object = None, scaler: torch.amp.GradScaler | None = None,
                 overwrite: bool = False, strict: bool = False):
        self._say = Complaints(strict)
        self.steps = 0
        self._writer: StreamWriter | None = None
        self._stopped_writer: StreamWriter | None = None   # recording stopped early
        self._claim: Claim | None = None
        self._names = LossNames()
        self._all: list[int] = []               # the run's loss indices, in order
        self._numbers_key: tuple | None = None  # the writer's key for an unsampled line
        self._last_graph_key: tuple | None = None
        self._last_call = ""                    # "losses" or "step": the call before
        self._ended = False
        self._step_calls = StepCalls()
        self._feature_modules: dict[str, nn.Module] = {}
        self.every, self._scaler = DEFAULT_EVERY, None
        problem = _argument_problem(model, every, write_every, scaler, optimizer)
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
        self._hooks = FeatureHooks(unwrapped(model))
        if features is not None:
            try:
                self._feature_modules = self._hooks.watch(features)   # type: ignore[arg-type]
            except ValueError as exc:
                self._say("features-name", f"{exc}; no push is recorded")
        self._step_hooks = [opt.register_step_pre_hook(self._before_optimizer_step)
                            for opt in _optimizers(optimizer)]
        self._open(model, float(write_every), overwrite)

    def _before_optimizer_step(self, optimizer, args, kwargs) -> None:
        """optimizer=: each optimizer.step() records the step first (returns None:
        the step is the optimizer's own). A step with no losses() since the last one
        (the other optimizer of a GAN stepping) records nothing and says nothing."""
        if self._step_calls.calls:
            self.step()

    def _open(self, model: nn.Module, write_every: float, overwrite: bool) -> None:
        try:
            self._claim = claim(self.out, self.rank, overwrite)
            if self._claim.why_moved:
                self._say("moved", f"{self._claim.why_moved}: this run is written to "
                          f"{self._claim.out} instead (overwrite=True replaces a run "
                          "that is not being written)")
            self.out, self.folder = self._claim.out, self._claim.folder
            self._writer = StreamWriter(self.folder, {
                "model": type(unwrapped(model)).__name__, "device": str(self.device),
                "param_names": self._param_names, "every": self.every,
                "rank": self.rank, "world_size": self.world_size,
                "amp": self._scaler is not None}, every_s=write_every).open()
        except OSError as exc:
            self._say("open", f"cannot write the run folder {self.out} "
                      f"({exc.strerror or exc}): this run is not recorded (the training "
                      "goes on); give watch an out folder it can write")
            self._writer = None
            if self._claim is not None:
                release(self._claim.lock)
            self._ended = True
            return
        watch_exit.register(self)

    @property
    def sampled(self) -> bool:
        """Whether this step measures the push, cosines, memory and graph."""
        return self.steps % self.every == 0

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
        if hasattr(self, "_hooks"):
            self._hooks.remove()
        for handle in getattr(self, "_step_hooks", []):
            handle.remove()
        writer, self._writer = self._writer, None
        if writer is None and self._stopped_writer is not None:
            with contextlib.suppress(OSError):   # recording stopped: the header only
                self._stopped_writer.close(self.steps, ended)
        if writer is None and self._claim is not None:
            release(self._claim.lock)
        if writer is not None:
            try:
                writer.close(self.steps, ended)
                write_metrics(self.folder)   # the steps as a table, as `gradviz run`'s
            except OSError as exc:
                self._writer = writer   # to say in its header why recording stopped
                self._write_failed(exc, at_close=True)
            finally:
                if self._claim is not None:
                    release(self._claim.lock)
        if ended.get("how") != "finished":   # a step cut short by an error is no misuse
            return
        if self._step_calls.calls:
            self._say("no-step", f"watch.losses() was called {self._step_calls.calls} "
                      "time(s) after "
                      "the last watch.step(): those losses are not recorded; call "
                      "watch.step() after backward in each step")
        elif not self.steps and writer is not None:
            self._say("no-step", "no step was recorded: call watch.losses({...}) before "
                      "backward and watch.step() after it in each step")

    def flush(self) -> None:
        """Write every finished step's line now (with write_every above 0 they are
        otherwise written every write_every seconds, and when the watch is closed)."""
        if self._writer is None:
            return
        try:
            self._writer.flush()
        except OSError as exc:
            self._write_failed(exc)

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
            self._numbers_key = None if self._writer is None else \
                self._writer.numbers_key(self._names.names, self._param_names)
        if isinstance(values, tuple):
            return self._refused(values)
        if isinstance(call_w, tuple):
            return self._refused(call_w)
        size = batch_size if isinstance(batch_size, int) else None
        self._step_calls.add(index, values, call_w, size)
        self._last_call = "losses"
        if self.steps % self.every == 0:
            given = self._features_of(features)
            self._sample(losses, index, call_w, given, features is not None)
        return None

    def _refused(self, problem: tuple[str, str]) -> None:
        self._say("losses-" + problem[0], problem[1] + "; this call is not recorded (the "
                  "training goes on)")

    def _features_of(self, features: object) -> list[torch.Tensor]:
        """The features the push is measured at: the call's, or the hooked modules'."""
        if isinstance(features, (str, nn.Module)) or (
                isinstance(features, (list, tuple, dict)) and features and all(
                    isinstance(v, (str, nn.Module)) for v in (
                        features.values() if isinstance(features, dict) else features))):
            hooked = self._hooks.take(self._hooks.watch(features))
            return feature_list(hooked)
        if features is None and self._feature_modules:
            return feature_list(self._hooks.take(self._feature_modules))
        return feature_list(features)   # type: ignore[arg-type]  # refused there

    def _sample(self, losses: dict, index: list[int], weights: list | None,
                given: list[torch.Tensor], named: bool) -> None:
        """The sampled numbers (the push, memory, the graph); each failure one line,
        the step's other numbers still recorded."""
        tensors = list(losses.values())
        try:
            if (named or self._feature_modules) and not given:
                self._say("features-grad", "the features given to watch.losses() do not "
                          "require grad: no loss can push on them, so no push is recorded")
            if given:
                gram = junction_gram(tensors, given, self.dtype)
                if gram is None:
                    self._say("features-reach", "no loss reaches the features given to "
                              "watch.losses(): pass the tensor the heads read (the "
                              "trunk's output); no push is recorded")
                else:
                    if weights is not None:   # the weighted terms: what is backpropagated
                        w = torch.stack([torch.as_tensor(x, dtype=gram.dtype)
                                         .to(gram.device) for x in weights])
                        gram = gram * w[:, None] * w[None, :]
                    self._step_calls.grams.append((index, gram))
            held, own, self._step_calls.nodes, fingerprint = saved_memory(
                tensors, self._tensors, given)
        except RuntimeError as exc:
            if any(words in str(exc) for words in _FREED):
                self._say("after-backward", "watch.losses() came after backward (the "
                          "step's graph was already freed): call watch.losses before "
                          "backward; this step's push and memory are not recorded")
            else:
                self._say("probe", f"measuring the push at step {self.steps} failed "
                          f"({str(exc).splitlines()[0][:200]}); not recorded on that step")
            return
        self._step_calls.saved.append(held)
        self._step_calls.own.append(own)
        if self._step_calls.calls == 1 and fingerprint != self._last_graph_key:
            self._last_graph_key = fingerprint
            graph = step_graph(losses, self.params, given)
            if self._writer is not None:
                self._writer.add_graph(self.steps, graph.to_dict())

    def step(self) -> StepRecord | None:
        """After the user's backward, before optimizer.step(): record the step (its
        gradients as they are now) and start the next. Returns what was recorded, or
        None where nothing was (said why, once)."""
        if self._ended:
            return None
        try:
            return self._step()
        except WatchError:
            raise
        except OSError as exc:
            self._write_failed(exc)
        except Exception as exc:   # the watch's own fault: never the user's loop's
            self._say("step", f"watch.step() failed at step {self.steps} ({exc!r}); the "
                      "training goes on")
        self.steps += 1
        self._step_calls = StepCalls()
        return None

    def _step(self) -> StepRecord | None:
        calls = self._step_calls
        if not calls.calls:
            self._say_no_losses()
            self.steps += 1
            self._last_call = "step"
            return None
        self._last_call = "step"
        self._names.fixed = True
        grads = [p.grad for p in self._tensors]
        present = [g for g in grads if g is not None]
        norms = torch._foreach_norm(present) if present else []
        if calls.calls == 1 and len(present) == len(grads) and not calls.grams and \
                not calls.saved and self._numbers_key is not None and \
                self._scaler is None and not calls.weighted and \
                len(calls.values) == len(self._names.names):
            return self._usual(calls.values, norms)
        record = self._sampled(calls, grads, norms, len(present) == len(grads))
        if self._writer is not None:
            self._writer.add_step(record, calls.calls)
            if self.steps % self.every == 0 and self._writer.gone():
                self._write_failed(OSError(errno.ENOENT, "the folder was removed"))
        self.steps += 1
        self._step_calls = StepCalls()
        return record

    def _sampled(self, calls: StepCalls, grads: list, norms: Sequence[torch.Tensor],
                 complete: bool) -> StepRecord:
        """A step other than the usual one: several calls, weights, the push, AMP."""
        k = len(self._names.names)
        scale = self._scaler.scale_tensor() if self._scaler is not None else None
        learned = calls.tensors()
        scalars = [*calls.values, *learned, *norms] + ([] if scale is None else [scale])
        gram, measured = calls.gram(k, self.device, self.dtype)
        # a sampled step: each gradient's fingerprint too, so that ranks compare their
        # gradients, not only their norms (a gradient with its sign flipped has the
        # same norm)
        prints = self._fingerprint(grads) if self.steps % self.every == 0 else None
        numbers = gathered(scalars, gram, self.device, prints).tolist()   # one transfer
        at = iter(numbers)
        values = [next(at) for _ in calls.values]
        learned_at = iter([next(at) for _ in learned])
        weights = [next(learned_at) if isinstance(w, torch.Tensor) else w
                   for w in calls.weights]
        norm_values = [next(at) for _ in norms]
        scale_value = None if scale is None else next(at)
        gram_values = [next(at) for _ in range(k * k)] if gram is not None else []
        printed = list(at)
        losses, total, loss_weights = calls.combine(values, weights, k)
        record = step_record(self.steps, self._names.names, self._param_names, losses,
                             total, norm_values, grads, complete, gram_values, measured)
        if loss_weights is not None:
            record.loss_weights = dict(zip(self._names.names, loss_weights))
        if calls.saved:
            record.saved_bytes, record.saved_bytes_peak = calls.saved[-1], max(calls.saved)
            record.saved_tensor_bytes = calls.own[-1]
            record.saved_tensor_bytes_peak = max(calls.own)
            record.graph_nodes = calls.nodes
        if prints is not None:
            record.grad_fingerprint = self._fingerprint.named(printed, grads)
        if scale_value is not None:
            record = self._as_unscaled(record, scale_value)
        elif self.steps % self.every == 0 and self._scaler is None:
            self._look_for_scaler()
        return record

    def _usual(self, values: list, norms: Sequence[torch.Tensor]) -> StepRecord:
        """The usual step (one losses() call naming every loss, every parameter with a
        .grad, not sampled), recorded, and handed to the writer as plain numbers,
        formatted later."""
        if values[0].is_cpu and (not norms or norms[0].is_cpu) and \
                all(map(_floating, values)):
            # on the CPU each number read alone is cheaper than one stack and its
            # read (no transfer to save); item() and tolist() give the same floats
            # (an integer value is promoted by the stack: read there, as before)
            numbers = [*map(_item, values), *map(_item, norms)]
        else:   # the step's one transfer
            numbers = gathered([*values, *norms], None, self.device).tolist()
        names = self._names.names
        k = len(names)
        losses, norm_values = numbers[:k], numbers[k:]
        total = sum(losses)   # as sum(record.losses.values()) adds them
        whole = global_norm(norm_values)
        record = StepRecord(step=self.steps, losses=dict(zip(names, losses)), total=total,
                            grad_norms=dict(zip(self._param_names, norm_values)),
                            global_grad_norm=whole)
        writer = self._writer
        if writer is not None:
            if whole is None or self._numbers_key is None:
                writer.add_step(record, 1)
            else:
                writer.add_numbers(self._numbers_key, self.steps, numbers, total, whole, 1)
        self.steps += 1
        self._step_calls = StepCalls()   # nothing else was set: not sampled
        return record

    def _say_no_losses(self) -> None:
        if self._last_call == "step":
            self._say("step-twice", f"watch.step() was called again at step {self.steps} "
                      "without watch.losses() since the last one: call watch.step() once "
                      "per optimizer step, after its losses() and backward; this step is "
                      "not recorded")
        elif self._last_call != "losses":
            self._say("step-first", "watch.step() came before any watch.losses(): call "
                      "watch.losses({...}) before backward in each step; this step is "
                      "not recorded")

    def _as_unscaled(self, record: StepRecord, scale: float) -> StepRecord:
        assert self._scaler is not None
        norm = record.global_grad_norm
        if self._scaler.unscaled():
            return unscaled(record, 1.0, self._scaler.found_inf()) if scale else record
        skipped = norm is None or not norm - norm == 0.0   # an inf or a NaN: skipped
        return unscaled(record, scale, skipped)

    def _look_for_scaler(self) -> None:
        """A GradScaler in the user's loop that the watch was not told of: its norms
        are the scaled ones, so say so (once)."""
        if "scaled" in self._say.said:
            return
        scaler = scaler_in_callers(caller_frame(3))
        if scaler is not None:
            self._say("scaled", f"the gradients look scaled by a GradScaler (scale "
                      f"{scaler.get_scale():g}): the norms recorded are the scaled ones; "
                      "pass gradviz.watch(..., scaler=scaler) to record them unscaled")

    def _write_failed(self, exc: OSError, at_close: bool = False) -> None:
        """Recording stops (the training goes on): one line that says why and what to
        do; the folder, where it still exists, says after which step."""
        folder = getattr(self, "folder", self.out)
        if exc.errno in DISK_FULL:
            kind, why = "disk", f"the disk holding {folder} is full"
            todo = "its steps so far are kept; free some space for the next run"
        elif exc.errno == errno.ENOENT or not folder.is_dir():
            kind, why = "removed", f"the run folder {folder} was removed"
            todo = "the steps written before are gone with it"
        else:
            kind, why = "write", f"writing {folder} failed ({exc.strerror or exc})"
            todo = "the steps written before are kept"
        when = ("at the end" if at_close else f"when step {self.steps} was written"
                if kind == "removed" else f"after step {self.steps - 1}")
        self._say(kind, f"{why}: recording stopped {when} (the training goes on); {todo}")
        writer, self._writer = self._writer, None
        if writer is not None:
            writer.abandon(self.steps, why)
            self._stopped_writer = writer   # its header still says how the run ends


def _optimizers(optimizer: object) -> list:
    if optimizer is None:
        return []
    return list(optimizer) if isinstance(optimizer, (list, tuple)) else [optimizer]


def _argument_problem(model: object, every: object, write_every: object,
                      scaler: object, optimizer: object) -> str | None:
    if not isinstance(model, nn.Module):
        return f"watch's model must be a torch.nn.Module, not {type(model).__name__}"
    if isinstance(every, bool) or not isinstance(every, int) or every < 1:
        return f"watch's every must be a whole number >= 1, not {every!r}"
    if isinstance(write_every, bool) or not isinstance(write_every, (int, float)) \
            or not 0 <= write_every <= 60:
        return f"watch's write_every must be seconds from 0 to 60, not {write_every!r}"
    if scaler is not None and not isinstance(scaler, torch.amp.GradScaler):
        return f"watch's scaler must be a torch.amp.GradScaler, not {type(scaler).__name__}"
    bad = next((o for o in _optimizers(optimizer)
                if not isinstance(o, torch.optim.Optimizer)), None)
    if bad is not None:
        return (f"watch's optimizer must be a torch.optim.Optimizer (or a list of them), "
                f"not {type(bad).__name__}")
    return None


def watch(model: nn.Module, out: str | Path, every: int = DEFAULT_EVERY,
          write_every: float = 0.0, *, features: object = None, optimizer: object = None,
          scaler: torch.amp.GradScaler | None = None, overwrite: bool = False,
          strict: bool = False) -> Watch:
    """Watch a training loop: `watch = gradviz.watch(model, out="runs/exp1")` (or `with
    gradviz.watch(...) as watch:`), then each step watch.losses({...}, features=z) before
    backward and watch.step() after it, before optimizer.step(); watch.close() at the
    end (or the with block's end; an unclosed watch is closed at interpreter exit).

    Writes out (out/rank-N under torch.distributed); where out holds a run already, or
    another process writes it, the next free sibling (out-1, out-2...) instead, said in
    one line (overwrite=True replaces a run that is not being written). Each step's line
    is written before step() returns, so a killed script keeps every finished step; with
    write_every=S (seconds) a thread writes them a block at a time every S seconds.
    features: a submodule (its name, e.g. "encoder", or the module; or a list or dict
    of them) whose output is the features the losses share, taken by a forward hook
    each step (no model edit), where losses() is given none.
    optimizer: an optimizer (or a list): each optimizer.step() records the step just
    before it runs, so the loop needs no watch.step() (a step pre-hook; the optimizer's
    step itself is unchanged).
    scaler: the torch.amp.GradScaler of a mixed-precision loop (norms recorded
    unscaled, the scale and skipped steps noted). Every failure of the watch's own is
    one `gradviz:` line on stderr and the training goes on; strict=True raises
    gradviz.WatchError instead."""
    return Watch(model, out, every, write_every, features=features, optimizer=optimizer,
                 scaler=scaler, overwrite=overwrite, strict=strict)
