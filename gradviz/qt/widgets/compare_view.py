"""The answer to "are these two loops the same computation?": the verdict in words, the
largest gradient difference per parameter group and the peak saved memory of both.

Live, with B pinned beside the app's A (show_record: one CompareRecord per step, the
ghost lines are on the main charts), or from `gradviz compare`'s compare.json
(show_comparison, with B's total loss and memory on charts of its own)."""
from __future__ import annotations

import html
import math

import pyqtgraph as pg
from PySide6 import QtWidgets  # before pyqtgraph: it binds to the first Qt
from PySide6.QtCore import Qt

from ...render import style
from . import plot_style as ps
from .plain_legend import PlainLegend

COLUMNS = ("group", "step 0\nmax abs", "step 0\nmax rel", "whole run\nmax abs",
           "whole run\nmax rel")
LIVE_COLUMNS = ("group", "this step\nmax abs", "this step\nmax rel",
                "since pinned\nmax abs", "since pinned\nmax rel")
SAME, DIFFERENT = "#1B7F3B", "#C00000"


def _fmt(x) -> str:
    return "—" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.3g}"


def pinned_html(b_name: str, differences: str, a_name: str = "these settings") -> str:
    """What A and B are, and how B differs (names and files escaped)."""
    return (f"<b>A</b> = {a_name} · <b>B</b> = {html.escape(b_name)}"
            f" — {html.escape(differences)}")


def verdict_html(record, this_step: bool = True) -> str:
    """A CompareRecord's verdict, coloured (larger than the text around it, where this
    step's verdict follows it), and this step's."""
    size = "; font-size:130%" if this_step else ""
    text = (f"<span style='color:{SAME if record.same else DIFFERENT}{size}'>"
            f"<b>{html.escape(record.verdict)}</b></span>")
    if record.error is None and this_step:
        colour = SAME if record.step_same else DIFFERENT
        text += (f"<br>This step ({record.step}): <span style='color:{colour}'>"
                 f"{html.escape(record.step_verdict)}</span>")
    return text


def _cell_text(item: QtWidgets.QTableWidgetItem | None) -> str:
    """A table cell's or header's text ("": a cell never filled reads empty)."""
    return "" if item is None else item.text()


class CompareView(QtWidgets.QWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("compareView")
        self.pinned = QtWidgets.QLabel("")
        self.pinned.setObjectName("comparePinned")
        self.pinned.setTextFormat(Qt.TextFormat.RichText)   # our markup; names and files escaped
        self.pinned.setWordWrap(True)
        self.verdict = QtWidgets.QLabel("The Compare menu trains a second configuration B "
                                        "beside these settings A.")
        self.verdict.setObjectName("compareVerdict")
        self.verdict.setWordWrap(True)
        self.verdict.setTextFormat(Qt.TextFormat.RichText)
        self.table = QtWidgets.QTableWidget(0, len(COLUMNS))
        self.table.setObjectName("compareTable")
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(QtWidgets.QHeaderView.ResizeMode.Stretch)
        self.plots = pg.GraphicsLayoutWidget()
        self.loss_plot = self.plots.addPlot(row=0, col=0)
        self.memory_plot = self.plots.addPlot(row=0, col=1)
        for plot, y in ((self.loss_plot, "total loss"), (self.memory_plot, "peak storages KiB")):
            ps.style_view(plot, "optimizer step", y)
            plot.legend = PlainLegend(offset=(-10, 10))   # plot.addLegend's, names as written
            plot.legend.setParentItem(plot.vb)
        self.details = QtWidgets.QLabel("")
        self.details.setObjectName("compareDetails")
        self.details.setTextFormat(Qt.TextFormat.RichText)
        self.details.setWordWrap(True)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.pinned)
        layout.addWidget(self.verdict)
        split = QtWidgets.QHBoxLayout()
        split.addWidget(self.table, 2)
        split.addWidget(self.plots, 3)
        layout.addLayout(split, 1)
        layout.addWidget(self.details)
        self.data: dict | None = None
        self.record = None            # the CompareRecord shown (live)
        self.pinned.hide()

    # ---- live: B pinned beside A in the engine ------------------------------------------
    def show_pinned(self, b_name: str, differences: str) -> None:
        """B is pinned: say what it is and how it differs from A; steps come next."""
        self._live(True)
        self.record = None
        self.table.setRowCount(0)
        self.details.setText("")
        self.set_differences(b_name, differences)
        self.verdict.setText("B is pinned beside A; both start at step 0. Play or step "
                             "to compare them step by step.")

    def set_differences(self, b_name: str, differences: str) -> None:
        self.pinned.setText(pinned_html(b_name, differences))

    def show_record(self, record) -> None:
        """One step of B beside A (a CompareRecord): the verdict in words, per group the
        largest differences at this step and since pinned, both peaks, B's error."""
        self.record = record
        self.verdict.setText(verdict_html(record))
        rows = []
        if record.diff is not None:
            rows = [(g, d.max_abs, d.max_rel, record.worst[g].max_abs, record.worst[g].max_rel)
                    for g, d in record.diff.groups.items()]
        elif record.worst:
            rows = [(g, None, None, w.max_abs, w.max_rel) for g, w in record.worst.items()]
        self._rows(rows)
        text = (f"Peak saved memory since pinned: A {_bytes_or_not(record.peak_a)}, "
                f"B {_bytes_or_not(record.peak_b)} (storages the graph keeps alive).")
        if record.error is not None:
            e = record.error
            # the verdict above says B stopped, and why: here who said so, and what next
            text += (f"<br><span style='color:{DIFFERENT}'><b>{html.escape(e.source)} says"
                     f"</b></span> ({html.escape(e.type)}, {html.escape(e.call)}): "
                     f"<tt>{html.escape(e.message)}</tt><br>A goes on. "
                     f"{html.escape(e.hint)}")
        self.details.setText(text)

    def show_stopped(self) -> None:
        self._live(True)
        self.record = None
        self.pinned.setText("")
        self.pinned.hide()
        self.table.setRowCount(0)
        self.details.setText("")
        self.verdict.setText("Not comparing. The Compare menu pins a configuration B "
                             "beside these settings A.")

    def _live(self, live: bool) -> None:
        self.plots.setVisible(not live)
        self.pinned.setVisible(live)
        self.table.setHorizontalHeaderLabels(LIVE_COLUMNS if live else COLUMNS)
        self._fit_table()

    def _rows(self, rows: list[tuple]) -> None:
        self.table.setRowCount(len(rows))
        for row, values in enumerate(rows):
            for col, value in enumerate(values):
                text = value if col == 0 else _fmt(value)
                item = self.table.item(row, col)
                if item is None:
                    item = QtWidgets.QTableWidgetItem()
                    item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                    self.table.setItem(row, col, item)
                item.setText(text)
        self._fit_table()

    def _fit_table(self) -> None:
        """As tall as its rows, no taller: the room below goes to the charts; each column
        at least as wide as its header's longest line (stretched, "since pinned" was cut
        to "since pinnec" in a 1024-pixel window), the table scrolling sideways beyond."""
        table = self.table
        header = table.horizontalHeader()
        metrics = header.fontMetrics()
        labels = [_cell_text(table.horizontalHeaderItem(c))
                  for c in range(table.columnCount())]
        widest = max(metrics.horizontalAdvance(line) for label in labels
                     for line in label.split("\n"))
        header.setMinimumSectionSize(widest + 2 * metrics.averageCharWidth() + 8)
        table.resizeRowsToContents()
        height = table.horizontalHeader().height() + 2 * table.frameWidth() + sum(
            table.rowHeight(r) for r in range(table.rowCount()))
        table.setMaximumHeight(max(height, table.horizontalHeader().height() + 8))

    def table_rows(self) -> list[list[str]]:
        """The table's text, row by row (what a reader sees)."""
        return [[_cell_text(self.table.item(r, c)) for c in range(self.table.columnCount())]
                for r in range(self.table.rowCount())]

    # ---- from gradviz compare's compare.json ---------------------------------------------
    def show_running(self, b_name: str) -> None:
        self._live(False)
        self.verdict.setText(f"Comparing these settings (A) with {html.escape(b_name)} (B)…")

    def show_failed(self, reason: str) -> None:
        self.verdict.setText(f"<b>Not compared:</b> {html.escape(reason)}")

    def show_comparison(self, data: dict) -> None:
        """Show compare.json's content (plain data)."""
        self._live(False)
        self.data = data
        colour = "#1B7F3B" if data["same"] else "#C00000"
        self.verdict.setText(f"<span style='color:{colour}; font-size:140%'><b>"
                             f"{html.escape(data['verdict'])}</b></span>")
        self._fill_table(data["steps"])
        self._plot(data["steps"])
        peaks = data["peak_saved_bytes"]
        error = data.get("error")
        self.details.setText(
            f"Peak saved memory: A {_bytes_or_not(peaks['a'])}, B {_bytes_or_not(peaks['b'])}"
            " (storages the graph keeps alive)."
            + (f" <b>{html.escape(str(error['which']))} stopped</b> at step "
               f"{html.escape(str(error['step']))}: "
               f"{html.escape(error['message'])}" if error else ""))

    def _fill_table(self, steps: list[dict]) -> None:
        groups = list(steps[0]["groups"]) if steps else []
        self._rows([(group, steps[0]["groups"][group]["max_abs"],
                     steps[0]["groups"][group]["max_rel"],
                     max(s["groups"][group]["max_abs"] for s in steps),
                     max(s["groups"][group]["max_rel"] or 0 for s in steps))
                    for group in groups])

    def _plot(self, steps: list[dict]) -> None:
        x = [s["step"] for s in steps]
        peaks = [s["saved_bytes_peak"][w] or 0 for s in steps for w in "ab"]
        unit, size = style.byte_unit(max(peaks, default=0))
        self.memory_plot.getAxis("left").setLabel(f"peak storages {unit}")
        for plot, key, scale in ((self.loss_plot, "total", 1.0),
                                 (self.memory_plot, "saved_bytes_peak", 1 / size)):
            plot.clear()
            plot.plot(x, [(s[key]["a"] or 0) * scale for s in steps], name="A",
                      pen=pg.mkPen("#1F4E9E", width=3))
            plot.plot(x, [(s[key]["b"] or 0) * scale for s in steps], name="B (ghost)",
                      pen=pg.mkPen("#C05000", width=3, style=Qt.PenStyle.DashLine))
        # from 0: ratios show
        self.memory_plot.setYRange(0, max([p / size for p in peaks] + [1.0]) * 1.15)

    def apply_theme(self, theme) -> None:
        self.plots.setBackground(theme.panel)
        for plot in (self.loss_plot, self.memory_plot):
            for side in ("left", "bottom"):
                plot.getAxis(side).setPen(theme.foreground)
                plot.getAxis(side).setTextPen(theme.foreground)
        for widget in (self.pinned, self.verdict, self.table, self.details):
            font = widget.font()
            font.setPointSizeF(theme.font_pt)
            widget.setFont(font)
        self._fit_table()


def _bytes_or_not(n) -> str:
    return "not measured" if not n else style.format_bytes(n)


if __name__ == "__main__":  # a real comparison (sum vs in-loop), computed apart, alone
    import sys
    import tempfile
    from pathlib import Path

    from PySide6.QtWidgets import QApplication

    from gradviz.plain.config.config import Config
    from gradviz.qt.compare_runner import CompareRunner

    app = QApplication(sys.argv)
    view = CompareView()
    b = Path(tempfile.mkdtemp()) / "in-loop.toml"
    b.write_text('strategy = "in-loop"\n')
    runner = CompareRunner()
    runner.finished.connect(view.show_comparison)
    runner.failed.connect(view.show_failed)
    runner.start(Config(), str(b), steps=30)
    view.show_running(str(b))
    view.resize(1200, 500)
    view.show()
    raise SystemExit(app.exec())
