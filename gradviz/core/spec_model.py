"""A model file's model trained by the session: its trunk and heads as one module (so
parameters are named trunk.… and heads.K.… as the built-in model's are, and every view
groups them alike), its batches, and one micro-batch's forward under the config's
detach toggles, each head reading its tap."""
from __future__ import annotations

import torch
from torch import nn
from torch.autograd.graph import Node

from ..plain.config.config import EDIT_DATA_FACTOR, Config
from .autograd_walk import is_accumulate_grad, next_nodes, storage_key
from .forward import ForwardResult, LiveGraph, head_mode
from .graph import Cut
from .model_file import ModelFile, ModelSpec, trunk_outputs
from .module_calls import ModuleCalls
from .tap_probe import TapProbe


class SpecNet(nn.Module):
    def __init__(self, spec: ModelSpec):
        super().__init__()
        self.kind = "file"
        self.trunk = spec.trunk
        self.heads = nn.ModuleList(spec.heads)
        self.trunk_first = TrunkFirstNode(spec.trunk)


class SpecBatches:
    """Each step's batch from the file's batch(), on the session's device."""

    def __init__(self, model_file: ModelFile, spec: ModelSpec, seed: int,
                 device: torch.device):
        self.model_file, self.spec, self.seed, self.device = model_file, spec, seed, device

    def micro_batches(self, step: int, batch_size: int,
                      sizes: tuple[int, ...]) -> list[tuple[torch.Tensor, list[torch.Tensor]]]:
        x, targets = self.model_file.call_batch(self.spec, step, batch_size, self.seed)
        x = x.to(self.device)
        targets = [t.to(self.device) for t in targets]
        if len(sizes) == 1:
            return [(x, targets)]
        # split, not chunk: micro-batches may be of unequal sizes
        parts = [t.split(sizes) for t in targets]
        return [(xm, [p[m] for p in parts]) for m, xm in enumerate(x.split(sizes))]


class TrunkFirstNode:
    """The node of the trunk's first innermost module's output, each forward: every
    backward pass that reaches the trunk runs that node once, so it counts trunk walks.
    One hook, registered once on each innermost module of the trunk (adding and removing
    them around every forward cost a registration per module per step); it notes only
    while armed, so a module the heads share, or a call outside the trunk's forward,
    notes nothing."""

    def __init__(self, trunk: nn.Module):
        self._first: Node | None = None
        self._armed = False
        for m in trunk.modules():
            if next(m.children(), None) is None:
                m.register_forward_hook(self._note)

    def _note(self, _module, _inputs, out) -> None:
        if self._armed and isinstance(out, torch.Tensor) and out.grad_fn is not None:
            self._first, self._armed = out.grad_fn, False

    def run(self, trunk: nn.Module, x: torch.Tensor,
            calls: ModuleCalls) -> tuple[object, Node | None]:
        """The trunk's output, and that node (None if no innermost module made one);
        calls records every module call of this forward."""
        self._first, self._armed = None, True
        try:
            with calls.hooked(trunk):
                out = trunk(x)
        finally:
            self._armed = False
        first, self._first = self._first, None   # the step's graph is not held here
        return out, first


def _first_node(y: torch.Tensor) -> Node | None:
    """The first autograd node a head cut off from z made (where the graph draws the
    cut): below a detached head's output lie only its own nodes, the earliest made of
    which read z."""
    seen: set[int] = set()
    stack, first = [y.grad_fn], None
    while stack:
        fn = stack.pop()
        if fn is None or id(fn) in seen or is_accumulate_grad(fn):
            continue
        seen.add(id(fn))
        if first is None or fn._sequence_nr() < first._sequence_nr():
            first = fn
        stack.extend(next_nodes(fn))
    return first


def spec_forward(model: SpecNet, spec: ModelSpec, cfg: Config, x: torch.Tensor,
                 targets: list[torch.Tensor],
                 probe: TapProbe | None) -> tuple[ForwardResult, list[torch.Tensor]]:
    """The trunk, then head k on z[taps[k]]: as it is, .detach()ed, or detach_()ed in
    place (which every later reader of that tensor then sees, as in a plain loop).
    Also every trunk output (retain_grad reads each one's .grad)."""
    calls = ModuleCalls(model)
    out, first_trunk = model.trunk_first.run(model.trunk, x, calls)
    zs = trunk_outputs(out)
    if zs is None:
        raise RuntimeError(f"the trunk returned {type(out).__name__}, not a tensor")
    if cfg.retain_grad:
        for z in zs:
            if z.requires_grad:
                z.retain_grad()
    # each output's node, taken before any detach_() wipes it
    nodes = [(z.grad_fn, z.output_nr) for z in zs]
    live = LiveGraph(z_node=zs[0].grad_fn, z=zs[0], calls=calls.records,
                     trunk_first=first_trunk)
    if probe is not None:
        probe.start()
    outputs = []
    for k, head in enumerate(model.heads):
        tap = spec.taps[k]
        z = zs[tap]
        zk = z
        if k in cfg.detach:
            cut = Cut(k, cfg.detach_mode, nodes[tap][0], None)
            if cfg.detach_mode == "detach":
                zk = z.detach()
            elif cfg.detach_mode == "detach_" and z.grad_fn is not None:
                cut.z_storage = storage_key(z)
                z.detach_()
            live.cuts.append(cut)
        with head_mode(cfg, k):   # no_grad / inference_mode: its loss gets no grad_fn
            with calls.hooked(head):
                y = head(zk)
        if k in cfg.detach:
            live.cuts[-1].target = _first_node(y)
        if k == cfg.edit_data:
            # .data: the change every later reader and every node that saved z sees,
            # and autograd never hears of
            z.data.mul_(EDIT_DATA_FACTOR)
        if probe is not None:
            probe.watch(k, tap, nodes[tap] if zk.grad_fn is not None else (None, 0),
                        tuple(z.shape), y)
        outputs.append(y)
    losses = [spec.losses[k](y, targets[k]) for k, y in enumerate(outputs)]
    return ForwardResult(live, zs[0], [], losses), zs

