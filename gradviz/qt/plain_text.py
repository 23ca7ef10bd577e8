"""Text from a file, a user or PyTorch (a loss's, a parameter's or a run's name, a path)
shown as written. Qt renders a QLabel's and a tooltip's text as HTML wherever it looks
like HTML (Qt::mightBeRichText), so a loss named `<img src="file:///…">` would have the
window read and draw that file: a label that quotes such text is PlainText, and a tooltip,
which takes no format, gets the text escaped."""
from __future__ import annotations

import html

from PySide6 import QtGui
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

# the paragraph an escaped tooltip is shown in: its line breaks and spaces kept, as plain
# text would show them
_PLAIN_PARAGRAPH = "<p style='white-space:pre-wrap'>{}</p>"


def plain_label(label: QLabel) -> QLabel:
    """The label, its text shown as written from now on."""
    label.setTextFormat(Qt.TextFormat.PlainText)
    return label


def plain_tip(text: str) -> str:
    """A tooltip's text that reads as written: unchanged where Qt would show it as plain
    text anyway, else escaped (QToolTip has no plain-text mode)."""
    if not QtGui.Qt.mightBeRichText(text):
        return text
    return _PLAIN_PARAGRAPH.format(html.escape(text, quote=False))
