"""The recorded-run window's menu bar: File > Open run… (Ctrl+O: another folder, in a
window of its own, as the main window's File menu opens one), Export PNG (the whole
window, or its charts), Export CSV (the shown run's steps) and Quit (Ctrl+Q: this
window; `gradviz open` ends with it). Each export takes a path (tests, scripts) or asks
for one; a file that cannot be written is said in a message, never raised."""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QFileDialog, QMainWindow, QWidget

from ..plain.records.history import History
from ..plain.runs.steps_csv import write_steps_csv
from .plain_dialogs import warn

PNG_FILTER, CSV_FILTER = "PNG image (*.png)", "CSV (*.csv)"


class RunMenu:
    def __init__(self, window: QMainWindow, charts: QWidget, history: Callable[[], History],
                 run_name: Callable[[], str], open_run: Callable[[str], object]):
        """charts: what Export PNG's "charts" grabs; history(): the shown run's steps;
        run_name(): its name (the files' default names); open_run(path): open a folder."""
        self.window, self.charts = window, charts
        self.history, self.run_name, self._open_run = history, run_name, open_run
        bar = window.menuBar()
        bar.setNativeMenuBar(False)   # in the window, as its shortcuts' home, everywhere
        menu = bar.addMenu("&File")
        self.open_action = self._action(menu, "&Open run…", "openRunAction",
                                        QKeySequence.StandardKey.Open, self.open_run)
        export = menu.addMenu("Export &PNG")
        self.png_window = self._action(export, "The &window…", "exportWindowPng", None,
                                       lambda: self.export_png("window"))
        self.png_charts = self._action(export, "The &charts…", "exportChartsPng", None,
                                       lambda: self.export_png("charts"))
        self.csv_action = self._action(menu, "Export &CSV (the shown run's steps)…",
                                       "exportCsvAction", None, self.export_csv)
        menu.addSeparator()
        self.quit_action = self._action(menu, "&Quit", "quitAction",
                                        QKeySequence.StandardKey.Quit, window.close)
        self.menu = menu

    def _action(self, menu, text: str, name: str, keys, slot) -> QAction:
        action = QAction(text, self.window)
        action.setObjectName(name)
        if keys is not None:
            action.setShortcut(keys)
            # the window's, wherever the focus is in it (a chart, the runs list)
            action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        action.triggered.connect(lambda *_: slot())
        menu.addAction(action)
        return action

    def open_run(self, path: str | None = None) -> None:
        path = path or QFileDialog.getExistingDirectory(self.window, "Open run")
        if path:
            self._open_run(path)

    def export_png(self, which: str, path: str | None = None) -> Path | None:
        """The window, or ("charts") its charts, as a PNG at path (asked for if None)."""
        path = path or QFileDialog.getSaveFileName(
            self.window, f"Export the {which} as PNG", f"{self.run_name()}-{which}.png",
            PNG_FILTER)[0]
        if not path:
            return None
        widget = self.window if which == "window" else self.charts
        if not widget.grab().save(path, "PNG"):
            warn(self.window, "Not exported", f"Could not write {path}")
            return None
        return Path(path)

    def export_csv(self, path: str | None = None) -> Path | None:
        """The shown run's steps as CSV at path (asked for if None)."""
        path = path or QFileDialog.getSaveFileName(
            self.window, "Export the shown run's steps as CSV",
            f"{self.run_name()}-steps.csv", CSV_FILTER)[0]
        if not path:
            return None
        try:
            return write_steps_csv(self.history(), path)
        except OSError as exc:
            warn(self.window, "Not exported", f"Could not write {path}: "
                                              f"{exc.strerror or exc}")
            return None
