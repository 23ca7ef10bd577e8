"""A lesson's narration on screen: the lesson, which slide of how many, the slide's title
and its short Markdown text (what we do, what to predict, what to notice), sized for the
back row and scaled with the presentation zoom. Lesson files are untrusted: nothing they
name is loaded, no link is followed in place, and a web link opens only when asked."""
from __future__ import annotations

import html

import shiboken6
from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices, QTextCursor, QTextDocumentFragment
from PySide6.QtWidgets import QLabel, QMessageBox, QTextBrowser, QVBoxLayout, QWidget

from ...plain.lessons.lessons import title_text
from ..own_layout import own_layout
from ..safe_markdown import InertDocument, markdown_document
from ..theme import READING

# a slide's figures (the numbers its point rests on) against the narration's font: never
# smaller than the narration (at ~11 px, "trunk walked 3×" in the status bar's corner was
# the smallest text on screen)
FIGURE_SCALE = 1.25
IDLE = "No lesson open. Lessons → pick one, or start gradviz with --lesson NAME."
WEB_SCHEMES = ("http", "https")    # the only links opened, in the browser, after asking
SHOWN_TARGET_CHARS = 200


def title_html(title: str) -> str:
    """A slide's title as rich text, its `code` set in a monospace font as the narration's
    Markdown sets it (the backticks were shown as they are typed)."""
    parts = title.split("`")
    if len(parts) % 2 == 0:   # an unpaired backtick: the title as written
        return html.escape(title)
    return "".join(f"<code>{html.escape(part)}</code>" if i % 2 else html.escape(part)
                   for i, part in enumerate(parts))


def refusal(slide, index: int, count: int, problem: str) -> str:
    """The one line shown in place of a narration that is over the limits."""
    return (f"Slide {index + 1} of {count} ({title_text(slide.title)}): its narration is "
            f"not shown: {problem}.")


def shown_target(url: QUrl) -> str:
    """A link's target as one line of text, cut to a length a status line can show;
    encoded, so that spaces or right-to-left marks cannot disguise where it leads."""
    target = " ".join(url.toString(QUrl.ComponentFormattingOption.FullyEncoded).split())
    return target if len(target) <= SHOWN_TARGET_CHARS else \
        target[:SHOWN_TARGET_CHARS - 1] + "…"


class NarrationBrowser(QTextBrowser):
    """A text browser that neither follows links nor loads anything a document names."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)

    def loadResource(self, kind: int, url) -> None:   # noqa: N802 (Qt's name)
        return None


class NarrationView(QWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("narrationView")
        self.heading = QLabel(IDLE)
        self.heading.setObjectName("narrationHeading")
        self.heading.setTextFormat(Qt.TextFormat.RichText)   # our markup; the file's text escaped
        self.heading.setWordWrap(True)
        self.text = NarrationBrowser()
        self.text.setObjectName("narrationText")
        self.text.anchorClicked.connect(self._on_link)
        self.link_note = QLabel("")
        self.link_note.setObjectName("narrationLink")
        self.link_note.setTextFormat(Qt.TextFormat.PlainText)
        self.link_note.setWordWrap(True)
        self.link_note.setMinimumWidth(1)   # a long target never widens the dock
        self.link_note.hide()
        # the slide's figures, measured (plain.lessons.lesson_figures): plain text, large
        self.figures = QLabel("")
        self.figures.setObjectName("narrationFigures")
        self.figures.setTextFormat(Qt.TextFormat.PlainText)
        self.figures.setWordWrap(True)
        self.figures.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 6, 8, 6)
        layout.addWidget(self.heading)
        layout.addWidget(self.figures)
        layout.addWidget(self.text, 1)
        # what hovering the graph's focused box shows, where the slide asks (facts):
        # plain text (PyTorch's words), at the narration's size, sized with it
        self.facts = QLabel("")
        self.facts.setObjectName("narrationFacts")
        self.facts.setTextFormat(Qt.TextFormat.PlainText)
        self.facts.setWordWrap(True)
        self.facts.hide()
        layout.addWidget(self.facts)
        layout.addWidget(self.link_note)
        self._font_pt = 11.0
        # of the text size's: set smaller by a lesson's stage where at the text size the
        # narration leaves the slide's main panel less room than at the normal size
        self.text_scale = 1.0
        self.problem: str | None = None      # why the slide's narration is not shown
        self.open_url = QDesktopServices.openUrl   # a seam: tests open nothing for real
        self._shown: tuple | None = None   # the slide on show: built again for a text size
        self._set_document(InertDocument(self.text))   # not the browser's own: it reads files

    def show_slide(self, lesson_title: str, slide, index: int, count: int) -> None:
        self._shown = (lesson_title, slide, index, count)
        self.heading.setText(f"<span style='font-size:90%'>{html.escape(lesson_title)} · "
                             f"slide {index + 1} of {count}</span><br>"
                             f"<b style='font-size:130%'>{title_html(slide.title)}</b>")
        document, problem = markdown_document(slide.narration, self.text, self.text.font())
        self.problem = None if problem is None else refusal(slide, index, count, problem)
        if self.problem is not None:
            document.setPlainText(self.problem)
        self._set_document(document)

    def _set_document(self, document) -> None:
        old = self.text.document()
        ours = old.parent() is self.text    # the browser keeps the one it made itself
        document.setDefaultFont(self.text.font())
        self.text.setDocument(document)
        if ours and shiboken6.isValid(old):
            old.deleteLater()
        self.link_note.hide()

    def clear(self) -> None:
        self._shown = None
        self.heading.setText(IDLE)
        self.problem = None
        self._set_document(InertDocument(self.text))

    def show_figures(self, texts: list[str]) -> None:
        """The slide's figures, one a line, at FIGURE_SCALE of the narration's font."""
        text = "\n".join(texts)
        if text != self.figures.text():   # unchanged numbers: no layout
            self.figures.setText(text)
        self.figures.setVisible(bool(texts))

    def show_facts(self, text: str) -> bool:
        """The graph's focused box's facts below the text ("": none); whether that
        changed what is shown (its height with it: the stage places it again)."""
        if text == self.facts.text() and self.facts.isHidden() != bool(text):
            return False
        self.facts.setText(text)
        self.facts.setVisible(bool(text))
        return True

    def markdown(self) -> str:
        return self.text.toMarkdown()

    def _on_link(self, url: QUrl) -> None:
        """A link is never followed in place: its target is shown as text, and a web
        link opens in the system browser once the user says so."""
        target = shown_target(url)
        web = url.scheme().lower() in WEB_SCHEMES
        self.link_note.setText(f"Link: {target}" + (
            "" if web else " (not opened: gradviz opens only http and https links)"))
        self.link_note.show()
        if web and self._confirm(target):
            self.open_url(url)

    def _confirm(self, target: str) -> bool:
        box = QMessageBox(QMessageBox.Icon.Question, "Open this link?",
                          f"Open this link from the lesson in your web browser?\n\n{target}",
                          QMessageBox.StandardButton.Open | QMessageBox.StandardButton.Cancel, self)
        box.setObjectName("openLinkQuestion")
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        return box.exec() == QMessageBox.StandardButton.Open

    def needed_height(self) -> int:
        """The height that shows the whole slide, heading and text, at today's width
        (what scrolling would otherwise have to reveal)."""
        document = self.text.document()
        document.setTextWidth(self.text.viewport().width())
        chrome = self.height() - self.text.viewport().height()   # heading, margins, frame
        return chrome + int(document.size().height()) + 4

    def height_for_width(self, width: int) -> int:
        """The height that shows the whole slide, heading and text, at this width (the
        stage tries several: the text reflows). Measured on a copy of the document (the
        browser lays out its own lazily, and measured there it gave the height of an
        earlier width); the copy is inert too."""
        margins = own_layout(self).contentsMargins()
        inner = max(1, width - margins.left() - margins.right())
        frame = 2 * self.text.frameWidth()
        measure = InertDocument()
        measure.setDefaultFont(self.text.font())
        measure.setDocumentMargin(self.text.document().documentMargin())
        QTextCursor(measure).insertFragment(QTextDocumentFragment(self.text.document()))
        measure.setTextWidth(max(1, inner - frame))
        text = int(measure.size().height())
        heading = self.heading.heightForWidth(inner)
        figures = self.figures.heightForWidth(inner) + own_layout(self).spacing() \
            if not self.figures.isHidden() else 0
        facts = self.facts.heightForWidth(inner) + own_layout(self).spacing() \
            if not self.facts.isHidden() else 0
        return (margins.top() + margins.bottom() + heading + own_layout(self).spacing()
                + figures + text + frame + 4 + facts)

    def set_whole(self, whole: bool) -> None:
        """Shown whole (the stage gave it the height its text needs): no scroll bar, whose
        coming, as the text was first laid out narrower, took the width the last line
        needed and pushed it out of sight."""
        self.text.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff if whole
                                             else Qt.ScrollBarPolicy.ScrollBarAsNeeded)

    def apply_theme(self, theme) -> None:
        """Narration is read from the back of the room: larger than the panels' text."""
        self._font_pt = theme.font_pt * READING
        self._set_fonts()

    def set_text_scale(self, scale: float) -> None:
        """The narration's font at scale of the text size's (the stage's choice)."""
        if scale != self.text_scale:
            self.text_scale = scale
            self._set_fonts()

    def _set_fonts(self) -> None:
        size = self._font_pt * self.text_scale
        for widget in (self.heading, self.text, self.facts):
            font = widget.font()
            font.setPointSizeF(size)
            widget.setFont(font)
        font = self.figures.font()
        font.setPointSizeF(size * FIGURE_SCALE)
        font.setBold(True)
        self.figures.setFont(font)
        self.text.document().setDefaultFont(self.text.font())
        if self._shown is not None:
            # the Markdown's `code` took its size from the font it was built with: after
            # Ctrl+= and a step back it stood a size larger than the words around it
            self.show_slide(*self._shown)


if __name__ == "__main__":  # the first bundled lesson's first slide, alone
    import sys

    from PySide6.QtWidgets import QApplication

    from gradviz.plain.lessons.lessons import bundled_names, find_lesson
    from gradviz.qt.theme import LIGHT

    app = QApplication(sys.argv)
    lesson = find_lesson(bundled_names()[0])
    view = NarrationView()
    view.apply_theme(LIGHT.zoomed(1.3))
    view.show_slide(lesson.title, lesson.slides[0], 0, len(lesson.slides))
    view.resize(700, 420)
    view.show()
    raise SystemExit(app.exec())
