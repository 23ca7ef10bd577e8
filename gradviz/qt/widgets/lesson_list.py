"""The start page: every bundled lesson, one line each (its number and title), to be
opened with a double-click, Enter, or the clicker's Enter key; large enough to read
from the back of the room."""
from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QLabel, QListWidget, QListWidgetItem, QVBoxLayout, QWidget

HEADING = ("<b>Lessons</b><br>Each one teaches a part of the article on several losses. "
           "Double-click one, or pick it and press Enter.")


class LessonList(QWidget):
    chosen = Signal(str)    # the name --lesson takes

    def __init__(self, lessons: list[tuple[str, str]], parent=None):
        """lessons: (name, title) pairs, in order."""
        super().__init__(parent)
        self.setObjectName("lessonList")
        self.heading = QLabel(HEADING)
        self.heading.setWordWrap(True)
        self.list = QListWidget()
        self.list.setObjectName("lessonListItems")
        self.list.setWordWrap(True)
        for name, title in lessons:
            item = QListWidgetItem(f"{name.split('-', 1)[0]}  {title}")
            item.setData(Qt.ItemDataRole.UserRole, name)
            self.list.addItem(item)
        self.list.itemActivated.connect(
            lambda item: self.chosen.emit(item.data(Qt.ItemDataRole.UserRole)))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 6, 8, 6)
        layout.addWidget(self.heading)
        layout.addWidget(self.list, 1)

    def names(self) -> list[str]:
        return [self.list.item(i).data(Qt.ItemDataRole.UserRole) for i in range(self.list.count())]

    def apply_theme(self, theme) -> None:
        for widget in (self.heading, self.list):
            font = widget.font()
            font.setPointSizeF(theme.font_pt * 1.15)
            widget.setFont(font)
