"""A panel's title and the buttons after it: on one line where the title fits there,
else the title on a line of its own above them. Beside the buttons in a narrow dock, a
word-wrapped title became a column of two-word lines (four in the graph's caption, seven
in the Code panel's title)."""
from __future__ import annotations

from PySide6.QtWidgets import QHBoxLayout, QLabel, QVBoxLayout, QWidget


class TitleRow:
    def __init__(self, panel: QVBoxLayout, title: QLabel, buttons: list[QWidget]):
        self.panel, self.title, self.buttons = panel, title, buttons
        self.row = QHBoxLayout()
        self.row.addWidget(title, 1)
        for button in buttons:
            self.row.addWidget(button)
        panel.addLayout(self.row)
        self.above = False   # the title on a line of its own, above the buttons

    def line(self, width: int) -> int:
        """The room for text on a whole line of a panel this wide."""
        margins = self.panel.contentsMargins()
        return width - margins.left() - margins.right()

    def beside(self, width: int) -> int:
        """The room the title has beside the buttons."""
        shown = [b for b in self.buttons if not b.isHidden()]   # hidden on a lesson's stage
        buttons = sum(b.sizeHint().width() for b in shown)
        return self.line(width) - buttons - (len(shown) + 1) * max(
            0, self.row.spacing()) - 4

    def fit(self, width: int, text: str) -> int:
        """Put the title where `text` fits at this panel width; the room it then has."""
        above = self.title.fontMetrics().horizontalAdvance(text) > self.beside(width)
        if above != self.above:
            self.above = above
            if above:
                self.row.removeWidget(self.title)
                self.panel.insertWidget(0, self.title)
            else:
                self.panel.removeWidget(self.title)
                self.row.insertWidget(0, self.title, 1)
        return self.line(width) if above else self.beside(width)
