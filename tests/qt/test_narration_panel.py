"""The narration panel on its own: the slide's heading and text as the slide says (moving
between slides is tests/plain/test_lesson_controller.py's)."""
from gradviz.plain.lessons.lessons import find_lesson
from gradviz.qt.theme import LIGHT
from gradviz.qt.widgets.narration_view import NarrationView


def test_narration_shows_the_lesson_slide_and_text(qtbot):
    view = NarrationView()
    qtbot.addWidget(view)
    lesson = find_lesson("backward-twice")
    view.apply_theme(LIGHT.zoomed(1.5))
    view.show_slide(lesson.title, lesson.slides[0], 0, len(lesson.slides))
    heading = view.heading.text()
    assert "slide 1 of 2" in heading and lesson.slides[0].title in heading
    assert "backward through the graph a second time" in " ".join(view.markdown().split())
    assert view.text.font().pointSizeF() > LIGHT.font_pt * 1.5   # read from the back row


def test_a_titles_code_is_set_as_code_not_shown_with_its_backticks(qtbot):
    # (in the window's title bar, as plain text: tests/plain/test_lesson_controller.py)
    lesson = find_lesson("add-or-separate")
    slide = lesson.slides[2]
    assert slide.title == "`total += L_k; total.backward()` inside the loop"
    view = NarrationView()
    qtbot.addWidget(view)
    view.show_slide(lesson.title, slide, 2, len(lesson.slides))
    assert "<code>total += L_k; total.backward()</code> inside the loop" in view.heading.text()
