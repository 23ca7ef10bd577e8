"""A slide's reference line on a chart: a labelled horizontal line at a value its
narration names (the clean run's push, the norm before clipping), on the chart's axes."""
from __future__ import annotations

import pyqtgraph as pg
from PySide6 import QtCore  # noqa: F401 (before pyqtgraph: it binds to the first Qt)

from ...plain.lesson_references import DrawnReference
from ..theme import Theme
from . import plot_style as ps

REFERENCE_WIDTH = 2.0   # thinner than a series' 3 px: a mark, not a run
LABEL_AT = 0.02         # the label's place along the line, from the left of the view
LABEL_FILL = 0.85       # the panel's colour behind the label, this opaque: legible over lines


def new_reference_line(plot: pg.PlotItem, ref: DrawnReference) -> pg.InfiniteLine:
    """A fixed line at ref.value, its label just above it at the left, over the curves."""
    line = pg.InfiniteLine(pos=ref.value, angle=0, movable=False, label=ref.label,
                           labelOpts=dict(position=LABEL_AT, anchors=[(0, 1), (0, 1)]))
    line.setZValue(20)
    plot.addItem(line, ignoreBounds=True)   # its value enters the range another way
    return line


def style_reference_line(line: pg.InfiniteLine, colour: str, theme: Theme) -> None:
    pen = ps.pen(colour, REFERENCE_WIDTH)
    pen.setStyle(QtCore.Qt.PenStyle.DotLine)
    line.setPen(pen)
    label = line.label
    label.setFont(ps.font(theme))
    label.setColor(pg.mkColor(theme.foreground))
    fill = pg.mkColor(theme.panel)
    fill.setAlphaF(LABEL_FILL)
    label.fill = pg.mkBrush(fill)
    label.update()
