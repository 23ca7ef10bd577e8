"""A titled chart of named lines over optimizer steps: the base of the loss, norm and
memory panels. Curves are made once per model and only fed new data afterwards.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets  # before pyqtgraph: it binds to the first Qt

from ...plain.lessons.lesson_references import DrawnReference
from ..theme import LIGHT, Theme
from . import plot_style as ps
from .reference_line import new_reference_line, style_reference_line

Colour = Callable[[Theme], str]  # a series' colour, looked up again on every theme change

# Qt strokes a thick antialiased polyline in time that grows much faster than its length
# (measured: 3 s to paint the loss panel at 50,000 noisy steps). Curves are therefore
# drawn as separate segments, and antialiased only while short (at 50,000 steps
# antialiasing alone would still cost 5x: ~100 ms a paint instead of ~20 ms). A lecture's
# slides run tens of steps, smooth; a long run at full speed switches to plain edges
# before a paint of the loss panel passes ~12 ms, so the window keeps answering.
SMOOTH_EDGES_UP_TO = 500
GHOST_SHARE = 0.6   # a ghost line (B beside A): its series' colour, this much over the panel
GHOST_LABEL = "B (dashed)"
SLIDE_GHOST_LABEL = "slide before (dashed)"   # a lesson slide's keep = "ghost"

# Samples per pixel of a thick curve: peak downsampling draws each bin as its min and max,
# so 0.34 is a min and a max every three pixel columns, the width of a 3-px stroke (finer
# is more than it can show). Painting cost grows with the points drawn (an antialiased
# 3-px polyline of 2,000 points took 5 ms, of 1,000 points 1.3 ms), and the loss panel
# draws eight curves: at 0.5 a paint of it, with another process busy, took 9 ms (median),
# at 0.34 6 ms, and the window's 99th-percentile answer went from 30 ms to 24 ms.
THICK_SAMPLES_PER_PX = 0.34


def new_curve(plot: pg.PlotItem, samples_per_px: float = THICK_SAMPLES_PER_PX
              ) -> pg.PlotDataItem:
    """A curve that stays cheap at 50,000+ points (clipping and peak downsampling come
    from the plot), drawn as line segments."""
    curve = plot.plot(connect="finite", antialias=True, autoDownsampleFactor=samples_per_px)
    curve.curve.setSegmentedLineMode("on")
    return curve


MAX_DRAWN_POINTS = 4000   # more than a screen has pixels across


def thin(x: np.ndarray, y: np.ndarray, most: int = MAX_DRAWN_POINTS):
    """At most `most` points: each bin drawn as its lowest then its highest value, so a
    spike stays visible. pyqtgraph's own downsampling does not cover fills and thick
    strokes, whose cost grew without bound in long keep-graphs runs and froze the window."""
    n = len(x)
    if n <= most:
        return x, y
    starts = np.linspace(0, n, most // 2, endpoint=False).astype(int)
    lo = np.fmin.reduceat(y, starts)         # fmin/fmax skip NaN (unsampled steps)
    hi = np.fmax.reduceat(y, starts)
    xs = np.repeat(x[starts], 2)
    ys = np.column_stack([lo, hi]).ravel()
    return xs, ys


LONE_DOT_PX = 10   # a curve of one step so far: a line needs two points, a dot does not


def set_curve_data(curve: pg.PlotDataItem, x: np.ndarray, y: np.ndarray) -> None:
    x, y = thin(np.asarray(x), np.asarray(y))
    # one step done (the next one failed, on a slide about an error): a dot, not nothing
    lone = len(x) == 1
    colour = pg.mkPen(curve.opts["pen"]).color() if lone else None
    curve.setData(x, y, connect="finite", antialias=len(x) <= SMOOTH_EDGES_UP_TO,
                  symbol="o" if lone else None, symbolSize=LONE_DOT_PX, symbolPen=None,
                  symbolBrush=colour)
    steady_downsampling(curve, len(x))


def steady_downsampling(curve: pg.PlotDataItem, points: int) -> None:
    """Peak downsampling by a factor set from the points and the plot's width in pixels,
    not by pyqtgraph's automatic one, which takes it from the view's range while the
    range follows the downsampled data: in a small plot (a 32 px push chart at
    1024x768) the two chased each other at every paint, for ever, and the window's
    event loop never came round to its timers."""
    view = curve.getViewBox()
    width = view.width() if view is not None else 0.0
    ds = max(1, int(points / max(1.0, width * curve.opts["autoDownsampleFactor"])))
    curve.setDownsampling(ds=ds, auto=False, method="peak")


def new_ghost(plot: pg.PlotItem) -> pg.PlotDataItem:
    """A dashed curve for B's run: one path (segments would restart the dash pattern at
    every point), downsampled as A's thick curves are (Qt strokes a long thick path in
    time that grows faster than its length: at pyqtgraph's default of 5 samples a pixel,
    B's four loss lines tripled the loss panel's paint), under A's curves."""
    curve = plot.plot(connect="finite", autoDownsampleFactor=THICK_SAMPLES_PER_PX)
    curve.setZValue(0.5)
    return curve


def curves_for(plot: pg.PlotItem, names: list[str], old: dict[str, pg.PlotDataItem],
               make: Callable[[pg.PlotItem], pg.PlotDataItem]) -> dict[str, pg.PlotDataItem]:
    """A curve for each name: old's curve of that name emptied and shown (as a new one
    is), else make(plot)'s; old's others taken off the plot. A fresh model of the same
    heads (every lesson slide, every Reset) keeps its curves: making and placing them
    again was two thirds of a fresh model's cost to the charts (~50 ms a slide)."""
    spare = dict(old)
    out = {name: _emptied(spare.pop(name)) if name in spare else make(plot)
           for name in names}
    for curve in spare.values():
        plot.removeItem(curve)
    return out


def _emptied(curve: pg.PlotDataItem) -> pg.PlotDataItem:
    set_curve_data(curve, np.zeros(0), np.zeros(0))
    curve.setVisible(True)
    return curve


def ghost_pen(colour: str, theme: Theme, width: float = ps.LINE_WIDTH) -> QtGui.QPen:
    p = ps.pen(ps.mix(colour, theme.panel, GHOST_SHARE), width)
    p.setDashPattern([2.5, 1.5])   # in pen widths: short dashes, still two in a legend swatch
    return p


def head_colour(k: int) -> Colour:
    return lambda theme: theme.head_colour(k)


def total_colour(theme: Theme) -> str:
    return theme.total_colour


# an empty chart's axes (a fresh slide, a reset): no steps yet, values 0 to 1, rather than
# the last run's ranges, which look like data, or pyqtgraph's -30 to 30 steps
EMPTY_STEPS, EMPTY_VALUES = (0.0, 10.0), (0.0, 1.0)
FLAT_SPAN = 0.001   # of a norm: values this close to the largest are one value (rounding)


class LinePanel(QtWidgets.QWidget):
    """One PlotItem, one thick curve per series, a clickable legend (hides a series)."""

    # a chart of norms: never below 0, so a series all 0 so far sits on the axis's low end
    non_negative = False

    # the legend may go beside the one plot where above it would eat it (a panel of more
    # plots than new_canvas's one keeps it in rows above)
    legend_may_go_beside = True

    def __init__(self, name: str, title: str, x_label: str, y_label: str,
                 controls=(), parent: QtWidgets.QWidget | None = None,
                 y_short: str | None = None):
        """y_short: the y-axis title shown where y_label is longer than the axis."""
        super().__init__(parent)
        self.setObjectName(name)
        self.theme = self.theme_asked = LIGHT
        self.text_scale = 1.0   # of the text size's: set smaller on a lesson's stage
        self._layout, self._title = ps.header(self, title, controls)
        self._controls = tuple(controls)
        self.plot_widget, self.plot, self.legend = ps.new_canvas(x_label, y_label)
        self.plot_widget.setObjectName(name + "Canvas")
        # the legend placed for the canvas's own size (the panel's resize comes first)
        self.plot_widget.installEventFilter(self)
        if y_label:
            self.plot.getAxis("left").set_title(y_label, y_short)
        self._layout.addWidget(self.plot_widget, 1)
        self.legend.sigSampleClicked.connect(self._sample_clicked)
        self.plot_widget.scene().sigMouseClicked.connect(self._clicked)
        self._curves: dict[str, pg.PlotDataItem] = {}
        self._samples: dict[str, pg.PlotDataItem] = {}  # legend swatches, never plotted
        self._style: dict[str, tuple[Colour, float]] = {}
        self._data: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._seen: tuple | None = None   # (id, length) of the histories last drawn
        # B's run beside A's (a pinned comparison), for panels that draw it; None: none
        self.ghost = None
        self.ghost_label = GHOST_LABEL           # whose run the dashed lines are
        self._ghost_sample = pg.PlotDataItem()   # its legend entry, while there is one
        self._floored = False   # y range set by _floor_at_zero (autorange off until data)
        self._x_held = False    # x range set for a lone step (autorange off until two)
        # each series' largest and smallest finite value
        self._tops: dict[str, tuple[float, float] | None] = {}
        # a slide's reference lines; the lines ignore the range, so these invisible
        # points at their values put them in it where the axis follows the data (on
        # the plot only while there are lines: the panels count their data items)
        self._references: list[tuple[DrawnReference, pg.InfiniteLine]] = []
        self._reference_points = pg.PlotDataItem(pen=pg.mkPen((0, 0, 0, 0)))

    # -- public -----------------------------------------------------------------------
    def curves(self) -> dict[str, pg.PlotDataItem]:
        """The thick curve of each series, by name (legend order)."""
        return dict(self._curves)

    def data(self) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """The (x, y) last handed to each thick curve, in data units (not log10)."""
        return {k: (x.copy(), y.copy()) for k, (x, y) in self._data.items()}

    def set_ghost(self, history, label: str = GHOST_LABEL) -> None:
        """Draw B's run (a History) beside A's from the next update; None: no more.
        label: what the legend calls it (B, or a lesson's slide before)."""
        if label != self.ghost_label:   # the legend's entry renamed: made again
            self.ghost, self.ghost_label = None, label
            self._ghost_legend()
        self.ghost = history
        self._seen = None
        self._ghost_legend()

    def set_references(self, references: list[DrawnReference]) -> None:
        """Draw these reference lines (a slide's: plain.lessons.lesson_references), each at its
        value and labelled, on the chart's own axes, in its range; [] draws none."""
        for _, line in self._references:
            self.plot.removeItem(line)
        self._references = [(ref, new_reference_line(self.plot, ref)) for ref in references]
        values = [ref.value for ref in references]
        on_plot = self._reference_points in self.plot.items
        # added before its data is set: pyqtgraph, adding an item that has data, asked
        # the canvas (not yet its view box) for its range and raised
        self._reference_points.setData([], [])
        if values and not on_plot:
            self.plot.addItem(self._reference_points)
        elif not values and on_plot:
            self.plot.removeItem(self._reference_points)
        self._reference_points.setData([0.0] * len(values), values)
        self._restyle()
        if self.non_negative:
            self._floor_at_zero()

    def references(self) -> list[tuple[DrawnReference, pg.InfiniteLine]]:
        """The reference lines drawn, with what each was asked to draw."""
        return list(self._references)

    def _reference_colour(self, metric: str) -> str:
        """The colour of a reference to this metric: its series' (the panels say)."""
        return self.theme.foreground

    def set_text_scale(self, scale: float) -> None:
        """Its text, of the text size's: a lesson's stage sets it smaller (never below
        the normal size) where the chart is a secondary panel with less room than the
        text size wants: grown in full beside lesson 13's cosine matrix after Ctrl+=
        twice at 1024x768, its step axis was cut off."""
        if scale != self.text_scale:
            self.text_scale = scale
            self.apply_theme(self.theme_asked)

    def apply_theme(self, theme: Theme) -> None:
        self.theme_asked = theme
        theme = theme.zoomed(theme.zoom * self.text_scale)
        self.theme = theme
        ps.style_panel(self, theme, [self.plot_widget], self._title)
        ps.style_plot(self.plot, theme)
        self._restyle()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._place_legend()

    def set_controls_shown(self, shown: bool) -> None:
        """The title row's controls (log scale, smooth) shown or not: a lesson's stage
        shows none (a slide does not name them), and beside them the title of a
        secondary chart after Ctrl+= took three lines of its height."""
        for control in self._controls:
            control.setVisible(shown)

    def eventFilter(self, watched, event) -> bool:   # noqa: N802 (Qt's name)
        if watched is self.plot_widget and event.type() == QtCore.QEvent.Type.Resize \
                and self.legend_may_go_beside:
            self._place_legend()
        return super().eventFilter(watched, event)

    def _place_legend(self) -> None:
        if self.legend_may_go_beside:
            ps.place_legend(self.plot_widget, self.legend)
        else:
            ps.fit_legend(self.legend, self._legend_room())

    def _legend_room(self) -> float:
        """The width the legend's entries are laid out in (rows added where they don't fit)."""
        return self.width()

    # -- for subclasses ---------------------------------------------------------------
    def _set_series(self, series: list[tuple[str, Colour, float]], samples=None,
                    unlisted: tuple[str, ...] = ()) -> None:
        """Every series anew (only on a model change, never per update): its curve
        emptied (curves_for), its legend entry made again.

        `samples` may give some series a legend swatch of their own (name -> item);
        `unlisted` series get no legend entry yet (the panel adds it when it draws them:
        an entry added and removed left its row's height in the legend)."""
        self.legend.clear()
        self._curves = curves_for(self.plot, [name for name, _, _ in series], self._curves,
                                  new_curve)
        self._samples, self._data, self._seen = {}, {}, None
        self._tops = {}
        self._style = {name: (colour, width) for name, colour, width in series}
        for name, _, _ in series:
            self._samples[name] = (samples or {}).get(name) or pg.PlotDataItem()
            self._data[name] = (np.zeros(0), np.zeros(0))  # every series has an entry
            if name not in unlisted:
                self.legend.addItem(self._samples[name], name)
        self._ghost_legend()
        self._restyle()

    def _ghost_legend(self) -> None:
        """One legend entry says which lines are B's, while B is drawn."""
        shown = any(getattr(sample, "item", None) is self._ghost_sample
                    for sample, _ in self.legend.items)
        if self.ghost is not None and not shown and self._draws_ghost():
            self.legend.addItem(self._ghost_sample, self.ghost_label)
        elif self.ghost is None and shown:
            self.legend.removeItem(self._ghost_sample)
        self._restyle()

    def _draws_ghost(self) -> bool:
        return False    # the panels that draw B's run say so

    def _show(self, name: str, x: np.ndarray, y: np.ndarray) -> None:
        self._data[name] = (x, y)
        set_curve_data(self._curves[name], x, y)
        if self.non_negative:
            finite = y[np.isfinite(y)]
            self._tops[name] = (float(finite.max()), float(finite.min())) \
                if len(finite) else None
            self._floor_at_zero()

    def _floor_at_zero(self) -> None:
        """Every value 0 so far (a detached head's push on the trunk): 0 at the bottom of
        the axis, not in the middle of -0.04 to 0.04, which says a norm went negative.
        Every value the same but for rounding (a norm clipped to 0.5): 0 to it, not an
        axis from 0.4999996 to 0.4999997 whose float noise looked like wild swings."""
        spans = [span for span in self._tops.values() if span is not None]
        top = max((high for high, _ in spans), default=None)
        # a reference line stays in view (09's norm before clipping, 1.4, above 0.5)
        high = max([top or 0.0, *(ref.value for ref, _ in self._references)])
        if top == 0.0 and high == 0.0:
            self.plot.setYRange(*EMPTY_VALUES, padding=0.05)   # turns y autorange off
            self._floored = True
        elif top is not None and top - min(low for _, low in spans) <= FLAT_SPAN * top:
            self.plot.setYRange(0.0, high, padding=0.05)
            self._floored = True
        elif self._floored:
            self._floored = False
            self.plot.enableAutoRange(axis="y")

    def _views(self) -> list[pg.PlotItem]:
        """The plots whose axes follow the data."""
        return [self.plot]

    def _needs_update(self, history) -> bool:
        """Cheap repaint guard: the timer fires 25 times a second, steps arrive slower."""
        ghost = self.ghost
        seen = (id(history), len(history), id(ghost), 0 if ghost is None else len(ghost))
        if seen == self._seen:
            return False
        self._seen = seen
        if not len(history):   # empty: neutral axes, which follow the data once it comes
            for plot in self._views():
                plot.setRange(xRange=EMPTY_STEPS, yRange=EMPTY_VALUES, padding=0)
                plot.enableAutoRange()
            self._floored = False
        elif len(history) == 1:   # one step: pyqtgraph's range about it ran from -4 to 4
            for plot in self._views():
                plot.setXRange(*EMPTY_STEPS, padding=0.03)   # turns x autorange off
            self._x_held = True
        elif self._x_held:
            for plot in self._views():
                plot.enableAutoRange(axis="x")
            self._x_held = False
        return True

    def _restyle(self) -> None:
        ps.style_legend(self.legend, self.theme)
        self._place_legend()
        for name, (colour, width) in self._style.items():
            p = ps.pen(colour(self.theme), width)
            self._curves[name].setPen(p)
            if isinstance(self._samples[name], pg.PlotDataItem):
                self._samples[name].setPen(p)
        self._ghost_sample.setPen(ghost_pen(self.theme.foreground, self.theme))
        for ref, line in getattr(self, "_references", ()):
            style_reference_line(line, self._reference_colour(ref.metric), self.theme)

    def _clicked(self, event) -> None:
        """Double-click: follow the data again after a pan or zoom (the "A" button and
        the context menu are hidden as clutter, so this is the way back)."""
        if event.double():
            for item in self.plot_widget.ci.items:
                if isinstance(item, pg.PlotItem):
                    item.enableAutoRange()

    def _sample_clicked(self, sample: pg.PlotDataItem) -> None:
        if sample is self._ghost_sample:
            self._show_ghosts(sample.isVisible())
        for name, item in self._samples.items():
            if item is sample:
                self._set_visible(name, sample.isVisible())

    def _show_ghosts(self, visible: bool) -> None:
        """The legend's B entry was clicked: show or hide every line of B."""

    def _set_visible(self, name: str, visible: bool) -> None:
        self._curves[name].setVisible(visible)
