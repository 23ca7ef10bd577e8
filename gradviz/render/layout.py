"""Graph layout as plain numbers: where Graphviz puts each node and edge of a GraphData,
for drawing natively (the Qt graph view). Qt-free; `python -m gradviz.bench.layout_speed`
times it.

Coordinates are in points, y growing downwards (Qt's convention), origin at the top
left of the drawing.
"""
from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field

from gradviz.plain.graph.graph_data import GraphData

from .dot import to_dot
from .graphviz_program import (
    DEFAULT_TIMEOUT_S,
    Cancelled,
    GraphvizProgram,
    RenderError,
    layout,
)

RANKDIRS = ("TB", "LR", "BT", "RL")
Point = tuple[float, float]


class LayoutCancelled(Cancelled):
    """The layout was cancelled (a newer graph is wanted) before it finished."""


@dataclass(frozen=True)
class NodeBox:
    x: float        # centre
    y: float        # centre
    width: float
    height: float


@dataclass(frozen=True)
class EdgePath:
    src: str
    dst: str
    kind: str                                   # grad, saved, cut (as GraphEdge.kind)
    points: tuple[tuple[float, float], ...]     # cubic Bezier: p0, then (c1, c2, p) triples
    arrow_end: tuple[float, float] | None = None  # arrow tip when Graphviz draws one
    label_pos: tuple[float, float] | None = None


@dataclass
class GraphLayout:
    width: float
    height: float
    nodes: dict[str, NodeBox] = field(default_factory=dict)
    edges: list[EdgePath] = field(default_factory=list)   # in GraphData.edges order
    rankdir: str = "TB"


def layout_dot(graph: GraphData, rankdir: str = "TB") -> str:
    """The DOT that is laid out: the exported DOT without title or legend, so each box fits
    the text dot.node_label / dot.node_font give, and positions match graph.svg's."""
    return to_dot(graph, title="", legend=False, rankdir=rankdir)


def layout_graph(graph: GraphData, rankdir: str = "TB", cancel: threading.Event | None = None,
                 program: GraphvizProgram | None = None,
                 timeout: float = DEFAULT_TIMEOUT_S) -> GraphLayout:
    """Lay graph out with Graphviz (json0). Raises LayoutCancelled when cancel is set
    before it is done (the layout program is killed), RenderError when it fails."""
    if rankdir not in RANKDIRS:
        raise ValueError(f"rankdir must be one of {', '.join(RANKDIRS)} (got {rankdir!r})")
    if not graph.nodes:
        return GraphLayout(0.0, 0.0, rankdir=rankdir)
    try:
        raw = layout(layout_dot(graph, rankdir), "json0", program=program, timeout=timeout,
                     cancel=cancel)
    except Cancelled:
        raise LayoutCancelled("the layout was cancelled") from None
    result = parse_layout(raw, graph, rankdir)
    if cancel is not None and cancel.is_set():
        raise LayoutCancelled("the layout was cancelled")
    return result


def parse_layout(raw: bytes, graph: GraphData, rankdir: str = "TB") -> GraphLayout:
    """GraphLayout from Graphviz's -Tjson / -Tjson0 output for layout_dot(graph)."""
    try:
        data = json.loads(raw)
        x0, y0, x1, y1 = _floats(data["bb"])
        objects = data.get("objects", [])
        names = {o["_gvid"]: o["name"] for o in objects}

        def flip(x: float, y: float) -> Point:   # Graphviz's y points up
            return round(x - x0, 3), round(y1 - y, 3)

        nodes = {o["name"]: _box(o, flip) for o in objects if "nodes" not in o}
        missing = [n.id for n in graph.nodes if n.id not in nodes]
        if missing:
            raise RenderError(f"the layout has no place for {len(missing)} node(s), "
                              f"e.g. {missing[0]}")
        laid = [(names[e["tail"]], names[e["head"]], e)
                for e in sorted(data.get("edges", []), key=lambda e: e["_gvid"])]
        edges = _match_edges(graph, laid, flip)
    except (ValueError, KeyError, TypeError, IndexError) as exc:
        raise RenderError(f"could not read the layout program's json: "
                          f"{type(exc).__name__}: {' '.join(str(exc).split())}") from None
    return GraphLayout(x1 - x0, y1 - y0, {n.id: nodes[n.id] for n in graph.nodes}, edges,
                       rankdir)


def _floats(text: str) -> list[float]:
    return [float(v) for v in text.split(",")]


def _box(obj: dict, flip) -> NodeBox:
    x, y = flip(*_floats(obj["pos"]))
    points_per_inch = 72.0
    return NodeBox(x, y, round(float(obj["width"]) * points_per_inch, 3),
                   round(float(obj["height"]) * points_per_inch, 3))


def _match_edges(graph: GraphData, laid: list, flip) -> list[EdgePath]:
    """One EdgePath per GraphData edge, in its order. DOT edge statements follow
    graph.edges, so the k-th laid-out src->dst edge is the k-th GraphData one."""
    queues: dict[tuple[str, str], list[dict]] = {}
    for tail, head, obj in laid:
        queues.setdefault((tail, head), []).append(obj)
    paths = []
    for e in graph.edges:
        queue = queues.get((e.src, e.dst))
        if not queue:
            raise RenderError(f"the layout has no path for the edge {e.src} -> {e.dst}")
        obj = queue.pop(0)
        points, end = _spline(obj["pos"], flip)
        label = flip(*_floats(obj["lp"])) if obj.get("lp") else None
        paths.append(EdgePath(e.src, e.dst, e.kind, points, end, label))
    return paths


def _spline(pos: str, flip) -> tuple[tuple[Point, ...], Point | None]:
    """Bezier points and arrow tip from an edge's pos ("e,x,y p0 c1 c2 p1 ...", maybe
    several splines joined by ';')."""
    points: list[Point] = []
    end = None
    for part in pos.split(";"):
        seg = []
        for token in part.split():
            if token.startswith("e,"):
                end = flip(*_floats(token[2:]))
            elif not token.startswith("s,"):
                seg.append(flip(*_floats(token)))
        if points and seg:
            if seg[0] != points[-1]:      # bridge a gap with a straight cubic
                points += [points[-1], seg[0], seg[0]]
            seg = seg[1:]
        points += seg
    if len(points) < 4 or (len(points) - 1) % 3:
        raise ValueError(f"edge pos is not a cubic Bezier: {pos[:60]!r}")
    return tuple(points), end
