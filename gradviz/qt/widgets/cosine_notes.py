"""The cosine matrix's notes (its key and the update line), measured: how wide their
widest unbreakable run is and how high they wrap at a width, so the panel can choose
where they go before laying them out."""
from __future__ import annotations

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

NO_LIMIT = (1 << 24) - 1   # Qt's QWIDGETSIZE_MAX, which PySide6 does not export


def update_text(names: list[str], cosines: np.ndarray | None) -> str:
    """The line under the matrix: 'with the update: head0 +0.24 · head1 −0.02 …'."""
    if cosines is None:
        return "with the update: not measured yet"
    parts = [f"{n} {'–' if np.isnan(v) else f'{v:+.2f}'.replace('-', '−')}"
             for n, v in zip(names, cosines)]
    return "with the update: " + " · ".join(parts)


def widest_word(font: QtGui.QFont, text: str, html: bool) -> int:
    """The widest unbreakable run of text ("grey –: no gradient"), laid out as a word-
    wrapped label lays it out (a label's own minimumSizeHint changed with the width it
    was last given)."""
    doc = QtGui.QTextDocument()
    doc.setDefaultFont(font)
    doc.setDocumentMargin(0)
    option = doc.defaultTextOption()   # (a document breaks inside words too)
    option.setWrapMode(QtGui.QTextOption.WrapMode.WordWrap)
    doc.setDefaultTextOption(option)
    if html:
        doc.setHtml(text)
    else:
        doc.setPlainText(text)
    doc.setTextWidth(1)
    return int(doc.idealWidth()) + 1


def wrapped_height(label: QtWidgets.QLabel, text: str, width: int) -> int:
    """label's height at width were it showing text (or what it shows, if higher)."""
    box = label.fontMetrics().boundingRect(
        QtCore.QRect(0, 0, max(1, width), NO_LIMIT), QtCore.Qt.TextFlag.TextWordWrap, text)
    return max(box.height(), label.heightForWidth(width))
