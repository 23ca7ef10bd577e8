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
        # a lesson slide's charts, the one it is most about first: in tabs, the first of
        # them is the tab in front (else the first tab was, a chart the slide may not show)
        self.in_front: list[QWidget] = []

    def put_in_front(self, charts) -> None:
        """In tabs, now and whenever they are made again, the first of `charts` that is
        one of them is the tab shown; [] for no preference."""
        self.in_front = list(charts)
        self._bring_front()

    def _bring_front(self) -> None:
        if self.compact:
            for chart in self.in_front:
                if self.tabs.indexOf(chart) >= 0:
                    self.tabs.setCurrentWidget(chart)
                    return

    def set_compact(self, compact: bool) -> None:
        """Tabs (True) or all together (False)."""
        if compact == self.compact:
            return
        self.compact = compact
        self._arrange()

    def take_back(self) -> None:
        """Its charts laid out here again, after a lesson's stage borrowed some."""
        self._arrange()

    def _arrange(self) -> None:
        self.tabs.clear()
        if self.compact:
            for chart, name in self._tabbed():
                self.tabs.addTab(chart, name)   # the tabs show and hide their pages
        else:
            self._lay_out()
        self.stack.setCurrentWidget(self.tabs if self.compact else self.together_page)
        self._bring_front()

    def _tabbed(self) -> list[tuple[QWidget, str]]:
        raise NotImplementedError

    def _lay_out(self) -> None:
        raise NotImplementedError
