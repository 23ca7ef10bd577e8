"""The session's end of a step (a mixin of core.session.Session): the step's numbers,
the divergence check, optimizer.step(), what the step did, the graph's walks and what
keep graphs holds; and clip_grad_norm_ where the config clips."""
from __future__ import annotations

import math
from collections.abc import Iterable
from typing import cast

import torch

from ..plain.graph.walk_cache import CHAINED, Walk, WalkCache
from ..plain.records import events as ev
from ..plain.records.records import StepRecord
from .autograd_walk import held_saved_memory, is_accumulate_grad, reachable_nodes
from .kept_graphs import KeptGraphs
from .model import MultiHeadNet
from .sgd import PlainSGD
from .step_effect import fill_record, losses_after
from .step_failed import StepFailed
from .step_forward import StepForward
from .step_numbers import measure_step
from .step_plan import StepPlan


def _leaf_count(nodes: Iterable[object]) -> int:
    """AccumulateGrad nodes: they belong to the parameters, not to one step's graph."""
    return sum(1 for fn in nodes if is_accumulate_grad(fn))


class StepFinish(StepForward):
    """The end of Session's step (a mixin: it reads the session's optimizer, parameters
    and live graph)."""
    optimizer: torch.optim.Optimizer | PlainSGD
    params: list
    param_names: list[str]
    _param_storages: set
    grad_norm_steps: str
    track_node_grads: bool
    node_grads_current: bool
    last_record: StepRecord | None
    cache_walks: bool
    _walks: WalkCache
    _kept: KeptGraphs

    def _finish_step(self, plan: StepPlan, probing: bool) -> None:
        """Measure, check for divergence, optimizer.step(), bank what keep graphs holds."""
        cfg, step, record = plan.cfg, plan.step, plan.record
        self._ddp_step(plan)
        self._clip(plan, "step")
        norms = probing and (self.grad_norm_steps == "all" or
                             (self.grad_norm_steps == "sampled" and plan.junction is not None))
        measure_step(cfg, record, plan.micro_losses, plan.junction, norms, plan.z_tensors,
                     self.params, self.param_names, self.device, plan.update,
                     plan.consts.names, plan.consts.weights)
        record.trunk_walks, record.backward_seconds = plan.walks.count, plan.walks.seconds
        if not all(math.isfinite(v) for v in record.losses.values()):
            raise StepFailed(ev.divergence(step, "optimizer step", "before optimizer.step()",
                                            "a loss is NaN or infinite", cfg.optimizer))
        if plan.effect is not None:
            plan.effect.before_step()
        try:
            self.optimizer.step()
        except RuntimeError as exc:   # e.g. an update too large for float32
            raise StepFailed(self._event(exc, step, "optimizer step", "optimizer.step()")) from exc
        self._measure_effect(plan)
        if plan.walk:
            nodes, now, tensors, leaves = self._measure(plan, ("end",))
            kept = self._kept
            record.saved_bytes = now + kept.saved_bytes
            record.saved_bytes_peak = max(plan.peak, now) + kept.saved_bytes
            record.saved_tensor_bytes = tensors + kept.saved_tensor_bytes
            record.saved_tensor_bytes_peak = (max(plan.peak_tensors, tensors)
                                              + kept.saved_tensor_bytes)
            record.graph_nodes = nodes + kept.nodes + kept.adds
            if cfg.keep_graphs:  # this step's graph now stays alive for good
                kept.bank(nodes, now, tensors, leaves)
        self._kept.end_step()
        self.step_index += 1
        self.last_record = record
        self.node_grads_current = plan.node_grads or not self.track_node_grads

    def _measure_effect(self, plan: StepPlan) -> None:
        """What the step did (core.step_effect): one more transfer, on sampled steps."""
        effect, update = plan.effect, plan.update
        if effect is None or update is None or plan.record.update_cosine is None:
            return
        after = losses_after(cast(MultiHeadNet, self.model), self._head_layers, plan.cfg,
                             effect.replays)
        values = effect.numbers(update, after)
        if values is None:
            return
        lr = self.optimizer.param_groups[0]["lr"] if plan.cfg.optimizer == "sgd" else None
        fill_record(plan.record, plan.cfg.head_names(), values.tolist(), lr, update.sum_norm)

    def _clip(self, plan: StepPlan, at: str) -> None:
        """clip_grad_norm_ of every parameter's .grad (the sum so far, per micro-batch),
        where the config clips: after each micro-batch's backward, or once before the
        optimizer step. The report's gradient norms are then the clipped ones."""
        cfg = plan.cfg
        if cfg.clip is None or cfg.clip_at != at:
            return
        call = f"torch.nn.utils.clip_grad_norm_(model.parameters(), {cfg.clip!r})"
        try:
            torch.nn.utils.clip_grad_norm_(self.params, cfg.clip)
        except RuntimeError as exc:
            raise StepFailed(self._event(exc, plan.step, "backward", call)) from exc

    def _measure(self, plan: StepPlan, where: tuple) -> Walk:
        """(graph nodes alive, bytes of the storages their saved tensors keep alive, those
        tensors' own bytes, AccumulateGrad nodes among them) for the live graph; where:
        the point in the step ("forward", micro), ("banked", micro) or ("end",). A walk
        of the same structure is reused (see plain.graph.walk_cache)."""
        table = None
        key: tuple = ()
        if self.cache_walks and CHAINED not in plan.carried:
            table = self._walks.table(plan.cfg)
            key = (where, plan.micro_sizes, tuple(plan.carried))
            known = table.get(key)
            if known is not None:
                return known
        live = self._live
        if live.nodes is None:
            live.nodes = reachable_nodes(live.grad_fns())
        held, tensors = held_saved_memory(live.nodes, self._param_storages)
        measured = (len(live.nodes), held, tensors, _leaf_count(live.nodes))
        if table is not None:
            table[key] = measured
        return measured
