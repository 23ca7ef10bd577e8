"""The session's forward half of a step (a mixin of core.session.Session): this step's
batches, the forward pass with its live graph and weighted loss terms, the backward calls
the strategy plans on them, and the error a failed call becomes."""
from __future__ import annotations

import dataclasses
from typing import cast

import torch
from torch import nn

from ..plain.config.config import Config
from ..plain.config.jd_names import AGGREGATING, pcgrad_seed
from ..plain.graph.graph_data import LOSS, TOTAL
from ..plain.graph.walk_cache import CHAINED, DETACHED, FRESH
from ..plain.records import events as ev
from . import file_fault
from .data import MultiTaskData
from .ddp_session import DdpRanks
from .devices import other_device
from .forward import Carried, LiveGraph, forward
from .graph import Root
from .jd_strategies import SharedParts
from .model import MultiHeadNet
from .model_file import ModelFile, ModelFileError, ModelSpec, file_traceback
from .probes import JunctionProbe
from .spec_model import SpecBatches, SpecNet, spec_forward
from .step_effect import StepEffect, model_parts
from .step_failed import StepFailed
from .step_numbers import micro_shares
from .step_plan import StepConsts
from .strategies import backward_calls
from .tap_probe import TapProbe
from .update_probe import UpdateCosineProbe


class StepForward(DdpRanks):
    """The forward half of Session's step (a mixin: it reads the session's model, data,
    config and live graph)."""
    model: MultiHeadNet | SpecNet
    model_file: ModelFile | None
    spec: ModelSpec | None
    spec_batches: SpecBatches
    data: MultiTaskData
    step_index: int
    measure_update_cosine: bool
    update_cosine_every: int
    _user_errors: tuple[type[BaseException], ...]
    _head_layers: list[tuple[nn.Module, ...]]
    _taps_z: list[torch.Tensor]
    _carried: Carried | None
    _carried_kind: str
    _factors: list[float]
    _live: LiveGraph
    _param_lists: tuple[nn.Module, list, list[list]] | None
    _consts: StepConsts | None

    def _consts_of(self, cfg: Config) -> StepConsts:
        """cfg's per-step constants, worked out again only when the config changes."""
        consts = self._consts
        names = self.spec.names if self.spec is not None else None
        if consts is None or not consts.fits(cfg, names):
            consts = self._consts = StepConsts(cfg, names)
        return consts

    def _update_probes(self, cfg: Config, step: int, every: int
                       ) -> tuple[UpdateCosineProbe | None, StepEffect | None]:
        """This step's update cosine probe and, for the built-in model, what the step
        did (core.step_effect); both None on a step that does not measure them."""
        if not self._measures_update(cfg, step, every):
            return None, None
        trunk, heads = model_parts(self.model)
        if self.spec is not None:
            return UpdateCosineProbe(trunk), None
        return UpdateCosineProbe(trunk, heads), StepEffect(trunk, heads)

    def _measures_update(self, cfg: Config, step: int, every: int) -> bool:
        """Whether this step measures each head's cosine with the trunk update."""
        if cfg.probes == "none" or not self.measure_update_cosine:
            return False
        return cfg.probes == "all" or step % max(every, self.update_cosine_every) == 0

    def _micro_batches(self, cfg: Config, step: int) -> list[tuple[torch.Tensor, list]]:
        """This step's (x, targets) of each micro-batch."""
        if self.spec is not None:
            try:
                return self.spec_batches.micro_batches(step, cfg.batch_size,
                                                       cfg.micro_sizes())
            except ModelFileError as exc:   # batch() raised, or returned a wrong shape
                raise StepFailed(self._event(exc, step, "forward", "batch(step, ...)")) \
                    from exc
        indices = self.data.batch_indices(step, cfg.batch_size)   # made on the CPU
        if self.device.type != "cpu":   # .to() is a dispatched call even when it is a no-op
            indices = indices.to(self.device)
        # split, not chunk: micro-batches may be of unequal sizes (cfg.micro_sizes())
        micro_idx = indices.split(cfg.micro_sizes()) if cfg.accumulate > 1 else (indices,)
        return [(self.data.x.index_select(0, idx),                 # (micro, INPUT_DIM)
                 [t.index_select(0, idx) for t in self.data.targets]) for idx in micro_idx]

    def _event(self, exc: BaseException, step: int, phase: str, call: str) -> ev.Event:
        situation = ev.situation(self.config, other_device(self.device).type)
        model_file = self.model_file
        # batch()'s error comes wrapped in a ModelFileError: its cause is what the file raised
        raised = None if model_file is None else next(
            (e for e in (exc, exc.__cause__) if file_traceback(e, model_file.path)), None)
        if model_file is None or raised is None:
            return ev.from_exception(exc, step, phase, call, situation)
        # its traceback passes through the model file's code: who raised it there, and where
        event = ev.from_exception(exc, step, phase, call, situation,
                                  file_fault.who_raised(raised, model_file.named))
        event = file_fault.file_event(event, raised, model_file.path, model_file.named)
        # its frames (file:line), as the user's traceback
        lines = file_traceback(raised, model_file.path)
        return dataclasses.replace(event, message="\n".join([event.message, *lines]))

    def _forward(self, cfg: Config, step: int, micro: int, x: torch.Tensor,
                 targets: list[torch.Tensor],
                 junction: JunctionProbe | TapProbe | None,
                 update: UpdateCosineProbe | None = None,
                 effect: StepEffect | None = None) -> list[torch.Tensor]:
        """Forward one micro-batch; sets up the live graph and its weighted loss terms."""
        carried = self._carried_state(cfg, x.shape[0], step)
        if effect is not None:
            effect.keep(x, targets, carried)
        self._taps_z = []
        try:
            if self.spec is not None:
                assert junction is None or isinstance(junction, TapProbe)
                result, self._taps_z = spec_forward(cast(SpecNet, self.model), self.spec,
                                                    cfg, x, targets, junction)
            else:
                result = forward(cast(MultiHeadNet, self.model), self._head_layers, cfg, x,
                                 targets, carried)
        except self._user_errors as exc:
            raise StepFailed(self._event(exc, step, "forward",
                                         self._forward_detail(cfg, micro))) from exc
        live, z, firsts, losses = result.live, result.z, result.head_firsts, result.losses
        consts = self._consts_of(cfg)
        factors = consts.factors(x.shape[0])
        if update is not None:   # first: the junction's hooks would count its walks
            sizes = cfg.micro_sizes()
            update.add_micro_batch(losses, self._taps_z or [z], factors,
                                   micro_shares(cfg, len(sizes))[micro % len(sizes)])
            if isinstance(junction, TapProbe):   # hooked during the forward: it did
                junction.forget_current()
        if isinstance(junction, JunctionProbe):
            junction.watch(live.z_node, tuple(z.shape), firsts)
        live.terms = [loss if f == 1.0 else f * loss for f, loss in zip(factors, losses)]
        live.roots = [Root(n, loss, LOSS, k)
                      for k, (n, loss) in enumerate(zip(consts.shown, losses))]
        self._factors = factors
        self._live = live
        return [loss.detach() for loss in losses]

    def _carried_state(self, cfg: Config, batch: int, step: int) -> Carried | None:
        """The rnn's hidden state going into this micro-batch, cut from the graph before
        it when truncating (truncated backprop through time)."""
        if cfg.model != "rnn":
            self._carried_kind = ""
            return None
        carried = self._carried
        if carried is None or carried.h.shape[0] != batch:
            carried = Carried(torch.zeros(batch, cfg.trunk_width, device=self.device))
            self._carried_kind = FRESH
        elif cfg.truncation() == "every-step":
            carried = Carried(carried.h.detach(), "h from the step before, .detach()",
                              carried.h.grad_fn)
            self._carried_kind = DETACHED
        else:
            carried = Carried(carried.h, "h from the step before")
            self._carried_kind = CHAINED
        self._carried = carried   # forward() stores this micro-batch's h_T into it
        return carried

    def _plan_backward(self, cfg: Config, live: LiveGraph, terms: list[torch.Tensor]) -> None:
        """The strategy's backward calls on these terms, each target drawn as a root."""
        consts = self._consts_of(cfg)
        names = consts.names
        live.backward_calls = backward_calls(cfg.strategy, cfg.retain_graph, terms, names,
                                             self._shared_parts(cfg, live))
        known = {id(r.tensor) for r in live.roots}
        for call in live.backward_calls:
            for k, target in enumerate(call.targets()):
                if id(target) not in known:
                    known.add(id(target))
                    loss = names[k] if call.together else call.loss
                    label = loss if loss not in names else \
                        consts.term_label(self._factors[names.index(loss)], loss)
                    live.roots.append(Root(label, target, TOTAL))

    def _shared_parts(self, cfg: Config, live: LiveGraph) -> SharedParts | None:
        """The junction and the parameters, for the strategies that aggregate (only
        theirs: walking the modules for them every step cost the others ~10% of one)."""
        if live.z is None or cfg.strategy not in AGGREGATING:
            return None
        trunk, heads = self._parameter_lists()
        return SharedParts(live.z, list(trunk), [list(head) for head in heads],
                           pcgrad_seed(cfg.seed, self.step_index))

    def _parameter_lists(self) -> tuple[list, list[list]]:
        """The trunk's parameters and each head's, listed once per model: walking the
        modules for them, five times a step, was about a twentieth of the app's step."""
        lists = self._param_lists
        if lists is None or lists[0] is not self.model:
            model = self.model
            lists = (model, list(model.trunk.parameters()),
                     [list(head.parameters()) for head in model.heads])
            self._param_lists = lists
        return lists[1], lists[2]

    @staticmethod
    def _forward_detail(cfg: Config, micro: int) -> str:
        if cfg.accumulate == 1:
            return "forward"
        sized = f" ({cfg.micro_sizes()[micro]} examples)" if cfg.micro_batch_sizes else ""
        return f"forward of micro-batch {micro + 1} of {cfg.accumulate}{sized}"
