"""A chart of several recorded runs over each other, as TensorBoard draws a scalar: each
run's line in its own colour (its colour slot's, kept while it is ticked), smoothed at
the window's weight with its raw values faint behind, along the window's x axis (step or
time), and a legend of the runs' names as written (plain text: a folder's names are a
stranger's). A run may have several lines (each pair's cosine): then each part has a
dash of its own, and the legend names the runs by colour and the parts by dash.

Drawn from the runs it is handed (lines_source), not from the window's one history: the
window hands it the ticked runs, or the shown run alone where one is ticked."""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets  # before pyqtgraph: it binds to the first Qt

from ...plain.charts.smoothing import Smoothings
from ...plain.charts.x_axis import XAxis
from ...plain.records.history import History
from . import plot_style as ps
from .line_panel import (
    THICK_SAMPLES_PER_PX,
    Colour,
    LinePanel,
    curves_for,
    new_curve,
    set_curve_data,
    thin,
)
from .loss_plot import RAW_MIX
from .x_axis_items import show_x_axis

# the runs' colours, by slot: Paul Tol's "vibrant" and "muted" picks, apart from the
# heads' Okabe-Ito colours (a run is not a head) and readable on both themes
RUN_COLOURS = ("#0077BB", "#EE7733", "#009988", "#CC3311", "#33BBEE", "#EE3377",
               "#7A5195", "#8C8C00")
# a run's parts (each pair of losses' cosine) told apart by dash, in pen widths
DASHES: tuple[list[float] | None, ...] = (None, [4.0, 2.0], [1.0, 1.5], [6.0, 2.0, 1.0, 2.0])

Values = tuple[np.ndarray, np.ndarray]   # a line's steps, and its values at them
# a run's line: its name, and how its values are had (computed only when drawn)
Part = tuple[str, Callable[[], Values]]
# a turn of the event loop's drawing, at most (a line more is left to the next turn): the
# window answers within 30 ms at the 99th percentile, the rest of its work included
DRAW_BUDGET_S = 0.008
# painting 8 runs' lines was most of the window's time (a paint of the loss chart, 28 ms):
# a raw line is 1 px (at 1.5 px Qt strokes each jagged segment as a polygon, 17 ms of
# it, at 1 px it draws them as lines, 1 ms), and a smoothed line, smooth, is drawn from
# fewer samples a pixel than a noisy one needs for its band (9 ms for the 8 of them)
RAW_WIDTH = 1.0
SMOOTH_SAMPLES_PER_PX = 0.15
# points a line is handed, at most (each bin's lowest and highest: a spike stays): half
# line_panel's, since the bounds, clipping and downsampling pyqtgraph does at each range
# change, for 16 to 48 lines, were the next largest part of the window's time
DRAWN_POINTS = 2000


def run_colour(slot: int) -> str:
    return RUN_COLOURS[slot % len(RUN_COLOURS)]


@dataclass(frozen=True)
class RunLine:
    """A run to draw: its name (as its folder is named), its colour slot, its steps."""
    name: str
    slot: int
    history: History


class RunsChart(LinePanel):
    # the runs' names in rows above the plot: beside it, eight names of a folder's
    # runs were cut to the two the plot's height had room for
    legend_may_go_beside = False

    def __init__(self, name: str, title: str, y_label: str,
                 parts: Callable[[History], list[Part]], y_short: str | None = None,
                 non_negative: bool = False, parent: QtWidgets.QWidget | None = None):
        """parts(history): the run's lines (one, or one per pair...), each its name and
        how its steps and values are had."""
        super().__init__(name, title, "optimizer step", y_label, parent=parent,
                         y_short=y_short)
        self.non_negative = non_negative
        self.parts = parts
        self.legend_shown = True   # False: the runs named elsewhere (a chart above)
        self.lines_source: Callable[[], list[RunLine]] = list
        self.smoothings = Smoothings()
        self.x_axis = XAxis()
        self._raw: dict[str, pg.PlotDataItem] = {}
        self._dash: dict[str, int] = {}       # each series' part: its dash
        self._series_of: dict[tuple[str, str], str] = {}   # (run, part): its series
        self._drawn: tuple | None = None      # what was drawn last (lines, weight, axis)
        self._layout_key: tuple | None = None   # the series and legend made last
        # the legend's own swatches (runs by colour, parts by dash): (item, colour, dash)
        self._legend_samples: list[tuple[pg.PlotDataItem, Colour, int]] = []
        # the lines of this update still to compute, and those computed: (key, series,
        # x, y drawn, raw values)
        self._todo: list[tuple[RunLine, str, Callable[[], Values]]] = []
        self._ready: list[tuple[tuple, str, np.ndarray, np.ndarray, np.ndarray]] = []
        self._columns: dict[tuple, tuple[int, Values]] = {}   # each line's values
        self._xs: dict[tuple, tuple[int, np.ndarray]] = {}   # each line's x, by its steps
        self._more = QtCore.QTimer(self)   # the next turn's lines
        self._more.setSingleShot(True)
        self._more.setInterval(0)
        self._more.timeout.connect(self._draw_some)

    # ---- what the window sets ----------------------------------------------------------
    def set_model(self, head_names: list[str], param_names: list[str]) -> None:
        """Its series are the runs handed to it, made as they come."""

    def set_smoothing(self, weight: float) -> None:
        if self.smoothings.set_weight(weight):
            self._drawn = None

    def set_x_axis(self, axis: XAxis) -> None:
        if axis.key() != self.x_axis.key():
            self.x_axis, self._drawn, self._xs = axis, None, {}
            show_x_axis(self.plot, axis, self.theme)

    # ---- drawing --------------------------------------------------------------------------
    def update_from(self, history: History) -> None:
        """The runs handed to it now (history, the shown run's, is among them): their
        lines computed DRAW_BUDGET_S at a time, over as many turns of the event loop as
        that takes, then drawn at once (one repaint, not one per turn)."""
        lines = self.lines_source()
        drawn = (tuple((ln.name, ln.slot, id(ln.history), len(ln.history)) for ln in lines),
                 self.smoothings.weight, self.x_axis.key())
        if drawn == self._drawn:
            return
        self._drawn = drawn
        parts = {ln.name: self.parts(ln.history) for ln in lines}
        self._lay_out(lines, [[name for name, _ in parts[ln.name]] for ln in lines])
        self._todo = [(ln, name, compute) for ln in lines for name, compute in parts[ln.name]]
        self._ready = []
        if not lines:
            self.plot.setRange(xRange=(0.0, 10.0), yRange=(0.0, 1.0), padding=0)
        self._draw_some()

    @property
    def drawing(self) -> bool:
        """Whether lines of the last update are still to be computed (next turns)."""
        return bool(self._todo)

    def _draw_some(self) -> None:
        """Lines computed until DRAW_BUDGET_S has gone (one at least; 8 runs of 100,000
        steps smoothed took 40-90 ms, one turn the user waited on), and once all are,
        drawn."""
        start = time.perf_counter()
        smoothing = self.smoothings.weight > 0
        while self._todo:
            ln, name, compute = self._todo.pop(0)
            key = (ln.name, id(ln.history), name)
            steps, values = self._values(key, ln.history, compute)
            x = self._x(key, ln.history, steps)
            y = self.smoothings.line(key, values) if smoothing else values
            self._ready.append((key, self._series_of[(ln.name, name)], x, y, values))
            if time.perf_counter() - start > DRAW_BUDGET_S:
                break
        if self._todo:
            self._more.start()
        else:
            self._draw_ready(smoothing)

    def _draw_ready(self, smoothing: bool) -> None:
        keys = set()
        for key, series, x, y, values in self._ready:
            keys.add(key)
            self._curves[series].opts["autoDownsampleFactor"] = \
                SMOOTH_SAMPLES_PER_PX if smoothing else THICK_SAMPLES_PER_PX
            self._show(series, *thin(x, y, DRAWN_POINTS))
            if smoothing:
                set_curve_data(self._raw[series], *thin(x, values, DRAWN_POINTS))
        self._ready = []
        self.smoothings.keep_only(keys)
        self._xs = {k: v for k, v in self._xs.items() if k in keys}
        self._columns = {k: v for k, v in self._columns.items() if k in keys}
        for series, raw in self._raw.items():
            raw.setVisible(smoothing and self._curves[series].isVisible())
            if not smoothing:
                raw.setData([], [])   # no hidden copy of 100,000 points kept
        view = self.plot.getViewBox()
        if any(view.autoRangeEnabled()):
            view.updateAutoRange()   # the range of every line, now all are in

    def _values(self, key: tuple, history: History, compute: Callable[[], Values]) -> Values:
        """The line's steps and values, kept while its run has no new step."""
        cached = self._columns.get(key)
        if cached is not None and cached[0] == len(history):
            return cached[1]
        values = compute()
        self._columns[key] = (len(history), values)
        return values

    def _x(self, key: tuple, history: History, steps: np.ndarray) -> np.ndarray:
        """The line's x, kept while its steps and the axis stay (a new smoothing weight
        recomputes none)."""
        cached = self._xs.get(key)
        if cached is not None and cached[0] == len(steps):
            return cached[1]
        x = self.x_axis.x(history, steps)
        self._xs[key] = (len(steps), x)
        return x

    def _lay_out(self, lines: list[RunLine], part_names: list[list[str]]) -> None:
        """The series and the legend, made again only where the runs or their parts
        changed (never per update)."""
        key = tuple((ln.name, ln.slot, tuple(names)) for ln, names in zip(lines, part_names))
        if key == self._layout_key:
            return
        self._layout_key = key
        one_run = len(lines) == 1
        series, self._dash, self._series_of = [], {}, {}
        for ln, names in zip(lines, part_names):
            for k, part in enumerate(names):
                # one run of several parts: the parts' names (whose run the chart says)
                name = part if one_run and len(names) > 1 else \
                    f"{ln.name} · {part}" if part else ln.name
                self._series_of[(ln.name, part)] = name
                # one run: each part its own colour; several: each run its own, parts dashed
                slot = k if one_run else ln.slot
                series.append((name, _colour(slot), ps.LINE_WIDTH))
                self._dash[name] = 0 if one_run else k
        raw, self._raw = self._raw, {}
        listed = [name for name, _, _ in series] if self.legend_shown and (one_run or all(
            len(names) <= 1 for names in part_names)) else []
        self._set_series(series, unlisted=tuple(n for n, _, _ in series if n not in listed))
        self._raw = curves_for(self.plot, [name for name, _, _ in series], raw, new_curve)
        for name, curve in self._curves.items():
            curve.setZValue(1)   # over the faint raw lines
            # a dashed line is one path: segments would start the dash again at each point
            segments = "off" if self._dash[name] else "on"
            curve.curve.setSegmentedLineMode(segments)
            self._raw[name].curve.setSegmentedLineMode(segments)
        self._legend_by_parts(lines, part_names, bool(listed))
        self._restyle()

    def _legend_by_parts(self, lines: list[RunLine], part_names: list[list[str]],
                         listed: bool) -> None:
        """Several runs of several parts: the legend names each run by its colour and
        each part by its dash (eight runs of three pairs are 11 entries, not 24)."""
        self._legend_samples = []
        if listed or not self.legend_shown or not lines:
            return
        for ln in lines:
            self._legend_samples.append(self._sample(ln.name, _colour(ln.slot), 0))
        parts = max(part_names, key=len)
        for k, part in enumerate(parts):
            self._legend_samples.append(self._sample(part, lambda t: t.foreground, k))

    def _sample(self, name: str, colour: Colour, dash: int
                ) -> tuple[pg.PlotDataItem, Colour, int]:
        sample = pg.PlotDataItem()
        self.legend.addItem(sample, name)
        return sample, colour, dash

    def _restyle(self) -> None:
        super()._restyle()
        theme = self.theme
        for name, curve in self._curves.items():
            colour, width = self._style[name]
            curve.setPen(_dashed(colour(theme), width, self._dash.get(name, 0)))
        for name, raw in getattr(self, "_raw", {}).items():
            colour, _ = self._style[name]
            raw.setPen(_dashed(ps.mix(colour(theme), theme.panel, RAW_MIX), RAW_WIDTH,
                               self._dash.get(name, 0)))
        for sample, colour, dash in getattr(self, "_legend_samples", ()):
            sample.setPen(_dashed(colour(theme), ps.LINE_WIDTH, dash))

    def _set_visible(self, name: str, visible: bool) -> None:
        super()._set_visible(name, visible)
        self._raw[name].setVisible(visible and self.smoothings.weight > 0)


def _colour(slot: int) -> Colour:
    return lambda theme: run_colour(slot)


def _dashed(colour: str, width: float, dash: int) -> QtGui.QPen:
    pen = ps.pen(colour, width)
    pattern = DASHES[dash % len(DASHES)]
    if pattern is not None:
        pen.setStyle(QtCore.Qt.PenStyle.CustomDashLine)
        pen.setDashPattern(pattern)
    return pen
