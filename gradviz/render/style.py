"""How the graph looks, decided once for every renderer (DOT here, the Qt view later):
the head colours, the fill of each node kind, and whose gradient reaches each node.
"""
from __future__ import annotations

from gradviz.core.graph import GRAD, INPUT, LOSS, OP, PARAM, SAVED, SAVED_EDGE, TOTAL, GraphData

# Okabe-Ito (less black, which marks shared nodes) plus Tol's wine: told apart with
# the common colour-vision deficiencies, and dark enough for lines on a white screen.
HEAD_COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7",
                "#56B4E9", "#D55E00", "#F0E442", "#882255")
SHARED_COLOUR = "#000000"
DEAD_COLOUR = "#9E9E9E"
CUT_COLOUR = "#D00000"
SAVED_EDGE_COLOUR = "#B07020"
FREED_FILL = "#F2F2F2"
FREED_TEXT = "#808080"
KIND_FILL = {PARAM: "#ADD8E6", INPUT: "#A8E0A0", OP: "#DCDCDC", SAVED: "#FFD9A8",
             LOSS: "#FFF0A0", TOTAL: "#FFD966"}
KIND_NAMES = {PARAM: "parameter", INPUT: "input", OP: "backward op", SAVED: "saved tensor",
              LOSS: "loss", TOTAL: "total (backward target)"}


def head_colour(head: int) -> str:
    return HEAD_COLOURS[head % len(HEAD_COLOURS)]


def reach(graph: GraphData) -> dict[str, tuple[int, ...]]:
    """Node id -> the heads whose gradient passes through it.

    Starts from GraphNode.losses and fills in the nodes between the losses and a total
    (the adds and weight multiplies that core leaves empty): the gradient through them is
    that of the losses below them. Nodes from which no root can be reached stay empty.
    """
    heads = {n.id: frozenset(n.losses) for n in graph.nodes}
    below: dict[str, list[str]] = {n.id: [] for n in graph.nodes}
    for e in graph.edges:
        if e.kind == GRAD and e.src in below and e.dst in below:
            below[e.dst].append(e.src)
    live = _closure([n.id for n in graph.nodes if n.kind in (LOSS, TOTAL)], below)
    above_losses = [n.id for n in graph.nodes if not n.losses and n.id in live]
    # the chain of adds is short (at most one per head), so a few passes settle it
    for _ in range(len(above_losses) + 1):
        changed = False
        for node_id in above_losses:
            union = frozenset().union(*(heads[s] for s in below[node_id]))
            if union != heads[node_id]:
                heads[node_id], changed = union, True
        if not changed:
            break
    for e in graph.edges:   # a saved tensor belongs to whoever reaches its op
        if e.kind == SAVED_EDGE and e.dst in heads and not heads[e.src]:
            heads[e.src] = heads[e.dst]
    return {node_id: tuple(sorted(h)) for node_id, h in heads.items()}


def _closure(starts: list[str], links: dict[str, list[str]]) -> set[str]:
    seen, stack = set(starts), list(starts)
    while stack:
        for nxt in links[stack.pop()]:
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return seen


def edge_heads(src: str, dst: str, heads: dict[str, tuple[int, ...]]) -> tuple[int, ...]:
    """The heads whose gradient runs along a grad edge (it flows dst -> src)."""
    return tuple(sorted(set(heads.get(src, ())) & set(heads.get(dst, ()))))


def head_names(graph: GraphData) -> dict[int, str]:
    """Head index -> its loss's name, for the heads that have a loss node in graph."""
    return {n.losses[0]: n.label for n in graph.nodes if n.kind == LOSS and n.losses}

