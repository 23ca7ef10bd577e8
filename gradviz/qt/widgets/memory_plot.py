"""Memory held by the autograd graph: saved-tensor bytes at the end of each step and
the peak within it, and (below, same steps) how many graph nodes are still alive.

A leak ("keep graphs") shows as a rising line; a healthy loop holds nothing between steps.
"""
from __future__ import annotations

import numpy as np
from PySide6 import QtWidgets  # before pyqtgraph: it binds to the first Qt
import pyqtgraph as pg

from gradviz.core.history import History
from gradviz.render.style import byte_unit

from ..theme import Theme
from . import plot_style as ps
from .line_panel import LinePanel, new_curve, set_curve_data, total_colour
from .series import join_samples

HELD, PEAK, NODES = "held at step end", "peak within step", "graph nodes"


class MemoryPlot(LinePanel):
    def __init__(self, parent: QtWidgets.QWidget | None = None):
        super().__init__("memoryPlot", "Memory held by the autograd graph", "", "",
                         parent=parent)
        self.plot.getAxis("bottom").setStyle(showValues=False)  # the plot below has them
        # nodes get a plot of their own under the bytes: a second y axis on one plot
        # makes a room guess which line belongs to which scale
        self.nodes_plot = self.plot_widget.addPlot(row=2, col=0)
        ps.style_view(self.nodes_plot, "optimizer step", NODES)
        self.nodes_plot.setXLink(self.plot)
        self.nodes_curve = new_curve(self.nodes_plot)
        layout = self.plot_widget.ci.layout
        layout.setRowStretchFactor(1, 3)
        layout.setRowStretchFactor(2, 2)
        self._unit = ("B", 1)
        self._nodes = (np.zeros(0), np.zeros(0))
        self.set_model(["head0"], [])

    def set_model(self, head_names: list[str], param_names: list[str]) -> None:
        # the peak as a shaded area under the held line: where they coincide (a retained
        # graph holds all it ever saved) both stay visible
        square = pg.BarGraphItem(x=[0], height=[0], width=1)  # legend draws it as a square
        self._set_series([(PEAK, ps.neutral, 2.0), (HELD, total_colour, ps.TOTAL_WIDTH)],
                         samples={PEAK: square})
        self.nodes_curve.setData([], [])
        self._nodes = (np.zeros(0), np.zeros(0))
        self._set_unit(("B", 1))
        self._restyle()

    def update_from(self, history: History) -> None:
        if not self._needs_update(history):
            return
        steps = history.column("step")
        held = join_samples(steps, history.column("saved_bytes"))
        peak = join_samples(steps, history.column("saved_bytes_peak"))
        largest = max((np.nanmax(y) for _, y in (held, peak) if np.isfinite(y).any()),
                      default=0.0)
        self._set_unit(byte_unit(largest))
        size = self._unit[1]
        self._show(HELD, held[0], held[1] / size)
        self._show(PEAK, peak[0], peak[1] / size)
        self._nodes = join_samples(steps, history.column("graph_nodes"))
        set_curve_data(self.nodes_curve, *self._nodes)

    def unit(self) -> tuple[str, int]:
        """The unit of the bytes axis: ("KiB", 1024) means plotted values are bytes / 1024."""
        return self._unit

    def data(self) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Byte series in unit() (as drawn), and "graph nodes" as counts."""
        out = super().data()
        out[NODES] = (self._nodes[0].copy(), self._nodes[1].copy())
        return out

    def apply_theme(self, theme: Theme) -> None:
        super().apply_theme(theme)
        ps.style_plot(self.nodes_plot, theme)
        # tall enough that its rotated axis label fits beside it
        self.nodes_plot.setMinimumHeight(theme.font_pt * 11)
        for plot in (self.plot, self.nodes_plot):
            # the same width for both left axes, so the two plots' steps line up
            plot.getAxis("left").setWidth(int(theme.font_pt * 6.5))

    def _restyle(self) -> None:
        super()._restyle()
        if PEAK in self._curves:
            fill = ps.pen(ps.neutral(self.theme), alpha=90).color()
            self._curves[PEAK].setFillLevel(0.0)
            self._curves[PEAK].setBrush(fill)
            # a shaded square in the legend, like the area it names
            self._samples[PEAK].setOpts(brush=fill, pen=ps.pen(ps.neutral(self.theme), 2.0))
        if hasattr(self, "nodes_curve"):
            self.nodes_curve.setPen(ps.pen(self.theme.total_colour, ps.LINE_WIDTH))

    def _set_unit(self, unit: tuple[str, int]) -> None:
        if unit != self._unit or not self.plot.getAxis("left").labelText:
            self._unit = unit
            self.plot.getAxis("left").setLabel(f"saved tensors ({unit[0]})")
            ps.style_plot(self.plot, self.theme)


if __name__ == "__main__":
    from .demo import show_alone
    raise SystemExit(show_alone(MemoryPlot))
