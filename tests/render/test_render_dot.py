"""Our DOT: every node and edge of GraphData, styled by kind, head, cut and freed state."""
from __future__ import annotations

import html
import re
from collections import Counter

import pytest

from gradviz.plain.config.config import Config
from gradviz.plain.graph.graph_data import GraphData, GraphEdge, GraphNode
from gradviz.render.dot import quote, to_dot
from gradviz.render.graphviz_program import find_graphviz
from gradviz.render.style import CUT_COLOUR, DEAD_COLOUR, HEAD_COLOURS, SHARED_COLOUR

from render_helpers import after_backward, drawn_text, laid_out


def _lower(colour: str) -> str:
    return colour.lower()


def test_every_node_and_edge_is_laid_out_under_its_own_id(detach_graph):
    nodes, edges = laid_out(to_dot(detach_graph, title="detach head 1"))
    assert {n.id for n in detach_graph.nodes} <= set(nodes)
    ours = Counter((e.src, e.dst) for e in detach_graph.edges)
    drawn = Counter((t, h) for t, h, _ in edges if not t.startswith("legend_"))
    assert drawn == ours


def test_the_cut_edge_is_dashed_red_and_labelled(detach_graph):
    cuts = [e for e in detach_graph.edges if e.kind == "cut"]
    assert len(cuts) == 1
    _, edges = laid_out(to_dot(detach_graph))
    (attrs,) = [a for t, h, a in edges if (t, h) == (cuts[0].src, cuts[0].dst)]
    assert attrs["style"] == "dashed"
    assert _lower(attrs["color"]) == _lower(CUT_COLOUR)
    assert [t.strip() for t in drawn_text(attrs)] == ["detach()"]


def test_other_edges_are_not_dashed(detach_graph):
    _, edges = laid_out(to_dot(detach_graph))
    dashed = [(t, h) for t, h, a in edges if a.get("style") == "dashed"]
    cut = [(e.src, e.dst) for e in detach_graph.edges if e.kind == "cut"]
    assert dashed == cut + [("legend_cut_from", "legend_cut_to")]


def _ops_with_saved_tensors(graph: GraphData) -> set[str]:
    return {e.dst for e in graph.edges if e.kind == "saved"}


def test_ops_are_labelled_freed_after_a_backward_without_retain_graph():
    session = after_backward(Config())   # sum, retain auto: one call, not retained
    assert [c.retain for c in session._live.backward_calls] == [False]
    graph = session.graph()
    nodes, _ = laid_out(to_dot(graph))
    saving = _ops_with_saved_tensors(graph)
    assert len(saving) >= 10
    for node_id in saving:
        assert drawn_text(nodes[node_id])[-1] == "(freed)", graph.node(node_id).label
    # TBackward0 saves nothing, so there is nothing to free
    for node in graph.by_kind("op"):
        if node.id not in saving:
            assert "(freed)" not in drawn_text(nodes[node.id])


def test_nothing_is_labelled_freed_when_every_backward_retains():
    session = after_backward(Config(strategy="separate", retain_graph="always"))
    assert [c.retain for c in session._live.backward_calls] == [True, True, True]
    graph = session.graph()
    nodes, _ = laid_out(to_dot(graph))
    assert len(_ops_with_saved_tensors(graph)) >= 10
    for node in graph.nodes:
        assert "(freed)" not in drawn_text(nodes[node.id]), node.label


def test_nodes_of_one_head_take_its_colour_and_shared_nodes_are_thick_black(detach_graph):
    nodes, _ = laid_out(to_dot(detach_graph))
    params = {n.label: n for n in detach_graph.by_kind("param")}
    # independent of the code under test: heads.k.* belong to head k alone,
    # trunk.* is shared by every head that does not detach (0 and 2)
    for name, node in params.items():
        attrs = nodes[node.id]
        if name.startswith("heads."):
            k = int(name.split(".")[1])
            assert _lower(attrs["color"]) == _lower(HEAD_COLOURS[k]), name
        else:
            assert _lower(attrs["color"]) == _lower(SHARED_COLOUR), name
            assert float(attrs["penwidth"]) >= 5


def test_the_total_and_the_adds_below_it_are_shared_not_dead(detach_graph):
    nodes, edges = laid_out(to_dot(detach_graph))
    (total,) = detach_graph.by_kind("total")
    adds = {n.id for n in detach_graph.by_kind("op") if n.label == "AddBackward0"}
    for node_id in adds | {total.id}:
        assert _lower(nodes[node_id]["color"]) == _lower(SHARED_COLOUR)
        assert "dotted" not in nodes[node_id]["style"]
    # total = (L0 + L1) + L2: the last add carries all three heads' gradient, in parallel
    (into_total,) = [a for t, h, a in edges if h == total.id]
    assert into_total["color"].lower().split(":") == [c.lower() for c in HEAD_COLOURS[:3]]


def test_trunk_behind_cuts_on_every_head_is_drawn_dead():
    graph = after_backward(Config(detach=(0, 1, 2))).graph(show_saved=False)
    nodes, _ = laid_out(to_dot(graph))
    trunk = [n for n in graph.by_kind("param") if n.label.startswith("trunk.")]
    assert len(trunk) == 4
    for node in trunk:
        attrs = nodes[node.id]
        assert "dotted" in attrs["style"]
        assert _lower(attrs["color"]) == _lower(DEAD_COLOUR)
    for node in graph.by_kind("param"):
        if node.label.startswith("heads."):
            assert "dotted" not in nodes[node.id]["style"]


def test_params_show_name_and_shape(detach_graph):
    nodes, _ = laid_out(to_dot(detach_graph))
    (node,) = [n for n in detach_graph.by_kind("param") if n.label == "trunk.0.weight"]
    assert drawn_text(nodes[node.id]) == ["trunk.0.weight", "(32, 8)"]


def test_legend_names_kinds_heads_cut_and_freed(detach_graph):
    nodes, edges = laid_out(to_dot(detach_graph))
    legend = " ".join(" ".join(drawn_text(a)) for name, a in nodes.items()
                      if name.startswith("legend_"))
    legend += " ".join(" ".join(drawn_text(a)) for t, _, a in edges if t.startswith("legend_"))
    for word in ("parameter", "input", "backward op", "saved tensor", "loss", "total",
                 "head0", "head1", "head2", "shared", "no loss", "(freed)", "detach()"):
        assert word in legend, word


def _graphviz_label_lines(dot_value: str) -> list[str]:
    """What Graphviz shows for a label attribute, by its documented rules: HTML entities
    are decoded, then \\n, \\l, \\r break lines and a backslash before anything else
    stands for that character."""
    text = html.unescape(dot_value)
    lines, cur, i = [], "", 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text):
            if text[i + 1] in "nlr":
                lines.append(cur)
                cur = ""
            else:
                cur += text[i + 1]
            i += 2
        else:
            cur += text[i]
            i += 1
    return lines + [cur]


TRICKY = ['say "hi"', "back\\slash \\n \\N end\\", "<b>&amp;</b> {a|b} & x", "two\nlines"]


@pytest.mark.parametrize("text", TRICKY)
def test_labels_are_escaped_so_graphviz_shows_them_exactly(text):
    graph = GraphData([GraphNode("n0", "param", text), GraphNode("n1", "loss", "head0",
                                                                 heads_reaching=(0,))],
                      [GraphEdge("n0", "n1")])
    nodes, _ = laid_out(to_dot(graph, title=text))
    assert _graphviz_label_lines(nodes["n0"]["label"]) == text.split("\n")
    if "\\" in text and find_graphviz().name == "graphviz-pure":
        return   # graphviz-pure 0.2.2 draws an escaped backslash as two (dot draws one)
    assert drawn_text(nodes["n0"]) == text.split("\n")


def test_quote_makes_one_dot_string():
    assert quote('a"b\\c\nd&') == '"a\\"b\\\\c\\nd&amp;"'
    assert re.fullmatch(r'"(?:[^"\\]|\\.)*"', quote('"\\"\\\\"'))


def test_head_colours_are_eight_distinct_hex_colours():
    assert len(HEAD_COLOURS) == 8 == len(set(c.lower() for c in HEAD_COLOURS))
    assert all(re.fullmatch(r"#[0-9A-Fa-f]{6}", c) for c in HEAD_COLOURS)
    assert _lower(SHARED_COLOUR) not in {_lower(c) for c in HEAD_COLOURS}


def test_an_empty_graph_still_lays_out():
    nodes, edges = laid_out(to_dot(GraphData()))
    assert list(nodes) == ["empty"] and edges == []


def test_a_tensor_detached_in_place_is_marked_in_red():
    graph = GraphData([GraphNode("n0", "op", "AddmmBackward0", heads_reaching=(0,),
                                 state="detached in place"),
                       GraphNode("n1", "loss", "head0", heads_reaching=(0,))],
                      [GraphEdge("n0", "n1")])
    nodes, _ = laid_out(to_dot(graph))
    assert drawn_text(nodes["n0"]) == ["AddmmBackward0", "(detached in place)"]
    assert _lower(nodes["n0"]["fontcolor"]) == _lower(CUT_COLOUR)
