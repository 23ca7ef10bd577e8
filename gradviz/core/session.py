"""A training session that runs phase by phase: zero_grad, forward, each backward call,
optimizer step. Between phases its state can be looked at (the graph, the records).

PyTorch errors and divergence never escape: they become Events, the step is abandoned
(gradients put back as they were) and the session can go on after a toggle or reset.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Iterator

import torch

from . import events as ev
from .autograd_walk import held_saved_bytes, reachable_nodes, storage_key
from .config import Config, validate
from .data import make_data
from .devices import resolve_device
from .graph import LOSS, TOTAL, Cut, GraphData, Root, capture
from .model import MultiHeadNet, head_loss
from .probes import JunctionProbe, grad_norms, junction_summary
from .records import BackwardRecord, PhaseRecord, StepRecord
from .strategies import BackwardCall, backward_calls


@dataclass
class _Live:
    """The autograd state of the micro-batch in progress (held for inspection)."""
    x: torch.Tensor | None = None
    z_node: object = None
    roots: list[Root] = field(default_factory=list)
    cuts: list[Cut] = field(default_factory=list)
    terms: list[torch.Tensor] = field(default_factory=list)        # weighted losses
    backward_calls: list[BackwardCall] = field(default_factory=list)
    nodes: list[object] | None = None    # the graph's nodes, once walked (backward adds none)

    def grad_fns(self) -> list[object]:
        # Not z_node: after z.detach_() nothing but this object would keep the trunk's
        # graph alive, and a training loop would already have freed it.
        return [r.tensor.grad_fn for r in self.roots]


class _StepFailed(Exception):
    def __init__(self, event: ev.Event):
        self.event = event


class Session:
    def __init__(self, config: Config):
        self.config = validate(config)
        self.device = resolve_device(config.device)
        self.events: list[ev.Event] = []
        self.reset()

    # ---- lifecycle -------------------------------------------------------------
    def reset(self) -> None:
        """A fresh model, optimizer and data from the config's seed; step 0 again."""
        cfg = self.config
        torch.manual_seed(cfg.seed)
        self.model = MultiHeadNet(cfg.heads, cfg.trunk_width, cfg.trunk_depth).to(self.device)
        self.data = make_data(cfg.heads, cfg.seed).to(self.device)
        self.param_names = [n for n, _ in self.model.named_parameters()]
        self.params = [p for _, p in self.model.named_parameters()]
        self._param_storages = {storage_key(p) for p in self.params}
        # each head's layers after its first (slicing a Sequential builds a new module)
        self._head_rest = [tuple(head)[1:] for head in self.model.heads]
        self.optimizer = self._make_optimizer()
        self.step_index = 0
        self.error: ev.Event | None = None
        self.last_record: StepRecord | None = None
        self._phases: Iterator[PhaseRecord] | None = None
        self._live = _Live()
        self._running: torch.Tensor | None = None   # keep graphs: the leaked running loss
        self._kept_nodes = self._kept_bytes = 0

    def _make_optimizer(self) -> torch.optim.Optimizer:
        cls = torch.optim.SGD if self.config.optimizer == "sgd" else torch.optim.Adam
        return cls(self.params, lr=self.config.lr)

    def set_config(self, config: Config) -> bool:
        """Use config from the next step boundary; True if that needs (and did) a reset.

        Called mid-step, the step in progress is abandoned first.
        """
        config = validate(config)
        needs_reset = self.config.needs_reset(config)
        if needs_reset:
            self.device = resolve_device(config.device)
        self._abandon_step()
        old, self.config = self.config, config
        if needs_reset:
            self.reset()
        elif (old.optimizer, old.lr) != (config.optimizer, config.lr):
            if old.optimizer != config.optimizer:
                self.optimizer = self._make_optimizer()
            else:
                for group in self.optimizer.param_groups:
                    group["lr"] = config.lr
        if not config.keep_graphs:
            self._running, self._kept_nodes, self._kept_bytes = None, 0, 0
        self.error = None
        return needs_reset

    @property
    def in_step(self) -> bool:
        return self._phases is not None

    # ---- running ---------------------------------------------------------------
    def advance_phase(self) -> PhaseRecord:
        """Do one phase (starting a step if none is in progress) and say what it was."""
        if self._phases is None:
            self._phases = self._step_phases()
        phase = next(self._phases)
        if phase.step_done or phase.event is not None:
            next(self._phases, None)  # let it return: closing it would abandon the step
            self._phases = None
        return phase

    def step(self) -> StepRecord | None:
        """Finish the step in progress (or do a whole one); None if it raised or diverged."""
        while True:
            phase = self.advance_phase()
            if phase.event is not None:
                return None
            if phase.step_done:
                return self.last_record

    def graph(self, show_saved: bool = True) -> GraphData:
        """The graph of the current (or last) micro-batch as it is right now."""
        live = self._live
        return capture(live.roots, zip(self.param_names, self.params),
                       {"x (input)": live.x} if live.x is not None else {}, live.cuts,
                       show_saved)

    def _abandon_step(self) -> None:
        if self._phases is not None:
            self._phases.close()
        self._phases = None

    # ---- one step, as phases ---------------------------------------------------
    def _step_phases(self) -> Iterator[PhaseRecord]:
        cfg, step = self.config, self.step_index
        saved_grads = None if cfg.zero_grad else [p.grad for p in self.params]
        self._live = _Live()
        try:
            yield from self._phases_of(cfg, step)
        except _StepFailed as failed:
            self._restore_grads(saved_grads)
            self.error = failed.event
            self.events.append(failed.event)
            yield PhaseRecord(step, failed.event.phase, failed.event.title, event=failed.event)
        except GeneratorExit:
            self._restore_grads(saved_grads)
            raise

    def _restore_grads(self, saved: list | None) -> None:
        if saved is None:
            self.optimizer.zero_grad(set_to_none=True)
        else:
            for p, g in zip(self.params, saved):
                p.grad = None if g is None else g.clone()

    def _phases_of(self, cfg: Config, step: int) -> Iterator[PhaseRecord]:
        probing = cfg.probes != "none"
        # The graph walks and junction hooks are the costly probes: sampled, except that
        # keep graphs needs every step's graph counted as it is banked.
        heavy = probing and (step % cfg.sample_every == 0 or cfg.probes == "all")
        walk = heavy or (probing and cfg.keep_graphs)
        junction = JunctionProbe(cfg.heads) if heavy else None
        record = StepRecord(step, {}, 0.0)
        peak = 0
        if cfg.zero_grad:
            self.optimizer.zero_grad(set_to_none=True)
            yield PhaseRecord(step, "zero_grad", "optimizer.zero_grad()")
        indices = self.data.batch_indices(step, cfg.batch_size).to(self.device)
        micro_losses: list[list[torch.Tensor]] = []   # per micro-batch, per head (0-dim)
        micro_idx = indices.chunk(cfg.accumulate) if cfg.accumulate > 1 else (indices,)
        for micro, idx in enumerate(micro_idx):
            micro_losses.append(self._forward(cfg, step, micro, idx, junction))
            if walk:
                peak = max(peak, self._measure()[1])
            yield PhaseRecord(step, "forward", self._forward_detail(cfg, micro), micro)
            calls = self._live.backward_calls
            for i, call in enumerate(calls):
                label = f"backward {i + 1} of {len(calls)}: {call.loss}"
                try:
                    call.target.backward(retain_graph=call.retain)
                except RuntimeError as exc:
                    raise _StepFailed(ev.from_exception(exc, step, "backward", label))
                record.backward_calls.append(BackwardRecord(micro, call.loss, call.retain))
                yield PhaseRecord(step, "backward",
                                  f"{label} (retain_graph={call.retain})", micro)
            self._keep_graph_if_asked(cfg)
        self._measure_step(cfg, record, micro_losses, junction, probing)
        if not all(math.isfinite(v) for v in record.losses.values()):
            raise _StepFailed(ev.divergence(step, "optimizer step", "before optimizer.step()",
                                            "a loss is NaN or infinite"))
        self.optimizer.step()
        if walk:
            nodes, now = self._measure()
            record.saved_bytes = now + self._kept_bytes
            record.saved_bytes_peak = max(peak, now) + self._kept_bytes
            record.graph_nodes = nodes + self._kept_nodes
            if cfg.keep_graphs:  # this step's graph now stays alive for good
                self._kept_nodes += nodes + cfg.heads  # + the adds of `running += total`
                self._kept_bytes += now
        if cfg.probes == "all":
            record.graph = self.graph()
        self.step_index += 1
        self.last_record = record
        yield PhaseRecord(step, "optimizer step", "optimizer.step()", step_done=True)

    def _forward(self, cfg: Config, step: int, micro: int, idx: torch.Tensor,
                 junction: JunctionProbe | None) -> list[torch.Tensor]:
        """Forward one micro-batch; sets up the live graph and its backward calls."""
        x = self.data.x.index_select(0, idx)                 # (micro, INPUT_DIM)
        try:
            z = self.model.trunk(x)                          # (micro, width): the junction
            live = _Live(x=x, z_node=z.grad_fn)
            firsts, outputs = [], []
            for k, head in enumerate(self.model.heads):
                zk = z
                if k in cfg.detach:
                    live.cuts.append(Cut(k, cfg.detach_mode, live.z_node, None))
                    if cfg.detach_mode == "detach":
                        zk = z.detach()
                    else:
                        z.detach_()                          # in place: every later head too
                first = head[0](zk)
                out = first
                for layer in self._head_rest[k]:
                    out = layer(out)
                firsts.append(first)
                outputs.append(out)
                if live.cuts and live.cuts[-1].head == k:
                    live.cuts[-1].target = first.grad_fn
            losses = [head_loss(k, out, self.data.targets[k].index_select(0, idx))
                      for k, out in enumerate(outputs)]
        except RuntimeError as exc:
            raise _StepFailed(ev.from_exception(exc, step, "forward",
                                                f"forward of micro-batch {micro + 1}"))
        if junction is not None:
            junction.watch(live.z_node, tuple(z.shape), firsts)
        scale = 1.0 / cfg.accumulate if cfg.scale else 1.0
        factors = [w * scale for w in cfg.weights()]
        terms = [loss if f == 1.0 else f * loss for f, loss in zip(factors, losses)]
        names = cfg.head_names()
        live.roots = [Root(n, loss, LOSS, k) for k, (n, loss) in enumerate(zip(names, losses))]
        live.terms = terms
        live.backward_calls = backward_calls(cfg.strategy, cfg.retain_graph, terms, names)
        known = {id(loss) for loss in losses}
        for call in live.backward_calls:
            if id(call.target) not in known:
                known.add(id(call.target))
                label = call.loss if call.loss not in names else \
                    f"{factors[names.index(call.loss)]:g} * {call.loss}"
                live.roots.append(Root(label, call.target, TOTAL))
        self._live = live
        return [loss.detach() for loss in losses]

    @staticmethod
    def _forward_detail(cfg: Config, micro: int) -> str:
        if cfg.accumulate == 1:
            return "forward"
        return f"forward of micro-batch {micro + 1} of {cfg.accumulate}"

    def _measure(self) -> tuple[int, int]:
        """(graph nodes alive, saved bytes held) for the live micro-batch."""
        live = self._live
        if live.nodes is None:
            live.nodes = reachable_nodes(live.grad_fns())
        return len(live.nodes), held_saved_bytes(live.nodes, self._param_storages)

    def _measure_step(self, cfg: Config, record: StepRecord,
                      micro_losses: list[list[torch.Tensor]],
                      junction: JunctionProbe | None, probing: bool) -> None:
        """Everything numeric about this step, gathered in one device-to-host transfer."""
        if len(micro_losses) == 1:
            scalars = list(micro_losses[0])
        else:  # a step's loss is the mean over its micro-batches
            scalars = list(torch.stack([torch.stack(m) for m in micro_losses]).mean(0))
        if probing:
            scalars += grad_norms(self.params)
        values = torch.stack(scalars)
        g = junction.stacked(self.device) if junction is not None else None
        if g is not None:
            values = torch.cat([values, junction_summary(g)])
        values = values.tolist()
        names, K = cfg.head_names(), cfg.heads
        record.losses = dict(zip(names, values[:K]))
        record.total = sum(w * v for w, v in zip(cfg.weights(), values[:K]))
        pos = K
        if probing:
            norms = values[pos:pos + len(self.params)]
            pos += len(self.params)
            record.grad_norms = dict(zip(self.param_names, norms))
            record.global_grad_norm = math.sqrt(sum(n * n for n in norms))
        if g is not None:
            record.junction_grad_norms = dict(zip(names, values[pos:pos + K]))
            flat = values[pos + K:pos + K + K * K]
            record.cosine = [flat[i * K:(i + 1) * K] for i in range(K)]

    def _keep_graph_if_asked(self, cfg: Config) -> None:
        """keep graphs: `running += loss` without .item() holds every graph alive."""
        if not cfg.keep_graphs:
            return
        terms = self._live.terms
        total = terms[0]
        for t in terms[1:]:
            total = total + t
        self._running = total if self._running is None else self._running + total
