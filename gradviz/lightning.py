"""gradviz.lightning.WatchCallback: gradviz.watch for a Lightning Trainer, no loop to edit.

    trainer = Trainer(callbacks=[WatchCallback(out="runs/exp1", features="trunk")])

The LightningModule's training_step returns {"loss": total, "losses": {name: 0-dim
tensor, ...}} (optionally "loss_weights": {name: weight}, as watch.losses' weights=):
"loss" is what Lightning backpropagates, "losses" what the watch records by name.

Where each call goes, and why (Lightning 2.x, automatic optimization):

- The watch is made at on_fit_start, on the LightningModule: the strategy has moved it
  to its device by then and set up torch.distributed (a rank-N folder per process).
- The named losses must reach the watch before backward, but no callback hook sees
  training_step's output before it: Lightning's closure runs training_step, then
  backward (on_before_backward is handed the loss tensor alone), and on_train_batch_end
  comes after the optimizer step. So for the fit the module's training_step is
  wrapped (an attribute on the instance, removed at the fit's end): the wrapper calls
  the user's training_step, hands its "losses" to watch.losses and returns the output
  untouched. functools.wraps keeps the signature Lightning inspects (batch_idx,
  dataloader_iter).
- The step is recorded at on_before_optimizer_step, which Lightning calls once per
  optimizer step, after the last micro-batch's backward (accumulate_grad_batches: each
  micro-batch is one losses() call) and before gradient clipping and the step: the
  norms recorded are those backward left. Not by watch's optimizer= (a step pre-hook):
  Lightning passes its closure to optimizer.step, so the hook would run before the
  step's training_step.
- on_fit_end closes the watch ("finished"); on_exception ends it with the exception
  (Ctrl+C: "SIGINT (Ctrl+C)"), as a with block's end does.

A guest in the user's fit, as gradviz.watch is: its own failures are one `gradviz:`
line each (strict=True raises gradviz.WatchError), and the fit's numbers are bit-equal
to an unwatched one's.
"""
from __future__ import annotations

import functools
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from lightning.pytorch import Callback, LightningModule, Trainer

from .core.watch import DEFAULT_EVERY, Watch
from .plain.run_files.watch_end import exception_end
from .plain.watch.watch_complaints import Complaints, WatchError

_NONE = object()   # no instance attribute
LOSSES_KEY = "losses"
WEIGHTS_KEY = "loss_weights"

__all__ = ["WatchCallback"]


class WatchCallback(Callback):
    """Records a Lightning fit into the folder out, as gradviz.watch records a loop:
    features (a submodule's name, the module, or a list or dict of them), every,
    write_every, overwrite and strict mean what they mean there. `watch` is the Watch
    while the fit runs (None before and after)."""

    def __init__(self, out: str | Path, features: object = None, every: int = DEFAULT_EVERY,
                 write_every: float = 0.0, *, overwrite: bool = False, strict: bool = False):
        super().__init__()
        self.out, self.features, self.every = out, features, every
        self.write_every, self.overwrite, self.strict = write_every, overwrite, strict
        self.watch: Watch | None = None
        self._say = Complaints(strict)
        self._module: LightningModule | None = None
        self._had: object = _NONE   # the module's own instance training_step, if any
        self._calls = 0   # losses() calls since the last recorded step

    def on_fit_start(self, trainer: Trainer, pl_module: LightningModule) -> None:
        if not pl_module.automatic_optimization:
            # training_step then runs backward and the optimizer itself, so its output
            # comes too late for the push; gradviz.watch in training_step records it
            self._say("manual", "WatchCallback records automatic optimization only; with "
                      "automatic_optimization = False call gradviz.watch's losses() and "
                      "step() in training_step; this fit is not recorded")
            return
        self.watch = Watch(pl_module, self.out, self.every, self.write_every,
                           features=self.features, overwrite=self.overwrite,
                           strict=self.strict)
        self._calls = 0
        self._wrap(pl_module)

    def _wrap(self, pl_module: LightningModule) -> None:
        step = pl_module.training_step

        @functools.wraps(step)
        def training_step(*args: Any, **kwargs: Any) -> Any:
            output = step(*args, **kwargs)
            self._take(output)
            return output

        # an instance attribute: the class, and every other instance, keep their own;
        # one the module had already (set by its user) is put back at the end
        self._had = vars(pl_module).get("training_step", _NONE)
        object.__setattr__(pl_module, "training_step", training_step)
        self._module = pl_module

    def _take(self, output: object) -> None:
        """training_step's output, before Lightning's backward: its named losses to the
        watch (each call one micro-batch of the step)."""
        watch = self.watch
        if watch is None or output is None:   # None: Lightning skips the step
            return
        try:
            losses, weights = self._named(output)
            if losses is None:
                return
            watch.losses(losses, weights=weights)
            self._calls += 1
        except WatchError:
            raise
        except Exception as exc:   # the callback's own fault: never the user's fit's
            self._say("take", f"reading training_step's output failed ({exc!r}); the "
                      "training goes on")

    def _named(self, output: object) -> tuple[dict | None, dict | None]:
        if isinstance(output, Mapping) and isinstance(output.get(LOSSES_KEY), Mapping):
            weights = output.get(WEIGHTS_KEY)
            return dict(output[LOSSES_KEY]), (dict(weights) if isinstance(weights, Mapping)
                                              else None)
        loss = output.get("loss") if isinstance(output, Mapping) else output
        self._say("no-losses", f"training_step returned no {LOSSES_KEY!r} dict beside "
                  "'loss': the loss is recorded as one loss named 'loss'; return "
                  f"{{'loss': total, {LOSSES_KEY!r}: {{name: loss, ...}}}} to record "
                  "each loss and its push")
        return ({"loss": loss}, None) if loss is not None else (None, None)

    def on_before_optimizer_step(self, trainer: Trainer, pl_module: LightningModule,
                                 optimizer: Any) -> None:
        # a step whose training_step returned None (skipped) gave no losses: no record
        if self.watch is not None and self._calls:
            self._calls = 0
            self.watch.step()

    def on_fit_end(self, trainer: Trainer, pl_module: LightningModule) -> None:
        self._end({"how": "finished"})

    def on_exception(self, trainer: Trainer, pl_module: LightningModule,
                     exception: BaseException) -> None:
        self._end(exception_end(exception))

    def _end(self, ended: dict) -> None:
        module, self._module = self._module, None
        if module is not None and self._had is not _NONE:
            object.__setattr__(module, "training_step", self._had)
        elif module is not None and "training_step" in vars(module):
            object.__delattr__(module, "training_step")
        watch, self.watch = self.watch, None
        if watch is not None:
            watch.end(ended)
