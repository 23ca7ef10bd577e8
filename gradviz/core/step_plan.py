"""What one optimizer step gathers as its phases run (StepPlan), and what every step of
one config shares (StepConsts): worked out once per config, not at every step."""
from __future__ import annotations

from dataclasses import dataclass, field

import torch

from ..plain.config.config import Config
from ..plain.records.records import StepRecord
from .probes import JunctionProbe
from .step_effect import StepEffect
from .tap_probe import TapProbe
from .trunk_walks import TrunkWalks
from .update_probe import UpdateCosineProbe


@dataclass
class StepPlan:
    """What one optimizer step gathers as its phases run."""
    cfg: Config
    step: int
    record: StepRecord
    junction: JunctionProbe | TapProbe | None
    update: UpdateCosineProbe | None    # each head's cosine with the trunk update
    effect: StepEffect | None           # what optimizer.step() did (built-in model)
    walk: bool                       # measure graph nodes and the bytes held
    node_grads: bool                 # hook the graph for per-node gradients
    walks: TrunkWalks                # trunk passes and backward time, every step
    consts: StepConsts
    # Session.step() with no step in progress: nobody reads the phases one by one, so
    # none is described (only a failure is yielded, as its event)
    quiet: bool = False
    peak: int = 0                    # the most storage bytes held after a forward
    peak_tensors: int = 0            # the most saved tensors' own bytes, likewise
    micro_sizes: tuple[int, ...] = ()   # examples per micro-batch (part of the walk key)
    carried: list[str] = field(default_factory=list)   # rnn: each micro-batch's h, so far
    micro_losses: list[list[torch.Tensor]] = field(default_factory=list)  # per micro, per head
    z_tensors: list[torch.Tensor] = field(default_factory=list)  # retain_grad: each z


class StepConsts:
    """A config's per-step constants: the heads' names, each micro-batch size's loss
    factors, the drawn totals' labels. Building them at every step (lists, f-strings,
    the config's methods) was a few microseconds of a 0.45 ms step, each time the same."""

    def __init__(self, cfg: Config, spec_names: list[str] | None):
        self.cfg = cfg
        self.spec_names = spec_names
        self.names = cfg.head_names()
        # each loss node is labelled with its head's name: a model file's own names
        self.shown = list(spec_names) if spec_names is not None else self.names
        self.weights = cfg.weights()
        self.probing = cfg.probes != "none"
        self._factors: dict[int, list[float]] = {}
        self._labels: dict[tuple[float, str], str] = {}

    def fits(self, cfg: Config, spec_names: list[str] | None) -> bool:
        return cfg is self.cfg and spec_names is self.spec_names

    def factors(self, size: int) -> list[float]:
        """Each head's weight times the micro-batch scale for `size` examples."""
        factors = self._factors.get(size)
        if factors is None:
            scale = self.cfg.micro_scale(size)   # 1/N, or n_i/B (scale-by size)
            factors = self._factors[size] = [w * scale for w in self.weights]
        return factors

    def term_label(self, factor: float, loss: str) -> str:
        """A weighted term drawn as a root: "0.5 * head1"."""
        label = self._labels.get((factor, loss))
        if label is None:
            label = self._labels[(factor, loss)] = f"{factor:g} * {loss}"
        return label
