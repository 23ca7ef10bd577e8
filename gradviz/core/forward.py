"""One micro-batch's forward pass, done the way the config says (detach per head), with
what the graph view and the probes need to know about it kept on the side."""
from __future__ import annotations

import contextlib
from dataclasses import dataclass, field

import torch
from torch.autograd.graph import Node

from ..plain.config.config import EDIT_DATA_FACTOR, Config
from .autograd_walk import saved_tensors, storage_key
from .graph import Cut, InputUse, Root
from .model import MultiHeadNet, head_loss, time_steps
from .module_calls import ModuleCalls
from .strategies import BackwardCall

INPUT_NAME = "x (input)"


@dataclass
class Carried:
    """The rnn's hidden state, carried from one micro-batch (and step) to the next."""
    h: torch.Tensor
    name: str = "h₀ = zeros"   # how the graph labels it where it enters a step
    source: Node | None = None   # the node that made h before it was detached (the cut)


@dataclass
class LiveGraph:
    """The autograd state of the micro-batch in progress (held for inspection)."""
    z_node: Node | None = None
    z: torch.Tensor | None = None        # the junction itself: leaf?, .grad (retain_grad)
    inputs: list[InputUse] = field(default_factory=list)
    roots: list[Root] = field(default_factory=list)
    cuts: list[Cut] = field(default_factory=list)
    terms: list[torch.Tensor] = field(default_factory=list)        # weighted losses
    backward_calls: list[BackwardCall] = field(default_factory=list)
    nodes: list[Node] | None = None    # the graph's nodes, once walked (backward adds none)
    # module calls, for the module view (CallRecords, or pending ones: see call_records)
    calls: list = field(default_factory=list)
    trunk_first: Node | None = None    # the trunk's first node: each pass runs it once

    def merged(self, other: LiveGraph) -> LiveGraph:
        """Two micro-batches' graphs held together (sum-first accumulation)."""
        return LiveGraph(self.z_node, self.z, self.inputs + other.inputs,
                         self.roots + other.roots, self.cuts + other.cuts,
                         calls=self.calls + other.calls)

    def grad_fns(self) -> list[Node | None]:
        # Not z_node: after z.detach_() nothing but this object would keep the trunk's
        # graph alive, and a training loop would already have freed it.
        return [r.tensor.grad_fn for r in self.roots]

    def drawn_fns(self) -> list[Node | None]:
        """The nodes a captured graph starts from: the roots' and the trunk behind any cut
        (which a detach_ leaves reachable only from here)."""
        return self.grad_fns() + [cut.source for cut in self.cuts]


@dataclass
class ForwardResult:
    live: LiveGraph
    z: torch.Tensor                     # (micro, width): the junction
    head_firsts: list[torch.Tensor]     # each head's first layer output (junction probe)
    losses: list[torch.Tensor]          # L_k, unweighted


# consumer type -> the name of the saved tensor that held the input last time: checked
# first, as unpacking every saved tensor of the node each step cost 3% of a step
_INPUT_SAVED_AS: dict[type, str] = {}


def _input_use(x: torch.Tensor, consumer: object, name: str = INPUT_NAME) -> list[InputUse]:
    """Which of consumer's saved tensors is x (found while alive), as an input node."""
    key = storage_key(x)
    known = _INPUT_SAVED_AS.get(type(consumer))
    if known is not None:
        try:
            tensor = getattr(consumer, "_saved_" + known, None)
        except RuntimeError:   # a saved tensor that cannot be unpacked: look at them all
            tensor = None
        if isinstance(tensor, torch.Tensor) and storage_key(tensor) == key:
            return [InputUse(name, x, consumer, known)]
    for saved_name, tensor, _ in saved_tensors(consumer):
        if tensor is not None and storage_key(tensor) == key:
            _INPUT_SAVED_AS[type(consumer)] = saved_name
            return [InputUse(name, x, consumer, saved_name)]
    return []


def _mlp_trunk(trunk, x: torch.Tensor, calls: ModuleCalls):
    h, first_trunk_node = x, None
    for layer in trunk:
        h = calls.run(layer, h)
        first_trunk_node = first_trunk_node or h.grad_fn
    return h, _input_use(x, first_trunk_node), first_trunk_node


def _rnn_trunk(trunk, x: torch.Tensor, carried: Carried, calls: ModuleCalls):
    """The unrolled recurrent trunk: z, h_T, the batch and state as input nodes, and
    the cut where the carried state was detached from the step before's chain."""
    uses, cuts, h0 = [], [], carried.h
    h, first = h0, None
    for t, x_t in enumerate(time_steps(x)):
        h_before = h
        from_input, from_state, h = trunk.cell(x_t, h)
        calls.add(trunk.ih, (x_t,), from_input, t)
        calls.add(trunk.hh, (h_before,), from_state, t)
        calls.add(trunk, (from_input, from_state), h, t, "cell", "tanh(ih + hh)")
        first = first or from_input.grad_fn   # ih(x_0): every pass into z reaches it
        uses += _input_use(x, from_input.grad_fn, f"x[:, {t}] (input)")
        if t == 0 and h0.grad_fn is None:   # else it is the previous step's graph itself
            uses += _input_use(h0, from_state.grad_fn, carried.name)
            if carried.source is not None:
                cuts.append(Cut(-1, "detach", carried.source, from_state.grad_fn,
                                source_label="h of the step before"))
    return calls.run(trunk.readout, h), h, uses, cuts, first


def head_mode(cfg: Config, k: int) -> contextlib.AbstractContextManager:
    """The grad mode head k's forward runs in: torch.no_grad() or torch.inference_mode()
    for a head cut off that way (its loss then has no grad_fn), else autograd as usual."""
    if k in cfg.detach and cfg.detach_mode == "no_grad":
        return torch.no_grad()
    if k in cfg.detach and cfg.detach_mode == "inference_mode":
        return torch.inference_mode()
    return contextlib.nullcontext()


def forward(model: MultiHeadNet, head_layers: list[tuple], cfg: Config, x: torch.Tensor,
            targets: list[torch.Tensor], carried: Carried | None = None) -> ForwardResult:
    """Trunk, then each head reading z, z.detach() or the in-place-detached z.

    head_layers: each head's layers, in order (listed once per model: indexing the
    Sequential every step cost a microsecond a head).
    carried: the rnn's hidden state from the step before (its h_T is stored back)."""
    cuts: list[Cut] = []
    calls = ModuleCalls(model)
    if model.kind == "rnn":
        if carried is None:
            raise ValueError("the rnn's forward needs the hidden state carried in")
        z, carried.h, uses, cuts, first_trunk = _rnn_trunk(model.trunk, x, carried, calls)
    else:
        z, uses, first_trunk = _mlp_trunk(model.trunk, x, calls)
    if cfg.retain_grad:
        z.retain_grad()
    live = LiveGraph(z_node=z.grad_fn, z=z, inputs=uses, cuts=cuts, calls=calls.records,
                     trunk_first=first_trunk)
    firsts: list[torch.Tensor] = []
    outputs: list[torch.Tensor] = []
    detached = cfg.detach
    for k, layers in enumerate(head_layers):
        zk = z
        if k in detached:
            cut = Cut(k, cfg.detach_mode, live.z_node, None)
            if cfg.detach_mode == "detach":
                zk = z.detach()   # shares z's storage and version counter, outside the graph
            elif cfg.detach_mode == "detach_" and z.grad_fn is not None:
                # the first in-place detach breaks earlier users
                cut.stale_users = tuple(f.grad_fn for f in firsts if f.grad_fn is not None)
                cut.z_storage = storage_key(z)
                z.detach_()
            live.cuts.append(cut)
            with head_mode(cfg, k):
                first, out = _head(calls, layers, zk)
            live.cuts[-1].target = first.grad_fn
        else:   # no grad mode to enter: a context manager a head cost a microsecond
            first, out = _head(calls, layers, zk)
        if k == cfg.edit_detached:
            # no value changes, but the version counter z shares goes up: every node
            # that saved z (or zk) now refuses to run backward
            zk.mul_(1.0)
        if k == cfg.edit_data:
            # .data is z's storage under a version counter of its own: the change is
            # seen by every head after this one and by every node that saved z, and
            # autograd, which never hears of it, raises nothing
            z.data.mul_(EDIT_DATA_FACTOR)
        firsts.append(first)
        outputs.append(out)
    losses = [head_loss(k, out, targets[k]) for k, out in enumerate(outputs)]
    return ForwardResult(live, z, firsts, losses)


def _head(calls: ModuleCalls, layers: tuple, zk: torch.Tensor
          ) -> tuple[torch.Tensor, torch.Tensor]:
    """(the head's first layer's output, its last layer's)."""
    rest = iter(layers)
    first = out = calls.run(next(rest), zk)
    for layer in rest:
        out = calls.run(layer, out)
    return first, out
