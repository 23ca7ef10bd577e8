"""A slide of large text over the whole lesson stage: a deck's title or recap slide, or the
end of a deck. Its heading is plain text, its text the narration's safe Markdown (raw
HTML off, nothing loaded from the disk or the network, no link followed), both larger
than a narration: a title slide is read from the back of the hall before anything runs."""
from __future__ import annotations

import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QLabel, QVBoxLayout, QWidget

from ..safe_markdown import markdown_document
from .narration_view import NarrationBrowser

# of the panels' text size: the heading as a title slide's, the text as a narration's
# largest (the narration is 1.35x; a card has the whole stage for a few lines)
HEADING_SCALE = 2.6
TEXT_SCALE = 1.8


class TextCard(QWidget):
    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("stageCard")
        self.setAutoFillBackground(True)   # the slide before's panels never show through
        self.heading = QLabel("")
        self.heading.setObjectName("cardHeading")
        self.heading.setTextFormat(Qt.TextFormat.PlainText)   # a stranger's file's words
        self.heading.setWordWrap(True)
        self.heading.setAlignment(Qt.AlignmentFlag.AlignLeft)   # over its text, as a slide's
        self.text = NarrationBrowser()
        self.text.setObjectName("cardText")
        self.text.setFrameShape(QFrame.Shape.NoFrame)
        self.text.viewport().setAutoFillBackground(False)   # the card's colour
        layout = QVBoxLayout(self)
        layout.setContentsMargins(48, 36, 48, 24)
        layout.setSpacing(24)
        layout.addStretch(1)
        layout.addWidget(self.heading)
        layout.addWidget(self.text, 3)
        self._font_pt = 11.0
        self._shown = ("", "")
        self.hide()

    def show_card(self, title: str, text: str) -> None:
        self._shown = (title, text)
        self.heading.setText(title)
        font = self.text.font()
        document, problem = markdown_document(text, self.text, font)
        if problem is not None:   # (a deck's text is checked as it is read: a second guard)
            document.setPlainText(f"This slide's text is not shown: {problem}.")
        old = self.text.document()
        ours = old.parent() is self.text   # (a document the browser made: Qt deletes it)
        self.text.setDocument(document)
        if ours and shiboken6.isValid(old):
            old.deleteLater()
        self.text.setVisible(bool(text))

    def plain_text(self) -> str:
        """What the card says, heading and text, as plain text (tests, a walk)."""
        return f"{self.heading.text()}\n{self.text.toPlainText()}"

    def apply_theme(self, theme) -> None:
        self._font_pt = theme.font_pt
        heading = self.heading.font()
        heading.setPointSizeF(self._font_pt * HEADING_SCALE)
        heading.setBold(True)
        self.heading.setFont(heading)
        text = self.text.font()
        text.setPointSizeF(self._font_pt * TEXT_SCALE)
        self.text.setFont(text)
        self.show_card(*self._shown)   # its `code` sized by the font it is built with
