"""The autograd graph of the current step, as Graphviz draws it (SVG), scaled to fit.

Requests go to a GraphRenderer on another thread; while one is being laid out only the
newest waiting graph is kept, so a fast run never builds a queue.
"""
from __future__ import annotations

from PySide6.QtCore import QRectF, QSize, Qt, Signal
from PySide6.QtGui import QPainter
from PySide6.QtSvg import QSvgRenderer
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget


class _SvgCanvas(QWidget):
    """Paints an SVG scaled to fit, keeping its aspect ratio."""

    def __init__(self):
        super().__init__()
        self.renderer = QSvgRenderer(self)
        self.setMinimumSize(QSize(200, 150))

    def load(self, svg: bytes) -> bool:
        ok = self.renderer.load(svg)
        self.update()
        return ok

    def paintEvent(self, event) -> None:
        if not self.renderer.isValid():
            return
        size = self.renderer.defaultSize().toSizeF()
        if size.isEmpty():
            return
        scale = min(self.width() / size.width(), self.height() / size.height())
        w, h = size.width() * scale, size.height() * scale
        painter = QPainter(self)
        painter.setRenderHint(QPainter.Antialiasing)
        self.renderer.render(painter, QRectF((self.width() - w) / 2, (self.height() - h) / 2, w, h))
        painter.end()


class GraphView(QWidget):
    requestRender = Signal(object, str, str)   # GraphData, caption, rankdir -> GraphRenderer
    showSavedChanged = Signal(bool)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("graphView")
        self.caption = QLabel("The autograd graph appears after the first forward pass.")
        self.caption.setObjectName("graphCaption")
        self.caption.setWordWrap(True)
        self.show_saved = QCheckBox("saved tensors")
        self.show_saved.setObjectName("showSavedCheck")
        self.show_saved.setToolTip("Draw each tensor that backward needs, beside its op")
        self.show_saved.toggled.connect(self.showSavedChanged.emit)
        self.canvas = _SvgCanvas()
        self.canvas.setObjectName("graphCanvas")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        top = QHBoxLayout()
        top.addWidget(self.caption, 1)
        top.addWidget(self.show_saved)
        layout.addLayout(top)
        layout.addWidget(self.canvas, 1)
        self._busy = False
        self._waiting: tuple | None = None
        self.svg: bytes = b""
        self.graph = None           # the GraphData on screen

    def show_graph(self, graph, caption: str) -> None:
        if self._busy:
            self._waiting = (graph, caption)
            return
        self._busy = True
        self._pending_graph = graph
        wide = self.canvas.width() > 1.6 * self.canvas.height()
        self.requestRender.emit(graph, caption, "LR" if wide else "TB")

    def on_svg(self, svg: bytes, caption: str) -> None:
        self.svg = svg
        self.graph = self._pending_graph
        self.canvas.load(svg)
        nodes = len(self.graph.nodes) if self.graph is not None else 0
        self.caption.setText(f"Autograd graph {caption} · {nodes} nodes")
        self._next()

    def on_failed(self, reason: str) -> None:
        self.caption.setText(f"Graph not drawn: {reason}")
        self._next()

    def _next(self) -> None:
        self._busy = False
        if self._waiting is not None:
            graph, caption = self._waiting
            self._waiting = None
            self.show_graph(graph, caption)

    def apply_theme(self, theme) -> None:
        font = self.caption.font()
        font.setPointSizeF(theme.font_pt)
        self.caption.setFont(font)
        # Graphviz draws on white; a white card reads best in both themes
        self.canvas.setAutoFillBackground(True)
        pal = self.canvas.palette()
        pal.setColor(self.canvas.backgroundRole(), Qt.white)
        self.canvas.setPalette(pal)
