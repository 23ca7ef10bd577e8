"""What hovering the slide's focused box shows, as plain text: its tensor's facts
(requires_grad, a leaf or not, a .grad or none) and PyTorch's own warning about its
.grad. A clicker has no mouse: lesson 06's first slide told a hall to hover z, and the
stage now says it in the narration (NarrationView.show_facts)."""
from __future__ import annotations

from ...plain.graph.graph_data import GraphData
from ...plain.graph.graph_focus import focused_box
from ...render.dot import tensor_text


def facts_text(graph: GraphData | None, focus: str) -> str:
    """The focused box's facts, one line each ("" where the focus names no one box, or
    the graph has none of it)."""
    node = focused_box(graph, focus) if graph is not None else None
    if node is None or not tensor_text(node):
        return ""
    lines = [f"{node.tensor or node.label}: {tensor_text(node)}"]
    if node.grad_note:
        lines.append(f"PyTorch: {node.grad_note}")
    return "\n".join(lines)
