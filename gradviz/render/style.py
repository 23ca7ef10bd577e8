"""How the graph looks, decided once for every renderer (the DOT export and the Qt view):
the head colours, the fill of each node kind, whose gradient runs along each edge, the
strokes of borders and edges, and how a byte count reads. Qt-free: plain values.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

from gradviz.plain.graph.graph_data import (
    CUT,
    EARLIER,
    GRAD,
    INPUT,
    JUNCTION,
    LOSS,
    MODULE,
    OP,
    PARAM,
    SAVED,
    SAVED_EDGE,
    TOTAL,
    GraphData,
)

# Okabe-Ito (less black, which marks shared nodes) plus Tol's wine: told apart with the
# common colour-vision deficiencies. The faint yellow comes 7th, so 2-6 heads never use it.
HEAD_COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7",
                "#56B4E9", "#D55E00", "#F0E442", "#882255")
SHARED_COLOUR = "#000000"
DEAD_COLOUR = "#9E9E9E"
CUT_COLOUR = "#D00000"
SAVED_EDGE_COLOUR = "#B07020"
FREED_FILL = "#F2F2F2"
FREED_TEXT = "#666666"   # still readable on a washed-out projector
KIND_FILL = {PARAM: "#ADD8E6", INPUT: "#A8E0A0", OP: "#DCDCDC", SAVED: "#FFD9A8",
             LOSS: "#FFF0A0", TOTAL: "#FFD966", MODULE: "#D6E6F5", JUNCTION: "#FFFFFF",
             EARLIER: "#E8E0F0"}
KIND_NAMES = {PARAM: "parameter", INPUT: "input", OP: "backward op", SAVED: "saved tensor",
              LOSS: "loss", TOTAL: "total (backward target)",
              MODULE: "module call", JUNCTION: "junction z",
              EARLIER: "the step before"}
KEPT_COLOUR = "#007A3D"       # z.grad kept: a badge on the junction
BOX_KINDS = (MODULE, JUNCTION, EARLIER)   # the module view's boxes


def head_colour(head: int) -> str:
    return HEAD_COLOURS[head % len(HEAD_COLOURS)]


def heads_by_node(graph: GraphData) -> dict[str, tuple[int, ...]]:
    """Node id -> the heads whose gradient passes through it (empty: reached by no loss)."""
    return {n.id: tuple(n.heads_reaching) for n in graph.nodes}


def heads_along_edge(src: str, dst: str,
                     heads_by_node: dict[str, tuple[int, ...]]) -> tuple[int, ...]:
    """The heads whose gradient runs along a grad edge (it flows dst -> src)."""
    return tuple(sorted(set(heads_by_node.get(src, ())) & set(heads_by_node.get(dst, ()))))


def head_names(graph: GraphData) -> dict[int, str]:
    """Head index -> its loss's name, for the heads that have a loss node in graph."""
    return {n.heads_reaching[0]: n.label for n in graph.nodes
            if n.kind == LOSS and n.heads_reaching}



# ---- strokes: node borders and edge lines ---------------------------------------------
# Widths are in points, the unit of both the DOT export and the Qt scene (whose
# coordinates are the layout's points), so a border is as thick on screen as in graph.svg.
SOLID, DASHED, DOTTED = "solid", "dashed", "dotted"

HEAD_WIDTH = 3.0        # a node or edge that one head's gradient runs through
SHARED_WIDTH = 6.0      # a node shared by several losses: thick black
DEAD_WIDTH = 3.0        # a node no loss reaches: dotted grey
LOSS_MIN_WIDTH = 5.0    # losses and the total stand out whatever reaches them
CUT_WIDTH = 4.0         # a detach() cut: dashed red
CUT_BAR_WIDTH = 10.0    # ... and in the module view, a thick bar across it
STATE_WIDTH = 7.0       # a module box whose saved tensors were changed or detached in place
SAVED_EDGE_WIDTH = 2.0  # a saved tensor hanging off its op
DEAD_EDGE_WIDTH = 2.0   # a grad edge no loss's gradient runs along


@dataclass(frozen=True)
class Stroke:
    """How a border or an edge line is drawn. colours: the parallel lines a DOT edge is
    drawn as, one per head (DOT's "c1:c2"); a single line (the Qt view) uses colour."""
    colour: str
    width: float
    dash: str = SOLID                   # SOLID, DASHED or DOTTED
    colours: tuple[str, ...] = ()

    @property
    def lines(self) -> tuple[str, ...]:
        return self.colours or (self.colour,)


def node_border(kind: str, heads_reaching: tuple[int, ...]) -> Stroke:
    """A node's border, by the heads whose gradient passes through it."""
    if len(heads_reaching) == 1:
        stroke = Stroke(head_colour(heads_reaching[0]), HEAD_WIDTH)
    elif heads_reaching:             # shared by several losses: thick black, whatever the kind
        stroke = Stroke(SHARED_COLOUR, SHARED_WIDTH)
    else:                   # reached by no loss: dead
        stroke = Stroke(DEAD_COLOUR, DEAD_WIDTH, DOTTED)
    if kind in (LOSS, TOTAL, JUNCTION):
        stroke = replace(stroke, width=max(stroke.width, LOSS_MIN_WIDTH))
    return stroke


def state_border(state: str) -> Stroke | None:
    """A module box's border where its state must be seen from the back row: red for
    changed in place, red dashed for detached in place (None: by its heads)."""
    if state == "changed in place":
        return Stroke(CUT_COLOUR, STATE_WIDTH)
    if state == "detached in place":
        return Stroke(CUT_COLOUR, STATE_WIDTH, DASHED)
    return None


def node_fill(kind: str, freed: bool) -> str:
    """A node's fill: by kind, washed out once backward has released what it saved."""
    return FREED_FILL if freed else KIND_FILL.get(kind, "#FFFFFF")


def edge_stroke(kind: str, heads_along: tuple[int, ...]) -> Stroke:
    """An edge's line: a detach() cut, a saved tensor's link, or a grad edge by the heads
    whose gradient runs along it, heads_along (one line per head in DOT; black where
    the view draws one line)."""
    if kind == CUT:
        return Stroke(CUT_COLOUR, CUT_WIDTH, DASHED)
    if kind != GRAD:        # a saved tensor hangs off its op: no arrow, no gradient
        return Stroke(SAVED_EDGE_COLOUR, SAVED_EDGE_WIDTH, DOTTED)
    if not heads_along:
        return Stroke(DEAD_COLOUR, DEAD_EDGE_WIDTH, DOTTED)
    colours = tuple(head_colour(k) for k in heads_along)
    return Stroke(colours[0] if len(colours) == 1 else SHARED_COLOUR, HEAD_WIDTH,
                  colours=colours)


def has_arrow(kind: str) -> bool:
    """Whether an edge of kind ends in an arrow (a saved tensor's link has none)."""
    return kind != SAVED_EDGE


# ---- bytes ----------------------------------------------------------------------------
BYTE_UNITS = (("B", 1), ("KiB", 1024), ("MiB", 1024 ** 2), ("GiB", 1024 ** 3))


def byte_unit(largest: float) -> tuple[str, int]:
    """The binary unit in which `largest` bytes reads as a number from 1 to 1023."""
    name, size = BYTE_UNITS[0]
    for unit_name, unit_size in BYTE_UNITS:
        if math.isfinite(largest) and largest >= unit_size:
            name, size = unit_name, unit_size
    return name, size


def format_bytes(n: float) -> str:
    """n bytes as people read them: "512 B", "33.1 KiB", "5.0 MiB"."""
    name, size = byte_unit(n)
    return f"{int(n)} B" if size == 1 else f"{n / size:.1f} {name}"
