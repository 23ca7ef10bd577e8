"""Message boxes that show their text as plain text: the text often quotes a file or
an error (`got '<img src=…>'`), and QMessageBox, like QLabel, renders anything that looks
like HTML unless told otherwise."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox, QWidget


def warn(parent: QWidget | None, title: str, text: str) -> None:
    """A modal warning whose title and text are shown exactly as written."""
    box = QMessageBox(QMessageBox.Icon.Warning, title, text, QMessageBox.StandardButton.Ok, parent)
    box.setObjectName("plainWarning")
    box.setTextFormat(Qt.TextFormat.PlainText)
    box.exec()
