"""The DDP half of a training session (ddp-ranks N): the ranks started before the first
step, ended with the session, and each step's gradient taken from their all-reduce."""
from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

import torch

from ..plain.config.config import Config
from ..plain.records import events as ev
from .data import MultiTaskData
from .ddp_ranks import RankError, close_rank_group, rank_group
from .step_failed import StepFailed

if TYPE_CHECKING:
    from ..plain.records.records import StepRecord


class StepPlan(Protocol):
    """What _ddp_step reads of the session's plan of the step."""
    cfg: Config
    step: int
    record: StepRecord


class DdpRanks:
    """Session's DDP methods (a mixin: they read the session's config, data and
    parameters)."""
    config: Config
    spec: object | None
    data: MultiTaskData
    device: torch.device
    params: list
    _uses_ranks: bool

    def start_ranks(self) -> None:
        """ddp-ranks N: its ranks started now, before the first step (each imports
        torch: seconds); one that cannot start is said at that step, as its error."""
        cfg = self.config
        if cfg.ddp_ranks > 1 and self.spec is None:
            self._uses_ranks = True
            try:
                rank_group(cfg.ddp_ranks, (cfg.heads, cfg.trunk_width, cfg.trunk_depth))
            except RankError:
                pass

    def close(self) -> None:
        """End the DDP ranks this session trained with, if any (core.ddp_ranks)."""
        if self._uses_ranks:
            close_rank_group()
            self._uses_ranks = False

    def _ddp_step(self, plan: StepPlan) -> None:
        """ddp-ranks N: the gradient the step uses (and the record and a comparison read)
        is the one DDP's N ranks all-reduced on their shares of the batch; the backward
        above, on the whole batch here, drew the graph and measured the probes. The
        all-reduces the ranks' communication hook counted go into the record."""
        cfg = plan.cfg
        if cfg.ddp_ranks == 1:
            self.close()   # a lesson's slide after a DDP one: the ranks end
            return
        call = f"DistributedDataParallel on {cfg.ddp_ranks} gloo ranks"
        try:
            if self.spec is not None:   # check_config refuses it; a guard, not a path
                raise RankError("ddp-ranks trains the built-in mlp, not a model file")
            idx = self.data.batch_indices(plan.step, cfg.batch_size).to(self.device)
            x = self.data.x.index_select(0, idx)
            targets = [t.index_select(0, idx) for t in self.data.targets]
            factors = [w * cfg.micro_scale(cfg.batch_size // cfg.accumulate)
                       for w in cfg.weights()]
            self._uses_ranks = True
            group = rank_group(cfg.ddp_ranks, (cfg.heads, cfg.trunk_width, cfg.trunk_depth))
            count, grads = group.step(self.params, x, targets, factors, cfg.accumulate,
                                      cfg.ddp_no_sync)
        except RankError as exc:
            raise StepFailed(ev.from_exception(exc, plan.step, "backward", call,
                                               source="gradviz's DDP ranks")) from exc
        for p, g in zip(self.params, grads):
            p.grad = torch.from_numpy(g).to(self.device)
        plan.record.all_reduces = count
