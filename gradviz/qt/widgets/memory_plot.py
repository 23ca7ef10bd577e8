"""Memory the autograd graph keeps alive: bytes of the storages behind the tensors it
saved for backward, at the end of each step and the most measured after a forward in it
(the engine counts at those points only: not gradients, not backward's buffers), with
the saved tensors' own bytes at that peak (what backward needs: less where a saved view
keeps a bigger tensor alive, a batch sliced from a dataset; drawn, with its legend entry,
only where it differs from the peak: the built-in model's batches are gathered copies,
whose two counts are the same, and a third entry cost the bytes plot its height in a
lesson after Ctrl+= twice), and (below, or beside where
the panel is wide and short, same steps) how many graph nodes are still alive. Stacked,
the bytes get the larger part of the height, unless the slide's point is the node count
(plain.charts.memory_rows): kept graphs whose nodes climb while their bytes stay flat.

A leak ("keep graphs") shows as a rising line; a healthy loop holds nothing between steps.
While a configuration B is pinned beside A, B's lines are drawn dashed on the same axes.
"""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtWidgets  # before pyqtgraph: it binds to the first Qt

from gradviz.plain.charts.memory_rows import BYTES_SHARE
from gradviz.plain.records.history import History
from gradviz.render.style import SAVED_EDGE_COLOUR, byte_unit

from ..theme import Theme
from . import plot_style as ps
from .line_panel import (
    GHOST_LABEL,
    LinePanel,
    ghost_pen,
    new_curve,
    new_ghost,
    set_curve_data,
    total_colour,
)
from .series import join_samples

HELD, PEAK, NODES = "held at step end", "peak after forward", "graph nodes"
OWN = "saved tensors alone, peak"
# what the byte lines count, and what they do not (the panel's tooltip)
COUNTS = ("Bytes of the storages that the tensors the autograd graphs alive saved for "
          "backward keep alive (a saved slice keeps the whole tensor it was cut from; "
          "parameters not counted), measured after each forward and at the step's end; "
          "the peak is the most of those. \"Saved tensors alone\" (drawn where it differs "
          "from the peak): at that peak, only the saved tensors' own elements, what "
          "backward needs. Gradients (.grad), the "
          "optimizer's state and the buffers backward allocates while it runs are not "
          "counted.")
# A panel this many times wider than high (the bottom dock of a 1280x720 window) puts
# the two plots side by side: stacked, each got a third of its height, too little for
# their rotated axis titles, which ran into each other.
SIDE_BY_SIDE_ASPECT = 2.5
SIDE_BY_SIDE_LEAST = 600   # px at text size 1: narrower, the nodes plot would be a sliver
# a row's height left to the layout (what Qt takes for no bound)
UNBOUNDED = 16_777_215


class MemoryPlot(LinePanel):
    legend_may_go_beside = False   # (its second plot takes the places beside the first)
    # its title says what it is: a lesson's stage puts no "Memory" above it (the two
    # took three lines of a secondary chart's height after Ctrl+= twice at 1024x768)
    own_title = True

    def __init__(self, parent: QtWidgets.QWidget | None = None):
        super().__init__("memoryPlot", "Memory held by the autograd graph", "", "",
                         parent=parent)
        self.plot.getAxis("bottom").setStyle(showValues=False)  # the plot below has them
        # nodes get a plot of their own under the bytes: a second y axis on one plot
        # makes a room guess which line belongs to which scale
        self.nodes_plot = self.plot_widget.addPlot(
            row=2, col=0, axisItems={"left": ps.CountAxis("left")})
        ps.style_view(self.nodes_plot, "optimizer step", None)
        self.nodes_plot.getAxis("left").set_title(NODES, "nodes")
        self.nodes_plot.setXLink(self.plot)
        self.nodes_curve = new_curve(self.nodes_plot)
        # B's held and peak bytes and its graph nodes (dashed), while B is pinned
        self._ghosts = {HELD: new_ghost(self.plot), PEAK: new_ghost(self.plot),
                        NODES: new_ghost(self.nodes_plot)}
        self._ghost_data: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._show_ghosts(False)
        layout = self.plot_widget.ci.layout
        layout.setRowStretchFactor(1, 3)
        layout.setRowStretchFactor(2, 2)
        self._unit = ("B", 1)
        self._nodes = (np.zeros(0), np.zeros(0))
        self.side_by_side = False
        # stacked, the nodes plot's part of the two plots' drawing height (None: the
        # rows' stretch, the bytes the larger): set for a slide about the node count
        self.nodes_share: float | None = None
        self._row_capped = False
        for view in (self.plot.getViewBox(), self.nodes_plot.getViewBox()):
            view.sigResized.connect(self._share_rows)
        self.plot_widget.setToolTip(COUNTS)
        self.set_model(["head0"], [])

    def set_model(self, head_names: list[str], param_names: list[str]) -> None:
        # the peak as a shaded area under the held line: where they coincide (a retained
        # graph holds all it ever saved) both stay visible
        square = pg.BarGraphItem(x=[0], height=[0], width=1)  # legend draws it as a square
        self._set_series([(PEAK, ps.neutral, 2.0), (HELD, total_colour, ps.TOTAL_WIDTH),
                          (OWN, _saved_colour, ps.LINE_WIDTH)], samples={PEAK: square},
                         unlisted=(OWN,))
        self.own_shown = False
        self._set_visible(OWN, False)
        self.nodes_curve.setData([], [])
        self._nodes = (np.zeros(0), np.zeros(0))
        self._clear_ghosts()
        self._set_unit(("B", 1))
        self._restyle()

    def update_from(self, history: History) -> None:
        if not self._needs_update(history):
            return
        held, peak = _bytes(history)
        own = join_samples(*history.measured("saved_tensor_bytes_peak"))
        b = _bytes(self.ghost) if self.ghost is not None and len(self.ghost) else None
        largest = max((np.nanmax(y) for _, y in (held, peak, own) + (b or ())
                       if np.isfinite(y).any()), default=0.0)
        self._set_unit(byte_unit(largest))
        size = self._unit[1]
        self._show(HELD, held[0], held[1] / size)
        self._show(PEAK, peak[0], peak[1] / size)
        self._show(OWN, own[0], own[1] / size)
        # (not measured at all: a report from before the count, a watched run)
        self._show_own(bool(np.isfinite(own[1]).any())
                       and not np.array_equal(own[1], peak[1], equal_nan=True))
        self._nodes = join_samples(*history.measured("graph_nodes"))
        set_curve_data(self.nodes_curve, *self._nodes)
        if b is not None:
            nodes = join_samples(*self.ghost.measured("graph_nodes"))
            for name, (x, y) in ((HELD, (b[0][0], b[0][1] / size)),
                                 (PEAK, (b[1][0], b[1][1] / size)), (NODES, nodes)):
                self._ghost_data[name] = (x, y)
                set_curve_data(self._ghosts[name], x, y)

    def _show_own(self, shown: bool) -> None:
        """The saved tensors' own bytes drawn and named in the legend, or neither (where
        they are the peak's: that line is both)."""
        if shown == self.own_shown:
            return
        self.own_shown = shown
        self._set_visible(OWN, shown)
        sample = self._samples[OWN]
        if shown:
            self.legend.addItem(sample, OWN)
        else:
            self.legend.removeItem(sample)
        self._place_legend()

    def set_ghost(self, history, label: str = GHOST_LABEL) -> None:
        super().set_ghost(history, label)
        self._show_ghosts(history is not None)
        if history is None:
            self._clear_ghosts()

    def ghost_data(self) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """B's series as drawn (bytes in unit()), {} while no B is pinned."""
        return {k: (x.copy(), y.copy()) for k, (x, y) in self._ghost_data.items()}

    def _clear_ghosts(self) -> None:
        for curve in self._ghosts.values():
            curve.setData([], [])
        self._ghost_data = {}

    def _draws_ghost(self) -> bool:
        return True

    def _show_ghosts(self, visible: bool) -> None:
        for curve in self._ghosts.values():
            curve.setVisible(visible and self.ghost is not None)

    def unit(self) -> tuple[str, int]:
        """The unit of the bytes axis: ("KiB", 1024) means plotted values are bytes / 1024."""
        return self._unit

    def data(self) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Byte series in unit() (as drawn), and "graph nodes" as counts."""
        out = super().data()
        out[NODES] = (self._nodes[0].copy(), self._nodes[1].copy())
        return out

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        canvas = self.plot_widget
        self._arrange(canvas.width() > SIDE_BY_SIDE_ASPECT * canvas.height()
                      and canvas.width() >= SIDE_BY_SIDE_LEAST * self.theme.zoom)

    def _arrange(self, side_by_side: bool) -> None:
        """The nodes plot beside the bytes plot (each with its own step axis) or below
        it (sharing the one at the bottom)."""
        if side_by_side == self.side_by_side:
            return
        self.side_by_side = side_by_side
        layout = self.plot_widget.ci
        layout.removeItem(self.nodes_plot)
        layout.addItem(self.nodes_plot, *((1, 1) if side_by_side else (2, 0)))
        layout.layout.setColumnStretchFactor(0, BYTES_SHARE[0])
        layout.layout.setColumnStretchFactor(1, BYTES_SHARE[1])
        # stacked, the bytes (the point: 32 KiB against 8 KiB) get the larger share
        if not side_by_side:
            layout.layout.setRowStretchFactor(1, BYTES_SHARE[0])
            layout.layout.setRowStretchFactor(2, BYTES_SHARE[1])
        ps.fit_legend(self.legend, self._legend_room())
        self._share_rows()
        bottom = self.plot.getAxis("bottom")
        bottom.setStyle(showValues=side_by_side)
        bottom.setLabel("optimizer step" if side_by_side else None)
        self._fit_nodes_plot()
        ps.style_plot(self.plot, self.theme)

    def set_nodes_share(self, share: float | None) -> None:
        """Stacked, the nodes plot's part of the height the two plots draw in
        (plain.charts.memory_rows.nodes_share); None: the bytes the larger, as the rows'
        stretch makes them."""
        if share != self.nodes_share:
            self.nodes_share = share
            self._share_rows()

    def _share_rows(self, *_: object) -> None:
        # the bytes' row at most as high as leaves the nodes their share of what the two
        # plots draw in; the nodes' row takes the rest, its step axis with it. Measured
        # after each layout (a view resized), since Qt's stretch factors weigh the
        # plots' preferred heights in: 1:1 left the nodes plot 156 px of 515. Only a
        # most: a row fixed for a taller panel held the canvas taller than a shorter one
        # and cut off the step axis
        layout = self.plot_widget.ci.layout
        if self.side_by_side or self.nodes_share is None:
            if self._row_capped:   # (side by side, row 1 holds both plots)
                self._row_capped = False
                layout.setRowMaximumHeight(1, UNBOUNDED)
            return
        views = self.plot.getViewBox().height(), self.nodes_plot.getViewBox().height()
        wanted = sum(views) * (1 - self.nodes_share)
        if sum(views) > 0 and abs(views[0] - wanted) >= 1:
            self._row_capped = True
            layout.setRowMaximumHeight(1, max(0.0, self.plot.geometry().height()
                                              + wanted - views[0]))

    def _views(self) -> list[pg.PlotItem]:
        return [self.plot, self.nodes_plot]

    def _legend_room(self) -> float:
        # side by side, the legend stays over the bytes it names, in rows of the bytes
        # plot's width: one row wider than its column made that column wider, and left
        # the nodes plot a sliver with its title under the legend's end
        if not self.side_by_side:
            return self.width()
        return self.width() * BYTES_SHARE[0] / sum(BYTES_SHARE)

    def _fit_nodes_plot(self) -> None:
        # stacked, tall enough that its short rotated axis title ("nodes") fits beside
        # it: room for the long one left the bytes a strip after Ctrl+= twice
        self.nodes_plot.setMinimumHeight(0 if self.side_by_side else self.theme.font_pt * 6)

    def apply_theme(self, theme: Theme) -> None:
        super().apply_theme(theme)
        theme = self.theme   # at the stage's text scale, as the rest of the panel
        ps.style_plot(self.nodes_plot, theme)
        self._fit_nodes_plot()
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
        if hasattr(self, "_ghosts"):
            theme = self.theme
            self._ghosts[HELD].setPen(ghost_pen(theme.total_colour, theme, ps.LINE_WIDTH))
            self._ghosts[PEAK].setPen(ghost_pen(ps.neutral(theme), theme, 2.0))
            self._ghosts[NODES].setPen(ghost_pen(theme.total_colour, theme, ps.LINE_WIDTH))

    def _set_unit(self, unit: tuple[str, int]) -> None:
        if unit != self._unit or not self.plot.getAxis("left").labelText:
            self._unit = unit
            # the storages kept alive (a saved slice: its whole base), not the tensors
            self.plot.getAxis("left").set_title(f"storages kept ({unit[0]})",
                                                f"kept ({unit[0]})", unit[0])
            ps.style_plot(self.plot, self.theme)


def _saved_colour(theme: Theme) -> str:
    """The graph's colour for a saved tensor's edge: this line counts those tensors."""
    return SAVED_EDGE_COLOUR


def _bytes(history: History) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
    """(held, peak) bytes of the storages a run's graph kept alive, each as (steps,
    bytes) with samples joined."""
    return (join_samples(*history.measured("saved_bytes")),
            join_samples(*history.measured("saved_bytes_peak")))


if __name__ == "__main__":
    from .demo import show_alone
    raise SystemExit(show_alone(MemoryPlot))
