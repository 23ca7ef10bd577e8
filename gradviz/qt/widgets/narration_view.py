"""A lesson's narration on screen: the lesson, which slide of how many, the slide's title
and its short Markdown text (what we do, what to predict, what to notice), sized for the
back row and scaled with the presentation zoom."""
from __future__ import annotations

import html

from PySide6.QtWidgets import QLabel, QTextBrowser, QVBoxLayout, QWidget

IDLE = "No lesson open. Lessons → pick one, or start gradviz with --lesson NAME."


def title_html(title: str) -> str:
    """A slide's title as rich text, its `code` set in a monospace font as the narration's
    Markdown sets it (the backticks were shown as they are typed)."""
    parts = title.split("`")
    if len(parts) % 2 == 0:   # an unpaired backtick: the title as written
        return html.escape(title)
    return "".join(f"<code>{html.escape(part)}</code>" if i % 2 else html.escape(part)
                   for i, part in enumerate(parts))


def title_text(title: str) -> str:
    """A slide's title as plain text (the window's title bar): no Markdown backticks."""
    return title.replace("`", "") if title.count("`") % 2 == 0 else title


class NarrationView(QWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("narrationView")
        self.heading = QLabel(IDLE)
        self.heading.setObjectName("narrationHeading")
        self.heading.setWordWrap(True)
        self.text = QTextBrowser()
        self.text.setObjectName("narrationText")
        self.text.setOpenExternalLinks(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 6, 8, 6)
        layout.addWidget(self.heading)
        layout.addWidget(self.text, 1)
        self._font_pt = 11.0

    def show_slide(self, lesson_title: str, slide, index: int, count: int) -> None:
        self.heading.setText(f"<span style='font-size:90%'>{html.escape(lesson_title)} · "
                             f"slide {index + 1} of {count}</span><br>"
                             f"<b style='font-size:130%'>{title_html(slide.title)}</b>")
        self.text.setMarkdown(slide.narration)

    def clear(self) -> None:
        self.heading.setText(IDLE)
        self.text.clear()

    def markdown(self) -> str:
        return self.text.toMarkdown()

    def needed_height(self) -> int:
        """The height that shows the whole slide, heading and text, at today's width
        (what scrolling would otherwise have to reveal)."""
        document = self.text.document()
        document.setTextWidth(self.text.viewport().width())
        chrome = self.height() - self.text.viewport().height()   # heading, margins, frame
        return chrome + int(document.size().height()) + 4

    def apply_theme(self, theme) -> None:
        """Narration is read from the back of the room: larger than the panels' text."""
        self._font_pt = theme.font_pt * 1.35
        for widget in (self.heading, self.text):
            font = widget.font()
            font.setPointSizeF(self._font_pt)
            widget.setFont(font)
        self.text.document().setDefaultFont(self.text.font())


if __name__ == "__main__":  # the first bundled lesson's first slide, alone
    import sys

    from PySide6.QtWidgets import QApplication

    from gradviz.core.lessons import bundled_names, find_lesson
    from gradviz.qt.theme import LIGHT

    app = QApplication(sys.argv)
    lesson = find_lesson(bundled_names()[0])
    view = NarrationView()
    view.apply_theme(LIGHT.zoomed(1.3))
    view.show_slide(lesson.title, lesson.slides[0], 0, len(lesson.slides))
    view.resize(700, 420)
    view.show()
    raise SystemExit(app.exec())
