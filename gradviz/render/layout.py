"""Graph layout as plain numbers: where Graphviz puts each node and edge of a GraphData,
for drawing natively (the Qt graph view). Qt-free.

Coordinates are in points, y growing downwards (Qt's convention), origin at the top
left of the drawing.
"""
from __future__ import annotations

from dataclasses import dataclass, field


class LayoutCancelled(Exception):
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
    edges: list[EdgePath] = field(default_factory=list)
