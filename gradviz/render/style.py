"""How the graph looks, decided once for every renderer (DOT here, the Qt view too):
the head colours, the fill of each node kind, and whose gradient runs along each edge.
"""
from __future__ import annotations

from gradviz.core.graph_data import INPUT, LOSS, OP, PARAM, SAVED, TOTAL, GraphData

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
             LOSS: "#FFF0A0", TOTAL: "#FFD966"}
KIND_NAMES = {PARAM: "parameter", INPUT: "input", OP: "backward op", SAVED: "saved tensor",
              LOSS: "loss", TOTAL: "total (backward target)"}


def head_colour(head: int) -> str:
    return HEAD_COLOURS[head % len(HEAD_COLOURS)]


def reach(graph: GraphData) -> dict[str, tuple[int, ...]]:
    """Node id -> the heads whose gradient passes through it (empty: reached by no loss)."""
    return {n.id: tuple(n.losses) for n in graph.nodes}


def edge_heads(src: str, dst: str, heads: dict[str, tuple[int, ...]]) -> tuple[int, ...]:
    """The heads whose gradient runs along a grad edge (it flows dst -> src)."""
    return tuple(sorted(set(heads.get(src, ())) & set(heads.get(dst, ()))))


def head_names(graph: GraphData) -> dict[int, str]:
    """Head index -> its loss's name, for the heads that have a loss node in graph."""
    return {n.losses[0]: n.label for n in graph.nodes if n.kind == LOSS and n.losses}

