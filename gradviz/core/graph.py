"""The autograd graph of a step as plain data: nodes, edges, reach, detach cuts, freed state.

Edges point the way the forward pass went (from parameter/input towards the losses),
as torchviz draws them; gradient flows against them. Node ids are given in a fixed
traversal order, so two steps with the same structure get the same ids and the same
`structure_key()`, which is what layout caching keys on.
"""
from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

import torch
from torch.autograd.graph import Node

from ..plain.graph.graph_data import (
    ALIVE,
    CUT,
    DETACHED,
    FREED,
    GRAD,
    INPUT,
    LOSS,
    OP,
    PARAM,
    SAVED,
    SAVED_EDGE,
    STALE,
    GraphData,
    GraphEdge,
    GraphNode,
)
from .autograd_walk import is_accumulate_grad, next_nodes, saved_tensors, storage_bytes, storage_key

# an op shows the most telling state among its saved tensors
_STATE_PRIORITY = (DETACHED, STALE, FREED)


@dataclass
class Root:
    name: str                       # "head0", "total", "total after head1", ...
    tensor: torch.Tensor
    kind: str                       # LOSS or TOTAL
    head: int | None = None         # the head of a LOSS root


@dataclass
class Cut:
    head: int                       # the head cut off; -1 for the rnn's carried state
    mode: str                       # "detach" or "detach_"
    source: Node | None             # the trunk's autograd node that produced z
    target: Node | None             # head's first autograd node (None if it has none)
    # detach_ only: nodes that saved z before it was detached in place. PyTorch's own
    # check fires only inside backward, so the graph is told which saved tensors broke.
    stale_users: tuple = ()
    z_storage: tuple | None = None
    # draw the source alone, named so, not the graph below it (the rnn's step before)
    source_label: str = ""


@dataclass
class InputUse:
    """A batch tensor and the autograd node that saved it (drawn as an input node)."""
    name: str
    tensor: torch.Tensor
    consumer: object
    saved_name: str                 # which of the consumer's saved tensors it is


class GradNorms(Protocol):
    """What flowed in the last backward, per autograd node (see core.node_grads)."""
    def node(self, fn: object) -> float | None: ...
    def output(self, fn: object, index: int) -> float | None: ...
    def edge(self, fn: object, index: int) -> float | None: ...


def _shape(t: torch.Tensor) -> tuple[int, ...]:
    return tuple(int(s) for s in t.shape)


def tensor_facts(t: torch.Tensor) -> dict:
    """requires_grad, leaf, whether it holds a .grad, and PyTorch's warning where a
    non-leaf's .grad is read (it keeps none unless retain_grad() was called)."""
    facts: dict[str, Any] = dict(requires_grad=t.requires_grad, is_leaf=t.is_leaf)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        facts["has_grad"] = t.grad is not None
    if caught:   # its first three sentences: what, why, and the retain_grad() way out
        facts["grad_note"] = ". ".join(str(caught[0].message).split(". ")[:3]).strip() + "."
    return facts


class _Builder:
    def __init__(self, param_names: dict[int, str], inputs: list[InputUse],
                 cuts: list[Cut], show_saved: bool, grads: GradNorms | None):
        self.graph = GraphData()
        self.grads = grads
        self.ids: dict[object, str] = {}   # id(autograd node or tensor) -> node id
        self._alive: list[object] = []       # keeps ids above from being reused mid-capture
        self.param_names = param_names
        self.inputs = {id(use.consumer): use for use in inputs}
        self.detached = {id(node): cut.z_storage for cut in cuts for node in cut.stale_users}
        self.show_saved = show_saved
        self.below: dict[str, list[str]] = {}      # node id -> ids it consumes
        # an op "holds" the storages it saved that no op before it did and that are not
        # parameters (which exist anyway): the ops' bytes then add up to what the memory
        # probe measures for the whole graph
        self.counted: set[tuple] = set()

    def _measured(self, method: str, *args) -> float | None:
        return None if self.grads is None else getattr(self.grads, method)(*args)

    def _new(self, owner: object | None, **attrs) -> str:
        node_id = f"n{len(self.graph.nodes)}"
        if owner is not None:
            self.ids[id(owner)] = node_id
            self._alive.append(owner)
        self.graph.nodes.append(GraphNode(id=node_id, **attrs))
        self.below[node_id] = []
        return node_id

    def _edge(self, src: str, dst: str, kind: str = GRAD, label: str = "",
              grad_norm: float | None = None) -> None:
        self.graph.edges.append(GraphEdge(src, dst, kind, label, grad_norm))
        if kind == GRAD:
            self.below[dst].append(src)

    def add_root(self, root: Root) -> None:
        t = root.tensor
        # the root tensor's gradient is what its grad_fn received for that output
        norm = None if t.grad_fn is None else self._measured("output", t.grad_fn, t.output_nr)
        rid = self._new(t, kind=root.kind, label=root.name, shape=_shape(t),
                        dtype=str(t.dtype).replace("torch.", ""), device=str(t.device),
                        grad_norm=norm, **tensor_facts(t))
        if t.grad_fn is not None:
            self._edge(self.add_fn(t.grad_fn), rid, grad_norm=norm)

    def add_fn(self, fn: object) -> str:
        """Add fn and everything below it (iteratively: deep trunks overflow recursion)."""
        stack, order = [fn], []
        while stack:
            cur = stack.pop()
            if id(cur) in self.ids:
                continue
            self._add_one(cur)
            order.append(cur)
            stack.extend(reversed([n for n in next_nodes(cur) if id(n) not in self.ids]))
        for cur in order:
            for slot, (nxt, _) in enumerate(getattr(cur, "next_functions", ())):
                if nxt is not None:   # slot: which of cur's inputs the gradient went to
                    self._edge(self.ids[id(nxt)], self.ids[id(cur)],
                               grad_norm=self._measured("edge", cur, slot))
        return self.ids[id(fn)]

    def _add_one(self, fn: object) -> None:
        if is_accumulate_grad(fn):   # draw it as its parameter
            var = fn.variable
            self._new(fn, kind=PARAM, label=self.param_names.get(id(var), "leaf"),
                      shape=_shape(var), dtype=str(var.dtype).replace("torch.", ""),
                      device=str(var.device), grad_norm=self._measured("node", fn),
                      **tensor_facts(var))
            return
        saved = list(saved_tensors(fn))
        z_storage = self.detached.get(id(fn))
        if z_storage is not None:
            saved = [(n, t, DETACHED if t is not None and storage_key(t) == z_storage else st)
                     for n, t, st in saved]
        states = {s for _, _, s in saved}
        nbytes = 0
        for _, tensor, _ in saved:
            if tensor is None:
                continue
            key = storage_key(tensor)
            if key not in self.counted:
                self.counted.add(key)
                nbytes += storage_bytes(tensor)
        state = next((s for s in _STATE_PRIORITY if s in states), ALIVE)
        # an op's output is a non-leaf that keeps no .grad, unless it is the junction
        # (whose facts annotate() fills in from z itself)
        op_id = self._new(fn, kind=OP, label=type(fn).__name__, state=state,
                          saved_bytes=nbytes, grad_norm=self._measured("node", fn),
                          requires_grad=True, is_leaf=False, has_grad=False)
        use = self.inputs.get(id(fn))
        for name, tensor, state in saved:
            if use is not None and name == use.saved_name:
                self._add_tensor_node(op_id, INPUT, use.name, use.tensor, state,
                                      tensor_facts(use.tensor))
            elif self.show_saved:
                self._add_tensor_node(op_id, SAVED, name, tensor, state)

    def _add_tensor_node(self, op_id: str, kind: str, label: str,
                         tensor: torch.Tensor | None, state: str,
                         facts: dict | None = None) -> None:
        attrs = dict(kind=kind, label=label, state=state, **(facts or {}))
        if tensor is not None:
            attrs.update(shape=_shape(tensor), dtype=str(tensor.dtype).replace("torch.", ""),
                         device=str(tensor.device))
            if state != FREED:
                attrs["saved_bytes"] = storage_bytes(tensor)
        sid = self._new(None, **attrs)
        self._edge(sid, op_id, SAVED_EDGE)

    def _node_of(self, owner: object) -> GraphNode:
        return self.graph.nodes[int(self.ids[id(owner)][1:])]   # ids are "n<index>"

    def add_cut(self, cut: Cut) -> None:
        if cut.source_label and id(cut.source) not in self.ids:
            self._add_one(cut.source)
            self._node_of(cut.source).label = cut.source_label
        src = self.add_fn(cut.source)
        if cut.target is not None:
            dst = self.add_fn(cut.target)
            self._edge(src, dst, CUT, f"{cut.mode}()")

    def mark_junction(self, z_node: object, z: torch.Tensor) -> None:
        """Name the node that made z and give it z's own facts: a non-leaf without .grad,
        one with .grad (retain_grad), or a leaf once z.detach_() cut it out."""
        if id(z_node) not in self.ids:
            return
        node = self._node_of(z_node)
        node.tensor = "z"
        node.grad_note = ""
        for key, value in tensor_facts(z).items():
            setattr(node, key, value)

    def mark_modules(self, calls: Iterable) -> None:
        """Give each node a module call made (its parameters' leaves too) the call's id;
        nodes reached through the call's inputs were made before it, not by it."""
        times: dict[str, int] = {}
        ids: dict[int, str] = {}    # id(record) -> its call's id here
        calls, base = list(calls), len(self.graph.modules)
        for record in calls:
            call = record.call
            times[call.id] = times.get(call.id, 0) + 1
            if times[call.id] > 1:   # a second micro-batch's graph, a module called twice
                call = replace(call, id=f"{call.id}#{times[call.id]}")
            ids[id(record)] = call.id
            self.graph.modules.append(call)
            stop = {id(fn) for fn in record.input_fns}
            stack = [record.output_fn, *getattr(record, "more_output_fns", ())]
            seen: set[int] = set()
            while stack:
                fn = stack.pop()
                if fn is None or id(fn) in stop or id(fn) in seen or id(fn) not in self.ids:
                    continue
                seen.add(id(fn))
                node = self._node_of(fn)
                node.module = node.module or call.id
                stack.extend(next_nodes(fn))
        # a parent is recorded after its children: named once every id is known
        for k, record in enumerate(calls):
            parent = getattr(record, "parent", None)
            if parent is not None and id(parent) in ids:
                known = self.graph.modules[base + k]
                self.graph.modules[base + k] = replace(known, parent=ids[id(parent)])

    def mark_reach(self, roots: list[Root]) -> None:
        above: dict[str, list[str]] = {n: [] for n in self.below}
        for dst, srcs in self.below.items():
            for src in srcs:
                above[src].append(dst)
        reach: dict[str, set[int]] = {n: set() for n in self.below}
        for root in roots:
            if root.kind != LOSS or root.head is None:   # a LOSS root has its head
                continue
            # below the loss node, and above its grad_fn: the adds and weight multiplies
            # that lead to a total hang off the loss's grad_fn, not off the loss node
            start = self.ids[id(root.tensor)]
            fn_id = self.ids.get(id(root.tensor.grad_fn), start)
            for node_id in _closure(start, self.below) | _closure(fn_id, above):
                reach[node_id].add(root.head)
        for node in self.graph.nodes:
            node.heads_reaching = tuple(sorted(reach[node.id]))


def _closure(start: str, links: dict[str, list[str]]) -> set[str]:
    seen, stack = {start}, [start]
    while stack:
        for nxt in links[stack.pop()]:
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return seen


def capture(roots: list[Root], params: Iterable[tuple[str, torch.Tensor]],
            inputs: Sequence[InputUse] = (), cuts: Sequence[Cut] = (),
            show_saved: bool = True, grads: GradNorms | None = None,
            junction: tuple[Node | None, torch.Tensor | None] | None = None,
            calls: Iterable = ()) -> GraphData:
    """The graph below roots as plain data (plus the trunk behind any detach cut).

    grads, if given, fills grad_norm on op, param and root nodes and on grad edges;
    saved/input nodes and their edges, and cut edges, stay None (no gradient flows there).
    calls (core.module_calls.CallRecord, in forward order) name the module call that made
    each op, for the module view.
    """
    params = list(params)
    builder = _Builder({id(p): name for name, p in params}, list(inputs), list(cuts),
                       show_saved, grads)
    builder.counted = {storage_key(p) for _, p in params}   # parameters exist anyway
    for root in roots:
        if id(root.tensor) not in builder.ids:
            builder.add_root(root)
    for cut in cuts:
        builder.add_cut(cut)
    if junction is not None:
        z_node, z = junction
        if z is not None:
            builder.mark_junction(z_node, z)
    builder.mark_modules(calls)
    builder.mark_reach(roots)
    # saved-tensor and input nodes are reached by whoever reaches their op
    by_id = {n.id: n for n in builder.graph.nodes}
    for e in builder.graph.edges:
        if e.kind == SAVED_EDGE:
            by_id[e.src].heads_reaching = by_id[e.dst].heads_reaching
    ids = builder.ids
    builder.graph.sweeps = [[ids[id(fn)] for fn in sweep if id(fn) in ids]
                            for sweep in getattr(grads, "sweeps", [])]
    return builder.graph
