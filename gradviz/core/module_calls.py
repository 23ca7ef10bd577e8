"""Which module call made which autograd nodes: each call's output node and its inputs'
nodes, recorded as the forward pass runs them, so the module view groups ops exactly."""
from __future__ import annotations

import contextlib
import weakref
from collections.abc import Iterator
from dataclasses import dataclass

import torch
from torch import nn

from ..plain.graph.graph_data import ModuleCall

# model -> {id(module): its name}; named_modules() walked once per model, not per step
_PATHS: weakref.WeakKeyDictionary[nn.Module, dict[int, str]] = weakref.WeakKeyDictionary()
# model -> {(id(module), out shape, step, kind, detail): its call}: the same call of the
# same module is described once, not at every step (the module view's names and sizes
# cost the built-in model ~12 descriptions a step; nothing changes a ModuleCall after)
_CALLS: weakref.WeakKeyDictionary[nn.Module, dict[tuple, ModuleCall]] = \
    weakref.WeakKeyDictionary()


@dataclass(slots=True)   # a dozen a step: slots make each cheaper to build
class CallRecord:
    call: ModuleCall
    output_fn: object               # the autograd node that made the call's output
    input_fns: tuple                # its inputs' nodes: what the call did not make
    # a call with several outputs (a trunk returning z0, z1, z2): every output's node
    more_output_fns: tuple = ()
    # the call it ran inside (model files' calls); no link back down: a cycle would keep
    # the autograd nodes (and what they saved) alive until the garbage collector ran
    parent: CallRecord | None = None


# a module call recorded by ModuleCalls.add, not yet described: (its _Describer, the
# module, the output's shape, step, kind, detail, the output's node, the inputs' nodes)
Pending = tuple


def call_records(records: list) -> list[CallRecord]:
    """A forward's records as the graph reads them: the pending ones described."""
    return [r[0].record(r) if type(r) is tuple else r for r in records]


def module_paths(model: nn.Module) -> dict[int, str]:
    paths = _PATHS.get(model)
    if paths is None:
        paths = {id(m): name for name, m in model.named_modules()}
        _PATHS[model] = paths
    return paths


def describe(module: nn.Module) -> str:
    """A module's kind and sizes as a room reads them: "Linear 8→32", "Conv2d 3→64 3×3",
    "Tanh"."""
    kind = type(module).__name__
    if isinstance(module, nn.Linear):
        return f"{kind} {module.in_features}→{module.out_features}"
    if isinstance(module, nn.modules.conv._ConvNd):
        size = "×".join(str(k) for k in module.kernel_size)
        return f"{kind} {module.in_channels}→{module.out_channels} {size}"
    if isinstance(module, nn.Embedding):
        return f"{kind} {module.num_embeddings}→{module.embedding_dim}"
    if isinstance(module, nn.modules.batchnorm._NormBase):
        return f"{kind} {module.num_features}"
    if isinstance(module, nn.LayerNorm):
        return f"{kind} {'×'.join(str(s) for s in module.normalized_shape)}"
    if isinstance(module, nn.MultiheadAttention):
        return f"{kind} {module.embed_dim}, {module.num_heads} heads"
    return kind


def _tensors(values) -> Iterator[torch.Tensor]:
    """The tensors among a call's arguments or outputs, one level into tuples, lists and
    dicts (an attention layer's (output, weights), a keyword mask)."""
    for value in values:
        if isinstance(value, torch.Tensor):
            yield value
        elif isinstance(value, (tuple, list)):
            yield from (v for v in value if isinstance(v, torch.Tensor))
        elif isinstance(value, dict):
            yield from (v for v in value.values() if isinstance(v, torch.Tensor))


class _Describer:
    """Describes a forward's pending records (one model's names and known calls)."""

    __slots__ = ("paths", "_known")

    def __init__(self, paths: dict[int, str], known: dict[tuple, ModuleCall]):
        self.paths, self._known = paths, known

    def record(self, pending: Pending) -> CallRecord:
        """The call a pending record names, described once per model (see _CALLS)."""
        _, module, shape, step, kind, detail, output_fn, input_fns = pending
        key = (id(module), shape, step, kind, detail)
        call = self._known.get(key)
        if call is None:
            call = self._known[key] = self._call(module, shape, step, kind, detail)
        return CallRecord(call, output_fn, input_fns)

    def _call(self, module: nn.Module, shape: torch.Size, step: int | None, kind: str,
              detail: str) -> ModuleCall:
        path = self.paths.get(id(module), type(module).__name__)
        return ModuleCall(path if step is None else f"{path}@{step}", path,
                          kind or type(module).__name__, detail or describe(module),
                          tuple(int(s) for s in shape), step)


class ModuleCalls:
    """The module calls of one forward pass, in the order they ran."""

    def __init__(self, model: nn.Module):
        self.paths = module_paths(model)
        self.records: list[CallRecord | Pending] = []
        known = _CALLS.get(model)
        if known is None:   # not setdefault: that builds a dict every step
            known = _CALLS[model] = {}
        # what a pending record names to be described by: not this object, whose records
        # hold the pending records (a cycle would keep each step's autograd nodes, and
        # what they saved, alive until the garbage collector ran: a collection every
        # dozen steps or so, most of `gradviz run`'s time in the collector)
        self._describer = _Describer(self.paths, known)

    def run(self, module: nn.Module, x: torch.Tensor, step: int | None = None) -> torch.Tensor:
        """module(x), recorded as add() would (one input, the usual call, inlined: a
        dozen calls a step on the built-in model)."""
        out = module(x)
        fn = x.grad_fn
        self.records.append((self._describer, module, out.shape, step, "", "", out.grad_fn,
                             () if fn is None else (fn,)))
        return out

    def add(self, module: nn.Module, inputs: tuple, out: torch.Tensor,
            step: int | None = None, kind: str = "", detail: str = "") -> None:
        """Record a call already made; kind and detail name a call that is no module's
        own forward (the rnn cell's tanh(ih + hh), which runs in the trunk's method).
        Only its nodes are taken now (an in-place detach later changes an input's);
        its description is looked up when the graph is drawn (call_records): most
        steps are never drawn, and the lookup was half of this call's cost."""
        # a plain tuple: a NamedTuple's constructor cost more than the lookup it saves
        self.records.append((self._describer, module, out.shape, step, kind, detail,
                             out.grad_fn, _input_fns(inputs)))

    @contextlib.contextmanager
    def hooked(self, root: nn.Module) -> Iterator[None]:
        """Record every module call under root (root's own too) while the block runs, each
        with the call it ran inside: the module view picks its boxes from that tree (a
        Linear, a whole repeated block). The inputs' nodes are taken before the call runs:
        an in-place module (ReLU(inplace=True)) gives its input the output's node."""
        open_calls: list[tuple[tuple, list[CallRecord]]] = []

        def before(_module, args, kwargs) -> None:
            fns = tuple(t.grad_fn for t in _tensors((args, kwargs)) if t.grad_fn is not None)
            open_calls.append((fns, []))

        def after(module, _args, _kwargs, out) -> None:
            fns, children = open_calls.pop()
            outs = [t.grad_fn for t in _tensors((out,))]
            path = self.paths.get(id(module), type(module).__name__)
            call = ModuleCall(path, path, type(module).__name__, describe(module),
                              _out_shape(out))
            record = CallRecord(call, outs[0] if outs else None, fns, tuple(outs[1:]))
            for child in children:
                child.parent = record
            if open_calls:
                open_calls[-1][1].append(record)
            self.records.append(record)   # after its children: they claim their ops first

        handles = []
        try:
            for module in root.modules():
                handles.append(module.register_forward_pre_hook(before, with_kwargs=True))
                handles.append(module.register_forward_hook(after, with_kwargs=True))
            yield
        finally:
            for handle in handles:
                handle.remove()


def _input_fns(inputs: tuple) -> tuple:
    """The inputs' autograd nodes (those that have one). One input, the usual call,
    without a generator: twelve calls a step on the built-in model."""
    if len(inputs) == 1:
        fn = inputs[0].grad_fn
        return () if fn is None else (fn,)
    return tuple(fn for t in inputs if (fn := t.grad_fn) is not None)


def _out_shape(out) -> tuple[int, ...] | None:
    first = next(_tensors((out,)), None)
    return None if first is None else tuple(int(s) for s in first.shape)
