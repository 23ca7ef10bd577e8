"""The narration's `code` keeps its size beside the words around it through Ctrl+= and
a step back (lesson 01's second slide, Ctrl+= twice at 1024x768: the text was taken back
to one step larger, and its code stayed two steps larger)."""
from PySide6.QtGui import QFontInfo

from gradviz.plain.lessons.lessons import find_lesson
from gradviz.qt.theme import LIGHT, TEXT_STEP
from gradviz.qt.widgets.narration_view import NarrationView


def _pixel_sizes(view: NarrationView) -> tuple[int, int]:
    """The pixel size of the first `code` run and of the first run of plain words."""
    document = view.text.document()
    code = words = None
    block = document.begin()
    while block.isValid() and (code is None or words is None):
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            size = QFontInfo(fragment.charFormat().font()).pixelSize()
            if fragment.charFormat().fontFixedPitch() or \
                    "mono" in fragment.charFormat().font().family().lower():
                code = code or size
            elif fragment.text().strip():
                words = words or size
            it += 1
        block = block.next()
    assert code and words
    return code, words


def test_code_in_the_narration_grows_and_shrinks_with_the_words(qtbot):
    view = NarrationView()
    qtbot.addWidget(view)
    lesson = find_lesson("add-or-separate")
    view.apply_theme(LIGHT)
    view.show_slide(lesson.title, lesson.slides[1], 1, len(lesson.slides))
    code, words = _pixel_sizes(view)
    ratio = code / words
    view.apply_theme(LIGHT.zoomed(TEXT_STEP ** 2))
    view.apply_theme(LIGHT.zoomed(TEXT_STEP))       # a step back: too large for the room
    code, words = _pixel_sizes(view)
    assert abs(code / words - ratio) < 0.08, (code, words, ratio)
