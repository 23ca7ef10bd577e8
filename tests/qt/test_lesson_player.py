"""The lesson player and narration panel on their own: slides forward and back, on to the
next lesson after the last slide, and the narration shown as the slide says."""
from gradviz.plain.lessons import bundled_names, find_lesson
from gradviz.qt.lesson_player import LessonPlayer
from gradviz.qt.theme import LIGHT
from gradviz.qt.widgets.narration_view import NarrationView

from waits import WAIT_MS


def test_pages_through_a_lesson_and_on_to_the_next(qtbot):
    player = LessonPlayer()
    seen = []
    player.slideChanged.connect(lambda lesson, i: seen.append((lesson.name, i)))
    names = bundled_names()
    player.open_named(names[0])
    count = len(player.lesson.slides)
    for _ in range(count):
        player.next()
    assert seen[:count] == [(names[0], i) for i in range(count)]
    assert seen[-1] == (names[1], 0)            # PageDown on the last slide: next lesson
    player.previous()                            # at a lesson's first slide: stays
    assert seen[-1] == (names[1], 0) and len(seen) == count + 1
    player.next()
    player.first()
    assert seen[-1] == (names[1], 0)


def test_the_last_lesson_stays_on_its_last_slide(qtbot):
    player = LessonPlayer()
    last = find_lesson(bundled_names()[-1])
    player.open(last, len(last.slides) - 1)
    player.next()
    assert player.lesson.name == last.name and player.index == len(last.slides) - 1


def test_leaving_says_so_once(qtbot):
    player = LessonPlayer()
    player.open_named("zero-grad")
    with qtbot.waitSignal(player.left, timeout=WAIT_MS):
        player.leave()
    assert player.lesson is None
    with qtbot.assertNotEmitted(player.left):
        player.leave()


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


def test_a_titles_code_is_set_as_code_not_shown_with_its_backticks(qtbot, make_window):
    lesson = find_lesson("add-or-separate")
    slide = lesson.slides[2]
    assert slide.title == "`total += L_k; total.backward()` inside the loop"
    view = NarrationView()
    qtbot.addWidget(view)
    view.show_slide(lesson.title, slide, 2, len(lesson.slides))
    assert "<code>total += L_k; total.backward()</code> inside the loop" in view.heading.text()
    w = make_window()
    w.lessons.open(lesson, 2)
    assert w.windowTitle().endswith("slide 3/3: total += L_k; total.backward() inside the loop")
