"""One micro-batch's forward pass, done the way the config says (detach per head), with
what the graph view and the probes need to know about it kept on the side."""
from __future__ import annotations

from dataclasses import dataclass, field

import torch

from .autograd_walk import saved_tensors, storage_key
from .config import Config
from .graph import Cut, InputUse, Root
from .model import MultiHeadNet, head_loss
from .strategies import BackwardCall

INPUT_NAME = "x (input)"


@dataclass
class LiveGraph:
    """The autograd state of the micro-batch in progress (held for inspection)."""
    z_node: object = None
    inputs: list[InputUse] = field(default_factory=list)
    roots: list[Root] = field(default_factory=list)
    cuts: list[Cut] = field(default_factory=list)
    terms: list[torch.Tensor] = field(default_factory=list)        # weighted losses
    backward_calls: list[BackwardCall] = field(default_factory=list)
    nodes: list[object] | None = None    # the graph's nodes, once walked (backward adds none)

    def grad_fns(self) -> list[object]:
        # Not z_node: after z.detach_() nothing but this object would keep the trunk's
        # graph alive, and a training loop would already have freed it.
        return [r.tensor.grad_fn for r in self.roots]

    def drawn_fns(self) -> list[object]:
        """The nodes a captured graph starts from: the roots' and the trunk behind any cut
        (which a detach_ leaves reachable only from here)."""
        return self.grad_fns() + [cut.source for cut in self.cuts]


@dataclass
class ForwardResult:
    live: LiveGraph
    z: torch.Tensor                     # (micro, width): the junction
    head_firsts: list[torch.Tensor]     # each head's first layer output (junction probe)
    losses: list[torch.Tensor]          # L_k, unweighted


def _input_use(x: torch.Tensor, consumer: object) -> list[InputUse]:
    """Which of the first trunk node's saved tensors is the batch (found while alive)."""
    key = storage_key(x)
    for name, tensor, _ in saved_tensors(consumer):
        if tensor is not None and storage_key(tensor) == key:
            return [InputUse(INPUT_NAME, x, consumer, name)]
    return []


def forward(model: MultiHeadNet, head_rest: list[tuple], cfg: Config, x: torch.Tensor,
            targets: list[torch.Tensor]) -> ForwardResult:
    """Trunk, then each head reading z, z.detach() or the in-place-detached z."""
    h, first_trunk_node = x, None
    for layer in model.trunk:
        h = layer(h)
        first_trunk_node = first_trunk_node or h.grad_fn
    z = h
    live = LiveGraph(z_node=z.grad_fn, inputs=_input_use(x, first_trunk_node))
    firsts, outputs = [], []
    for k, head in enumerate(model.heads):
        zk = z
        if k in cfg.detach:
            cut = Cut(k, cfg.detach_mode, live.z_node, None)
            if cfg.detach_mode == "detach":
                zk = z.detach()
            elif z.grad_fn is not None:   # the first in-place detach breaks earlier users
                cut.stale_users = tuple(f.grad_fn for f in firsts if f.grad_fn is not None)
                cut.z_storage = storage_key(z)
                z.detach_()
            live.cuts.append(cut)
        first = head[0](zk)
        out = first
        for layer in head_rest[k]:
            out = layer(out)
        if k in cfg.detach:
            live.cuts[-1].target = first.grad_fn
        firsts.append(first)
        outputs.append(out)
    losses = [head_loss(k, out, targets[k]) for k, out in enumerate(outputs)]
    return ForwardResult(live, z, firsts, losses)
