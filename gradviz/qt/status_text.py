"""One line of the status bar that draws itself: a new text repaints it and nothing else.
A QLabel asks its layout to run again at every new text, which the status bar's line,
changed at every step while playing, made the window's cost. A line that takes the room
left (the phase line) never asks; a field at the right asks only when it needs more room
than it has, or none. Where its text is wider than it, it is cut at a word, ending in
"…" (the whole text in its tooltip)."""
from __future__ import annotations

from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtGui import QPainter, QPaintEvent
from PySide6.QtWidgets import QWidget

from .plain_text import plain_tip
from .widgets.elided_label import elide_at_word


class StatusText(QWidget):
    def __init__(self, text: str = "", name: str = "", stretches: bool = False,
                 parent: QWidget | None = None):
        """stretches: it takes the room the layout leaves it (else it is as wide as the
        widest text it has shown at this font, and as narrow as nothing when empty)."""
        super().__init__(parent)
        self.setObjectName(name)
        self._stretches = stretches
        self._full = ""
        self._width = 0               # the room it asks for (a field: its widest text)
        self.relayouts = 0            # how many times a new text asked for a new layout
        if stretches:
            self.setFixedHeight(self.sizeHint().height())
        self.setText(text)

    def setText(self, text: str) -> None:   # noqa: N802 (Qt's name)
        if text == self._full:
            return
        self._full = text
        self.setToolTip(plain_tip(text))
        self._fit()
        self.update()

    def text(self) -> str:
        """The whole text, as set (what is drawn may end in "…")."""
        return self._full

    def textFormat(self) -> Qt.TextFormat:   # noqa: N802 (QLabel's name)
        """Drawn as it is: markup in a quoted value or error is shown, never rendered."""
        return Qt.TextFormat.PlainText

    def shown_text(self) -> str:
        margins = self.contentsMargins()
        room = self.width() - margins.left() - margins.right()
        return elide_at_word(self._full, room, self.fontMetrics().horizontalAdvance)

    def _fit(self) -> None:
        if self._stretches:
            return
        margins = self.contentsMargins()
        width = 0 if not self._full else max(
            self._width, self.fontMetrics().horizontalAdvance(self._full)
            + margins.left() + margins.right() + 2)
        if width != self._width:
            self._width = width
            self.relayouts += 1
            self.setFixedSize(width, self.sizeHint().height())

    def sizeHint(self) -> QSize:   # noqa: N802 (Qt's name)
        margins = self.contentsMargins()
        return QSize(self._width, self.fontMetrics().height() + margins.top()
                     + margins.bottom() + 2)

    def minimumSizeHint(self) -> QSize:   # noqa: N802 (Qt's name)
        # the phase line: any width, its text is cut to what the status bar leaves it
        return QSize(0 if self._stretches else self._width, self.sizeHint().height())

    def changeEvent(self, event: QEvent) -> None:   # noqa: N802 (Qt's name)
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:   # measured afresh at the new size
            self._width = 0
            if self._stretches:
                self.setFixedHeight(self.sizeHint().height())
            else:
                self._fit()

    def paintEvent(self, event: QPaintEvent) -> None:   # noqa: N802 (Qt's name)
        painter = QPainter(self)
        painter.setPen(self.palette().windowText().color())
        painter.drawText(self.contentsRect(), int(Qt.AlignmentFlag.AlignLeft
                                                  | Qt.AlignmentFlag.AlignVCenter),
                         self.shown_text())
        painter.end()
