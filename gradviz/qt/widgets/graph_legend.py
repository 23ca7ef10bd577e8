"""The graph's key: node kinds, head colours, shared/dead/cut/freed, and the colour bar
of gradient magnitude (log scale, the range of the step on screen).

Only what the graph on screen has is listed (nothing before a graph is drawn, no "detach
cut" line without a cut), and the lines flow left to right, wrapping at the key's width:
a tall narrow key beside the graph is one column, a wide short one below it a few rows.
On a 1024-pixel screen a fixed column of every line took more of the graph's dock than
the graph did.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetrics,
    QLinearGradient,
    QPainter,
    QPaintEvent,
    QPen,
)
from PySide6.QtWidgets import QSizePolicy, QWidget

from ...plain.graph.graph_data import (
    CUT,
    EARLIER,
    INPUT,
    JUNCTION,
    LOSS,
    MODULE,
    OP,
    PARAM,
    SAVED,
    TOTAL,
    GraphData,
)
from ...render import style
from .graph_items import heat_colour, stroke_pen

ROW = 26            # px per line at the normal text size; it grows with the text
SWATCH = 34         # a swatch's width, before its label
GAP = 8             # between a swatch and its label
SPACING = 18        # between one entry and the next on a row
MARGIN = 8
KINDS = (MODULE, JUNCTION, EARLIER, PARAM, INPUT, OP, SAVED, LOSS, TOTAL)
# the lines a key is made wide enough for before its first graph (none of them listed)
ROOM_FOR = frozenset(KINDS) | {"shared", "dead", "cut", "freed"}


@dataclass(frozen=True)
class KeyEntry:
    label: str
    draw: Callable[[QPainter, QRectF], None]   # the swatch, in the rect given


class GraphLegend(QWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("graphLegend")
        self.head_names: dict[int, str] = {}
        self.heat: tuple[float, float] | None = None
        self.font_pt = 11.0
        self.row = ROW
        self._metrics = QFontMetrics(self._font())
        # nothing until a graph is drawn: a key of lines no graph on screen has (a
        # "detach cut" before any cut) says what is not there
        self._present: set[str] = set()
        policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)
        self._fit_text()

    # ---- what is listed -------------------------------------------------------------
    def set_font_pt(self, pt: float) -> None:
        """The legend's text size (the presentation zoom): lines and width grow with it."""
        self.font_pt = pt
        self._fit_text()

    def set_graph(self, graph: GraphData, heat: tuple[float, float] | None) -> None:
        """List what this graph draws: its node kinds, its losses' heads, and shared,
        dead, cut and freed where it has them."""
        present = {n.kind for n in graph.nodes if n.kind in KINDS}
        if any(len(n.heads_reaching) > 1 for n in graph.nodes):
            present.add("shared")
        if any(not n.heads_reaching for n in graph.nodes):
            present.add("dead")
        if any(e.kind == CUT for e in graph.edges):
            present.add("cut")
        if any(n.freed for n in graph.nodes):
            present.add("freed")
        present |= {n.state for n in graph.nodes if n.kind in style.BOX_KINDS
                    and style.state_border(n.state) is not None}
        self._present = present
        self.head_names, self.heat = style.head_names(graph), heat
        self._fit_text()

    def entries(self) -> list[str]:
        """The legend's lines, as text (what tests and screen readers can check)."""
        return [e.label for e in self._entries()] + (
            ["gradient in the last backward"] if self.heat is not None else [])

    def _entries(self, present: set[str] | frozenset[str] | None = None) -> list[KeyEntry]:
        """The lines for what is present (the graph on screen's by default)."""
        present = self._present if present is None else present
        grey = QPen(QColor("#555555"), 1.5)
        out = [KeyEntry(style.KIND_NAMES[kind], self._box(
                   QColor(style.KIND_FILL[kind]), grey,
                   rounded=kind in (OP, LOSS, TOTAL) + style.BOX_KINDS,
                   ellipse=kind == SAVED))
               for kind in KINDS if kind in present]
        # a border in a head's colour: only that head's gradient runs through the node
        out += [KeyEntry(f"{name} only",
                         self._box(QColor("white"), stroke_pen(style.node_border(OP, (k,)))))
                for k, name in sorted(self.head_names.items())]
        if "shared" in present:
            out.append(KeyEntry("shared: several losses", self._box(
                QColor("white"), stroke_pen(style.node_border(OP, (0, 1))))))
        if "dead" in present:
            out.append(KeyEntry("dead: no loss reaches it", self._box(
                QColor("white"), stroke_pen(style.node_border(OP, ())))))
        if "freed" in present:
            out.append(KeyEntry("freed by backward", self._box(
                QColor(style.FREED_FILL), QPen(QColor("#999999"), 1.5))))
        for state in ("changed in place", "detached in place"):
            # a saved tensor backward would refuse (each of the two has its border)
            border = style.state_border(state)
            if state in present and border is not None:
                out.append(KeyEntry(state, self._box(
                    QColor(style.KIND_FILL[MODULE]), stroke_pen(border))))
        if "cut" in present:
            out.append(KeyEntry("detach cut", self._cut_line))
        return out

    @staticmethod
    def _box(fill: QColor, pen: QPen, rounded=False, ellipse=False):
        def draw(p: QPainter, r: QRectF) -> None:
            p.setPen(pen)
            p.setBrush(QBrush(fill))
            if ellipse:
                p.drawEllipse(r)
            elif rounded:
                p.drawRoundedRect(r, 5, 5)
            else:
                p.drawRect(r)
        return draw

    @staticmethod
    def _cut_line(p: QPainter, r: QRectF) -> None:
        p.setPen(stroke_pen(style.edge_stroke(CUT, ())))
        y = int(r.center().y())   # whole pixels, as Qt's int drawLine draws it
        p.drawLine(int(r.left()), y, int(r.right()), y)

    # ---- where each line goes -------------------------------------------------------
    def _font(self) -> QFont:
        font = QFont()
        font.setPointSizeF(self.font_pt)
        return font

    def _width_of(self, entry: KeyEntry) -> int:
        return SWATCH + GAP + self._metrics.horizontalAdvance(entry.label)

    def _fit_text(self) -> None:
        """Room for the widest line, whole, at the text size (before a graph, for the
        lines a graph usually brings: the panel is laid out as it will be)."""
        self._metrics = QFontMetrics(self._font())
        self.row = max(ROW, round(self._metrics.height() * 1.35))
        widths = [self._width_of(e) for e in self._entries(self._present or ROOM_FOR)]
        widest = max(widths + [self._metrics.horizontalAdvance("gradient in the last backward")])
        self.setMinimumWidth(2 * MARGIN + widest)
        self.updateGeometry()
        self.update()

    def _flow(self, width: int, present: frozenset[str] | None = None,
              ) -> tuple[list[tuple[KeyEntry, int, int]], int]:
        """Each entry with its (x, y), filling rows of width; and the height of the rows
        (of the graph on screen's lines by default)."""
        placed, x, y = [], MARGIN, 6
        for entry in self._entries(present):
            w = self._width_of(entry)
            if x > MARGIN and x + w > width - MARGIN:   # no room left on this row
                x, y = MARGIN, y + self.row
            placed.append((entry, x, y))
            x += w + SPACING
        return placed, (y + self.row if placed else 6)

    def _bar_height(self) -> int:
        return 0 if self.heat is None else 8 + 3 * self.row

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return self._flow(width)[1] + self._bar_height() + 6

    def usual_height_for_width(self, width: int) -> int:
        """The height at width of the lines a graph usually brings (ROOM_FOR, no colour
        bar), whatever is listed now: what a panel sizes a graph's room by before the
        graph's own key is known."""
        return self._flow(width, ROOM_FOR)[1] + 6

    def sizeHint(self) -> QSize:
        hint = super().sizeHint()
        hint.setWidth(self.minimumWidth())
        hint.setHeight(self.heightForWidth(self.minimumWidth()))
        return hint

    def rows(self, width: int | None = None) -> int:
        """How many rows the entries take at width (the key's own by default)."""
        placed, _ = self._flow(self.width() if width is None else width)
        return len({y for _, _, y in placed})

    # ---- painting -------------------------------------------------------------------
    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.setFont(self._font())
        text = self.palette().windowText().color()
        placed, bottom = self._flow(self.width())
        for entry, x, y in placed:
            entry.draw(p, QRectF(x, y + (self.row - 16) / 2, SWATCH, 16))  # mid-line
            p.setPen(text)
            p.drawText(QRectF(x + SWATCH + GAP, y, self._width_of(entry), self.row),
                       Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft, entry.label)
        if self.heat is not None:
            self._colour_bar(p, bottom + 8, text)
        p.end()

    def _colour_bar(self, p: QPainter, y: int, text: QColor) -> None:
        width = max(60, min(self.width() - 2 * MARGIN, 420))
        p.setPen(text)
        p.drawText(QRectF(MARGIN, y, width, self.row), Qt.AlignmentFlag.AlignVCenter,
                   "gradient in the last backward")
        y += self.row
        bar = QRectF(MARGIN, y, width, 16)
        grad = QLinearGradient(bar.topLeft(), bar.topRight())
        for i in range(11):
            grad.setColorAt(i / 10, heat_colour(i / 10))
        p.setPen(QPen(QColor("#555555"), 1))
        p.setBrush(QBrush(grad))
        p.drawRect(bar)
        lo, hi = ("—", "—") if self.heat is None else (f"{10 ** self.heat[0]:.2g}",
                                                      f"{10 ** self.heat[1]:.2g}")
        p.setPen(text)
        below = QRectF(bar.left(), bar.bottom() + 2, bar.width(), self.row)
        p.drawText(below, Qt.AlignmentFlag.AlignLeft, lo)
        p.drawText(below, Qt.AlignmentFlag.AlignRight, hi)
        p.drawText(below, Qt.AlignmentFlag.AlignHCenter, "log scale")
