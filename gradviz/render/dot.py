"""GraphData as DOT text styled for a projector: big type, parameters at the top and
losses at the bottom (like torchviz), each head in its own colour, and a legend.
"""
from __future__ import annotations

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
    TOTAL,
    GraphData,
    GraphEdge,
    GraphNode,
)

from . import style

FONT = "Helvetica,Arial,sans-serif"
BOLD = "Helvetica-Bold,Arial Bold,sans-serif"
FONT_SIZE = 22
SMALL_FONT_SIZE = 18      # saved tensors: many of them, less important than the ops
TITLE_FONT_SIZE = 30


def quote(text: str) -> str:
    """text as a DOT double-quoted string that shows exactly text (newlines as line breaks).

    Backslashes are doubled so Graphviz's own escapes (\\N, \\l, ...) cannot fire, and &
    becomes &amp; because Graphviz decodes HTML entities in plain labels too; < and > need
    nothing inside quotes (only HTML-like <...> labels treat them specially).
    """
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("&", "&amp;")
    text = text.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + text.replace("\n", "\\n") + '"'


def _name(node_id: str) -> str:
    """A node name as a DOT ID (names, unlike labels, know no escapes but \\")."""
    return '"' + node_id.replace('"', '\\"') + '"'


def _attrs(**attrs: object) -> str:
    return "[" + " ".join(f"{k}={quote(str(v))}" for k, v in attrs.items()) + "]"


def _shape_text(shape: tuple[int, ...]) -> str:
    return "(" + ", ".join(str(s) for s in shape) + ")"   # as torchviz writes it


def box_lines(node: GraphNode) -> list[str]:
    """A module-view box's two lines: its name, and its kind and sizes (the junction: what
    z is). Its state is a badge on its border (box_badge), so the box keeps its size."""
    if node.kind == JUNCTION:
        return [node.label, "now a leaf" if node.is_leaf else "junction"]
    return [node.label, node.detail] if node.detail else [node.label]


def box_badge(node: GraphNode) -> tuple[str, str] | None:
    """(text, colour) of the badge on a module-view box's lower border: its state, or the
    junction's kept .grad; None for none."""
    if node.kind == JUNCTION:
        return ("z.grad kept", style.KEPT_COLOUR) if node.has_grad and not node.is_leaf \
            else None
    if node.state == "alive":
        return None
    return node.state, style.FREED_TEXT if node.state == "freed" else style.CUT_COLOUR


def node_label(node: GraphNode) -> str:
    """The text drawn in node's box (lines joined by newlines), for DOT and the Qt view."""
    if node.kind in (MODULE, JUNCTION, EARLIER):
        return "\n".join(box_lines(node))
    lines = [f"{node.label} loss" if node.kind == LOSS else node.label]
    if node.kind in (PARAM, INPUT, SAVED) and node.shape is not None:
        lines.append(_shape_text(node.shape))
    if node.kind == OP and node.saved_bytes and not node.freed:
        lines.append(f"holds {style.format_bytes(node.saved_bytes)}")
    if node.tensor:
        lines.append(junction_text(node))
    if node.freed:
        lines.append(f"({node.state})")
    return "\n".join(lines)


def junction_text(node: GraphNode) -> str:
    """What the node that made z says about z: .grad kept, or a leaf after detach_()."""
    if node.is_leaf:
        return f"→ {node.tensor}: now a leaf"
    return f"→ {node.tensor}" + (f" ({node.tensor}.grad kept)" if node.has_grad else "")


def tensor_text(node: GraphNode) -> str:
    """requires_grad, leaf and .grad in one line, for tooltips; '' where unknown."""
    if node.requires_grad is None:
        return ""
    grad = "holds a .grad" if node.has_grad else ".grad is None"
    return (f"requires_grad={node.requires_grad} · "
            f"{'a leaf' if node.is_leaf else 'not a leaf'} · {grad}")


def node_font(node: GraphNode) -> tuple[str, int]:
    """(font family list, size in points) of node's label: losses bold, saved tensors small."""
    if node.kind in (LOSS, TOTAL, MODULE, JUNCTION, EARLIER):
        return BOLD, FONT_SIZE
    return FONT, SMALL_FONT_SIZE if node.kind == SAVED else FONT_SIZE



def edge_label(edge: GraphEdge) -> str:
    """The text drawn beside an edge ("" for none); in BOLD at FONT_SIZE."""
    # spaces keep the label off the dashed line
    return f" {edge.label or 'detach()'} " if edge.kind == CUT else ""


def _stroke_attrs(stroke: style.Stroke) -> dict[str, object]:
    return dict(color=":".join(stroke.lines), penwidth=_number(stroke.width))


def _number(x: float) -> object:
    return int(x) if float(x).is_integer() else x     # penwidth=3, as it always read


def _node_stmt(node: GraphNode, boxes: bool = False) -> str:
    """boxes: node is drawn among a module view's boxes (and as large as they are)."""
    shapes = {PARAM: "box", INPUT: "box", OP: "box", SAVED: "note", LOSS: "box", TOTAL: "box"}
    styles = ["filled"] + (["rounded"] if node.kind in (OP, LOSS, TOTAL, MODULE, JUNCTION,
                                                        EARLIER) else [])
    font, size = node_font(node)
    border = style.node_border(node.kind, node.heads_reaching)
    attrs: dict[str, object] = dict(label=node_label(node), shape=shapes.get(node.kind, "box"),
                                    fillcolor=style.node_fill(node.kind, node.freed),
                                    fontname=font, fontsize=size, **_stroke_attrs(border))
    if border.dash != style.SOLID:
        styles.append(border.dash)
    if not node.heads_reaching:   # reached by no loss: dead, its text grey too
        attrs.update(fontcolor=style.DEAD_COLOUR)
    if node.kind in (LOSS, TOTAL):
        styles.append("bold")
    if node.kind == SAVED:
        attrs.update(margin="0.08,0.03")
    if boxes:
        # wide margins: a module graph is narrow, width costs nothing, and the box text
        # is then drawn as large as the box is tall, whatever the screen's font
        attrs.update(margin="0.4,0.05")
    if node.freed:  # released by backward (or detached in place): greyed out
        attrs.update(fontcolor=style.FREED_TEXT)
        if node.state != "freed":
            attrs.update(fontcolor=style.CUT_COLOUR)
    attrs["style"] = ",".join(styles)
    return f"  {_name(node.id)} {_attrs(**attrs)};"


def _edge_stmt(edge: GraphEdge, heads_by_node: dict[str, tuple[int, ...]]) -> str:
    ends = f"  {_name(edge.src)} -> {_name(edge.dst)} "
    heads_along = (style.heads_along_edge(edge.src, edge.dst, heads_by_node)
                   if edge.kind == GRAD else ())
    stroke = style.edge_stroke(edge.kind, heads_along)
    attrs: dict[str, object] = {}
    if not style.has_arrow(edge.kind):
        attrs.update(dir="none")
    if stroke.dash != style.SOLID:
        attrs.update(style=stroke.dash)
    attrs.update(_stroke_attrs(stroke))
    if edge.kind == CUT:
        attrs.update(label=edge_label(edge), fontname=BOLD, fontcolor=stroke.colour,
                     fontsize=FONT_SIZE)
    elif heads_along:   # one parallel line per head whose gradient runs here
        attrs.update(arrowsize=1.2)
    return ends + _attrs(**attrs) + ";"


def _sample(key: str, label: str, **attrs: object) -> tuple[str, str]:
    base: dict[str, object] = dict(shape="box", style="filled,rounded", fillcolor="#FFFFFF",
                                   color="#404040", penwidth=3)
    base.update(attrs)
    return f"legend_{key}", f"    legend_{key} {_attrs(label=label, **base)};"


def _legend(graph: GraphData) -> list[str]:
    """A cluster of sample nodes in three columns: kinds, heads, states and the cut."""
    kinds = [_sample(k, name, fillcolor=style.KIND_FILL[k],
                     style="filled" if k in (PARAM, INPUT, SAVED) else "filled,rounded",
                     shape="note" if k == SAVED else "box")
             for k, name in style.KIND_NAMES.items()]
    names = style.head_names(graph) or {k: f"head{k}" for k in _head_indices(graph)}
    head_samples = [_sample(f"head{k}", f"{name} only",
                            **_stroke_attrs(style.node_border(OP, (k,))))
                    for k, name in sorted(names.items())]
    dead = style.node_border(OP, ())
    head_samples += [_sample("shared", "shared by\nseveral losses",
                             **_stroke_attrs(style.node_border(OP, (0, 1)))),
                     _sample("dead", "reached by\nno loss", style=f"filled,rounded,{dead.dash}",
                             fontcolor=style.DEAD_COLOUR, **_stroke_attrs(dead))]
    states = [_sample("freed", "AddmmBackward0\n(freed)", fillcolor=style.FREED_FILL,
                      fontcolor=style.FREED_TEXT),
              _sample("freed_note", "(freed): backward has\nreleased what it saved",
                      shape="plaintext", style="solid"),
              _sample("cut_from", "z", shape="circle", style="filled", width=0.45,
                      fixedsize="true", penwidth=2),
              _sample("cut_to", "cut: no gradient\nflows back here", penwidth=2)]
    lines = ["  subgraph cluster_legend {",
             f"    label={quote('Legend')}; fontname={quote(BOLD)}; fontsize={FONT_SIZE};",
             '    style="rounded"; color="#808080"; penwidth=2; margin=16;']
    for column in (kinds, head_samples, states):
        lines += [stmt for _, stmt in column]
        keys = [key for key, _ in column]   # stack each column with invisible edges
        keys = keys[:-1] if column is states else keys   # its last link is the cut sample
        lines += [f"    {a} -> {b} [style=invis];" for a, b in zip(keys, keys[1:])]
    cut_stroke = style.edge_stroke(CUT, ())
    cut = _attrs(style=cut_stroke.dash, **_stroke_attrs(cut_stroke), label=" detach() ",
                 fontname=BOLD, fontcolor=cut_stroke.colour)
    lines += [f"    legend_cut_from -> legend_cut_to {cut};", "  }"]
    return lines


def _head_indices(graph: GraphData) -> list[int]:
    return sorted({k for n in graph.nodes for k in n.heads_reaching})


def to_dot(graph: GraphData, title: str = "", legend: bool = True, rankdir: str = "TB") -> str:
    """DOT text for graph; node names are the GraphData node ids. rankdir "LR" lays the
    forward pass left to right, which fits a wide panel better than torchviz's top-down.
    A module view's boxes sit closer: the room reads the boxes, the gaps carry nothing."""
    heads_by_node = style.heads_by_node(graph)
    boxes = any(n.kind in style.BOX_KINDS for n in graph.nodes)
    graph_attrs = _attrs(rankdir=rankdir, label=title, labelloc="t", fontname=FONT,
                         fontsize=TITLE_FONT_SIZE, nodesep=0.45 if boxes else 0.3,
                         ranksep=0.45 if boxes else 0.5, pad=0.3, bgcolor="white",
                         newrank="true")
    lines = ["digraph gradviz {", f"  graph {graph_attrs};",
             f"  node {_attrs(fontname=FONT, fontsize=FONT_SIZE, margin='0.15,0.06')};",
             f"  edge {_attrs(fontname=FONT, fontsize=FONT_SIZE, arrowsize=1.2)};"]
    if not graph.nodes:
        empty = _attrs(shape="plaintext", label="no autograd graph yet: run a forward pass")
        lines.append(f"  empty {empty};")
    lines += [_node_stmt(n, boxes) for n in graph.nodes]
    lines += [_edge_stmt(e, heads_by_node) for e in graph.edges]
    if legend and graph.nodes:
        lines += _legend(graph)
    lines.append("}")
    return "\n".join(lines) + "\n"
