"""The exported DOT and the on-screen graph draw each kind of node and edge alike: both
take borders, fills and strokes from render.style, and this holds them to it."""
from __future__ import annotations

import re

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

from gradviz.plain.graph.graph_data import (
    CUT,
    FREED,
    GRAD,
    LOSS,
    OP,
    PARAM,
    SAVED,
    SAVED_EDGE,
    TOTAL,
    GraphData,
    GraphEdge,
    GraphNode,
)
from gradviz.qt.widgets.graph_canvas import GraphCanvas
from gradviz.render import style
from gradviz.render.dot import to_dot
from gradviz.render.layout import layout_graph

# one node of each look: kind, and the heads whose gradient reaches it
NODES = {
    "w_one": (PARAM, (0,)), "w_shared": (PARAM, (0, 1)), "op_one": (OP, (0,)),
    "op_shared": (OP, (0, 1)), "op_dead": (OP, ()), "saved": (SAVED, (0,)),
    "saved_dead": (SAVED, ()), "loss_a": (LOSS, (0,)), "loss_b": (LOSS, (1,)),
    "loss_dead": (LOSS, ()), "total": (TOTAL, (0, 1)),
}
# (src, dst, kind): grad edges point from where the gradient goes to where it comes from
EDGES = {
    "grad, one head": ("w_one", "op_one", GRAD),
    "grad, shared": ("w_shared", "op_shared", GRAD),
    "grad, dead": ("op_dead", "op_one", GRAD),
    "saved tensor": ("saved", "op_one", SAVED_EDGE),
    "detach() cut": ("op_shared", "loss_b", CUT),
    "into a loss": ("op_one", "loss_a", GRAD),
    "into the total": ("loss_a", "total", GRAD),
}
DASH = {Qt.SolidLine: style.SOLID, Qt.DashLine: style.DASHED, Qt.DotLine: style.DOTTED}


def _graph() -> GraphData:
    nodes = [GraphNode(node_id, kind, node_id, shape=(2, 3), heads_reaching=reaching,
                       saved_bytes=3 * 2 ** 20 if kind == OP else 0)
             for node_id, (kind, reaching) in NODES.items()]
    nodes.append(GraphNode("op_freed", OP, "op_freed", heads_reaching=(0,), state=FREED))
    edges = [GraphEdge(src, dst, kind, label="detach()" if kind == CUT else "")
             for src, dst, kind in EDGES.values()]
    return GraphData(nodes, edges)


def _dot_attrs(text: str) -> tuple[dict[str, dict], dict[tuple[str, str], dict]]:
    """(node id -> attributes, (src, dst) -> attributes) of to_dot's statements."""
    value = r'"((?:[^"\\]|\\.)*)"'
    nodes, edges = {}, {}
    for line in text.splitlines():
        m = re.fullmatch(rf'\s*{value}(?: -> {value})? \[(.*)\];', line)
        if m:
            attrs = dict(re.findall(rf'(\w+)={value}', m.group(3)))
            if m.group(2) is None:
                nodes[m.group(1)] = attrs
            else:
                edges[(m.group(1), m.group(2))] = attrs
    return nodes, edges


def _dash(attrs: dict) -> str:
    kinds = set(attrs.get("style", "").split(",")) & {style.DASHED, style.DOTTED}
    return kinds.pop() if kinds else style.SOLID


@pytest.fixture(scope="module")
def drawn():
    graph = _graph()
    return graph, _dot_attrs(to_dot(graph)), layout_graph(graph)


@pytest.fixture
def canvas(qtbot, drawn):
    graph, _, layout = drawn
    canvas = GraphCanvas()
    qtbot.addWidget(canvas)
    canvas.show_graph(graph, layout)
    return canvas


@pytest.mark.parametrize("node_id", [*NODES, "op_freed"])
def test_a_node_has_the_same_border_and_fill_in_dot_and_on_screen(drawn, canvas, node_id):
    graph, (dot_nodes, _), _ = drawn
    attrs, item = dot_nodes[node_id], canvas.nodes[node_id]
    pen, node = item.pen(), graph.node(node_id)
    assert QColor(attrs["color"]) == pen.color()
    assert float(attrs["penwidth"]) == pytest.approx(pen.widthF())
    assert _dash(attrs) == DASH[pen.style()]
    assert QColor(attrs["fillcolor"]) == item.brush().color()
    # and both are what render.style says
    border = style.node_border(node.kind, node.heads_reaching)
    assert (pen.color(), pen.widthF(), DASH[pen.style()]) == (QColor(border.colour), border.width,
                                                              border.dash)


def test_borders_tell_one_head_shared_dead_and_losses_apart(drawn):
    _, (dot_nodes, _), _ = drawn
    width = {n: float(dot_nodes[n]["penwidth"]) for n in NODES}
    assert width["op_one"] < width["op_shared"]
    assert width["op_dead"] == style.DEAD_WIDTH and _dash(dot_nodes["op_dead"]) == style.DOTTED
    assert width["loss_a"] >= style.LOSS_MIN_WIDTH and width["loss_dead"] >= style.LOSS_MIN_WIDTH
    assert QColor(dot_nodes["op_shared"]["color"]) == QColor(style.SHARED_COLOUR)


@pytest.mark.parametrize("name", list(EDGES))
def test_an_edge_has_the_same_stroke_in_dot_and_on_screen(drawn, canvas, name):
    src, dst, kind = EDGES[name]
    _, (_, dot_edges), _ = drawn
    attrs = dot_edges[(src, dst)]
    (item,) = [e for e in canvas.edges if (e.edge_path.src, e.edge_path.dst) == (src, dst)]
    pen = item.pen()
    colours = attrs["color"].split(":")
    if len(colours) > 1:    # DOT draws a line per head; the screen one black line
        assert QColor(style.SHARED_COLOUR) == pen.color()
    else:
        assert QColor(colours[0]) == pen.color()
    assert float(attrs["penwidth"]) == pytest.approx(pen.widthF())   # nothing measured
    assert _dash(attrs) == DASH[pen.style()]
    assert (attrs.get("dir") != "none") == item.arrow.isVisible()


def test_an_edge_with_a_measured_gradient_is_as_thick_as_it_on_screen(qtbot, drawn):
    _, _, layout = drawn
    graph = _graph()            # its own: the module's graph stays unmeasured
    for edge in graph.edges:
        edge.grad_norm = 1.0 if edge.src == "w_one" else 1e-3
    graph.node("w_one").grad_norm, graph.node("w_shared").grad_norm = 1.0, 1e-3
    canvas = GraphCanvas()
    qtbot.addWidget(canvas)
    canvas.show_graph(graph, layout)
    width = {(e.edge_path.src, e.edge_path.dst): e.pen().widthF() for e in canvas.edges}
    assert width[("w_one", "op_one")] > width[("op_one", "loss_a")]
    assert width[("op_dead", "op_one")] == style.DEAD_EDGE_WIDTH   # no gradient: as in DOT
    assert width[("op_shared", "loss_b")] == style.CUT_WIDTH


def test_byte_counts_read_alike_in_dot_and_in_the_tooltip(drawn, canvas):
    graph, _, _ = drawn
    text = style.format_bytes(graph.node("op_one").saved_bytes)
    assert text == "3.0 MiB"
    assert f"holds {text}" in to_dot(graph)
    assert f"holds {text}" in canvas.nodes["op_one"].toolTip()
