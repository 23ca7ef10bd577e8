"""A mixed-precision run's GradScaler scale, as a plot row under the global gradient norm:
the scale over the steps on a log axis (it halves and doubles), and each step the scaler
skipped (an inf or a NaN among the scaled gradients) a cross on it."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtWidgets  # noqa: F401  (before pyqtgraph: it binds to the first Qt)

from gradviz.plain.history import History

from . import plot_style as ps
from .line_panel import new_curve

SKIPPED_COLOUR = "#c0392b"


class ScaleRow:
    def __init__(self, plot_widget: pg.GraphicsLayoutWidget, above: pg.PlotItem):
        self.plot = plot_widget.addPlot(row=2, col=0)
        ps.style_view(self.plot, "optimizer step", "AMP scale")
        self.plot.setLogMode(y=True)
        self.plot.setXLink(above)
        self.curve = new_curve(self.plot)
        self.skipped_marks = pg.ScatterPlotItem(symbol="x", size=12)
        self.plot.addItem(self.skipped_marks)
        layout = plot_widget.ci.layout
        layout.setRowStretchFactor(1, 3)
        layout.setRowStretchFactor(2, 1)

    def show(self, history: History, colour) -> None:
        steps, scales = history.column("step"), history.column("amp_scale")
        has = np.isfinite(scales)
        self.curve.setData(steps[has], scales[has])
        self.curve.setPen(pg.mkPen(colour, width=ps.LINE_WIDTH))
        skipped = history.column("amp_skipped") == 1.0
        self.skipped_marks.setData(steps[skipped], np.log10(scales[skipped]),
                                   pen=pg.mkPen(SKIPPED_COLOUR, width=2))

    def clear(self) -> None:
        self.curve.setData([], [])
        self.skipped_marks.setData([], [])

    def skipped_steps(self) -> list[int]:
        x, _ = self.skipped_marks.getData()
        return [int(v) for v in x]
