"""The gradient that flowed through each node and edge of the live autograd graph in the
last backward call, read by post-hooks on the graph's own (non-persistent) nodes.

Rule for what a captured graph shows (see NodeGradNorms):
- an op node / edge whose consumer was hooked and ran in the last backward: the norm of
  what it received / sent (0.0 for a slot that got None);
- hooked but did not run in the last backward (head k during the backward of head j in
  strategy separate; the trunk behind a detach cut): 0.0, nothing flowed;
- a parameter (AccumulateGrad): the norm of the sum its hooked consumers sent it in the
  last backward (0.0 if none ran), which is what that backward added to `.grad`;
- anything not hooked (tracking was off, a node outside the watched graph): None.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Iterable

import torch
from torch.autograd.graph import Node

from .autograd_walk import is_accumulate_grad, reachable_nodes


class NodeGradProbe:
    """Hooks one micro-batch's graph at a time; keeps the last backward's gradients as
    device tensors until norms() is asked for (one stacked norm, one transfer)."""

    def __init__(self) -> None:
        self._nodes: list[object] = []      # hooked nodes, by slot; also pins their ids
        self._slots: dict[int, int] = {}    # id(node) -> slot
        # id(AccumulateGrad) -> (node, [(consumer slot, input index)])
        self._params: dict[int, tuple[object, list[tuple[int, int]]]] = {}
        self._handles: list = []
        # slot -> (grad_outputs, grad_inputs), detached; only what the hooks write, so a
        # hook never references a node (a node -> hook -> node cycle through C++ leaks)
        self._fired: dict[int, tuple[tuple, tuple]] = {}
        # the slots in the order the autograd engine ran them, one list per backward call
        # of this graph (the animation's order: what ran, as it ran, never a layout guess)
        self._sweeps: list[list[int]] = []

    @property
    def handle_count(self) -> int:
        """Hooks currently registered (one per hooked node; constant step after step)."""
        return len(self._handles)

    def watch(self, roots: Iterable[Node | None]) -> None:
        """Hook every non-persistent node reachable from roots (the previous micro-batch's
        hooks are removed first: its graph is no longer the one shown)."""
        self.release()
        for fn in reachable_nodes(roots):
            if is_accumulate_grad(fn):
                continue
            slot = len(self._nodes)
            self._nodes.append(fn)
            self._slots[id(fn)] = slot
            self._handles.append(fn.register_hook(_recorder(self._fired, self._sweeps, slot)))
            for i, (nxt, _) in enumerate(fn.next_functions):
                if nxt is not None and is_accumulate_grad(nxt):
                    self._params.setdefault(id(nxt), (nxt, []))[1].append((slot, i))

    def begin_backward(self) -> None:
        """Forget what earlier backward calls sent: what is kept is the last one (but
        the order of every call of this graph, for the animation)."""
        self._fired.clear()
        self._sweeps.append([])

    def release(self) -> None:
        """Remove every hook and drop every reference (the graph can then be freed)."""
        for handle in self._handles:
            handle.remove()
        self._handles.clear()
        self._nodes, self._slots, self._params = [], {}, {}
        self._fired.clear()
        self._sweeps.clear()

    def norms(self) -> NodeGradNorms:
        """Norms of everything recorded, computed on the device, moved in one transfer."""
        keys, tensors = [], []
        for slot, (outs, ins) in self._fired.items():
            for kind, grads in (("out", outs), ("in", ins)):
                for i, g in enumerate(grads):
                    if g is not None:
                        keys.append((kind, slot, i))
                        tensors.append(g)
        for pid, (_, uses) in self._params.items():
            sent = [self._fired[s][1][i] for s, i in uses if s in self._fired]
            sent = [g for g in sent if g is not None]
            if sent:   # what this backward added to .grad: the sum over its consumers
                keys.append(("param", pid, 0))
                tensors.append(sent[0] if len(sent) == 1 else torch.stack(sent).sum(0))
        values = dict(zip(keys, _stacked_norms(tensors)))
        # slot -> norm over all its outputs (one output for nearly every op)
        through: dict[int, float] = {}
        for (kind, slot, _), v in values.items():
            if kind == "out":
                through[slot] = math.hypot(through.get(slot, 0.0), v)
        sweeps = [[self._nodes[slot] for slot in sweep] for sweep in self._sweeps]
        return NodeGradNorms(self._nodes, self._slots, set(self._fired), set(self._params),
                             values, through, sweeps)


def _recorder(fired: dict, sweeps: list, slot: int) -> Callable:
    def hook(grad_inputs, grad_outputs):
        fired[slot] = (tuple(None if g is None else g.detach() for g in grad_outputs),
                       tuple(None if g is None else g.detach() for g in grad_inputs))
        if sweeps:
            sweeps[-1].append(slot)
    return hook


def _stacked_norms(tensors: list[torch.Tensor]) -> list[float]:
    if not tensors:
        return []
    by_device: dict[torch.device, list[int]] = {}
    for i, t in enumerate(tensors):
        by_device.setdefault(t.device, []).append(i)
    out = [0.0] * len(tensors)
    for idx in by_device.values():   # one device in practice: one transfer
        norms = torch._foreach_norm([tensors[i] for i in idx])
        for i, v in zip(idx, torch.stack([n.float() for n in norms]).tolist()):
            out[i] = v
    return out


class NodeGradNorms:
    """Plain floats for graph.capture(): what flowed in the last backward (module rule)."""

    def __init__(self, nodes: list[object], slots: dict[int, int], fired: set[int],
                 params: set[int], values: dict[tuple, float], through: dict[int, float],
                 sweeps: list[list[object]] | None = None):
        self._nodes = nodes   # pins the ids in slots and params while capture runs
        self.sweeps = sweeps or []   # the nodes in the order each backward call ran them
        self._slots, self._fired, self._params = slots, fired, params
        self._values, self._through = values, through

    def _slot_value(self, fn: object, kind: str, index: int) -> float | None:
        slot = self._slots.get(id(fn))
        if slot is None:
            return None
        if slot not in self._fired:
            return 0.0
        return self._values.get((kind, slot, index), 0.0)   # ran, but sent/got None

    def node(self, fn: object) -> float | None:
        """Gradient through fn: w.r.t. its outputs, or a parameter's summed gradient."""
        if id(fn) in self._params:
            return self._values.get(("param", id(fn), 0), 0.0)
        slot = self._slots.get(id(fn))
        return None if slot is None else self._through.get(slot, 0.0)

    def output(self, fn: object, index: int) -> float | None:
        """Gradient w.r.t. output `index` of fn (a loss or total tensor's own gradient)."""
        return self._slot_value(fn, "out", index)

    def edge(self, fn: object, index: int) -> float | None:
        """Gradient fn sent to fn.next_functions[index] (graph edge src -> dst=fn)."""
        return self._slot_value(fn, "in", index)
