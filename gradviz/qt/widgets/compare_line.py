"""Compare on a lesson's stage: what B is and each step's verdict, under the narration and
at its size (the stage sets the font), in place of the Compare dock, whose table and
charts took the lower half of the slide. The dock's view keeps the details."""
from __future__ import annotations

import html

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QLabel

from .compare_view import pinned_html, verdict_html


class CompareLine(QLabel):
    """The ComparePanel protocol (plain.controllers.controller_views) in a few lines of text."""
    # its text needs another height at its width: the stage places it again (a text that
    # keeps its height, as each step's verdict does, moves nothing)
    height_changed = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("stageCompare")
        self.setTextFormat(Qt.TextFormat.RichText)   # our markup; names and files escaped
        self.setWordWrap(True)
        self._pinned = ""
        self._verdict = ""

    def show_pinned(self, b_name: str, differences: str) -> None:
        self._pinned = pinned_html(b_name, differences, "this slide")
        self._say("A and B start together at step 0.")

    def set_differences(self, b_name: str, differences: str) -> None:
        self._pinned = pinned_html(b_name, differences, "this slide")
        self._say(self._verdict)

    def show_record(self, record) -> None:
        # the verdict since pinned, at the narration's size; this step's (which the dock
        # adds) took two more lines of the slide's height
        self._say(verdict_html(record, this_step=False))

    def show_stopped(self) -> None:
        self._pinned = ""
        self._say("")

    def show_failed(self, reason: str) -> None:
        self._say(f"<b>Not compared:</b> {html.escape(reason)}")

    def _say(self, verdict: str) -> None:
        self._verdict = verdict
        self.setText("<br>".join(part for part in (self._pinned, verdict) if part))
        if self.isVisible() and self.heightForWidth(self.width()) != self.height():
            self.height_changed.emit()
