"""The window's middle plots (the loss curves above the global gradient norm): one above
the other where there is room, in tabs where there is not, and only those a lesson's
slide asks for, so that no plot is crushed below what its text and curves need."""
from __future__ import annotations

from PySide6.QtWidgets import QStackedLayout, QTabWidget, QVBoxLayout, QWidget


class PlotStack(QWidget):
    def __init__(self, plots: list[tuple[QWidget, str, int]], parent=None):
        """plots: (panel, tab name, stretch) from the top down."""
        super().__init__(parent)
        self.setObjectName("plotStack")
        self.plots = plots
        self.shown = [panel for panel, _, _ in plots]
        self.column_page = QWidget()
        self.column = QVBoxLayout(self.column_page)
        self.column.setContentsMargins(0, 0, 0, 0)
        self.tabs = QTabWidget()
        self.tabs.setObjectName("plotTabs")
        self.stack = QStackedLayout(self)
        self.stack.addWidget(self.column_page)
        self.stack.addWidget(self.tabs)
        self.compact: bool | None = None
        self.set_compact(False)

    def set_compact(self, compact: bool) -> None:
        """Tabs (True) or one above the other (False)."""
        if compact == self.compact:
            return
        self.compact = compact
        self._arrange()

    def show_only(self, panels) -> None:
        """Just these panels (a slide's); all of them again for an empty list."""
        wanted = [p for p, _, _ in self.plots if p in panels] or [p for p, _, _ in self.plots]
        if wanted != self.shown:
            self.shown = wanted
            self._arrange()

    def _arrange(self) -> None:
        self.tabs.clear()
        while self.column.count():
            self.column.takeAt(0)
        for panel, name, stretch in self.plots:
            if not self.compact:
                self.column.addWidget(panel, stretch)
                panel.setVisible(panel in self.shown)
            elif panel in self.shown:
                self.tabs.addTab(panel, name)   # the tabs show and hide their pages
            else:
                panel.hide()
        # one plot needs no tab bar
        self.tabs.tabBar().setVisible(len(self.shown) > 1)
        self.stack.setCurrentWidget(self.tabs if self.compact else self.column_page)
