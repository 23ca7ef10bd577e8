"""The Gradients dock's three charts (per-parameter norms, each loss's push on the trunk,
the cosine matrix): in a grid where there is room, in tabs where there is not, so that
no chart is squeezed below what its text needs."""
from __future__ import annotations

from PySide6.QtWidgets import QGridLayout, QStackedLayout, QTabWidget, QWidget

TAB_NAMES = ("per parameter", "push on the trunk", "agreement")


class GradientsPanel(QWidget):
    def __init__(self, grad_bars, junction, cosine, parent=None):
        super().__init__(parent)
        self.setObjectName("gradientsPanel")
        self.charts = (grad_bars, junction, cosine)
        self.grid_page = QWidget()
        self.grid = QGridLayout(self.grid_page)
        self.grid.setContentsMargins(2, 2, 2, 2)
        self.tabs = QTabWidget()
        self.tabs.setObjectName("gradientsTabs")
        self.stack = QStackedLayout(self)
        self.stack.addWidget(self.grid_page)
        self.stack.addWidget(self.tabs)
        self.compact = None
        self.set_compact(False)

    def set_compact(self, compact: bool) -> None:
        if compact == self.compact:
            return
        self.compact = compact
        grad_bars, junction, cosine = self.charts
        if compact:
            for chart, name in zip(self.charts, TAB_NAMES):
                self.tabs.addTab(chart, name)
            self.stack.setCurrentWidget(self.tabs)
        else:
            self.tabs.clear()
            self.grid.addWidget(grad_bars, 0, 0, 1, 2)
            self.grid.addWidget(junction, 1, 0)
            self.grid.addWidget(cosine, 1, 1)
            self.grid.setRowStretch(0, 1)
            self.grid.setRowStretch(1, 1)
            for chart in self.charts:
                chart.show()
            self.stack.setCurrentWidget(self.grid_page)
