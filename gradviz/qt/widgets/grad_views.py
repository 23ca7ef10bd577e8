"""Gradient panels: per-parameter norms of the latest step, the global norm over time,
how hard each loss pushes the trunk (junction norms), and whether the losses agree.
"""
from __future__ import annotations

import numpy as np
from PySide6 import QtWidgets  # before pyqtgraph: it binds to the first Qt
import pyqtgraph as pg

from gradviz.core.history import History

from ..theme import LIGHT, Theme
from . import plot_style as ps
from .cosine_heatmap import CosineHeatmap
from .line_panel import LinePanel, head_colour, total_colour
from .param_axis import Group, ParamAxis
from .series import join_samples

__all__ = ["GradNormBars", "GlobalNormPlot", "JunctionPlot", "CosineHeatmap"]

GROUP_GAP = 0.8  # extra space between trunk, head0, head1, ... (in bar widths)


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


class GradNormBars(QtWidgets.QWidget):
    """The newest per-parameter gradient norms: trunk first, then each head in its colour."""

    def __init__(self, parent: QtWidgets.QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("gradNormBars")
        self.theme = LIGHT
        layout, self._title = ps.header(self, "Gradient norm per parameter (latest step)")
        self.plot_widget = pg.GraphicsLayoutWidget()
        self.plot_widget.setObjectName("gradNormBarsCanvas")
        self.axis = ParamAxis()
        self.plot = self.plot_widget.addPlot(axisItems={"bottom": self.axis})
        ps.style_view(self.plot, None, "grad norm")
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.setLimits(yMin=0)  # autorange pads; bars start at 0, so must the axis
        self.bars = pg.BarGraphItem(x=[], height=[], width=0.8)
        self.plot.addItem(self.bars)
        layout.addWidget(self.plot_widget, 1)
        self._names: list[str] = []
        self._head_of_bar: list[int | None] = []   # None: trunk
        self._heights = np.zeros(0)
        self._seen: object = None
        self.set_model(["head0"], [])

    def set_model(self, head_names: list[str], param_names: list[str]) -> None:
        self._names = list(param_names)
        split = [split_name(n, head_names) for n in param_names]
        # trunk (and anything unknown) first, then heads in order: stable sort by head
        order = sorted(range(len(split)), key=lambda i: -1 if split[i][0] is None else split[i][0])
        self._names = [param_names[i] for i in order]
        split = [split[i] for i in order]
        self._head_of_bar = [h for h, _, _ in split]
        xs, groups, x = [], [], 0.0
        for i, (head, group, _) in enumerate(split):
            if i and group != split[i - 1][1]:
                x += GROUP_GAP
            xs.append(x)
            if not groups or groups[-1][0] != group:
                groups.append([group, head, x, x])
            groups[-1][3] = x
            x += 1.0
        self._xs = np.array(xs)
        self._groups = groups
        self._heights = np.zeros(len(xs))
        self._short = [s for _, _, s in split]
        self._seen = None
        self.plot.setXRange(-0.6, max(x - 0.4, 0.6), padding=0)
        self.apply_theme(self.theme)

    def update_from(self, history: History) -> None:
        norms = history.last_grad_norms
        if norms is self._seen:  # History replaces the dict on each probed step
            return
        self._seen = norms
        values = [norms.get(n, np.nan) for n in self._names]
        self._heights = np.nan_to_num(np.asarray(values, dtype=float), nan=0.0)
        self.bars.setOpts(height=self._heights)

    def data(self) -> dict[str, float]:
        """Parameter name -> the bar height drawn, in bar order."""
        return dict(zip(self._names, self._heights.tolist()))

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
        self.bars.setOpts(x=self._xs, height=self._heights, width=0.8, brushes=brushes,
                          pen=pg.mkPen(theme.panel, width=1))
        groups = [Group(g, first, last, self._colour(h)) for g, h, first, last in self._groups]
        self.axis.set_labels(self._xs.tolist(), self._short, groups)

    def _colour(self, head: int | None) -> str:
        return ps.neutral(self.theme) if head is None else self.theme.head_colour(head)


class GlobalNormPlot(LinePanel):
    """The norm of all parameter gradients together, per optimizer step."""

    def __init__(self, parent: QtWidgets.QWidget | None = None):
        super().__init__("globalNormPlot", "Global gradient norm", "optimizer step",
                         "‖grad‖ (all parameters)", parent=parent)
        self.set_model(["head0"], [])

    def set_model(self, head_names: list[str], param_names: list[str]) -> None:
        self._set_series([("global grad norm", total_colour, ps.LINE_WIDTH)])
        self.legend.setVisible(False)  # one line: the title says what it is

    def update_from(self, history: History) -> None:
        if self._needs_update(history):
            x, y = join_samples(history.column("step"), history.column("global_grad_norm"))
            self._show("global grad norm", x, y)


class JunctionPlot(LinePanel):
    """Norm of each loss's gradient at the trunk output z: how hard it pushes the trunk."""

    def __init__(self, parent: QtWidgets.QWidget | None = None):
        super().__init__("junctionPlot", "How hard each loss pushes the trunk",
                         "optimizer step", "‖∂L/∂z‖ at the junction", parent=parent)
        self.set_model(["head0"], [])

    def set_model(self, head_names: list[str], param_names: list[str]) -> None:
        self._set_series([(h, head_colour(k), ps.LINE_WIDTH) for k, h in enumerate(head_names)])

    def update_from(self, history: History) -> None:
        if not self._needs_update(history):
            return
        steps, junction = history.column("step"), history.column("junction")  # (n,), (n, K)
        for k, name in enumerate(history.head_names):
            if name in self._curves:
                self._show(name, *join_samples(steps, junction[:, k]))


if __name__ == "__main__":
    from .demo import show_alone
    raise SystemExit(show_alone(GradNormBars, GlobalNormPlot, JunctionPlot, CosineHeatmap))
