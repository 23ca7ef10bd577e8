"""A label whose text changes often (a number each step) without laying the window out
again: it is sized for the widest text it will show, and a new text only repaints it.

A QLabel's setText asks its parent's layout to measure again, and that goes up to the
window: a pass over every dock and panel, and a panel whose size hint moved by a pixel
resized (and re-laid out its plot) although nothing about the window changed."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QPainter, QPaintEvent
from PySide6.QtWidgets import QLabel, QWidget


class SteadyLabel(QLabel):
    """A plain-text QLabel that measures (sizeHint, heightForWidth) as its widest text,
    set by set_widest, and draws the text set by setText."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self._shown = ""

    def set_widest(self, text: str) -> None:
        """The text the label is sized for (a layout pass, once: when it changes)."""
        if text != super().text():
            super().setText(text)

    def setText(self, text: str) -> None:  # noqa: N802 (Qt's name)
        if text != self._shown:
            self._shown = text
            self.update()   # a repaint; the size stays that of the widest text

    def text(self) -> str:
        """The text shown (not the widest, which only sizes the label)."""
        return self._shown

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 (Qt's name)
        # as QLabel draws plain text without a text control: the style's item text
        painter = QPainter(self)
        flags = self.alignment().value
        if self.wordWrap():
            flags |= Qt.TextFlag.TextWordWrap.value
        self.style().drawItemText(painter, self.contentsRect(), flags, self.palette(),
                                  self.isEnabled(), self._shown, self.foregroundRole())
        painter.end()
