"""A panel of several charts laid out together where there is room and in tabs where
there is not, so that no chart is squeezed below what its text needs. Subclasses say
how the charts sit together (_lay_out) and which go into the tabs (_tabbed)."""
from __future__ import annotations

from PySide6.QtWidgets import QStackedLayout, QTabWidget, QWidget


class TabsWhenCramped(QWidget):
    def __init__(self, name: str, tabs_name: str, parent=None):
        super().__init__(parent)
        self.setObjectName(name)
        self.together_page = QWidget()
        self.tabs = QTabWidget()
        self.tabs.setObjectName(tabs_name)
        self.stack = QStackedLayout(self)
        self.stack.addWidget(self.together_page)
        self.stack.addWidget(self.tabs)
        self.compact: bool | None = None

    def set_compact(self, compact: bool) -> None:
        """Tabs (True) or all together (False)."""
        if compact == self.compact:
            return
        self.compact = compact
        self._arrange()

    def _arrange(self) -> None:
        self.tabs.clear()
        if self.compact:
            for chart, name in self._tabbed():
                self.tabs.addTab(chart, name)   # the tabs show and hide their pages
        else:
            self._lay_out()
        self.stack.setCurrentWidget(self.tabs if self.compact else self.together_page)

    def _tabbed(self) -> list[tuple[QWidget, str]]:
        raise NotImplementedError

    def _lay_out(self) -> None:
        raise NotImplementedError
