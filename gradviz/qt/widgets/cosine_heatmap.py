"""Do the losses agree? The cosine between every pair of losses' trunk gradients.

Red where two losses pull the shared trunk in opposite directions, blue where they
agree, white where they are unrelated; grey with "–" where a gradient is zero. A line
under the matrix gives each head's cosine with the trunk update actually applied: below 0,
the step works against that head (what sum can do and UPGrad never does).
"""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets  # before pyqtgraph: it binds to the first Qt

from gradviz.plain.charts.matrix_labels import (
    BAR_WORTH,
    Arrangement,
    best_arrangement,
    shown_number_px,
)
from gradviz.plain.records.history import History

from ..own_layout import own_layout
from ..plain_text import plain_tip
from ..theme import LIGHT, READING, Theme
from . import plot_style as ps
from . import step_readout
from .cosine_notes import NO_LIMIT, update_text, widest_word, wrapped_height
from .matrix_axes import MatrixAxes
from .steady_label import SteadyLabel

# ColorBrewer RdBu ends: a diverging map that stays readable with colour-vision deficiencies
RED, WHITE, BLUE = "#B2182B", "#F7F7F7", "#2166AC"
UNDEFINED = "#9E9E9E"
WIDEST_NUMBER = "−0.45"   # the widest a cell's number is drawn
# wider than this many times its height, the panel puts its notes beside the matrix
# (where the cells are as large either way)
WIDE_RATIO = 1.6
# of the panel's width, tried for the notes beside the matrix: the narrowest at which
# they are whole leaves the matrix the most
NOTES_BESIDE = (0.25, 0.3, 0.35, 0.4)
GRID_MARGIN, GRID_SPACING = 3, 6   # px round the matrix and between it and the colour bar
COLOURS = pg.ColorMap(pos=[0.0, 0.5, 1.0], color=[RED, WHITE, BLUE])
TITLE = "Do the losses agree? (cosine of trunk gradients)"
# where the title would take two lines: its question alone, what the numbers are at the
# head of the notes (wrapped, the title took a line of the cells' height: beside lesson
# 13's loss chart and loop after Ctrl+= twice at 1024x768 their numbers were 14 px)
SHORT_TITLE, WHAT = "Do the losses agree?", "cosines of the trunk gradients: "
CAPTION = ("<b style='color:{red}'>red</b>: the losses pull the trunk against each other"
           " &nbsp; <b style='color:{blue}'>blue</b>:&nbsp;they&nbsp;agree"
           " &nbsp; <b style='color:{grey}'>grey&nbsp;–</b>:&nbsp;no&nbsp;gradient")


def cell_rgba(matrix: np.ndarray) -> np.ndarray:
    """K x K cosines -> K x K x 4 bytes; -1..1 clipped onto the map, NaN grey."""
    m = np.asarray(matrix, dtype=float)
    rgba = COLOURS.map(((np.clip(np.nan_to_num(m), -1, 1) + 1) / 2).ravel(), mode="byte")
    rgba = np.asarray(rgba, dtype=np.ubyte).reshape(*m.shape, 4)
    rgba[np.isnan(m)] = pg.mkColor(UNDEFINED).getRgb()
    return rgba


class CosineHeatmap(QtWidgets.QWidget):
    def __init__(self, parent: QtWidgets.QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("cosineHeatmap")
        self.theme = self.theme_asked = LIGHT
        self.text_scale = 1.0   # of the text size's: set smaller on a lesson's stage
        # on a lesson's stage its numbers are read as the narration is: the narration
        # points at them ("−0.0049 at step 3"), and at the window's text size the line
        # under the matrix was 8 px high at 1024x768
        self.on_stage = False
        layout, self._title = ps.header(self, TITLE)
        self._outer = layout
        self.plot_widget = pg.GraphicsLayoutWidget()
        self.plot_widget.setObjectName("cosineHeatmapCanvas")
        # pyqtgraph's 9 px round the plot were a sixth of a crowded slide's cell
        grid = self.plot_widget.ci.layout
        grid.setContentsMargins(*[GRID_MARGIN] * 4)
        grid.setHorizontalSpacing(GRID_SPACING)
        self.plot = self.plot_widget.addPlot(row=0, col=0)
        self.plot.setMenuEnabled(False)
        self.plot.hideButtons()
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.setAspectLocked(True)
        self.plot.invertY(True)  # row 0 at the top, as a matrix is read
        self.axes = MatrixAxes(self.plot)
        self.colour_bar = pg.ColorBarItem(values=(-1, 1), colorMap=COLOURS, interactive=False,
                                          colorMapMenu=False, width=22)
        self.plot_widget.addItem(self.colour_bar, row=0, col=1)
        # the matrix and its notes (the key, the update line): side by side in a wide,
        # low panel (a slide's bottom strip), where below it they would leave the cells
        # too small for numbers a hall can read; one above the other otherwise
        self.body = QtWidgets.QBoxLayout(QtWidgets.QBoxLayout.Direction.TopToBottom)
        self.body.setSpacing(6)
        self.body.addWidget(self.plot_widget, 1)
        notes = QtWidgets.QVBoxLayout()
        notes.setSpacing(2)
        self.body.addLayout(notes)
        layout.addLayout(self.body, 1)
        self.caption = QtWidgets.QLabel()
        self.caption.setObjectName("cosineHeatmapCaption")
        self.caption.setWordWrap(True)
        notes.addWidget(self.caption)
        # its numbers change with the sampled steps: sized for the widest, so a new
        # one repaints it without laying the window out again
        self.update_line = SteadyLabel()
        self.update_line.setObjectName("cosineUpdateLine")
        self.update_line.setWordWrap(True)
        self.update_line.setToolTip(
            "Each head's trunk gradient (of its own loss) against the trunk gradient the "
            "optimizer is handed: below 0, the trunk's part of this step raises that head's "
            "loss, to first order; the head's own layers' part lowers it, and may lower it "
            "more.\n" + step_readout.TIP)
        self._readout = False   # the step's readout shown: room is kept for it
        notes.addWidget(self.update_line)
        notes.addStretch(1)
        self._update_seen: object = None
        self.layouts = 0   # how often the body was arranged: on a new size, heads or theme
        self._widths = (0, 0)   # (least, wanted) width, whichever way the notes stand
        self._cells: list[list[QtWidgets.QGraphicsRectItem]] = []
        self._texts: list[list[pg.TextItem]] = []
        self._matrix = np.zeros((0, 0))
        self._seen: object = None
        self.set_model(["head0"], [])
        self.plot.getViewBox().sigResized.connect(self._style_texts)  # cells resized

    def resizeEvent(self, event: QtGui.QResizeEvent) -> None:
        self._fit_title(event.size().width())
        self._arrange_body(event.size())
        super().resizeEvent(event)

    def sizeHint(self) -> QtCore.QSize:  # noqa: N802 (Qt's name)
        return QtCore.QSize(self._widths[1], super().sizeHint().height())

    def minimumSizeHint(self) -> QtCore.QSize:  # noqa: N802 (Qt's name)
        return QtCore.QSize(self._widths[0], super().minimumSizeHint().height())

    def _measure_widths(self) -> None:
        """The widths the panel asks for, measured with the notes below the matrix and
        free: the same whichever column the notes are given. Asked for with the notes'
        fixed column, the panel beside the push chart asked 18 px more with a wider
        column, got it, took a wider column... and the two resized each other without
        end, about 20 times a second, while nothing else changed."""
        for label in (self.caption, self.update_line):
            label.setMinimumWidth(0)
            label.setMaximumWidth(NO_LIMIT)
        direction = self.body.direction()
        self.body.setDirection(QtWidgets.QBoxLayout.Direction.TopToBottom)
        self._widths = (self._outer.totalMinimumSize().width(),
                        self._outer.totalSizeHint().width())
        self.body.setDirection(direction)

    def _arrange_body(self, size: QtCore.QSize) -> None:
        """The notes below the matrix or beside it, the colour bar shown or not: of the
        arrangements that leave the notes whole, the one whose numbers are largest;
        of equals, the colour bar shown, and the notes beside only in a wide, low panel.
        Four heads on lesson 11's stage after Ctrl+= twice at 1024x768 (557x361 px):
        the notes below left the matrix 176 px high and the colour bar took 70 px of
        its width, and the numbers were 9 px; beside, the bar hidden (the notes say
        what red and blue mean), they are 16."""
        wide = size.width() > WIDE_RATIO * size.height()
        options = []
        for notes in (None,) + tuple(int(size.width() * share) for share in NOTES_BESIDE):
            for bar in (True, False):
                options.append(Arrangement(notes, bar, *self._cell_estimate(size, notes, bar)))
        chosen = best_arrangement(options, wide, self._wanted_number_px(), self._widest_em(),
                                  1.0 if self.on_stage else BAR_WORTH)
        notes, bar = chosen.notes, chosen.bar
        self.layouts += 1
        self.body.setDirection(QtWidgets.QBoxLayout.Direction.TopToBottom if notes is None
                               else QtWidgets.QBoxLayout.Direction.LeftToRight)
        for label in (self.caption, self.update_line):
            if notes is None:
                label.setMinimumWidth(0)
                label.setMaximumWidth(NO_LIMIT)
            elif label.minimumWidth() != notes or label.maximumWidth() != notes:
                # a fixed column, so the estimate above is what is drawn
                label.setFixedWidth(notes)
        self.colour_bar.setVisible(bar)
        margin_v = self._grid_margin_v(bar)
        self.plot_widget.ci.layout.setContentsMargins(GRID_MARGIN, margin_v, GRID_MARGIN,
                                                      margin_v)

    def _cell_estimate(self, size: QtCore.QSize, notes: int | None, bar: bool
                       ) -> tuple[float, bool]:
        """(a cell's side in px, whether the notes are whole) were the panel size and
        the notes beside the matrix, notes px wide (None: below it), the colour bar
        shown (or not): from the axes' and the bar's sizes as they are now (they change
        little with the cells)."""
        margins = own_layout(self).contentsMargins()
        inner_w = size.width() - margins.left() - margins.right()
        title = self._title.heightForWidth(inner_w)
        body_h = (size.height() - margins.top() - margins.bottom() - title
                  - own_layout(self).spacing())
        spacing, notes_spacing = self.body.spacing(), 2
        beside = notes is not None
        notes_w = notes if notes is not None else inner_w
        # the update line with every head's number as wide as it gets: the notes' place
        # is chosen once, not again on every step
        notes_h = self.caption.heightForWidth(notes_w) + notes_spacing + \
            wrapped_height(self.update_line, self._update_sample(), notes_w)
        if beside:   # whole: as high as the body, and no word wider than the column
            widest = self._widest_word()
            plot_w, plot_h = inner_w - notes_w - spacing, body_h
            whole = notes_h <= body_h and widest <= notes_w
        else:
            plot_w, plot_h, whole = inner_w, body_h - notes_h - spacing, True
        # (the grid's margins and spacing as set, not read back: asked of the layout
        # while the window was being built, Qt crashed)
        view_w = plot_w - 2 * GRID_MARGIN - self.plot.getAxis("left").width()
        view_h = plot_h - 2 * self._grid_margin_v(bar) - self.plot.getAxis("bottom").height()
        if bar:
            view_w -= GRID_SPACING + self._bar_width()
        K = max(1, len(self._names))
        return max(0.0, min(view_w, view_h)) / K, whole

    def _size_update_line(self) -> None:
        """The update line sized for the widest it shows (a layout pass only then)."""
        waiting = update_text(self._names, None)
        self.update_line.set_widest(self._update_sample() if self._readout else max(
            waiting, self._update_sample(), key=self.update_line.fontMetrics().horizontalAdvance))

    def _update_sample(self) -> str:
        """The update line at its widest: every head's number, and the step's readout
        once there is one."""
        text = update_text(self._names, np.full(len(self._names), -0.45))
        return text + "\n" + step_readout.SAMPLE if self._readout else text

    def _widest_word(self) -> int:
        """The notes' widest unbreakable run, the update line at its widest."""
        return max(widest_word(self.caption.font(), self.caption.text(), html=True),
                   widest_word(self.update_line.font(), self._update_sample(), html=False))

    def _grid_margin_v(self, bar: bool) -> int:
        """Above and below the plot: room for half the colour bar's "+1" and "−1", which
        stick out of its ends (3 px cut them at 1280x720 after Ctrl+= twice)."""
        if not bar:
            return GRID_MARGIN
        tick = QtGui.QFontMetrics(ps.font(self.theme)).height()
        return max(GRID_MARGIN, tick // 2 + 2)

    def _bar_width(self) -> float:
        """The colour bar's width with its tick labels, laid out or not."""
        laid = self.colour_bar.width()
        return laid if laid > 0 else self.colour_bar.axis.width() + 30

    def _number_font(self) -> QtGui.QFont:
        return ps.font(self.theme, max(1.3, self._reading()), bold=True)

    def _wanted_number_px(self) -> int:
        return round(self._number_font().pointSizeF() * self.logicalDpiY() / 72)

    def _widest_em(self) -> float:
        """The widest number's width, of its font's pixel size."""
        probe = self._number_font()
        probe.setPixelSize(100)
        return QtGui.QFontMetricsF(probe).horizontalAdvance(WIDEST_NUMBER) / 100

    def _fit_title(self, width: int) -> None:
        margins = own_layout(self).contentsMargins()
        room = width - margins.left() - margins.right()
        short = self._title.fontMetrics().horizontalAdvance(TITLE) > room
        self._title.setText(SHORT_TITLE if short else TITLE)
        self._set_caption(short)

    def _set_caption(self, short: bool) -> None:
        dark = pg.mkColor(self.theme.background).lightness() < 128
        # the cell colours are too deep to read as text on a dark background
        red, blue = ("#F4796B", "#7FB8E6") if dark else (RED, BLUE)
        self.caption.setText((WHAT if short else "") +
                             CAPTION.format(red=red, blue=blue, grey=UNDEFINED))

    def set_model(self, head_names: list[str], param_names: list[str]) -> None:
        for item in [x for row in self._cells + self._texts for x in row]:
            self.plot.removeItem(item)
        K = len(head_names)
        # one rect per cell rather than an image: a gap between cells keeps a pale cell
        # apart from the pale background, and the brush is exactly what is drawn
        self._cells = [[QtWidgets.QGraphicsRectItem(j - 0.5, i - 0.5, 1, 1) for j in range(K)]
                       for i in range(K)]
        self._texts = [[pg.TextItem(anchor=(0.5, 0.5)) for _ in range(K)] for _ in range(K)]
        for i in range(K):
            for j in range(K):
                self.plot.addItem(self._cells[i][j])
                self._texts[i][j].setPos(j, i)
                self.plot.addItem(self._texts[i][j])
        self._names = list(head_names)
        self._readout = False   # a fresh model: none yet
        # the key, also where the labels have no room
        self.plot_widget.setToolTip(plain_tip("rows and columns: " + ", ".join(
            f"{k} {n}" for k, n in enumerate(head_names))))
        self.axes.label(self._names, 0, ps.font(self.theme))   # until the cells' size is known
        self.plot.setRange(xRange=(-0.5, K - 0.5), yRange=(-0.5, K - 0.5), padding=0.02)
        self._seen = None
        self._update_seen = None
        self._size_update_line()
        self.update_line.setText(update_text(head_names, None))
        self._show(np.full((K, K), np.nan))
        self.apply_theme(self.theme_asked)   # (self.theme: already set smaller)

    def update_from(self, history: History) -> None:
        update = history.last_update_cosine
        if update is not self._update_seen and update is not None \
                and len(update) == len(self._names):
            self._update_seen = update
            more = step_readout.readout(self._names, history)
            self.update_line.setText("\n".join(t for t in (update_text(self._names, update),
                                                            more) if t))
            if bool(more) and not self._readout:   # room for it, from now on
                self._readout = True
                self._size_update_line()
                self._measure_widths()
                self._arrange_body(self.size())
        cos = history.last_cosine
        if cos is self._seen or cos is None:  # a new array arrives only on sampled steps
            return
        self._seen = cos
        if cos.shape == self._matrix.shape:
            self._show(cos)

    def matrix_area(self) -> QtWidgets.QWidget:
        """Where its cells are drawn (with their axes and the colour bar), apart from the
        notes: a lecture walk reads the cells' numbers there."""
        return self.plot_widget

    def data(self) -> np.ndarray:
        """The K x K matrix shown (NaN where undefined)."""
        return self._matrix.copy()

    def cell_text(self, i: int, j: int) -> str:
        return self._texts[i][j].textItem.toPlainText()

    def cell_colour(self, i: int, j: int) -> QtGui.QColor:
        return self._cells[i][j].brush().color()

    def set_on_stage(self, on: bool) -> None:
        """On a lesson's stage: the numbers under the matrix (the update line, the step's
        readout) and in its cells at the narration's size (READING): a slide's narration
        points at them. Its key (what red and blue mean) stays at the text size."""
        if on != self.on_stage:
            self.on_stage = on
            self.apply_theme(self.theme_asked)

    def _reading(self) -> float:
        """Its numbers' line's font (the update line, the step's readout), of the text
        size's."""
        return READING if self.on_stage else 1.0

    def set_text_scale(self, scale: float) -> None:
        """Its text, of the text size's: a lesson's stage sets it smaller (never below
        the normal size) where the matrix is a secondary panel with less room than the
        text size wants."""
        if scale != self.text_scale:
            self.text_scale = scale
            self.apply_theme(self.theme_asked)

    def apply_theme(self, theme: Theme) -> None:
        self.theme_asked = theme
        theme = theme.zoomed(theme.zoom * self.text_scale)
        self.theme = theme
        ps.style_panel(self, theme, [self.plot_widget], self._title)
        ps.style_plot(self.plot, theme)
        self.plot.showGrid(x=False, y=False)
        for side in ("top", "right"):
            self.plot.hideAxis(side)
        for side in ("left", "bottom"):  # names only: an axis line would frame empty space
            self.plot.getAxis(side).setPen(ps.pen(theme.foreground, alpha=0))
            self.plot.getAxis(side).setTickPen(pg.mkPen(None))
            self.plot.getAxis(side).setStyle(tickLength=0)
        gap = ps.pen(theme.panel, 3)
        for item in [c for row in self._cells for c in row]:
            item.setPen(gap)
        bar_axis = self.colour_bar.axis
        bar_axis.setTicks([[(-1, "−1"), (0, "0"), (1, "+1")]])
        bar_axis.setTextPen(theme.foreground)
        bar_axis.setPen(theme.foreground)
        bar_axis.setTickFont(ps.font(theme))
        bar_axis.setWidth(int(theme.font_pt * 3.2))
        self.caption.setFont(ps.font(theme))   # its key: what the colours mean
        self.update_line.setFont(ps.font(theme, self._reading()))
        self._fit_title(self.width())
        self._measure_widths()
        self._arrange_body(self.size())   # the notes' and the numbers' sizes changed
        self._style_texts()

    def _show(self, matrix: np.ndarray) -> None:
        self._matrix = np.array(matrix, dtype=float)
        rgba = cell_rgba(self._matrix)
        for i, row in enumerate(self._texts):
            for j, item in enumerate(row):
                v = self._matrix[i, j]
                item.setText("–" if np.isnan(v) else f"{v:.2f}")
                self._cells[i][j].setBrush(QtGui.QColor(*rgba[i, j].tolist()))
        self._style_texts()

    def tick_labels(self) -> list[tuple[QtCore.QRectF, str]]:
        """Every axis label as drawn now: (its rect in this panel's coordinates, its
        text)."""
        return self.axes.drawn(self, self.plot_widget)

    def _style_texts(self) -> None:
        K = max(1, len(self._texts))
        # as big as the theme asks, but "-0.45" must still fit inside a cell
        view = self.plot.getViewBox()
        cell_px = min(view.width(), view.height()) / K
        # a cell's side as drawn (the range has a margin round it); 0: squeezed flat
        drawn_px = min(cell_px, 1 / max(view.viewPixelSize())) if cell_px > 0 else 0
        self.axes.label(self._names, drawn_px, ps.font(self.theme))
        f = self._number_font()
        f.setPixelSize(shown_number_px(cell_px, self._wanted_number_px(), self._widest_em()))
        rgba = cell_rgba(self._matrix) if self._matrix.size else None
        for i, row in enumerate(self._texts):
            for j, item in enumerate(row):
                r, g, b = (rgba[i, j, :3] if rgba is not None else (255, 255, 255))
                light = 0.299 * r + 0.587 * g + 0.114 * b > 140  # dark text on pale cells
                item.setColor("#111111" if light else "#FFFFFF")
                item.setFont(f)


if __name__ == "__main__":
    from .demo import show_alone
    raise SystemExit(show_alone(CosineHeatmap))
