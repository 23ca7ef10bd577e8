"""A training session that runs phase by phase: zero_grad, forward, each backward call,
optimizer step. Between phases its state can be looked at (the graph, the records).

PyTorch errors and divergence never escape: they become Events, the step is abandoned
(gradients put back as they were) and the session can go on after a toggle or reset.
"""
from __future__ import annotations

from collections.abc import Generator, Iterator
from typing import cast

import torch
from torch import nn

from ..plain.config.config import Config, validate
from ..plain.graph.graph_data import GraphData
from ..plain.graph.walk_cache import WalkCache
from ..plain.records import events as ev
from ..plain.records.records import BackwardRecord, PhaseRecord, StepRecord
from .autograd_walk import storage_key
from .data import make_data
from .devices import other_device, resolve_device
from .forward import Carried, LiveGraph
from .graph import capture
from .kept_graphs import KeptGraphs
from .model import MultiHeadNet
from .model_file import RAISED_BY_USER, ModelFile, ModelFileError, ModelSpec
from .module_calls import call_records
from .node_grads import NodeGradProbe
from .probes import JunctionProbe
from .sgd import PlainSGD
from .spec_model import SpecBatches, SpecNet
from .step_failed import StepFailed as _StepFailed
from .step_finish import StepFinish
from .step_plan import StepConsts, StepPlan
from .strategies import GradSums, run_call
from .tap_probe import TapProbe
from .trunk_walks import TrunkWalks


class Session(StepFinish):
    def __init__(self, config: Config, model_file: ModelFile | None = None):
        """model_file: train the model a user's file builds instead of the built-in one
        (config.heads must be its head count; see core.model_file.check_config)."""
        self.model_file = model_file
        self.spec: ModelSpec | None = None
        self.config = validate(config)
        self.device = resolve_device(config.device)
        self.events: list[ev.Event] = []
        # (the model, its trunk's parameters, each head's): listed once per model
        self._param_lists: tuple[nn.Module, list, list[list]] | None = None
        # the app raises this while it trains as fast as it can (nobody reads every step
        # then) and drops it to 1 for single steps; the config's own value is the minimum
        self.sample_floor = 1
        # per node/edge gradients of the last backward for graph(): the GUI turns this on
        # while the graph is shown (probes="all" implies it); off costs nothing, no hooks.
        # Measured on sampled steps only (see _phases_of): hooking every node of every
        # step cost a fifth of the training speed at full pace.
        self.track_node_grads = False
        # which steps measure each parameter's gradient norm: "all" (a run of its own),
        # "sampled" (a pinned B, whose bars show the latest), "none" (gradviz compare
        # reads .grad itself): a second session must cost less than the first
        self.grad_norm_steps = "all"
        # each head's cosine with the trunk update: one more trunk walk a head (on the
        # bundled CNN more than the step's own training); off for gradviz compare, which
        # does not report it
        self.measure_update_cosine = True
        # ... on every sampled step that is also a multiple of this (probes="all": every
        # step). 1 where a person follows the steps (the app, a lesson's check); a
        # headless `gradviz run`, which samples every step by default, raises it
        self.update_cosine_every = 1
        self._node_grads = NodeGradProbe()
        self._uses_ranks = False   # this session started (or borrowed) the DDP ranks
        self.reset()

    # ---- lifecycle -------------------------------------------------------------
    def reset(self) -> None:
        """A fresh model, optimizer and data from the config's seed; step 0 again."""
        cfg = self.config
        torch.manual_seed(cfg.seed)
        self.model: MultiHeadNet | SpecNet
        self._taps_z: list[torch.Tensor] = []
        if self.model_file is not None:
            self._reset_from_file(self.model_file)
        else:
            self.model = MultiHeadNet(cfg.heads, cfg.trunk_width, cfg.trunk_depth,
                                      cfg.model, cfg.batch_norm).to(self.device)
            if cfg.misplace_head is not None:   # the device-mismatch lesson, on purpose
                self.model.heads[cfg.misplace_head].to(other_device(self.device))
            self.data = make_data(cfg.heads, cfg.seed).to(self.device)
        # what a forward or backward may raise and the step survive: a model file's code
        # (its modules, losses, custom autograd functions) anything; the built-in model
        # only what PyTorch does
        self._user_errors: tuple[type[BaseException], ...] = \
            (RuntimeError,) if self.spec is None else RAISED_BY_USER
        self.param_names = [n for n, _ in self.model.named_parameters()]
        self.params = [p for _, p in self.model.named_parameters()]
        self.param_sizes = tuple(p.numel() for p in self.params)
        self._param_storages = {storage_key(p) for p in self.params}
        # each head's layers, listed once (model._head builds every head as a Sequential)
        self._head_layers: list[tuple[nn.Module, ...]] = [] if self.spec is not None else [
            tuple(cast(nn.Sequential, head)) for head in self.model.heads]
        self.optimizer = self._make_optimizer()
        self._on_cuda = self.device.type == "cuda"   # the backward's clock waits for it
        self.step_index = 0
        self.error: ev.Event | None = None
        self.last_record: StepRecord | None = None
        self._phases: Generator[PhaseRecord, None, None] | None = None
        self._pending: Config | None = None
        self._grads_before: list | None = None
        self._live = LiveGraph()
        self._node_grads.release()
        # False after a finished step that skipped the per-node gradients graph() would
        # show (tracking on, step not sampled): the engine then measures one more
        self.node_grads_current = True
        self._kept = KeptGraphs()
        self._carried: Carried | None = None   # rnn: the hidden state between steps
        self._factors: list[float] = []
        self._consts: StepConsts | None = None   # the config's per-step constants
        self._walks = WalkCache()
        self.cache_walks = True   # False: walk the graph every time (tests compare)

    def _reset_from_file(self, model_file: ModelFile) -> None:
        """The model file's build(seed), checked, on the device: one more model the
        session trains exactly as the built-in one (core.spec_model)."""
        cfg = self.config
        spec = model_file.build(cfg.seed, cfg.batch_size)
        if len(spec.heads) != cfg.heads:
            raise ModelFileError(f"heads is {cfg.heads}, but the model file builds "
                                 f"{len(spec.heads)}")
        self.spec = spec
        self.model = SpecNet(spec).to(self.device)
        self.spec_batches = SpecBatches(model_file, spec, cfg.seed, self.device)

    def _make_optimizer(self) -> torch.optim.Optimizer | PlainSGD:
        if self.config.optimizer == "sgd":
            return PlainSGD(self.params, lr=self.config.lr)   # see core.sgd for why
        # foreach: every parameter updated by one call instead of a Python loop over them
        # (PyTorch's default on CUDA, not on the CPU): the same numbers bit for bit, and on
        # the CPU a third less time in Adam's step
        return torch.optim.Adam(self.params, lr=self.config.lr, foreach=True)

    def set_config(self, config: Config) -> bool:
        """Use config from the next step boundary; True if it needs (and did) a reset.

        A change that needs a fresh model (heads, trunk, seed, device) resets at once,
        dropping any step in progress; any other change made mid-step waits for the
        step in progress to finish. Raises ConfigError (nothing changed) if unusable.
        """
        config = validate(config)
        needs_reset = self.config.needs_reset(config)
        device = resolve_device(config.device) if needs_reset else self.device
        if self._phases is not None and not needs_reset:
            self._pending = config
            return False
        self._abandon_step()
        self._apply(config, device, needs_reset)
        return needs_reset

    def start_over(self, config: Config) -> None:
        """A fresh model at step 0 with config, built once whatever changed (a lesson's
        slide: set_config then reset built a model twice for a slide changing heads).
        Raises ConfigError (nothing changed) if unusable, and RuntimeError/MemoryError
        (the old config rebuilt) if the model cannot be built."""
        config = validate(config)
        device = resolve_device(config.device)
        self._abandon_step()
        self._apply(config, device, needs_reset=True)

    def _apply(self, config: Config, device: torch.device, needs_reset: bool) -> None:
        old, old_device = self.config, self.device
        self.config, self.device, self._pending = config, device, None
        if needs_reset:
            try:
                self.reset()
            # too big to allocate, or a model file's build() refusing the new seed or
            # heads: keep the old
            except (RuntimeError, MemoryError, ModelFileError):
                self.config, self.device = old, old_device
                self.reset()
                raise
            return
        if old.optimizer != config.optimizer:
            self.optimizer = self._make_optimizer()
        elif old.lr != config.lr:
            for group in self.optimizer.param_groups:
                group["lr"] = config.lr
        if not config.keep_graphs:
            self._kept.clear()
        self.error = None

    @property
    def pending_config(self) -> Config | None:
        """A config waiting for the step in progress to finish."""
        return self._pending

    @property
    def in_step(self) -> bool:
        return self._phases is not None

    # ---- running ---------------------------------------------------------------
    def advance_phase(self) -> PhaseRecord:
        """Do one phase (starting a step if none is in progress) and say what it was."""
        if self._phases is None:
            self._apply_pending()
            self._phases = self._step_phases()
        phase = next(self._phases)
        if phase.step_done or phase.event is not None:
            next(self._phases, None)  # let it return: closing it would abandon the step
            self._phases = None
        return phase

    def step(self) -> StepRecord | None:
        """Finish the step in progress (or do a whole one); None if it raised or diverged."""
        if self._phases is None:
            return self._quiet_step()
        while True:
            phase = self.advance_phase()
            if phase.event is not None:
                return None
            if phase.step_done:
                return self.last_record

    def _quiet_step(self) -> StepRecord | None:
        """A whole step that nobody follows phase by phase (Play at full speed, a pace,
        `gradviz run`): the same work in the same order, but no phase is described (only
        a failure comes out, as its event): describing four phases a step, and resuming
        the generators for each, was a few percent of the app's training."""
        self._apply_pending()
        self._phases = phases = self._step_phases(quiet=True)
        try:
            for _failed in phases:   # only a failure is yielded; the generator then ends
                return None
        finally:
            self._phases = None
        return self.last_record

    def _apply_pending(self) -> None:
        if self._pending is not None:
            self._apply(self._pending, self.device, False)

    def root_tensors(self) -> list[torch.Tensor]:
        """The live micro-batch's losses and backward targets (for torchviz's make_dot)."""
        return [r.tensor for r in self._live.roots]

    def graph(self, show_saved: bool = True) -> GraphData:
        """The graph of the current (or last) micro-batch as it is right now."""
        live = self._live
        grads = self._node_grads.norms() if self._node_grads.handle_count else None
        return capture(live.roots, zip(self.param_names, self.params), live.inputs,
                       live.cuts, show_saved, grads, (live.z_node, live.z),
                       call_records(live.calls))

    def _abandon_step(self) -> None:
        """Drop the step in progress, gradients put back as they were before it."""
        if self._phases is not None:
            self._phases.close()
            self._restore_grads()
        self._phases = None

    # ---- one step, as phases ---------------------------------------------------
    def _step_phases(self, quiet: bool = False) -> Generator[PhaseRecord, None, None]:
        """The step's phases, each yielded when done (quiet: none, only a failure)."""
        cfg, step = self.config, self.step_index
        # zero_grad off: .grad carries over, and backward adds into it in place, so a
        # failed step must be able to put back a copy
        self._grads_before = None if cfg.zero_grad else [
            None if p.grad is None else p.grad.clone() for p in self.params]
        self._live = LiveGraph()
        self._walks.new_step()
        self._node_grads.release()   # the previous step's graph may now be freed
        try:
            yield from self._phases_of(cfg, step, quiet)
        except _StepFailed as failed:
            self._restore_grads()
            self.error = failed.event
            self.events.append(failed.event)
            yield PhaseRecord(step, failed.event.phase, failed.event.title, event=failed.event)

    def _restore_grads(self) -> None:
        if self._grads_before is None:
            self.optimizer.zero_grad(set_to_none=True)
        else:
            for p, g in zip(self.params, self._grads_before):
                p.grad = None if g is None else g.clone()

    def _phases_of(self, cfg: Config, step: int, quiet: bool) -> Iterator[PhaseRecord]:
        consts = self._consts_of(cfg)
        probing = consts.probing
        # The graph walks and junction hooks are the costly probes: sampled, except that
        # keep graphs needs every step's graph counted as it is banked.
        every = max(cfg.sample_every, self.sample_floor)
        sampled = step % every == 0 or cfg.probes == "all"
        heavy = probing and sampled
        probe = JunctionProbe if self.spec is None else TapProbe
        update, effect = self._update_probes(cfg, step, every)
        plan = StepPlan(cfg, step, StepRecord(step, {}, 0.0),
                        probe(cfg.heads) if heavy else None, update, effect,
                        walk=heavy or (probing and cfg.keep_graphs),
                        node_grads=cfg.probes == "all" or (self.track_node_grads and sampled),
                        walks=TrunkWalks(self._on_cuda), consts=consts, quiet=quiet)
        if cfg.zero_grad:
            self.optimizer.zero_grad(set_to_none=True)
            if not quiet:
                yield PhaseRecord(step, "zero_grad", "optimizer.zero_grad()")
        micros = self._micro_batches(cfg, step)
        plan.micro_sizes = tuple(x.shape[0] for x, _ in micros)
        if cfg.accumulate_mode == "sum-first" and len(micros) > 1:
            yield from self._sum_first(plan, micros)
        else:
            for micro, batch in enumerate(micros):
                yield from self._micro_batch(plan, micro, batch, last=micro == len(micros) - 1)
        self._finish_step(plan, probing)
        if not quiet:
            yield PhaseRecord(step, "optimizer step", "optimizer.step()", step_done=True)

    def _micro_batch(self, plan: StepPlan, micro: int, batch: tuple,
                     last: bool) -> Iterator[PhaseRecord]:
        """Forward one micro-batch, then its backward calls (backward-each)."""
        cfg = plan.cfg
        phase = self._forward_phase(plan, micro, batch)
        if phase is not None:
            yield phase
        yield from self._backward_phases(plan, micro)
        self._clip(plan, "micro-batch")
        self._kept.keep_if_asked(cfg, self._live)
        if plan.walk and cfg.keep_graphs and not last:
            # replaced by the next micro-batch
            self._kept.bank(*self._measure(plan, ("banked", micro)))

    def _sum_first(self, plan: StepPlan, micros: list) -> Iterator[PhaseRecord]:
        """Forward every micro-batch, add their losses, backward once: N graphs alive."""
        last = len(micros) - 1
        for micro, batch in enumerate(micros):
            phase = self._forward_phase(plan, micro, batch, add_to_held=micro > 0,
                                        plan_backward=micro == last)
            if phase is not None:
                yield phase
        yield from self._backward_phases(plan, len(micros) - 1)
        self._clip(plan, "micro-batch")   # the one backward: after it, as per micro-batch
        self._kept.keep_if_asked(plan.cfg, self._live)

    def _forward_phase(self, plan: StepPlan, micro: int, batch: tuple,
                       add_to_held: bool = False,
                       plan_backward: bool = True) -> PhaseRecord | None:
        """Forward one micro-batch and plan the backward calls that follow it; with
        add_to_held, its graph joins the ones already held and its loss terms are added
        to theirs (sum-first accumulation). Its phase (None when the step is quiet)."""
        cfg, held = plan.cfg, self._live
        x, targets = batch
        plan.micro_losses.append(self._forward(cfg, plan.step, micro, x, targets,
                                               plan.junction, plan.update, plan.effect))
        live = self._live
        plan.walks.watch(live.trunk_first)
        plan.carried.append(self._carried_kind)
        if cfg.retain_grad and live.z is not None:   # forward() always sets z
            plan.z_tensors.extend(self._taps_z or [live.z])
        if add_to_held:
            fresh = live
            self._live = live = held.merged(fresh)
            live.terms = [a + b for a, b in zip(held.terms, fresh.terms)]
        if plan_backward:
            self._plan_backward(cfg, live, live.terms)
        if plan.node_grads:
            self._node_grads.watch(live.drawn_fns())
        else:
            self._node_grads.release()
        if plan.walk:
            _, kept_alive, tensors, _ = self._measure(plan, ("forward", micro))
            plan.peak = max(plan.peak, kept_alive)
            plan.peak_tensors = max(plan.peak_tensors, tensors)
        if plan.quiet:
            return None
        return PhaseRecord(plan.step, "forward", self._forward_detail(cfg, micro), micro)

    def _backward_phases(self, plan: StepPlan, micro: int) -> Iterator[PhaseRecord]:
        calls = self._live.backward_calls
        # autograd-grad: the loop's own sums, assigned to .grad after its last call
        sums = GradSums(self.params) if any(c.to_sums for c in calls) else None
        walks, last = plan.walks, len(calls) - 1
        for i, call in enumerate(calls):
            self._node_grads.begin_backward()   # keep only the last backward's
            started = walks.start()
            try:
                run_call(call, sums)
                if sums is not None and i == last:
                    sums.assign()
            except self._user_errors as exc:
                label = self._backward_label(i, calls)
                raise _StepFailed(self._event(exc, plan.step, "backward", label)) from exc
            walks.stop(started)
            plan.record.backward_calls.append(BackwardRecord(micro, call.loss, call.retain))
            if not plan.quiet:
                yield PhaseRecord(plan.step, "backward", f"{self._backward_label(i, calls)} "
                                  f"(retain_graph={call.retain})", micro)

    @staticmethod
    def _backward_label(i: int, calls: list) -> str:
        return f"backward {i + 1} of {len(calls)}: {calls[i].loss}"
