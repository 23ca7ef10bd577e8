"""The graph's key: node kinds, head colours, shared/dead/cut/freed, and the colour bar
of gradient magnitude (log scale, the range of the step on screen)."""
from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetrics, QLinearGradient, QPainter, QPen
from PySide6.QtWidgets import QWidget

from ...core.graph_data import CUT, INPUT, LOSS, OP, PARAM, SAVED, TOTAL
from ...render import style
from .graph_items import heat_colour, stroke_pen

ROW = 26            # px per line at the normal text size; it grows with the text


class GraphLegend(QWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("graphLegend")
        self.head_names: dict[int, str] = {}
        self.heat: tuple[float, float] | None = None
        self.font_pt = 11.0
        self.row = ROW
        self.setMinimumWidth(220)

    def set_font_pt(self, pt: float) -> None:
        """The legend's text size (the presentation zoom): lines and width grow with it."""
        self.font_pt = pt
        self._fit_text()

    def set_state(self, head_names: dict[int, str], heat: tuple[float, float] | None) -> None:
        self.head_names, self.heat = dict(head_names), heat
        self._fit_text()

    def _fit_text(self) -> None:
        """Room for every line, whole, at the text size."""
        font = QFont()
        font.setPointSizeF(self.font_pt)
        metrics = QFontMetrics(font)
        self.row = max(ROW, round(metrics.height() * 1.35))
        # the lines as painted (the cut's is shorter than its entry)
        lines = [t for t in self.entries() if not t.startswith("detach cut")]
        widest = max(metrics.horizontalAdvance(t) for t in lines + ["detach cut: no gradient"])
        self.setMinimumWidth(max(220, 50 + widest + 12))
        self.setMinimumHeight(self._rows() * self.row + 110 * self.row // ROW)
        self.update()

    def _rows(self) -> int:
        return 6 + len(self.head_names) + 4

    def entries(self) -> list[str]:
        """The legend's lines, as text (what tests and screen readers can check)."""
        kinds = [style.KIND_NAMES[k] for k in (PARAM, INPUT, OP, SAVED, LOSS, TOTAL)]
        head_rows = [f"{name}: only its gradient"
                     for _, name in sorted(self.head_names.items())]
        return kinds + head_rows + ["shared by several losses", "reached by no loss (dead)",
                                "detach cut: no gradient flows back", "freed by backward"]

    def paintEvent(self, event) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.Antialiasing)
        font = QFont()
        font.setPointSizeF(self.font_pt)
        p.setFont(font)
        text = self.palette().windowText().color()
        y = 6
        for kind in (PARAM, INPUT, OP, SAVED, LOSS, TOTAL):
            self._swatch(p, y, QColor(style.KIND_FILL[kind]), QPen(QColor("#555555"), 1.5),
                         rounded=kind in (OP, LOSS, TOTAL), ellipse=kind == SAVED)
            self._label(p, y, style.KIND_NAMES[kind], text)
            y += self.row
        for k, name in sorted(self.head_names.items()):
            self._swatch(p, y, QColor("white"), stroke_pen(style.node_border(OP, (k,))))
            self._label(p, y, f"{name}: only its gradient", text)
            y += self.row
        for label, pen, fill in (
                ("shared by several losses", stroke_pen(style.node_border(OP, (0, 1))), "white"),
                ("reached by no loss (dead)", stroke_pen(style.node_border(OP, ())), "white"),
                ("freed by backward", QPen(QColor("#999999"), 1.5), style.FREED_FILL)):
            self._swatch(p, y, QColor(fill), pen)
            self._label(p, y, label, text)
            y += self.row
        p.setPen(stroke_pen(style.edge_stroke(CUT, ())))
        p.drawLine(8, y + self.row // 2 - 3, 42, y + self.row // 2 - 3)
        self._label(p, y, "detach cut: no gradient", text)
        y += self.row + 8
        self._colour_bar(p, y, text)
        p.end()

    def _swatch(self, p: QPainter, y: int, fill: QColor, pen: QPen, rounded=False,
                ellipse=False):
        p.setPen(pen)
        p.setBrush(QBrush(fill))
        r = QRectF(8, y + (self.row - 20) / 2, 34, 16)   # in the middle of its line
        if ellipse:
            p.drawEllipse(r)
        elif rounded:
            p.drawRoundedRect(r, 5, 5)
        else:
            p.drawRect(r)

    def _label(self, p: QPainter, y: int, text: str, colour: QColor) -> None:
        p.setPen(colour)
        p.drawText(QRectF(50, y, max(400, self.width()), self.row),
                   Qt.AlignVCenter | Qt.AlignLeft, text)

    def _colour_bar(self, p: QPainter, y: int, text: QColor) -> None:
        p.setPen(text)
        p.drawText(QRectF(8, y, max(400, self.width()), self.row), Qt.AlignVCenter,
                   "gradient in the last backward")
        y += self.row
        bar = QRectF(8, y, max(60, self.width() - 20), 16)
        grad = QLinearGradient(bar.topLeft(), bar.topRight())
        for i in range(11):
            grad.setColorAt(i / 10, heat_colour(i / 10))
        p.setPen(QPen(QColor("#555555"), 1))
        p.setBrush(QBrush(grad))
        p.drawRect(bar)
        lo, hi = ("—", "—") if self.heat is None else (f"{10 ** self.heat[0]:.2g}",
                                                      f"{10 ** self.heat[1]:.2g}")
        p.setPen(text)
        p.drawText(QRectF(bar.left(), bar.bottom() + 2, bar.width(), self.row), Qt.AlignLeft, lo)
        p.drawText(QRectF(bar.left(), bar.bottom() + 2, bar.width(), self.row), Qt.AlignRight, hi)
        p.drawText(QRectF(bar.left(), bar.bottom() + 2, bar.width(), self.row), Qt.AlignHCenter,
                   "log scale")
