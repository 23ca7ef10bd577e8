"""The module view of a captured graph: one box per module call (its ops and its
parameters' leaves folded in), the junction z, the losses and the total, and the steps
before that a carried rnn state reaches back into. Plain data in, plain data out."""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from .graph_data import (
    ALIVE,
    DETACHED,
    EARLIER,
    FREED,
    GRAD,
    INPUT,
    JUNCTION,
    LOSS,
    MODULE,
    OP,
    PARAM,
    SAVED_EDGE,
    STALE,
    TOTAL,
    GraphData,
    GraphEdge,
    GraphNode,
    ModuleCall,
)
from .module_runs import FOLD_PREFIX, RUN_PREFIX, CallTree, foldable_blocks, run_key, split_runs

JUNCTION_ID = "z"
_STATE_PRIORITY = (DETACHED, STALE, FREED)   # a box shows its most telling op's state


def box_id(call_id: str) -> str:
    return f"m:{call_id}"


def box_of(call: ModuleCall) -> str:
    """The call whose box holds call: itself, or for a call inside an rnn's time step,
    that step's box ("trunk@2": ih, hh and tanh(ih + hh) of step 2 together)."""
    if call.step is None:
        return call.id
    return f"{call.path.split('.')[0]}@{call.step}"


@dataclass
class _Boxes:
    """Which box each op-view node is drawn in (its own id where it stays itself)."""
    graph: GraphData
    expanded: frozenset
    owner: dict[str, str] = field(default_factory=dict)      # node id -> box id
    members: dict[str, list[str]] = field(default_factory=dict)
    _consumed: set[str] | None = None
    tree: CallTree | None = None
    folded: frozenset = frozenset()   # block call ids drawn as one box each
    # a box that is not one call's own: a run of blocks, or part of a block's own ops
    made_for: dict[str, tuple[str, list[ModuleCall]]] = field(default_factory=dict)

    def consumed_inside(self) -> set[str]:
        """Nodes another node of their own box consumes (so not the box's output)."""
        if self._consumed is None:
            own = self.owner.get
            self._consumed = {e.src for e in self.graph.edges
                              if e.kind == GRAD and own(e.src) is not None
                              and own(e.src) == own(e.dst)}
        return self._consumed

    def put(self, node_id: str, box: str) -> None:
        self.owner[node_id] = box
        self.members.setdefault(box, []).append(node_id)


def module_graph(graph: GraphData, expanded: frozenset | set = frozenset(),
                 fold: bool = False) -> GraphData:
    """graph (the op view) drawn as module boxes. expanded: ids of module calls shown as
    their ops instead (a box opened in place), and of runs (run_key) and folded blocks
    (FOLD_PREFIX + id) shown block by block. fold: each block of foldable_blocks one box."""
    boxes = _Boxes(graph, frozenset(expanded))
    calls = {c.id: c for c in graph.modules}
    boxes.tree = CallTree(graph.modules)
    split_runs(boxes.tree, graph)
    if fold:
        boxes.folded = frozenset(c for c in foldable_blocks(boxes.tree)
                                 if FOLD_PREFIX + c not in boxes.expanded)
    _assign_modules(boxes, calls)
    _assign_roots(boxes)
    _assign_earlier(boxes)
    out = GraphData(modules=list(graph.modules))
    by_id = {n.id: n for n in graph.nodes}
    made: set[str] = set()
    for node in graph.nodes:   # boxes in the order of their first member: a stable order
        box = boxes.owner.get(node.id)
        if box is None or box in made:
            continue
        made.add(box)
        if box in by_id:   # a node drawn as itself, with what folded into it (a loss's ops)
            out.nodes.append(_as_itself(by_id[box], boxes.members[box]))
        elif box in boxes.made_for:
            out.nodes.append(_group_node(box, [by_id[m] for m in boxes.members[box]],
                                         boxes))
        else:
            out.nodes.append(_box_node(box, [by_id[m] for m in boxes.members[box]],
                                       calls, boxes))
    z = next((n for n in graph.nodes if n.tensor and n.kind == OP), None)
    if z is not None and z.id in boxes.owner:
        out.nodes.append(_junction_node(z, calls))
    out.edges = _box_edges(graph, boxes, z.id if z is not None else None)
    out.sweeps = [_box_sweep(sweep, boxes, z.id if z is not None else None)
                  for sweep in graph.sweeps]
    return out


def _box_sweep(sweep: list[str], boxes: _Boxes, z_op: str | None) -> list[str]:
    """An op-view sweep as the boxes its ops fold into, each at its first op's turn (a
    box lights up as soon as backward reaches it); the junction z at the op that made z."""
    out: list[str] = []
    for node_id in sweep:
        reached: list[str | None] = [JUNCTION_ID] if node_id == z_op else []
        reached.append(boxes.owner.get(node_id))
        out.extend(box for box in reached if box is not None and box not in out)
    return out


def _as_itself(node: GraphNode, members: list[str]) -> GraphNode:
    # an input's state is its consumer box's: said once, there
    if node.kind == INPUT:
        return replace(node, state=ALIVE, members=tuple(members))
    return replace(node, members=tuple(members))


def open_key(view: GraphData, node_id: str) -> str | None:
    """What a double-click on node_id of a module view toggles in expanded: a run box's
    run, a box's call (opened into its ops), an op's call (closed again); None: nothing."""
    node = next((n for n in view.nodes if n.id == node_id), None)
    if node is None:
        return None
    if node.id.startswith((RUN_PREFIX, FOLD_PREFIX)):
        return node.id
    call = next((c for c in view.modules if c.id == node.module), None)
    return None if call is None else box_of(call)


def _assign_modules(boxes: _Boxes, calls: dict[str, ModuleCall]) -> None:
    tree = boxes.tree or CallTree(list(calls.values()))
    glue: dict[str, str] = {}   # an op a block made itself (not a call inside it) -> call
    for node in boxes.graph.nodes:
        if node.kind != OP or node.module not in calls:
            continue
        box = _box_for(boxes, tree, node.module)
        if box is None:
            glue[node.id] = node.module
        else:   # "": an opened call's op, drawn as itself
            boxes.put(node.id, box or node.id)
    _assign_glue(boxes, glue, calls)
    _assign_params(boxes, calls)
    _assign_inputs(boxes)


def _box_for(boxes: _Boxes, tree: CallTree, call_id: str) -> str | None:
    """The box the ops of call_id go in (the op's own id: drawn as itself); None for the
    ops a block made itself, outside its inner calls (a residual add)."""
    for outer in tree.chain(call_id):   # the outermost closed run holds everything in it
        run = tree.run_of.get(outer)
        if run is not None and run_key(run) not in boxes.expanded:
            key = run_key(run)
            boxes.made_for.setdefault(key, ("run", run))
            return key
    for outer in tree.chain(call_id):
        if outer in boxes.folded:
            boxes.made_for.setdefault(FOLD_PREFIX + outer, ("block", [tree.calls[outer]]))
            return FOLD_PREFIX + outer
    group = box_of(tree.calls[call_id])
    if group in boxes.expanded:
        return ""
    return None if call_id in tree.children else box_id(group)


def _assign_glue(boxes: _Boxes, glue: dict[str, str], calls: dict[str, ModuleCall]) -> None:
    """A block's own ops between its inner calls (the adds of a residual block, a
    functional relu): one box per connected stretch of them, named after the block."""
    links: dict[str, list[str]] = {op: [] for op in glue}
    for e in boxes.graph.edges:
        if e.kind == GRAD and e.src in glue and glue.get(e.dst) == glue[e.src]:
            links[e.src].append(e.dst)
            links[e.dst].append(e.src)
    for node in boxes.graph.nodes:
        if node.id not in glue or node.id in boxes.owner:
            continue
        box = f"m:{glue[node.id]}/{node.id}"
        boxes.made_for[box] = ("glue", [calls[glue[node.id]]])
        stack = [node.id]
        while stack:
            op = stack.pop()
            if op not in boxes.owner:
                boxes.put(op, box)
                stack.extend(links[op])


def _assign_params(boxes: _Boxes, calls: dict[str, ModuleCall]) -> None:
    """A leaf folds into the box of the op of its own call that reads it, where it is that
    module's (named as PyTorch prefixes it: a tied weight another module owns stays
    itself); a leaf read by an opened call stays itself."""
    kinds = {n.id: n for n in boxes.graph.nodes}
    readers: dict[str, list[str]] = {}
    for e in boxes.graph.edges:
        if e.kind == GRAD and kinds[e.src].kind == PARAM:
            readers.setdefault(e.src, []).append(e.dst)
    for node in boxes.graph.nodes:
        if node.kind != PARAM:
            continue
        call = calls.get(node.module)
        own = [r for r in readers.get(node.id, ()) if kinds[r].module == node.module]
        box = boxes.owner.get(own[0]) if own else None
        if box is not None and box != own[0] and call is not None \
                and node.label.startswith(call.path + "."):
            boxes.put(node.id, box)
        else:
            boxes.put(node.id, node.id)


def _assign_inputs(boxes: _Boxes) -> None:
    """An input read by one rnn time step only (x[:, t], the state coming in) is part of
    that step's box; any other input is a box of its own."""
    readers: dict[str, set[str]] = {}
    for e in boxes.graph.edges:
        if e.kind == SAVED_EDGE:
            readers.setdefault(e.src, set()).add(boxes.owner.get(e.dst, ""))
    for node in boxes.graph.nodes:
        if node.kind == INPUT:
            (box, *more) = sorted(readers.get(node.id, {""}))
            stepped = not more and box.startswith("m:") and "@" in box
            boxes.put(node.id, box if stepped else node.id)


def _below(graph: GraphData) -> dict[str, list[str]]:
    """Node id -> the ids its grad edges come from (what it consumes)."""
    below: dict[str, list[str]] = {n.id: [] for n in graph.nodes}
    for e in graph.edges:
        if e.kind == GRAD:
            below[e.dst].append(e.src)
    return below


def _assign_roots(boxes: _Boxes) -> None:
    """A loss's box holds the ops between it and the modules (MseLossBackward0, ...);
    a total's, the adds and weight multiplies that lead to it from the losses."""
    below = _below(boxes.graph)
    kinds = {n.id: n.kind for n in boxes.graph.nodes}
    roots = [n for n in boxes.graph.nodes if n.kind in (LOSS, TOTAL)]
    for root in roots:
        boxes.put(root.id, root.id)
    for root in sorted(roots, key=lambda n: n.kind != LOSS):   # losses claim first
        stack = list(below[root.id])
        while stack:
            node_id = stack.pop()
            if node_id in boxes.owner or kinds[node_id] != OP:
                continue
            boxes.put(node_id, root.id)
            stack.extend(below[node_id])


def _assign_earlier(boxes: _Boxes) -> None:
    """Ops no call of this step made: the graph of the steps before, which a carried rnn
    state reaches back into. Each connected part of them is one box."""
    graph = boxes.graph
    links: dict[str, list[str]] = {n.id: [] for n in graph.nodes}
    for e in graph.edges:
        links[e.src].append(e.dst)
        links[e.dst].append(e.src)
    kinds = {n.id: n.kind for n in graph.nodes}
    for node in graph.nodes:
        if node.id in boxes.owner or node.kind not in (OP, PARAM):
            continue
        box = f"e:{node.id}"
        stack = [node.id]
        while stack:
            node_id = stack.pop()
            if node_id in boxes.owner or kinds[node_id] not in (OP, PARAM):
                continue
            boxes.put(node_id, box)
            stack.extend(links[node_id])


def _state(nodes: list[GraphNode]) -> str:
    states = {n.state for n in nodes if n.kind == OP}
    return next((s for s in _STATE_PRIORITY if s in states), ALIVE)


def _box_node(box: str, nodes: list[GraphNode], calls: dict[str, ModuleCall],
              boxes: _Boxes) -> GraphNode:
    ops = [n for n in nodes if n.kind == OP]
    if box.startswith("e:"):
        detail = ops[0].label if len(ops) == 1 else f"{len(ops)} autograd ops"
        return GraphNode(box, EARLIER, "the step before", detail=detail, state=_state(nodes),
                         heads_reaching=_union(nodes), members=tuple(n.id for n in nodes),
                         saved_bytes=sum(n.saved_bytes for n in ops))
    call = calls.get(box[2:]) or _step_call(box[2:], nodes, calls)
    # the call's output: the one op of the box that no other op of the box consumes
    consumed = boxes.consumed_inside()
    out = next((n for n in ops if n.id not in consumed), ops[0] if ops else nodes[0])
    # words, not "· t=0": OCR (and a reader at the back) lost the "t=" and read "trunk 0"
    label = call.path if call.step is None else f"{call.path}, step {call.step}"
    return GraphNode(box, MODULE, label, shape=call.out_shape, detail=call.detail,
                     state=_state(nodes), saved_bytes=sum(n.saved_bytes for n in ops),
                     grad_norm=out.grad_norm, heads_reaching=out.heads_reaching,
                     dtype=out.dtype, device=out.device, module=call.id,
                     members=tuple(n.id for n in nodes))


def _group_node(box: str, nodes: list[GraphNode], boxes: _Boxes) -> GraphNode:
    """A run of blocks ("trunk.layers.0–3 ×4", TransformerEncoderLayer) or a stretch of a
    block's own ops, as one box: the state of its most telling op, the gradient and
    heads of its output."""
    what, run = boxes.made_for[box]
    ops = [n for n in nodes if n.kind == OP]
    consumed = boxes.consumed_inside()
    outs = [n for n in ops if n.id not in consumed] or ops or nodes
    out = outs[0]   # met first walking down from the losses: what leaves the box
    first, last = run[0], run[-1]
    if what == "run":
        head, _, index = first.path.rpartition(".")
        end = last.path.rpartition(".")[2]
        name = f"{head}.{index}–{end}" if head and index.isdigit() and end.isdigit() \
            else f"{first.path} … {last.path}"
        label, detail = f"{name} ×{len(run)}", first.detail
        shape = last.out_shape
    elif what == "block":
        inner = (boxes.tree.children.get(first.id, []) if boxes.tree else []) or [first]
        label, shape = first.path, first.out_shape or out.shape
        detail = " · ".join([inner[0].detail or inner[0].kind, *(c.kind for c in inner[1:])])
    else:
        words = dict.fromkeys(_op_word(n.label) for n in ops)
        label, detail, shape = first.path, f"{first.kind} · {' '.join(words)}", out.shape
    return GraphNode(box, MODULE, label, shape=shape, detail=detail, state=_state(nodes),
                     saved_bytes=sum(n.saved_bytes for n in ops), grad_norm=out.grad_norm,
                     heads_reaching=out.heads_reaching, dtype=out.dtype, device=out.device,
                     module=first.id, members=tuple(n.id for n in nodes))


def _op_word(label: str) -> str:
    """An autograd node's name as the op it undoes: "AddBackward0" -> "add"."""
    return re.sub(r"Backward\d*$", "", label).lower() or label


def _step_call(group: str, nodes: list[GraphNode], calls: dict[str, ModuleCall]) -> ModuleCall:
    """A time step's box without a cell call of its own: named after its first call."""
    first = calls[next(n.module for n in nodes if n.module in calls)]
    root, _, step = group.rpartition("@")
    return ModuleCall(group, root, "step", first.detail, first.out_shape, int(step))


def _union(nodes: list[GraphNode]) -> tuple[int, ...]:
    return tuple(sorted({k for n in nodes for k in n.heads_reaching}))


def _junction_node(z: GraphNode, calls: dict[str, ModuleCall]) -> GraphNode:
    call = calls.get(z.module)
    return GraphNode(JUNCTION_ID, JUNCTION, "z", shape=call.out_shape if call else None,
                     heads_reaching=z.heads_reaching, grad_norm=z.grad_norm, tensor="z",
                     requires_grad=z.requires_grad, is_leaf=z.is_leaf, has_grad=z.has_grad,
                     grad_note=z.grad_note, detail="the junction")


def _box_edges(graph: GraphData, boxes: _Boxes, z_op: str | None) -> list[GraphEdge]:
    """The op edges between boxes, one per (from, to, kind); edges leaving the op that
    made z leave from z's own box, which the op's box feeds."""
    found: dict[tuple[str, str, str], GraphEdge] = {}
    folded = {n.id for n in graph.nodes if n.kind == PARAM and boxes.owner.get(n.id) != n.id}
    if z_op is not None and z_op in boxes.owner:
        found[(boxes.owner[z_op], JUNCTION_ID, GRAD)] = GraphEdge(
            boxes.owner[z_op], JUNCTION_ID, GRAD,
            grad_norm=next((n.grad_norm for n in graph.nodes if n.id == z_op), None))
    for e in graph.edges:
        src, dst = boxes.owner.get(e.src), boxes.owner.get(e.dst)
        # a folded leaf is shown in its module's box: its links out go with it (the rnn's
        # later calls and the step before use the same weights)
        if src is None or dst is None or src == dst or src != e.src and e.src in folded:
            continue
        if e.src == z_op:
            src = JUNCTION_ID
        key = (src, dst, e.kind)
        known = found.get(key)
        if known is None:
            found[key] = GraphEdge(src, dst, e.kind, e.label, e.grad_norm)
        elif e.grad_norm is not None:
            known.grad_norm = max(known.grad_norm or 0.0, e.grad_norm)
    return list(found.values())

