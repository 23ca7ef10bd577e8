"""The window's middle plots (the loss curves above the global gradient norm): one above
the other where there is room, in tabs where there is not, and only those a lesson's
slide asks for, so that no plot is crushed below what its text and curves need."""
from __future__ import annotations

from PySide6.QtWidgets import QVBoxLayout, QWidget

from .tabs_when_cramped import TabsWhenCramped


class PlotStack(TabsWhenCramped):
    def __init__(self, plots: list[tuple[QWidget, str, int]], parent=None):
        """plots: (panel, tab name, stretch) from the top down."""
        super().__init__("plotStack", "plotTabs", parent)
        self.plots = plots
        self.shown = [panel for panel, _, _ in plots]
        self.column = QVBoxLayout(self.together_page)
        self.column.setContentsMargins(0, 0, 0, 0)
        self.set_compact(False)

    def add(self, panel: QWidget, name: str, stretch: int) -> None:
        """Another plot, at the bottom, not shown until show_only names it (the
        recorded-run window's charts of several runs, in the single run's place)."""
        self.plots.append((panel, name, stretch))
        panel.hide()
        self._arrange()

    def show_only(self, panels) -> None:
        """Just these panels (a slide's); all of them again for an empty list."""
        wanted = [p for p, _, _ in self.plots if p in panels] or [p for p, _, _ in self.plots]
        if wanted != self.shown:
            self.shown = wanted
            self._arrange()

    def _tabbed(self):
        for panel, _, _ in self.plots:
            if panel not in self.shown:
                panel.hide()
        return [(panel, name) for panel, name, _ in self.plots if panel in self.shown]

    def _arrange(self) -> None:
        super()._arrange()
        self.tabs.tabBar().setVisible(len(self.shown) > 1)   # one plot needs no tab bar

    def _lay_out(self) -> None:
        while self.column.count():
            self.column.takeAt(0)
        for panel, _, stretch in self.plots:
            self.column.addWidget(panel, stretch)
            panel.setVisible(panel in self.shown)
