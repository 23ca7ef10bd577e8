"""Every text a window shows, read as a reader sees it: its labels, buttons, tooltips,
table and list items, and the text items of its charts and graph. What Qt renders as rich
text (a QLabel that is not PlainText, a tooltip that looks like HTML, a pyqtgraph label)
is read from its rendered document, with what that document would fetch or link."""
from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass

from PySide6 import QtGui
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextDocument, QTextImageFormat
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QComboBox,
    QGraphicsSimpleTextItem,
    QGraphicsTextItem,
    QGraphicsView,
    QLabel,
    QListWidget,
    QTableWidget,
    QTextEdit,
    QWidget,
)

looks_rich = QtGui.Qt.mightBeRichText   # as QLabel and QToolTip decide
OBJECT = "\ufffc"   # what a rendered image (an object) reads as in plain text


@dataclass
class Shown:
    where: str
    text: str               # as a reader sees it
    images: list[str]       # the sources a rendered document shows (would fetch)
    links: list[str]        # the anchors a rendered document makes clickable
    rich: bool              # rendered from markup


def _document(document: QTextDocument, where: str) -> Shown:
    images, links = [], []
    block = document.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            char = fragment.charFormat()
            if char.isImageFormat():
                images.append(QTextImageFormat(char).name())
            if char.isAnchor():
                links.append(char.anchorHref())
            it += 1
        block = block.next()
    return Shown(where, document.toPlainText(), images, links, True)


def _markup(text: str, where: str) -> Shown:
    document = QTextDocument()
    document.setHtml(text)
    return _document(document, where)


def _tip(tip: str, where: str) -> list[Shown]:
    """A tooltip: rendered as rich text where it looks like it (as QToolTip does)."""
    if not tip:
        return []
    return [_markup(tip, where) if looks_rich(tip) else Shown(where, tip, [], [], False)]


def _label(label: QLabel, where: str) -> Shown:
    fmt = label.textFormat()
    text = label.text()
    rich = fmt == Qt.TextFormat.RichText or (
        fmt == Qt.TextFormat.AutoText and looks_rich(text))
    return _markup(text, where) if rich else Shown(where, text, [], [], False)


def _items(view: QAbstractItemView, where: str) -> list[Shown]:
    out: list[Shown] = []
    if isinstance(view, QTableWidget):
        cells = [view.item(r, c) for r in range(view.rowCount())
                 for c in range(view.columnCount())]
        cells += [view.horizontalHeaderItem(c) for c in range(view.columnCount())]
        cells += [view.verticalHeaderItem(r) for r in range(view.rowCount())]
    elif isinstance(view, QListWidget):
        cells = [view.item(r) for r in range(view.count())]
    else:
        cells = []
    for cell in cells:
        if cell is not None:
            out.append(Shown(where, cell.text(), [], [], False))
            out += _tip(cell.toolTip(), where + " tooltip")
    return out


def _scene(view: QGraphicsView, where: str) -> list[Shown]:
    out: list[Shown] = []
    scene = view.scene()
    if scene is None:
        return out
    for item in scene.items():
        if isinstance(item, QGraphicsTextItem):
            out.append(_document(item.document(), f"{where} text item"))
        elif isinstance(item, QGraphicsSimpleTextItem):
            out.append(Shown(f"{where} simple text", item.text(), [], [], False))
        out += _tip(item.toolTip(), f"{where} item tooltip")
    return out


def shown_texts(window: QWidget) -> list[Shown]:
    """What the window and every widget in it show, as read."""
    out = [Shown("window title", window.windowTitle(), [], [], False)]
    for widget in [window, *window.findChildren(QWidget)]:
        where = f"{type(widget).__name__} {widget.objectName()!r}"
        if isinstance(widget, QLabel):
            out.append(_label(widget, where))
        elif isinstance(widget, QAbstractButton):
            out.append(Shown(where, widget.text(), [], [], False))
        elif isinstance(widget, QComboBox):
            out += [Shown(where, widget.itemText(i), [], [], False)
                    for i in range(widget.count())]
        elif isinstance(widget, QTextEdit):
            out.append(_document(widget.document(), where))
        if isinstance(widget, QAbstractItemView):
            out += _items(widget, where)
        if isinstance(widget, QGraphicsView):
            out += _scene(widget, where)
        out += _tip(widget.toolTip(), where + " tooltip")
    return out


def rendered_markup(shown: list[Shown], attacks: dict[str, str]) -> list[str]:
    """Where a name's markup was rendered rather than shown: an image or a link made, or
    a name's word read without its tags around it. attacks: each name by the word that
    only it contains ("boldname" for "<b>boldname</b>")."""
    wrong = []
    for s in shown:
        if s.images or s.links or OBJECT in s.text:
            wrong.append(f"{s.where}: images {s.images}, links {s.links}: {s.text!r}")
        for word, name in attacks.items():
            if word in s.text and name not in s.text and s.rich:
                wrong.append(f"{s.where}: {name!r} rendered: {s.text!r}")
    return wrong


def write_png(path) -> None:
    """A real 1x1 PNG: the picture an <img src="file:..."> name would fetch."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))
    raw = zlib.compress(b"\x00\xff\x00\x00")
    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", raw)
                     + chunk(b"IEND", b""))
