"""A chart's x axis as the recorded-run window's axis asks (plain.charts.x_axis): steps and
the time since the start are numbers under their title; the wall-clock time is ticked
as clock times and dates (pyqtgraph's DateAxisItem, in the local time zone), the axis
item swapped only when the mode changes."""
from __future__ import annotations

import pyqtgraph as pg
from PySide6 import QtWidgets  # noqa: F401  (before pyqtgraph: it binds to the first Qt)

from ...plain.charts.x_axis import XAxis
from ..theme import Theme
from . import plot_style as ps


def show_x_axis(plot: pg.PlotItem, axis: XAxis, theme: Theme) -> None:
    """The plot's bottom axis for this x axis, titled and in the theme (a theme change
    restyles it with the rest: apply_theme)."""
    bottom = plot.getAxis("bottom")
    dates = axis.mode == "wall"
    if dates != isinstance(bottom, pg.DateAxisItem):
        bottom = pg.DateAxisItem(orientation="bottom") if dates \
            else pg.AxisItem(orientation="bottom")
        plot.setAxisItems({"bottom": bottom})
        bottom.enableAutoSIPrefix(False)
        bottom.setLabel(axis.title)
        # the new axis item alone in the theme, and its grid (all of style_plot, for
        # five charts, held the click that swapped it 120 ms on a busy machine)
        ps.style_axis(bottom, theme)
        plot.updateGrid()
    elif bottom.labelText != axis.title:
        # only the title: restyling every axis of five charts held a click 30 ms
        bottom.setLabel(axis.title, bottom.labelUnits, **bottom.labelStyle)
