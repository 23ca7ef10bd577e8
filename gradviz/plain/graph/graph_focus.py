"""What a slide's graph focus names ("cut", "head 1", "state", ...): the ids of the
boxes (or ops) to frame, the rest of the graph dimmed. Plain data in, ids out."""
from __future__ import annotations

from .graph_data import (
    CUT,
    DETACHED,
    EARLIER,
    FREED,
    GRAD,
    INPUT,
    JUNCTION,
    OP,
    SAVED_EDGE,
    STALE,
    GraphData,
    GraphNode,
)

FOCUS_NAMES = ("cut", "junction", "trunk", "head K", "freed", "changed", "state")


def focus_ids(graph: GraphData, name: str) -> set[str]:
    """The ids of the boxes a slide's focus names, with what links them where that is the
    point (a cut's two ends, the junction's neighbours). "" is no focus: an empty set.
    Raises ValueError (a one-line message) for a name not in FOCUS_NAMES."""
    name = " ".join(name.lower().split())
    if not name:
        return set()
    picks = {"cut": _cut_focus, "junction": _junction_focus, "trunk": _trunk_focus,
             "freed": lambda g: {n.id for n in g.nodes if n.state == FREED},
             "changed": lambda g: {n.id for n in g.nodes if n.state in (STALE, DETACHED)},
             "state": _state_focus}
    if name in picks:
        return picks[name](graph)
    head = name.removeprefix("head").strip()
    if head.isdigit():
        k = int(head)
        return {n.id for n in graph.nodes if n.heads_reaching == (k,)}
    raise ValueError(f"unknown graph focus {name!r}: use one of {', '.join(FOCUS_NAMES)}")


def focused_box(graph: GraphData, name: str) -> GraphNode | None:
    """The one box a focus names, whose facts a slide can show with its narration (the
    junction z: its box in the module view, the op that made it in the op view); None
    for a focus of several boxes, or a graph without it."""
    if " ".join(name.lower().split()) != "junction":
        return None
    return next((n for n in graph.nodes if n.kind == JUNCTION), None) or \
        next((n for n in graph.nodes if n.kind == OP and n.tensor), None)


def _ends(graph: GraphData, kinds: tuple[str, ...], ids: set[str]) -> set[str]:
    """ids and the nodes one edge of kinds away from them."""
    out = set(ids)
    for e in graph.edges:
        if e.kind in kinds and (e.src in ids or e.dst in ids):
            out |= {e.src, e.dst}
    return out


def _cut_focus(graph: GraphData) -> set[str]:
    """The cut's two ends, and what detach_() cut in place under an earlier user (a head
    that had saved z): lesson 04 slide 2's answer, dimmed, was the one box it asks about."""
    ends = {end for e in graph.edges if e.kind == CUT for end in (e.src, e.dst)}
    return ends | {n.id for n in graph.nodes if n.state == DETACHED}


def _junction_focus(graph: GraphData) -> set[str]:
    z = {n.id for n in graph.nodes if n.kind == JUNCTION or (n.tensor and n.kind == OP)}
    return _ends(graph, (GRAD, CUT), z)


def _trunk_focus(graph: GraphData) -> set[str]:
    calls = {c.id: c.path for c in graph.modules}
    return {n.id for n in graph.nodes
            if calls.get(n.module, "").split(".")[0] == "trunk" or n.kind == JUNCTION}


def _state_focus(graph: GraphData) -> set[str]:
    """The steps before and the carried state's way into this one (its edge, or cut)."""
    return _ends(graph, (GRAD, CUT, SAVED_EDGE),
                 {n.id for n in graph.nodes if n.kind == EARLIER or
                  (n.kind == INPUT and n.label.startswith("h"))})


def snap_start(start: float, length: float, spans: list[tuple[float, float]],
               keep: list[tuple[float, float]], bounds: tuple[float, float]) -> float:
    """Where a view `length` long, now starting at `start`, should start along one axis
    so that its edges cut through no box: each of spans (a box's extent, its state badge
    and a margin included) ends up whole in view or wholly out of it. Framed at 14 px,
    the names a slide's narration used were cut at the panel's edges ("Linear 8→32"
    under a name above the top). First as few of keep (the slide's focus) cut as can
    be, then as few boxes cut, then the least shift, at most a quarter of the view or a
    box's length (a longer one moved what the view is centred on, the junction, to its
    edge); the view
    stays within bounds (the scene). A keep span whole at start stays whole (a shift
    that cut fewer boxes pushed the cut the slide is about out of view). Plain numbers
    in, the start out."""
    lo, hi = bounds[0], max(bounds[0], bounds[1] - length)

    def clamp(x: float) -> float:
        return min(max(x, lo), hi)

    def whole(at: float, span: tuple[float, float]) -> bool:
        return span[0] >= at - 0.5 and span[1] <= at + length + 0.5

    def cut(at: float, span: tuple[float, float]) -> bool:
        return span[0] < at + length and span[1] > at and not whole(at, span)

    kept = [k for k in keep if whole(start, k)]

    reach = max([length / 4] + [b - a for a, b in spans])
    options = {clamp(start)}
    for a, b in spans:   # each box just whole, or just out, at either edge
        options |= {clamp(x) for x in (a, b - length, b, a - length)
                    if abs(x - start) <= reach}
    return min(sorted(options), key=lambda at: (sum(not whole(at, k) for k in kept),
                                                sum(cut(at, k) for k in keep),
                                                sum(cut(at, s) for s in spans),
                                                abs(at - start)))
