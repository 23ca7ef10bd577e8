"""A bottom axis for per-parameter bars: a short name under each bar, and under those
the group (trunk, head0, ...) in its colour with a bar spanning its members.

Short names are turned upright when they do not fit side by side, so 8 heads of 4
parameters each stay readable instead of overprinting.
"""
from __future__ import annotations

from dataclasses import dataclass

import pyqtgraph as pg
from PySide6 import QtCore, QtGui  # before pyqtgraph: it binds to the first Qt


@dataclass(frozen=True)
class Group:
    name: str
    first: float   # x of its first and last bar
    last: float
    colour: str


class ParamAxis(pg.AxisItem):
    # class-level defaults: AxisItem.__init__ already resizes (and so calls _fit_height)
    _xs: list[float] = []
    _names: list[str] = []
    _groups: list[Group] = []
    _upright = False

    def __init__(self):
        super().__init__("bottom")
        self.setStyle(showValues=False)  # labels are drawn here, not by pyqtgraph

    def set_labels(self, xs: list[float], names: list[str], groups: list[Group]) -> None:
        self._xs, self._names, self._groups = list(xs), list(names), list(groups)
        self.setTicks([[(x, "") for x in xs], []])  # a tick mark under every bar
        self._refresh()

    def upright(self) -> bool:
        """Whether the short names are currently drawn rotated (they did not fit)."""
        return self._upright

    def _refresh(self) -> None:
        self.picture = None
        self._fit_height()
        self.update()

    def _fonts(self) -> tuple[QtGui.QFont, QtGui.QFont]:
        small = QtGui.QFont(self.style["tickFont"] or QtGui.QFont())
        bold = QtGui.QFont(small)
        bold.setBold(True)
        return small, bold

    def _fit_height(self) -> None:
        small, bold = self._fonts()
        fm_small, fm_bold = QtGui.QFontMetricsF(small), QtGui.QFontMetricsF(bold)
        widest = max((fm_small.horizontalAdvance(n) for n in self._names), default=0.0)
        self._upright = widest + 6 > self._slot_px()
        first_row = widest if self._upright else fm_small.height()
        height = 6 + first_row + 8 + fm_bold.height() + 4
        if abs(height - self.height()) > 0.5:
            self.setHeight(height)

    def _slot_px(self) -> float:
        """Pixels between neighbouring bars."""
        lo, hi = self.range
        return self.width() / (hi - lo) if hi > lo else 0.0

    def _px(self, x: float) -> float:
        lo, hi = self.range
        return (x - lo) * self._slot_px()

    def resizeEvent(self, ev=None):
        super().resizeEvent(ev)
        self._fit_height()

    def linkedViewChanged(self, view, newRange=None):
        super().linkedViewChanged(view, newRange)
        self._fit_height()

    def setTickFont(self, font):
        super().setTickFont(font)
        self._fit_height()

    def drawPicture(self, p, axisSpec, tickSpecs, textSpecs):
        super().drawPicture(p, axisSpec, tickSpecs, textSpecs)
        small, bold = self._fonts()
        fm_small = QtGui.QFontMetricsF(small)
        p.setPen(self.textPen())
        p.setFont(small)
        top = 6.0
        first_row = fm_small.height()
        for x, name in zip(self._xs, self._names):
            px = self._px(x)
            if self._upright:  # reading upwards, ending just under the tick
                w = fm_small.horizontalAdvance(name)
                first_row = max(first_row, w)
                p.save()
                p.translate(px + fm_small.ascent() / 2 - 1, top + w)
                p.rotate(-90)
                p.drawText(QtCore.QPointF(0, 0), name)
                p.restore()
            else:
                rect = QtCore.QRectF(px - 50, top, 100, fm_small.height())
                p.drawText(rect, int(QtCore.Qt.AlignmentFlag.AlignCenter), name)
        self._draw_groups(p, bold, top + first_row + 4)

    def _draw_groups(self, p: QtGui.QPainter, bold: QtGui.QFont, y: float) -> None:
        half = self._slot_px() * 0.4  # the bracket spans the bars' full width
        p.setFont(bold)
        height = QtGui.QFontMetricsF(bold).height()
        for g in self._groups:
            left, right = self._px(g.first) - half, self._px(g.last) + half
            p.setPen(pg.mkPen(QtGui.QColor(g.colour), width=4))
            p.drawLine(QtCore.QPointF(left, y), QtCore.QPointF(right, y))
            # the name in the text colour: yellow or sky-blue text would vanish on white
            p.setPen(self.textPen())
            rect = QtCore.QRectF(left - 40, y + 3, right - left + 80, height)
            p.drawText(rect, int(QtCore.Qt.AlignmentFlag.AlignCenter), g.name)
