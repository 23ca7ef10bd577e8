"""A slide's reference line on a chart: a labelled horizontal line at a value its
narration names (the clean run's push, the norm before clipping), on the chart's axes."""
from __future__ import annotations

import pyqtgraph as pg
from PySide6 import QtCore  # noqa: F401 (before pyqtgraph: it binds to the first Qt)

from ...plain.lessons.lesson_references import DrawnReference
from ..theme import Theme
from . import plot_style as ps

REFERENCE_WIDTH = 2.0   # thinner than a series' 3 px: a mark, not a run
LABEL_AT = 0.98         # the label's place along the line: at its right end
# the label sits below a line in the view's upper half, above one in its lower half (so a
# line at the top of the range keeps its label in view: 09's norm before clipping)
LABEL_ANCHORS = [(1, 0), (1, 1)]
# the panel's colour behind the label, this opaque: the text legible over the curves, the
# curves still seen through it (at 0.85 it hid head 2's run where the two met)
LABEL_FILL = 0.6


def new_reference_line(plot: pg.PlotItem, ref: DrawnReference) -> pg.InfiniteLine:
    """A fixed line at ref.value, its label at its right end, over the curves."""
    line = pg.InfiniteLine(pos=ref.value, angle=0, movable=False, label=ref.label,
                           labelOpts=dict(position=LABEL_AT, anchors=LABEL_ANCHORS))
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
