"""Each head's loss and the total over optimizer steps, with log scale and smoothing;
while a configuration B is pinned beside A, B's losses as dashed ghost lines."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtWidgets  # before pyqtgraph: it binds to the first Qt

from gradviz.plain.charts.smoothing import Smoothed
from gradviz.plain.charts.x_axis import XAxis
from gradviz.plain.records.history import History

from . import plot_style as ps
from .line_panel import (
    GHOST_LABEL,
    LinePanel,
    curves_for,
    ghost_pen,
    head_colour,
    new_curve,
    new_ghost,
    set_curve_data,
    total_colour,
)
from .series import ema
from .x_axis_items import show_x_axis

SMOOTHING_ALPHA = 0.05   # about a 20-step memory: calms minibatch noise, keeps trends
RAW_MIX = 0.3            # raw curves: this much of the head colour, the rest background
TOTAL = "total"


class LossPlot(LinePanel):
    """Per-head losses and the total. With "smooth" on, the thick lines are an EMA and the
    raw values stay faintly behind them, so the noise the EMA hides is still visible."""

    def __init__(self, parent: QtWidgets.QWidget | None = None):
        self.log_scale = QtWidgets.QCheckBox("log scale")
        self.log_scale.setObjectName("lossLogScale")
        self.smoothing = QtWidgets.QCheckBox("smooth")
        self.smoothing.setObjectName("lossSmoothing")
        super().__init__("lossPlot", "Loss per head and total", "optimizer step", "loss",
                         controls=(self.log_scale, self.smoothing), parent=parent)
        self._raw: dict[str, pg.PlotDataItem] = {}
        self._smoothed: dict[str, np.ndarray] = {}  # EMA so far, extended incrementally
        self._ghosts: dict[str, pg.PlotDataItem] = {}   # B's line per series
        self._ghost_smoothed: dict[str, np.ndarray] = {}
        self._ghost_data: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._ghosts_on = True    # the legend's B entry hides them all
        self._history: History | None = None
        # the recorded-run window's smoothing (TensorBoard's weight, its slider in place
        # of the checkbox; None: the checkbox's) and x axis (None: by step)
        self.smoothing_weight: float | None = None
        self._weighted: dict[str, Smoothed] = {}
        self._ghost_weighted: dict[str, Smoothed] = {}
        self.x_axis: XAxis | None = None
        self.log_scale.toggled.connect(self._log_toggled)
        self.smoothing.toggled.connect(self._smoothing_toggled)
        self.set_model(["head0"], [])

    def set_model(self, head_names: list[str], param_names: list[str]) -> None:
        series = [(h, head_colour(k), ps.LINE_WIDTH) for k, h in enumerate(head_names)]
        series.append((TOTAL, total_colour, ps.TOTAL_WIDTH))
        # none while the series change (they are restyled on the way, by name)
        raw, ghosts, self._raw, self._ghosts = self._raw, self._ghosts, {}, {}
        self._set_series(series)
        # raw curves: under the thick ones, not in the legend
        names = [name for name, _, _ in series]
        self._raw = curves_for(self.plot, names, raw, new_curve)
        self._ghosts = curves_for(self.plot, names, ghosts, new_ghost)
        self._ghost_smoothed, self._ghost_data = {}, {}
        self._show_ghosts(self._ghosts_on)
        for name, curve in self._curves.items():
            curve.setZValue(1)
            self._raw[name].setVisible(self._smoothing_on())
        self._smoothed, self._history = {}, None
        self._weighted, self._ghost_weighted = {}, {}
        self._restyle()

    def update_from(self, history: History) -> None:
        if history is not self._history:  # another run: its EMA starts from scratch
            self._smoothed, self._weighted, self._history = {}, {}, history
        if not self._needs_update(history) or len(history) == 0:
            return
        x = self._x(history)
        for name, y in self._columns(history).items():
            if self._smoothing_on():
                set_curve_data(self._raw[name], x, y)
                self._show(name, x, self._ema(name, y))
            else:
                self._show(name, x, y)
        self._draw_ghost()

    def set_ghost(self, history, label: str = GHOST_LABEL) -> None:
        self._ghost_smoothed, self._ghost_weighted = {}, {}
        super().set_ghost(history, label)
        self._show_ghosts(self._ghosts_on)
        if history is None:
            for curve in self._ghosts.values():
                curve.setData([], [])
            self._ghost_data = {}
        elif self._history is not None:
            self.update_from(self._history)

    def ghost_data(self) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """B's (x, y) per series as drawn (smoothed when smoothing is on); {} without B."""
        return {k: (x.copy(), y.copy()) for k, (x, y) in self._ghost_data.items()}

    def _draw_ghost(self) -> None:
        ghost = self.ghost
        if ghost is None or len(ghost) == 0:
            return
        x = self._x(ghost)
        for name, y in self._columns(ghost).items():
            if self._smoothing_on():
                y = self._ema(name, y, self._ghost_smoothed, self._ghost_weighted)
            self._ghost_data[name] = (x, y)
            set_curve_data(self._ghosts[name], x, y)

    def ghost_curves(self) -> dict[str, pg.PlotDataItem]:
        """B's dashed lines, one per series (empty while nothing is pinned)."""
        return dict(self._ghosts)

    def raw_curves(self) -> dict[str, pg.PlotDataItem]:
        """The faint unsmoothed curves (visible only while smoothing is on)."""
        return dict(self._raw)

    # -- internals --------------------------------------------------------------------
    def _columns(self, history: History) -> dict[str, np.ndarray]:
        losses = history.column("losses")  # (n, K)
        cols = {h: losses[:, k] for k, h in enumerate(history.head_names) if h in self._curves}
        cols[TOTAL] = history.column("total")
        return cols

    def set_smoothing(self, weight: float) -> None:
        """The recorded-run window's smoothing from now on: TensorBoard's, at this
        weight (0: none), set by its slider, which takes the checkbox's place."""
        self.smoothing.hide()
        if weight == self.smoothing_weight:
            return
        self.smoothing_weight = weight
        self._weighted, self._ghost_weighted, self._ghost_smoothed = {}, {}, {}
        for name, raw in self._raw.items():
            raw.setVisible(weight > 0 and self._curves[name].isVisible())
            if not weight:
                raw.setData([], [])
        # drawn again by the window's painter, when shown (not here: eight runs drawn
        # over each other hide this chart, and a slider's move redrew it unseen)
        self._seen = None

    def set_x_axis(self, axis: XAxis) -> None:
        """Draw along this axis (the recorded-run window's: step or time)."""
        if self.x_axis is None or axis.key() != self.x_axis.key():
            self.x_axis, self._seen = axis, None   # drawn again by the painter, shown
            show_x_axis(self.plot, axis, self.theme)

    def _x(self, history: History) -> np.ndarray:
        steps = history.column("step")
        return steps if self.x_axis is None else self.x_axis.x(history, steps)

    def _smoothing_on(self) -> bool:
        if self.smoothing_weight is None:
            return self.smoothing.isChecked()
        return self.smoothing_weight > 0

    def _ema(self, name: str, y: np.ndarray, cache: dict | None = None,
             weighted: dict[str, Smoothed] | None = None) -> np.ndarray:
        """EMA of y, computing only the rows added since the last call."""
        if self.smoothing_weight is not None:   # TensorBoard's, at the slider's weight
            weighted = self._weighted if weighted is None else weighted
            line = weighted.get(name)
            if line is None:
                line = weighted[name] = Smoothed(self.smoothing_weight)
            return line.extend(y)
        cache = self._smoothed if cache is None else cache
        done = cache.get(name, np.empty(0))
        if len(done) < len(y):
            start = done[-1] if len(done) else np.nan
            done = np.concatenate([done, ema(y[len(done):], SMOOTHING_ALPHA, start)])
            cache[name] = done
        return done

    def _log_toggled(self, on: bool) -> None:
        self.plot.setLogMode(y=on)
        self.plot.getAxis("left").set_title(*(("loss (log scale)", "loss (log)") if on
                                              else ("loss",)))
        ps.style_plot(self.plot, self.theme)

    def _smoothing_toggled(self, on: bool) -> None:
        on = self._smoothing_on()   # the checkbox's, or the slider's where it took over
        for name, raw in self._raw.items():
            raw.setVisible(on and self._curves[name].isVisible())
        if not on:
            for raw in self._raw.values():
                raw.setData([], [])  # don't keep a hidden copy of 50,000 points
        self._seen = None
        self._ghost_smoothed, self._ghost_weighted = {}, {}
        if self._history is not None:
            self.update_from(self._history)

    def _set_visible(self, name: str, visible: bool) -> None:
        super()._set_visible(name, visible)
        self._raw[name].setVisible(visible and self._smoothing_on())
        self._ghosts[name].setVisible(visible and self._ghosts_on and self.ghost is not None)

    def _draws_ghost(self) -> bool:
        return True

    def _show_ghosts(self, visible: bool) -> None:
        self._ghosts_on = visible
        for name, curve in self._ghosts.items():
            curve.setVisible(visible and self.ghost is not None and
                             self._curves[name].isVisible())

    def _restyle(self) -> None:
        super()._restyle()
        for name, raw in getattr(self, "_raw", {}).items():  # absent during __init__
            colour, _ = self._style[name]
            # faint by mixing with the background, not by transparency: an opaque pen
            # can be drawn as fast line segments without darker dots at the joints
            raw.setPen(ps.pen(ps.mix(colour(self.theme), self.theme.panel, RAW_MIX), 1.5))
        for name, curve in getattr(self, "_ghosts", {}).items():
            colour, width = self._style[name]
            curve.setPen(ghost_pen(colour(self.theme), self.theme, width - 0.5))


if __name__ == "__main__":
    from .demo import show_alone
    raise SystemExit(show_alone(LossPlot))
