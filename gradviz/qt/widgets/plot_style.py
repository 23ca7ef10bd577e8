"""The look every plot panel shares: themed axes, fonts, legends and thick pens.

Sized for a projector: tick text at the theme's (zoomed) font size, titles larger,
lines at least LINE_WIDTH px so they survive a washed-out beamer.
"""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets  # before pyqtgraph: it binds to the first Qt

from ..plain_text import plain_label
from ..theme import Theme
from .plain_legend import PlainLegend

LINE_WIDTH = 3.0
TOTAL_WIDTH = 3.5
TITLE_SCALE = 1.3
AXES = ("left", "bottom", "right", "top")


def font(theme: Theme, scale: float = 1.0, bold: bool = False) -> QtGui.QFont:
    f = QtGui.QFont()
    f.setPointSizeF(theme.font_pt * scale)
    f.setBold(bold)
    return f


def pen(colour: str, width: float = LINE_WIDTH, alpha: int = 255) -> QtGui.QPen:
    c = pg.mkColor(colour)
    c.setAlpha(alpha)
    p = pg.mkPen(c, width=width)
    p.setCosmetic(True)  # width in screen pixels, whatever the zoom of the view
    # round ends: curves are drawn as separate segments, and square ends show as notches
    p.setCapStyle(QtCore.Qt.PenCapStyle.RoundCap)
    p.setJoinStyle(QtCore.Qt.PenJoinStyle.RoundJoin)
    return p


def mix(colour: str, background: str, share: float) -> str:
    """`share` of colour over background, as an opaque colour."""
    a, b = pg.mkColor(colour), pg.mkColor(background)
    rgb = [round(share * x + (1 - share) * y) for x, y in zip(a.getRgb()[:3], b.getRgb()[:3])]
    return pg.mkColor(*rgb).name()


def neutral(theme: Theme) -> str:
    """A grey between text and background, for what belongs to no head (trunk bars,
    memory), distinct from every head colour."""
    return mix(theme.foreground, theme.panel, 0.6)


def new_canvas(x_label: str, y_label: str
               ) -> tuple[pg.GraphicsLayoutWidget, pg.PlotItem, pg.LegendItem]:
    """A canvas with a legend above one plot.

    The legend gets its own rows (see fit_legend) rather than floating over the curves:
    on a projector it must never hide the data it explains.
    """
    canvas = pg.GraphicsLayoutWidget()
    legend = PlainLegend(horSpacing=6)   # names from files shown as written
    fixed = QtWidgets.QSizePolicy.Policy.Fixed
    legend.setSizePolicy(fixed, fixed)  # else the row stretches it over the full width
    legend.layout.setContentsMargins(0, 0, 0, 0)
    canvas.ci.layout.setVerticalSpacing(0)
    canvas.addItem(legend, row=0, col=0)
    canvas.ci.layout.setAlignment(legend, QtCore.Qt.AlignmentFlag.AlignRight)
    plot = canvas.addPlot(row=1, col=0, axisItems={"left": ReadableAxis("left")})
    style_view(plot, x_label, y_label)
    return canvas, plot, legend


class ReadableAxis(pg.AxisItem):
    """An axis whose labels never run into each other.

    In log mode, labels decades first, then 2 and 5, then the rest, each level only
    where it fits. (pyqtgraph puts 1..9 of every decade on one level when the range is
    under a decade or so, and then draws all of them, on top of each other.)

    A left or right axis shows a shorter title where the full one is longer than the
    axis is high: a rotated title longer than its plot runs past it, into the plot or
    the title above or below."""

    _titles: tuple[str, ...] = ()

    def set_title(self, title: str, *shorter: str | None) -> None:
        """The title, and shorter ones, longest first, for where it does not fit (the
        shortest is shown where none does)."""
        self._titles = (title,) + tuple(t for t in shorter if t)
        self.setLabel(title, self.labelUnits, **self.labelStyle)
        self.fit_title()

    def fit_title(self) -> None:
        """Show the longest title that fits the axis's height."""
        if not self._titles or self.orientation not in ("left", "right"):
            return
        shown = next((t for t in self._titles if self._title_width(t) <= self.height()),
                     self._titles[-1])
        if shown != self.labelText:
            self.setLabel(shown, self.labelUnits, **self.labelStyle)
        # centred again: pyqtgraph centres the title on resize only, so a new (shorter)
        # one stayed where the old one started, off the middle and past its plot's top
        pg.AxisItem.resizeEvent(self)

    def _title_width(self, text: str) -> float:
        """How long `text` is drawn in the label's font (its size set by style_plot)."""
        font = QtGui.QFont(self.label.font())
        size = str(self.labelStyle.get("font-size", ""))
        if size.endswith("pt"):
            font.setPointSizeF(float(size[:-2]))
        return QtGui.QFontMetricsF(font).horizontalAdvance(text)

    def resizeEvent(self, event=None) -> None:
        super().resizeEvent(event)
        self.fit_title()

    def logTickValues(self, minVal, maxVal, size, stdTicks):
        levels: list[list[float]] = [[], [], []]
        for decade in range(int(np.floor(minVal)), int(np.ceil(maxVal)) + 1):
            for m in range(1, 10):
                v = decade + np.log10(m)
                if minVal <= v <= maxVal:
                    levels[0 if m == 1 else 1 if m in (2, 5) else 2].append(v)
        return [(None, vals) for vals in levels if vals]


class CountAxis(ReadableAxis):
    """Ticks at whole numbers only: a count of graph nodes has no 41.8 (pyqtgraph ticks a
    flat line of 42 nodes at 41.6, 41.8, 42.0...)."""

    def tickSpacing(self, minVal, maxVal, size):
        whole = [(spacing, offset) for spacing, offset in super().tickSpacing(minVal, maxVal, size)
                 if spacing >= 1 and float(spacing).is_integer()]
        return whole or [(1.0, 0.0)]


def style_view(plot: pg.PlotItem, x_label: str | None, y_label: str | None) -> None:
    """Clipped and peak-downsampled so 50,000+ points repaint cheaply, and with no SI
    rescaling ("x1e3") that a student would misread."""
    plot.setClipToView(True)
    plot.setDownsampling(auto=True, mode="peak")
    plot.setMenuEnabled(False)
    plot.hideButtons()  # the "A" auto-range button is a distraction on a projector
    for name, label in (("bottom", x_label), ("left", y_label)):
        axis = plot.getAxis(name)
        axis.enableAutoSIPrefix(False)
        if label:
            axis.setLabel(label)


def style_plot(plot: pg.PlotItem, theme: Theme) -> None:
    """Axes, grid, view background and legend of one PlotItem in the theme."""
    for name in AXES:
        style_axis(plot.getAxis(name), theme)
    plot.showGrid(x=True, y=True, alpha=theme.grid_alpha)
    plot.getViewBox().setBackgroundColor(theme.panel)


def style_axis(axis: pg.AxisItem, theme: Theme) -> None:
    """One axis in the theme (style_plot's, for each of a plot's)."""
    fg = theme.foreground
    axis.setPen(pen(fg, 1.5))
    axis.setTextPen(fg)
    axis.setTickFont(font(theme))
    # major and minor grid lines only: the third level turns the grid into a mesh
    axis.setStyle(tickTextOffset=max(4, int(theme.font_pt * 0.5)), maxTickLevel=1)
    if axis.labelText:
        axis.setLabel(axis.labelText, axis.labelUnits, color=fg,
                      **{"font-size": f"{theme.font_pt:.1f}pt"})
    if isinstance(axis, ReadableAxis):   # a larger font may no longer fit
        axis.fit_title()


def style_legend(legend: pg.LegendItem, theme: Theme) -> None:
    """The legend in the theme (its labels' names as given: PlainLegend escapes them)."""
    legend.setBrush(None)
    legend.setPen(None)
    legend.setLabelTextColor(theme.foreground)
    legend.setLabelTextSize(f"{theme.font_pt:.1f}pt")
    for _, label in legend.items:  # the setters above only reach labels added later
        label.setText(label.text)


def fit_legend(legend: pg.LegendItem, width: float) -> None:
    """As many entries per row as fit in `width` px, rows balanced (9 entries in a
    700 px panel: 5 + 4), so the legend never pushes the plot out of the panel. Each
    column as wide as its own widest entry (the entries fill it row by row): one long
    name ("slide before (dashed)") no longer makes every column its width."""
    n = len(legend.items)
    if n == 0:
        return
    gap = legend.opts["labelTextSize"]
    gap = float(gap[:-2]) * 1.5 if str(gap).endswith("pt") else 15.0
    entries = [_entry_width(sample, label) + gap for sample, label in legend.items]

    def fits(cols: int) -> bool:
        widths = [max(entries[i::cols]) for i in range(cols)]
        return sum(widths) <= width - 20
    cols = next((c for c in range(n, 0, -1) if fits(c)), 1)
    rows = -(-n // cols)
    balanced = -(-n // rows)
    legend.setColumnCount(balanced if fits(balanced) else cols)
    for col in range(legend.columnCount):  # room between one entry's name and the next
        legend.layout.setColumnSpacing(2 * col + 1, gap)


def _entry_width(sample, label) -> float:
    """A legend entry's own width: its swatch and its name's text (the label item is as
    wide as its grid column, whatever its text)."""
    text = getattr(label, "item", label)
    return sample.boundingRect().width() + text.boundingRect().width() + 6


def place_legend(canvas: pg.GraphicsLayoutWidget, legend: pg.LegendItem) -> None:
    """The legend above the plot in as many rows as its width needs (fit_legend), or
    beside it in one column, whichever leaves the plot the more readable (its height,
    or half its width where that is less: a chart is wider than high). A secondary
    chart after Ctrl+= twice had three rows of five entries above a 40 px plot.
    The plot is the canvas's item in row 1, column 0 (new_canvas)."""
    width, height = canvas.width(), canvas.height()
    fit_legend(legend, width)
    n = len(legend.items)
    beside = False
    if n and height > 0:
        rows = -(-n // max(1, legend.columnCount))
        row_px = max(max(sample.boundingRect().height(), label.boundingRect().height())
                     for sample, label in legend.items)
        axes = 2 * row_px   # the step axis below, the value axis on the left: about
        entry = max(_entry_width(sample, label) + 6 for sample, label in legend.items)

        def readable(plot_w: float, plot_h: float) -> float:
            return min(plot_w / 2, plot_h)
        beside = readable(width - axes - entry, height - axes) > \
            readable(width - axes, height - axes - rows * row_px)
    where = (1, 1) if beside else (0, 0)
    layout = canvas.ci
    if layout.items.get(legend) != [where]:
        layout.removeItem(legend)
        layout.addItem(legend, row=where[0], col=where[1])
        align = QtCore.Qt.AlignmentFlag
        layout.layout.setAlignment(legend, (align.AlignLeft | align.AlignVCenter) if beside
                                   else align.AlignRight)
        layout.layout.setColumnStretchFactor(0, 1)   # the plot takes what it leaves
        layout.layout.setColumnStretchFactor(1, 0)
    if beside:
        legend.setColumnCount(1)
    else:
        fit_legend(legend, width)


def style_panel(panel: QtWidgets.QWidget, theme: Theme,
                graphics: list[pg.GraphicsView], title: QtWidgets.QLabel) -> None:
    """Background and text of the panel itself: title, controls and plot canvases."""
    pal = panel.palette()
    for role, colour in ((QtGui.QPalette.ColorRole.Window, theme.background),
                         (QtGui.QPalette.ColorRole.WindowText, theme.foreground),
                         (QtGui.QPalette.ColorRole.Base, theme.panel),
                         (QtGui.QPalette.ColorRole.Text, theme.foreground)):
        pal.setColor(role, QtGui.QColor(colour))
    panel.setPalette(pal)
    panel.setAutoFillBackground(True)
    title.setFont(font(theme, TITLE_SCALE, bold=True))
    for box in panel.findChildren(QtWidgets.QCheckBox):
        box.setFont(font(theme))
        box.setStyleSheet(checkbox_css(theme))
    for view in graphics:
        view.setBackground(theme.background)


def checkbox_css(theme: Theme) -> str:
    """A big box with the theme's own outline: the style's default indicator is tiny and
    all but invisible on a dark background. Checked is a solid fill in the text colour."""
    side = round(theme.font_pt * 1.5)
    return (f"QCheckBox {{ color: {theme.foreground}; spacing: {side // 2}px; }}"
            f"QCheckBox::indicator {{ width: {side}px; height: {side}px;"
            f" border: 2px solid {theme.foreground}; border-radius: 3px;"
            f" background: {theme.panel}; }}"
            f"QCheckBox::indicator:checked {{ background: {theme.foreground};"
            f" border: 2px solid {theme.foreground}; }}")


def header(panel: QtWidgets.QWidget, text: str, controls=()) -> tuple[QtWidgets.QVBoxLayout,
                                                                     QtWidgets.QLabel]:
    """The panel's vertical layout, starting with a title row (title left, controls right).

    A QLabel title rather than pyqtgraph's: it sizes itself to its font, so a zoomed
    title is never clipped.
    """
    layout = QtWidgets.QVBoxLayout(panel)
    layout.setContentsMargins(6, 4, 6, 4)
    layout.setSpacing(2)
    row = QtWidgets.QHBoxLayout()
    row.setSpacing(18)  # keeps one checkbox's text clear of the next box
    # plain: a title may quote a run's or a rank's name from a folder
    title = plain_label(QtWidgets.QLabel(text))
    title.setObjectName(panel.objectName() + "Title")
    title.setWordWrap(True)  # a long title must not stop a dock from narrowing
    row.addWidget(title, 1)
    for control in controls:
        row.addWidget(control)
    layout.addLayout(row)
    return layout, title
