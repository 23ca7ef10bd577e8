"""A one-line label that never runs under its neighbours: where its text is wider than
the label, it is cut at a word and ends in "…" (the whole text in its tooltip). The
status bar's message, long after an error ("… See “What happened”."), was cut mid-word
under the backward time and the pace beside it at 1024x768."""
from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QLabel

from ..plain_text import plain_tip

ELLIPSIS = "…"


def elide_at_word(text: str, width: int, measure: Callable[[str], int]) -> str:
    """text whole where measure(text) <= width, else its longest run of whole words
    that fits with "…" after it (a first word too long for the width: as much of it as
    fits, since a bare "…" says nothing)."""
    if measure(text) <= width:
        return text
    cuts = [i for i in range(1, len(text)) if text[i] == " " and text[i - 1] != " "]
    fitting = [i for i in cuts if measure(text[:i].rstrip() + ELLIPSIS) <= width]
    if fitting:
        return text[:fitting[-1]].rstrip() + ELLIPSIS
    letters = [i for i in range(len(text), 0, -1) if measure(text[:i] + ELLIPSIS) <= width]
    return text[:letters[0]] + ELLIPSIS if letters else ELLIPSIS


class ElidedLabel(QLabel):
    def __init__(self, text: str = "", parent=None):
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.PlainText)   # it quotes files and errors
        self._full = ""
        self.setText(text)

    def setText(self, text: str) -> None:   # noqa: N802 (Qt's name)
        self._full = text
        self.setToolTip(plain_tip(text))
        self._elide()

    def text(self) -> str:
        """The whole text, as set (what is drawn may end in "…")."""
        return self._full

    def shown_text(self) -> str:
        return super().text()

    def minimumSizeHint(self) -> QSize:   # noqa: N802 (Qt's name)
        # any width: the text is elided to what the status bar leaves it
        return QSize(0, super().minimumSizeHint().height())

    def resizeEvent(self, event: QResizeEvent) -> None:   # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        self._elide()

    def changeEvent(self, event: QEvent) -> None:   # noqa: N802 (Qt's name)
        super().changeEvent(event)
        self._elide()   # a new font (Ctrl+=) measures otherwise

    def _elide(self) -> None:
        metrics = self.fontMetrics()
        shown = elide_at_word(self._full, self.contentsRect().width(),
                              metrics.horizontalAdvance)
        if shown != super().text():
            super().setText(shown)
