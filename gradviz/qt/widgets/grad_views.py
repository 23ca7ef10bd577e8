"""Gradient panels: per-parameter norms of the latest step, the global norm over time,
how hard each loss pushes the trunk (junction norms), and whether the losses agree.
"""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtWidgets  # before pyqtgraph: it binds to the first Qt

from gradviz.plain.charts.bar_step import BarStep, shared_bar_step
from gradviz.plain.charts.smoothing import Smoothed
from gradviz.plain.charts.x_axis import XAxis
from gradviz.plain.records.history import History

from ..plain_text import plain_tip
from ..theme import LIGHT, Theme
from . import plot_style as ps
from .amp_scale import ScaleRow
from .cosine_heatmap import CosineHeatmap
from .line_panel import (
    GHOST_LABEL,
    LinePanel,
    ghost_pen,
    head_colour,
    new_curve,
    new_ghost,
    set_curve_data,
    total_colour,
)
from .param_axis import Group, ParamAxis
from .series import join_samples
from .x_axis_items import show_x_axis

RAW_MIX = 0.3   # a smoothed line's raw values: this much of its colour (loss_plot's)

__all__ = ["GradNormBars", "GlobalNormPlot", "JunctionPlot", "CosineHeatmap"]

GROUP_GAP = 0.8  # extra space between trunk, head0, head1, ... (in bar widths)
TITLE = "Gradient norm per parameter (latest step)"
TITLE_B = "Gradient norm per parameter: A | B (pale)"
B_SHARE = 0.4    # B's bar: its colour, this much over the panel, outlined in the colour
# a parameter whose .grad is None has no bar (not a bar of 0): a cross stands on the axis
NO_GRAD_MARK = "✕"
NO_GRAD_KEY = f"  {NO_GRAD_MARK} = no gradient (None)"
NO_GRAD_TIP = ("no gradient (None): no backward call reached this parameter, so its .grad "
               "is None, not a tensor of zeros")


def split_name(name: str, head_names: list[str]) -> tuple[int | None, str, str]:
    """ "heads.1.2.bias" -> (1, "head1", "2.b"); "trunk.0.weight" -> (None, "trunk", "0.w")."""
    parts = name.split(".")
    if parts[0] == "heads" and len(parts) > 2 and parts[1].isdigit():
        k = int(parts[1])
        group = head_names[k] if k < len(head_names) else f"head{k}"
        head, rest = k, parts[2:]
    else:
        head, group, rest = None, parts[0] if len(parts) > 1 else "model", parts[1:] or parts
    return head, group, ".".join(rest[:-1] + [rest[-1][:1]])


def _head_rank(head: int | None) -> int:
    """Where a head's bars go: the trunk (and anything unknown, None) first."""
    return -1 if head is None else head

class GradNormBars(QtWidgets.QWidget):
    """The newest per-parameter gradient norms: trunk first, then each head in its colour;
    with B pinned beside A, each parameter's pair of bars side by side, A | B (pale)."""

    def __init__(self, parent: QtWidgets.QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("gradNormBars")
        self.theme = LIGHT
        layout, self._title = ps.header(self, TITLE)
        self.plot_widget = pg.GraphicsLayoutWidget()
        self.plot_widget.setObjectName("gradNormBarsCanvas")
        self.axis = ParamAxis()
        self.plot = self.plot_widget.addPlot(axisItems={"bottom": self.axis})
        ps.style_view(self.plot, None, "grad norm")
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.setLimits(yMin=0)  # autorange pads; bars start at 0, so must the axis
        self.bars = pg.BarGraphItem(x=[], height=[], width=0.8)
        self.plot.addItem(self.bars)
        self.bars_b = pg.BarGraphItem(x=[], height=[], width=0.4)
        self.bars_b.setVisible(False)
        self.plot.addItem(self.bars_b)
        self.ghost = None              # B's run (a History) while B is pinned beside A
        self.ghost_label = GHOST_LABEL
        self.shown_label = "this slide"   # whose the full bars are, beside a labelled ghost
        # the recorded-run window: A's and B's bars at one step, both's newest they share
        # (plain.charts.bar_step), and the title says which; a lesson's slide before stays its own
        self.same_step = False
        self.bar_step: BarStep | None = None
        self._heights_b = np.zeros(0)
        layout.addWidget(self.plot_widget, 1)
        self._names: list[str] = []
        self._head_of_bar: list[int | None] = []   # None: trunk
        self._heights = np.zeros(0)
        # the norms last drawn, A's and B's (History replaces its dict on each probed
        # step), or (same_step) the step both were drawn at
        self._seen: tuple | None = None
        self._marks: list[pg.TextItem] = []
        self._missing: list[str] = []     # A's parameters drawn as no gradient
        self.set_model(["head0"], [])

    def set_model(self, head_names: list[str], param_names: list[str]) -> None:
        self._names = list(param_names)
        split = [split_name(n, head_names) for n in param_names]
        # trunk (and anything unknown) first, then heads in order: stable sort by head
        order = sorted(range(len(split)), key=lambda i: _head_rank(split[i][0]))
        self._names = [param_names[i] for i in order]
        split = [split[i] for i in order]
        self._head_of_bar = [h for h, _, _ in split]
        xs: list[float] = []
        groups: list[tuple[str, int | None, float, float]] = []   # (group, head, x0, x1)
        x = 0.0
        for i, (head, group, _) in enumerate(split):
            if i and group != split[i - 1][1]:
                x += GROUP_GAP
            xs.append(x)
            if groups and groups[-1][0] == group:   # the group goes on to this bar
                name, first_head, first, _ = groups[-1]
                groups[-1] = (name, first_head, first, x)
            else:
                groups.append((group, head, x, x))
            x += 1.0
        self._xs = np.array(xs)
        self._groups = groups
        self._heights = np.zeros(len(xs))
        self._heights_b = np.zeros(len(xs))
        self._short = [s for _, _, s in split]
        self._seen = None
        self._missing = []
        self._mark_missing({}, None)
        self.plot.setXRange(-0.6, max(x - 0.4, 0.6), padding=0)
        self.apply_theme(self.theme)

    def update_from(self, history: History) -> None:
        norms = history.last_grad_norms
        norms_b = None if self.ghost is None else self.ghost.last_grad_norms
        seen = self._seen
        if self.same_step and self.ghost is not None:
            at = self.bar_step = shared_bar_step(history, self.ghost)
            norms, norms_b = ({}, {}) if at is None else (at.a, at.b)
            if seen == (at,):   # the same step's (its norms made afresh at each look)
                return
            self._seen = (at,)
        else:
            if seen is not None and len(seen) == 2 and seen[0] is norms \
                    and seen[1] is norms_b:
                return   # History replaces the dict on each probed step
            self._seen = (norms, norms_b)
        self._heights = self._bar_heights(norms)
        self.bars.setOpts(height=self._heights)
        if norms_b is not None:
            self._heights_b = self._bar_heights(norms_b)
            self.bars_b.setOpts(height=self._heights_b)
        self._missing = [n for n in self._names if n in norms and norms[n] is None]
        self._mark_missing(norms, norms_b)

    def _bar_heights(self, norms: dict[str, float | None]) -> np.ndarray:
        values = [np.nan if (v := norms.get(n)) is None else v for n in self._names]
        return np.nan_to_num(np.asarray(values, dtype=float), nan=0.0)

    def _mark_missing(self, norms: dict, norms_b: dict | None) -> None:
        """A cross on the axis where a bar would be, for each parameter without a
        gradient (A's, and B's beside it while B is pinned)."""
        for mark in self._marks:
            self.plot.removeItem(mark)
        self._marks = []
        paired = self.ghost is not None
        for offset, which in ((-0.21 if paired else 0.0, norms), (0.21, norms_b)):
            if which is None:
                continue
            for x, name, head in zip(self._xs, self._names, self._head_of_bar):
                if name in which and which[name] is None:
                    mark = pg.TextItem(NO_GRAD_MARK, color=self._colour(head),
                                       anchor=(0.5, 1.0))
                    mark.setPos(float(x) + offset, 0.0)
                    mark.setToolTip(plain_tip(f"{name}: {NO_GRAD_TIP}"))
                    self.plot.addItem(mark)
                    self._marks.append(mark)
        self._title.setText(self._title_text())

    def _title_text(self) -> str:
        if self.ghost is None:
            title = TITLE
        elif self.ghost_label == GHOST_LABEL:
            title = TITLE_B
        else:   # a lesson's slide before, pale beside this slide's bars (or another rank)
            whose = self.ghost_label.replace(" (dashed)", "")
            title = f"Gradient norm per parameter: {self.shown_label} | {whose} (pale)"
        return title + self._step_words() + (NO_GRAD_KEY if self._marks else "")

    def _step_words(self) -> str:
        """Which step both runs' bars are of (the recorded-run window's)."""
        if not self.same_step or self.ghost is None:
            return ""
        at = self.bar_step
        if at is None:
            return ", no step both recorded yet"
        return f", both at step {at.step}" + ("" if at.a_newest else
                                              " (the newest both have)")

    def missing(self) -> list[str]:
        """A's parameters drawn as "no gradient (None)", in bar order."""
        return list(self._missing)

    def set_ghost(self, history, label: str = GHOST_LABEL) -> None:
        """Draw B's bars beside A's (history: B's run), or (None) A's alone. label: whose
        the pale bars are (B, or a lesson's slide before)."""
        self.ghost, self.ghost_label = history, label
        self._seen = None
        self._heights_b = np.zeros(len(self._names))
        self.apply_theme(self.theme)

    def data(self) -> dict[str, float]:
        """Parameter name -> the bar height drawn, in bar order."""
        return dict(zip(self._names, self._heights.tolist()))

    def data_b(self) -> dict[str, float]:
        """B's bar heights, by parameter name ({} while no B is pinned)."""
        if self.ghost is None:
            return {}
        return dict(zip(self._names, self._heights_b.tolist()))

    def bar_colours(self) -> dict[str, str]:
        return {n: self._colour(h) for n, h in zip(self._names, self._head_of_bar)}

    def labels(self) -> list[str]:
        """The short name under each bar, in bar order."""
        return list(self._short)

    def apply_theme(self, theme: Theme) -> None:
        self.theme = theme
        ps.style_panel(self, theme, [self.plot_widget], self._title)
        ps.style_plot(self.plot, theme)
        self.plot.showGrid(x=False, y=True, alpha=theme.grid_alpha)
        brushes = [pg.mkBrush(self._colour(h)) for h in self._head_of_bar]
        paired = self.ghost is not None
        self._title.setText(self._title_text())
        self.bars.setOpts(x=self._xs - 0.21 if paired else self._xs, height=self._heights,
                          width=0.42 if paired else 0.8, brushes=brushes,
                          pen=pg.mkPen(theme.panel, width=1))
        self.bars_b.setVisible(paired)
        if paired:
            pale = [pg.mkBrush(ps.mix(self._colour(h), theme.panel, B_SHARE))
                    for h in self._head_of_bar]
            outline = [pg.mkPen(self._colour(h), width=1.5) for h in self._head_of_bar]
            # no bars yet (B read before A's first step): no pens list, since
            # pyqtgraph's BarGraphItem fails on an empty one
            self.bars_b.setOpts(x=self._xs + 0.21, height=self._heights_b, width=0.42,
                                brushes=pale, pens=outline or None)
        groups = [Group(g, first, last, self._colour(h)) for g, h, first, last in self._groups]
        self.axis.set_labels(self._xs.tolist(), self._short, groups)

    def _colour(self, head: int | None) -> str:
        return ps.neutral(self.theme) if head is None else self.theme.head_colour(head)


class GlobalNormPlot(LinePanel):
    """The norm of all parameter gradients together, per optimizer step (and B's, dashed,
    while B is pinned beside A)."""

    non_negative = True

    def __init__(self, parent: QtWidgets.QWidget | None = None):
        super().__init__("globalNormPlot", "Global gradient norm", "optimizer step",
                         "‖grad‖ (all parameters)", parent=parent, y_short="‖grad‖")
        self._ghost_curve = new_ghost(self.plot)
        self._ghost_curve.setVisible(False)
        self._ghost_data = (np.zeros(0), np.zeros(0))
        # the recorded-run window's smoothing (the raw norms faint behind) and x axis
        self.smoothing_weight = 0.0
        self._raw_curve = new_curve(self.plot)
        self._raw_curve.setVisible(False)
        self._smoothed: dict[int, Smoothed] = {}   # A's and B's line, by its history's id
        self.x_axis: XAxis | None = None
        # a mixed-precision run's GradScaler scale, in a plot of its own under the norm
        # (made when a recording has one), with the steps scaler.step skipped marked
        self.scale_plot: ScaleRow | None = None
        self.set_model(["head0"], [])

    def set_model(self, head_names: list[str], param_names: list[str]) -> None:
        self._set_series([("global grad norm", total_colour, ps.LINE_WIDTH)])
        self._ghost_legend()
        if self.scale_plot is not None:
            self.scale_plot.clear()

    def _show_scale(self, history: History) -> None:
        if self.scale_plot is None:
            self.scale_plot = ScaleRow(self.plot_widget, self.plot)
            self.scale_plot.apply_theme(self.theme)
            if self.x_axis is not None:   # the row's axis is the chart's x axis now
                show_x_axis(self.scale_plot.plot, self.x_axis, self.theme)
        self.scale_plot.show(history, self.theme.total_colour,
                             None if self.x_axis is None else self.x_axis.x)
        self._ghost_legend()   # the title says the scale

    def skipped_steps(self) -> list[int]:
        """The steps marked skipped (tests, screenshots)."""
        return [] if self.scale_plot is None else self.scale_plot.skipped_steps()

    def update_from(self, history: History) -> None:
        if self._needs_update(history):
            x, y = self._line(history)
            smoothed = self.smoothing_weight > 0
            self._raw_curve.setVisible(smoothed)
            # no hidden copy of the raw line kept while not smoothed
            set_curve_data(self._raw_curve, x if smoothed else x[:0], y if smoothed else y[:0])
            self._show("global grad norm", x, self._smooth(history, y))
            steps, scales = history.measured("amp_scale")
            if len(steps) or self.scale_plot is not None:
                self._show_scale(history)
            if self.ghost is not None and len(self.ghost):
                x, y = self._line(self.ghost)
                self._ghost_data = (x, self._smooth(self.ghost, y))
                set_curve_data(self._ghost_curve, *self._ghost_data)
            self._smoothed = {k: v for k, v in self._smoothed.items()
                              if k in (id(history), id(self.ghost))}

    def _line(self, history: History) -> tuple[np.ndarray, np.ndarray]:
        """The run's norms on the steps that have one, along the x axis."""
        steps, norms = join_samples(*history.measured("global_grad_norm"))
        return (steps if self.x_axis is None else self.x_axis.x(history, steps)), norms

    def _smooth(self, history: History, y: np.ndarray) -> np.ndarray:
        if self.smoothing_weight <= 0:
            return y
        line = self._smoothed.get(id(history))
        if line is None:
            line = self._smoothed[id(history)] = Smoothed(self.smoothing_weight)
        return line.extend(y)

    def set_smoothing(self, weight: float) -> None:
        """Smoothed as TensorBoard smooths, at this weight (0: not), the raw line faint."""
        if weight != self.smoothing_weight:
            self.smoothing_weight, self._smoothed, self._seen = weight, {}, None

    def set_x_axis(self, axis: XAxis) -> None:
        if self.x_axis is None or axis.key() != self.x_axis.key():
            self.x_axis, self._seen = axis, None
            # under a mixed-precision run's scale row, the row's axis is the chart's
            below = self.plot if self.scale_plot is None else self.scale_plot.plot
            show_x_axis(below, axis, self.theme)

    def set_ghost(self, history, label: str = GHOST_LABEL) -> None:
        super().set_ghost(history, label)
        self._ghost_curve.setVisible(history is not None)
        if history is None:
            self._ghost_curve.setData([], [])
            self._ghost_data = (np.zeros(0), np.zeros(0))

    def ghost_data(self) -> tuple[np.ndarray, np.ndarray]:
        return self._ghost_data[0].copy(), self._ghost_data[1].copy()

    def _reference_colour(self, metric: str) -> str:
        return self.theme.total_colour   # its one line's

    def _ghost_legend(self) -> None:
        # one line, or A's and B's: the title says which is which (a legend row would
        # take height this chart is short of)
        self.legend.setVisible(False)
        whose = self.ghost_label.replace(" (dashed)", " dashed")
        scale_plot = getattr(self, "scale_plot", None)
        unscaled = "" if scale_plot is None else f" · {scale_plot.words}"
        self._title.setText(f"Global gradient norm{unscaled}"
                            + (f"  ({whose})" if self.ghost else ""))

    def _restyle(self) -> None:
        super()._restyle()
        if hasattr(self, "_ghost_curve"):
            self._ghost_curve.setPen(ghost_pen(self.theme.total_colour, self.theme))
        if hasattr(self, "_raw_curve"):   # faint by mixing, as the loss chart's raw lines
            self._raw_curve.setPen(ps.pen(ps.mix(self.theme.total_colour, self.theme.panel,
                                                 RAW_MIX), 1.5))
        scale_plot = getattr(self, "scale_plot", None)
        if scale_plot is not None:
            scale_plot.apply_theme(self.theme)


# z.grad where z.retain_grad() keeps it: the heads' pushes added up, as backward sums them
Z_GRAD = "z.grad (retain_grad)"


class JunctionPlot(LinePanel):
    """Norm of each loss's gradient at the trunk output z: how hard it pushes the trunk;
    and, where retain_grad keeps z.grad, the norm of that sum (in the total's colour, as
    the total loss is the sum of the losses)."""

    non_negative = True

    def __init__(self, parent: QtWidgets.QWidget | None = None):
        super().__init__("junctionPlot", "How hard each loss pushes the trunk",
                         "optimizer step", "‖∂L/∂z‖ at the junction", parent=parent,
                         y_short="‖∂L/∂z‖")
        self.set_model(["head0"], [])

    def set_model(self, head_names: list[str], param_names: list[str]) -> None:
        for curve in getattr(self, "_ghosts", {}).values():
            self.plot.removeItem(curve)
        # each head's push in the run drawn beside this one (a lesson's slide before),
        # made when there is one
        self._ghosts: dict[str, pg.PlotDataItem] = {}
        self._ghost_data: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._set_series([(h, head_colour(k), ps.LINE_WIDTH) for k, h in enumerate(head_names)]
                         + [(Z_GRAD, total_colour, ps.LINE_WIDTH)])
        self._z_in_legend = True
        self._z_legend(False)   # named only once there is a z.grad to draw
        self._restyle()

    def set_ghost(self, history, label: str = GHOST_LABEL) -> None:
        super().set_ghost(history, label)
        for curve in self._ghosts.values():
            curve.setVisible(history is not None)
            if history is None:
                curve.setData([], [])
        if history is None:
            self._ghost_data = {}

    def ghost_data(self) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """The dashed run's push per head as drawn, {} without one."""
        return {k: (x.copy(), y.copy()) for k, (x, y) in self._ghost_data.items()}

    def _draws_ghost(self) -> bool:
        return True

    def _reference_colour(self, metric: str) -> str:
        """A head's push in its head's colour (junction.head2: head 2's), z.grad in the
        total's."""
        head = metric.partition(".")[2]
        if head.startswith("head") and head[4:].isdigit():
            return self.theme.head_colour(int(head[4:]))
        return self.theme.total_colour

    def _draw_ghost(self) -> None:
        ghost = self.ghost
        if ghost is None or not len(ghost):
            return
        for k, name in enumerate(ghost.head_names):
            if name in self._curves and name != Z_GRAD:
                if name not in self._ghosts:
                    self._ghosts[name] = new_ghost(self.plot)
                    self._restyle()
                self._ghost_data[name] = join_samples(*ghost.measured("junction", k))
                set_curve_data(self._ghosts[name], *self._ghost_data[name])

    def _restyle(self) -> None:
        super()._restyle()
        for name, curve in getattr(self, "_ghosts", {}).items():
            colour, width = self._style[name]
            curve.setPen(ghost_pen(colour(self.theme), self.theme, width - 0.5))

    def _z_legend(self, shown: bool) -> None:
        if shown != self._z_in_legend:
            self._z_in_legend = shown
            if shown:
                self.legend.addItem(self._samples[Z_GRAD], Z_GRAD)
            else:
                self.legend.removeItem(self._samples[Z_GRAD])
            # its columns again: added after the fit, the long name took the first
            # column's width and pushed "head2" past the panel's edge (lesson 06)
            self._place_legend()

    def update_from(self, history: History) -> None:
        if not self._needs_update(history):
            return
        for k, name in enumerate(history.head_names):
            if name in self._curves:
                self._show(name, *join_samples(*history.measured("junction", k)))
        z_steps, z = history.measured("z_grad_norm")
        kept = len(z) > 0
        self._show(Z_GRAD, *(join_samples(z_steps, z) if kept else (np.zeros(0), np.zeros(0))))
        self._z_legend(kept)
        self._draw_ghost()


if __name__ == "__main__":
    from .demo import show_alone
    raise SystemExit(show_alone(GradNormBars, GlobalNormPlot, JunctionPlot, CosineHeatmap))
