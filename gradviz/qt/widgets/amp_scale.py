"""A mixed-precision run's GradScaler scale, as a plot row under the global gradient norm:
the scale's power of two over the steps (it halves and doubles: 16 is 65,536, read as a
whole number from the back row, where a log axis's 10^4 labels crowd), and each step the
scaler skipped (an inf or a NaN among the scaled gradients) a cross on it."""
from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyqtgraph as pg
from PySide6 import QtWidgets  # noqa: F401  (before pyqtgraph: it binds to the first Qt)

from gradviz.plain.records.history import History

from . import plot_style as ps
from .line_panel import new_curve

SKIPPED_COLOUR = "#c0392b"


class ScaleRow:
    def __init__(self, plot_widget: pg.GraphicsLayoutWidget, above: pg.PlotItem):
        self.plot = plot_widget.addPlot(row=2, col=0)
        # no axis title or values: a short row has no room for them; the panel's
        # title says the scale in words (title_words), the row draws its course
        ps.style_view(self.plot, "optimizer step", None)
        self.plot.getAxis("left").setStyle(showValues=False)
        self.plot.setXLink(above)
        self._above = above
        # the norm's plot above shares this row's step axis: no second one of its own
        above.getAxis("bottom").setStyle(showValues=False)
        above.getAxis("bottom").setLabel(None)
        self.curve = new_curve(self.plot)
        self.skipped_marks = pg.ScatterPlotItem(symbol="x", size=12)
        self.plot.addItem(self.skipped_marks)
        layout = plot_widget.ci.layout
        layout.setRowStretchFactor(1, 2)
        layout.setRowStretchFactor(2, 1)

    words = ""   # the scale in words, for the panel's title

    def apply_theme(self, theme) -> None:
        """The row styled as the plot above it, tall enough for its two tick labels."""
        ps.style_plot(self.plot, theme)
        self.plot.setMinimumHeight(theme.font_pt * 4)

    def show(self, history: History, colour,
             x: Callable[[History, np.ndarray], np.ndarray] | None = None) -> None:
        """x(history, steps): where the steps go along the norm's axis above (the
        recorded-run window's time; None: the steps themselves)."""
        steps, scales = history.column("step"), history.column("amp_scale")
        if x is not None:
            steps = x(history, steps)
        has = np.isfinite(scales) & (scales > 0)
        powers = np.log2(scales[has])
        self.curve.setData(steps[has], powers)
        # the steps line up with the norm's above: the same left margin
        self.plot.getAxis("left").setWidth(int(self._above.getAxis("left").width()))
        self.curve.setPen(pg.mkPen(colour, width=ps.LINE_WIDTH))
        skipped = has & (history.column("amp_skipped") == 1.0)
        self.words = title_words(scales[has], int(skipped.sum()))
        self.skipped_marks.setData(steps[skipped], np.log2(scales[skipped]),
                                   pen=pg.mkPen(SKIPPED_COLOUR, width=2))

    def scales(self) -> list[float]:
        """The scales drawn (tests, screenshots)."""
        y = self.curve.yData   # as given (getData is what is drawn: clipped, downsampled)
        return [] if y is None else [float(2.0 ** v) for v in y]

    def clear(self) -> None:
        self.curve.setData([], [])
        self.skipped_marks.setData([], [])

    def skipped_steps(self) -> list[int]:
        x, _ = self.skipped_marks.getData()
        return [int(v) for v in x]


def title_words(scales: np.ndarray, skipped: int) -> str:
    """"AMP 2^30, 3 skipped": the last scale as a power of two where it is one (a
    GradScaler's always is, unless told another start), and the steps it skipped."""
    if not len(scales):
        return ""
    last = float(scales[-1])
    power = np.log2(last)
    scale = f"2^{int(power)}" if power == int(power) else f"{last:g}"
    return f"AMP {scale}" + (f", {skipped} skipped" if skipped else "")
