"""The cosine matrix's axis labels, drawn: text measured with the labels' font, the labels
and their size decided by gradviz.plain.charts.matrix_labels, set on pyqtgraph's axes, and read
back as drawn."""
from __future__ import annotations

from collections.abc import Sequence

import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from gradviz.plain.charts.matrix_labels import AxisLabels, matrix_labels

SIDES = ("left", "bottom")


class FontMeasure:
    """matrix_labels' TextMeasure: a font's metrics at any point size."""

    def __init__(self, font: QtGui.QFont):
        self.font = font
        self._metrics: dict[float, QtGui.QFontMetrics] = {}

    def metrics(self, pt: float) -> QtGui.QFontMetrics:
        if pt not in self._metrics:
            f = QtGui.QFont(self.font)
            f.setPointSizeF(pt)
            self._metrics[pt] = QtGui.QFontMetrics(f)
        return self._metrics[pt]

    def width(self, text: str, pt: float) -> float:
        return self.metrics(pt).boundingRect(text).width()

    def space(self, pt: float) -> float:
        return self.metrics(pt).horizontalAdvance(" ")

    def height(self, pt: float) -> float:
        """As pyqtgraph's axis gives a tick label: 0.8 of its text's box."""
        box = self.metrics(pt).boundingRect(QtCore.QRect(0, 0, 100, 100),
                                            QtCore.Qt.AlignmentFlag.AlignCenter, "Ag")
        return 0.8 * box.height()


class MatrixAxes:
    """The left (rows) and bottom (columns) axes of plot, labelled as decided."""

    def __init__(self, plot: pg.PlotItem):
        self.plot = plot
        self.labels = AxisLabels((), (), 0.0)   # as last decided and set

    def label(self, names: Sequence[str], cell_px: float, font: QtGui.QFont) -> None:
        """Label the axes of a matrix of names whose cells are cell_px wide as drawn
        (0: not laid out yet, or squeezed flat), at most at font's size."""
        labels = matrix_labels(names, cell_px, font.pointSizeF(), FontMeasure(font))
        if cell_px > 0:
            f = QtGui.QFont(font)
            f.setPointSizeF(labels.pt)
            for side in SIDES:
                axis = self.plot.getAxis(side)
                if axis.style["tickFont"] != f:
                    axis.setTickFont(f)
        same = (labels.rows, labels.columns) == (self.labels.rows, self.labels.columns)
        self.labels = labels
        if not same:   # (new ticks lay the axes out again)
            self.plot.getAxis("left").setTicks([list(enumerate(labels.rows))])
            self.plot.getAxis("bottom").setTicks([list(enumerate(labels.columns))])

    def drawn(self, panel: QtWidgets.QWidget, view: QtWidgets.QGraphicsView
              ) -> list[tuple[QtCore.QRectF, str]]:
        """Every axis label as drawn now: (its rect in panel's coordinates, its text);
        pyqtgraph leaves out a label that would stick out of its axis. view: the plot's
        canvas."""
        out = []
        image = QtGui.QImage(1, 1, QtGui.QImage.Format.Format_ARGB32)
        painter = QtGui.QPainter(image)
        try:
            for side in SIDES:
                axis = self.plot.getAxis(side)
                _, _, texts = axis.generateDrawSpecs(painter)
                for rect, _flags, text in texts:
                    scene = axis.mapRectToScene(rect)
                    local = view.mapFromScene(scene).boundingRect()
                    out.append((QtCore.QRectF(view.mapTo(panel, local.topLeft()),
                                              QtCore.QSizeF(local.size())), text))
        finally:
            painter.end()
        return out
