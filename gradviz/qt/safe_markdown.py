"""Markdown from a file turned into a Qt text document that can never reach the disk or
the network: raw HTML off, every image replaced by its alt text before anything lays the
document out (Qt's image handler opens an image's path itself when no resource is given),
no tooltips, and a document whose loadResource answers nothing."""
from __future__ import annotations

from PySide6.QtGui import QTextCharFormat, QTextCursor, QTextDocument, QTextFormat

from ..plain.lessons.narration_limits import MAX_NESTING, MAX_TABLE_CELLS, narration_problem

# GitHub's dialect (tables, strikethrough, task lists, autolinks) with raw HTML off
FEATURES = (QTextDocument.MarkdownFeature.MarkdownDialectGitHub
            | QTextDocument.MarkdownFeature.MarkdownNoHTML)


class InertDocument(QTextDocument):
    """A text document whose resources are never loaded: no file, no URL, no image."""

    def loadResource(self, kind: int, url) -> None:   # noqa: N802 (Qt's name)
        return None


def _fragments(document: QTextDocument) -> list:
    """Every text fragment of the document, last first (edits keep earlier positions)."""
    found = []
    block = document.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            found.append(it.fragment())
            it += 1
        block = block.next()
    return found[::-1]


def _images(document: QTextDocument) -> list:
    return [f for f in _fragments(document) if f.charFormat().isImageFormat()]


def _select(document: QTextDocument, fragment) -> QTextCursor:
    cursor = QTextCursor(document)
    cursor.setPosition(fragment.position())
    cursor.setPosition(fragment.position() + fragment.length(), QTextCursor.MoveMode.KeepAnchor)
    return cursor


def _as_text(image_format: QTextCharFormat) -> QTextCharFormat:
    """An image's format as the surrounding text's (a link keeps its target)."""
    text_format = QTextCharFormat(image_format)
    text_format.setObjectType(QTextFormat.ObjectTypes.NoObject)
    prop = QTextFormat.Property
    for key in (prop.ImageName, prop.ImageWidth, prop.ImageHeight, prop.ImageTitle,
                prop.ImageAltText):
        text_format.clearProperty(key)
    return text_format


def _make_inert(document: QTextDocument) -> None:
    """Each image becomes its alt text, so the layout never asks for a picture; and a
    link's title loses its tooltip (Qt renders a tooltip that looks like HTML as HTML,
    images and all)."""
    for fragment in _fragments(document):
        char_format = fragment.charFormat()
        if char_format.isImageFormat():
            alt = char_format.property(QTextFormat.Property.ImageAltText)
            text_format = _as_text(char_format)
            text_format.clearProperty(QTextFormat.Property.TextToolTip)
            _select(document, fragment).insertText(alt if isinstance(alt, str) else "",
                                                   text_format)
        elif char_format.hasProperty(QTextFormat.Property.TextToolTip):
            char_format.clearProperty(QTextFormat.Property.TextToolTip)
            _select(document, fragment).setCharFormat(char_format)


def _structure_problem(document: QTextDocument) -> str | None:
    """What the parsed document nests or tabulates beyond the limits (a second guard
    behind narration_problem, which reads the text)."""
    depth, cells, frames = 0, 0, set()
    block = document.begin()
    while block.isValid():
        listed = block.textList()
        quoted = block.blockFormat().intProperty(QTextFormat.Property.BlockQuoteLevel)
        indent = listed.format().indent() if listed is not None else 0
        depth = max(depth, indent + quoted)
        table = QTextCursor(block).currentTable()
        if table is not None and table.firstPosition() not in frames:
            frames.add(table.firstPosition())
            cells += table.rows() * table.columns()
        block = block.next()
    if depth > MAX_NESTING:
        return (f"it nests lists or quotes {depth} levels deep; a narration may nest "
                f"them at most {MAX_NESTING} deep")
    if cells > MAX_TABLE_CELLS:
        return f"its tables have {cells:,} cells; a narration may have at most {MAX_TABLE_CELLS}"
    return None


def markdown_document(text: str, parent=None, font=None) -> tuple[QTextDocument, str | None]:
    """(document, None) for Markdown within the limits, images as alt text; or
    (an empty document, why the text was refused). The font is set before the Markdown
    is read: Qt sizes code spans and paragraph margins by it."""
    document = InertDocument(parent)
    if font is not None:
        document.setDefaultFont(font)
    problem = narration_problem(text)
    if problem is None:
        document.setMarkdown(text, FEATURES)
        _make_inert(document)
        problem = _structure_problem(document)
        if problem is not None:
            document.clear()
    return document, problem


def has_images(document: QTextDocument) -> bool:
    """Whether any image is left for a layout to load (none, once made inert)."""
    return bool(_images(document))


def tooltips(document: QTextDocument) -> list[str]:
    """The tooltips the document's text carries (none, once made inert)."""
    return [f.charFormat().toolTip() for f in _fragments(document)
            if f.charFormat().toolTip()]
