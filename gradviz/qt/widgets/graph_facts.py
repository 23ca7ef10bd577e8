"""Under the graph, what hovering the slide's focused box shows: its tensor's facts
(requires_grad, a leaf or not, a .grad or none) and PyTorch's own warning about its
.grad. A clicker has no mouse: lesson 06's first slide told a hall to hover z."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from ...plain.graph_data import GraphData
from ...plain.graph_focus import focused_box
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


class GraphFacts(QLabel):
    """The focused box's facts, plain text (PyTorch's words and the model's names are
    shown as written), at the narration's size on a lesson's stage."""

    def __init__(self) -> None:
        super().__init__("")
        self.setObjectName("graphFacts")
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setWordWrap(True)
        self.setContentsMargins(4, 2, 4, 2)
        self.asked = False   # the slide asks for them (it may have no such box yet)
        self.hide()

    def set_asked(self, asked: bool) -> None:
        self.asked = asked
        self.setVisible(asked and bool(self.text()))

    def show_for(self, graph: GraphData | None, focus: str) -> None:
        text = facts_text(graph, focus)
        if text != self.text():
            self.setText(text)
        self.setVisible(self.asked and bool(text))

    def set_font_pt(self, pt: float) -> None:
        font = self.font()
        font.setPointSizeF(pt)
        self.setFont(font)
