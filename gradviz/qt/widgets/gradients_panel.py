"""The Gradients dock's three charts (per-parameter norms, each loss's push on the trunk,
the cosine matrix): in a grid where there is room, in tabs where there is not."""
from __future__ import annotations

from PySide6.QtWidgets import QGridLayout, QHBoxLayout, QWidget

from .tabs_when_cramped import TabsWhenCramped

TAB_NAMES = ("per parameter", "push on the trunk", "agreement")


class GradientsPanel(TabsWhenCramped):
    def __init__(self, grad_bars, junction, cosine, parent=None):
        super().__init__("gradientsPanel", "gradientsTabs", parent)
        self.charts = (grad_bars, junction, cosine)
        self.grid = QGridLayout(self.together_page)
        self.grid.setContentsMargins(2, 2, 2, 2)
        self.set_compact(False)

    def put_beside_cosine(self, chart: QWidget) -> None:
        """chart beside the cosine matrix, the two in the matrix's place (the recorded
        run window's agreement over time beside the newest agreement)."""
        grad_bars, junction, cosine = self.charts
        pair = QWidget()
        pair.setObjectName("agreementPair")
        row = QHBoxLayout(pair)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(chart, 3)
        row.addWidget(cosine, 2)
        self.charts = (grad_bars, junction, pair)
        self._arrange()

    def _tabbed(self):
        return list(zip(self.charts, TAB_NAMES))

    def _lay_out(self) -> None:
        grad_bars, junction, cosine = self.charts
        self.grid.addWidget(grad_bars, 0, 0, 1, 2)
        self.grid.addWidget(junction, 1, 0)
        self.grid.addWidget(cosine, 1, 1)
        self.grid.setRowStretch(0, 1)
        self.grid.setRowStretch(1, 1)
        for chart in self.charts:
            chart.show()
