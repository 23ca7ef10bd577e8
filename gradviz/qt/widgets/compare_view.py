"""The answer to "are these two loops the same computation?": the verdict in words, the
largest gradient difference per parameter group, B's total loss as a ghost line over A's,
and the peak saved memory of both (from `gradviz compare`'s compare.json)."""
from __future__ import annotations

import html
import math

from PySide6 import QtWidgets  # before pyqtgraph: it binds to the first Qt
from PySide6.QtCore import Qt
import pyqtgraph as pg

from ...render import style
from . import plot_style as ps

COLUMNS = ("group", "step 0\nmax abs", "step 0\nmax rel", "whole run\nmax abs",
           "whole run\nmax rel")


def _fmt(x) -> str:
    return "—" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.3g}"


class CompareView(QtWidgets.QWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("compareView")
        self.verdict = QtWidgets.QLabel("Compare with… (File menu) trains a second "
                                        "configuration B beside these settings A.")
        self.verdict.setObjectName("compareVerdict")
        self.verdict.setWordWrap(True)
        self.table = QtWidgets.QTableWidget(0, len(COLUMNS))
        self.table.setObjectName("compareTable")
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QtWidgets.QAbstractItemView.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(QtWidgets.QHeaderView.Stretch)
        self.plots = pg.GraphicsLayoutWidget()
        self.loss_plot = self.plots.addPlot(row=0, col=0)
        self.memory_plot = self.plots.addPlot(row=0, col=1)
        for plot, y in ((self.loss_plot, "total loss"), (self.memory_plot, "peak saved KiB")):
            ps.style_view(plot, "optimizer step", y)
            plot.addLegend(offset=(-10, 10))
        self.details = QtWidgets.QLabel("")
        self.details.setObjectName("compareDetails")
        self.details.setWordWrap(True)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.verdict)
        split = QtWidgets.QHBoxLayout()
        split.addWidget(self.table, 2)
        split.addWidget(self.plots, 3)
        layout.addLayout(split, 1)
        layout.addWidget(self.details)
        self.data: dict | None = None

    def show_running(self, b_name: str) -> None:
        self.verdict.setText(f"Comparing these settings (A) with {html.escape(b_name)} (B)…")

    def show_failed(self, reason: str) -> None:
        self.verdict.setText(f"<b>Not compared:</b> {html.escape(reason)}")

    def show_comparison(self, data: dict) -> None:
        """Show compare.json's content (plain data)."""
        self.data = data
        colour = "#1B7F3B" if data["same"] else "#C00000"
        self.verdict.setText(f"<span style='color:{colour}; font-size:140%'><b>"
                             f"{html.escape(data['verdict'])}</b></span>")
        self._fill_table(data["steps"])
        self._plot(data["steps"])
        peaks = data["peak_saved_bytes"]
        error = data.get("error")
        self.details.setText(
            f"Peak saved memory: A {_bytes_or_not(peaks['a'])}, B {_bytes_or_not(peaks['b'])}."
            + (f" <b>{error['which']} stopped</b> at step {error['step']}: "
               f"{html.escape(error['message'])}" if error else ""))

    def _fill_table(self, steps: list[dict]) -> None:
        groups = list(steps[0]["groups"]) if steps else []
        self.table.setRowCount(len(groups))
        for row, group in enumerate(groups):
            first = steps[0]["groups"][group]
            worst_abs = max(s["groups"][group]["max_abs"] for s in steps)
            worst_rel = max(s["groups"][group]["max_rel"] or 0 for s in steps)
            for col, text in enumerate((group, _fmt(first["max_abs"]), _fmt(first["max_rel"]),
                                        _fmt(worst_abs), _fmt(worst_rel))):
                item = QtWidgets.QTableWidgetItem(text)
                item.setTextAlignment(Qt.AlignCenter)
                self.table.setItem(row, col, item)

    def _plot(self, steps: list[dict]) -> None:
        x = [s["step"] for s in steps]
        peaks = [s["saved_bytes_peak"][w] or 0 for s in steps for w in "ab"]
        unit, size = style.byte_unit(max(peaks, default=0))
        self.memory_plot.getAxis("left").setLabel(f"peak saved {unit}")
        for plot, key, scale in ((self.loss_plot, "total", 1.0),
                                 (self.memory_plot, "saved_bytes_peak", 1 / size)):
            plot.clear()
            plot.plot(x, [(s[key]["a"] or 0) * scale for s in steps], name="A",
                      pen=pg.mkPen("#1F4E9E", width=3))
            plot.plot(x, [(s[key]["b"] or 0) * scale for s in steps], name="B (ghost)",
                      pen=pg.mkPen("#C05000", width=3, style=Qt.DashLine))
        # from 0: ratios show
        self.memory_plot.setYRange(0, max([p / size for p in peaks] + [1.0]) * 1.15)

    def apply_theme(self, theme) -> None:
        self.plots.setBackground(theme.panel)
        for plot in (self.loss_plot, self.memory_plot):
            for side in ("left", "bottom"):
                plot.getAxis(side).setPen(theme.foreground)
                plot.getAxis(side).setTextPen(theme.foreground)
        for widget in (self.verdict, self.table, self.details):
            font = widget.font()
            font.setPointSizeF(theme.font_pt)
            widget.setFont(font)


def _bytes_or_not(n) -> str:
    return "not measured" if not n else style.format_bytes(n)


if __name__ == "__main__":  # a real comparison (sum vs in-loop), computed apart, alone
    import sys
    import tempfile
    from pathlib import Path

    from PySide6.QtWidgets import QApplication

    from gradviz.core.config import Config
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
