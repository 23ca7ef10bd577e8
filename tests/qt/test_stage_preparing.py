"""A smoke test of the wiring, in the whole window: a slide is covered by what it waits for
until its first state is in, then shown; Compare pinned on it puts its verdict on the
slide at the narration's size (in its second panel's room, not the dock across the
slide's lower half), and the slide plays again without Space. What is waited for, and
when, is tests/plain/test_slide_preparing.py's and test_lesson_compare.py's (no window);
where the verdict goes, tests/plain/test_stage_aside.py's."""
import html
import os

from gradviz.plain.lessons.lessons import find_lesson

from shared_window import shared_window_fixture, window_fixture  # noqa: F401


def test_a_slide_is_covered_until_its_first_step_and_compare_fits_inside_it(qtbot, window):
    w = window
    # laid out as on a 1024x768 screen: the offscreen screen's fit (800 px wide) would
    # resize the window, and the stage, in the middle of the test
    w.drawn_off_screen = True
    w.resize(1024, 740)
    stage, lesson = w.lessons.stage, find_lesson("add-or-separate")
    w.lessons.open(lesson, 2)   # the junction chart, by steps
    assert stage.cover.isVisible() and stage.cover.text().startswith("Preparing this slide")
    assert stage.cover.geometry().contains(stage.slots["junction"].geometry())
    qtbot.waitUntil(lambda: not stage.cover.isVisible())
    assert len(w.history) >= 1 and w.model.preparing is None   # its first step is in
    alone = stage.slots["junction"].geometry()

    generation = w.model.generation
    w.compare.controller.pin_slide(0)
    qtbot.waitUntil(lambda: w.model.generation > generation + 1 and w.model.running
                    and len(w.history) >= 1)   # the slide sent again, playing: no Space
    qtbot.waitUntil(lambda: w.compare.view.record is not None)   # a step compared
    assert html.escape(w.compare.view.record.verdict) in w.compare.line.text()
    assert stage.verdict is w.compare.line and w.compare.line.isVisible()
    assert not w.compare.dock.isVisible()
    reading = w.lessons.narration.text.font().pointSizeF()
    assert w.compare.line.font().pointSizeF() == reading
    line, chart = w.compare.line.geometry(), stage.slots["junction"].geometry()
    if os.environ.get("GRADVIZ_SHOTS"):   # to look at
        w.grab().save(os.path.join(os.environ["GRADVIZ_SHOTS"], "stage_compare.png"))
    # the verdict on the slide, its chart as it was alone (from a lesson, the Compare
    # dock took the lower half: the chart was ~70 px; under the three figures and the
    # narration, 194 of 396 px); the loop beside it gives way while it is shown
    assert not line.intersects(chart) and chart == alone
    assert not stage.slots["code"].isVisible() or \
        not line.intersects(stage.slots["code"].geometry())
    w.compare.controller.stop()
    assert stage.verdict is None and not w.compare.line.isVisible()
    assert stage.slots["code"].isVisible() and stage.slots["junction"].geometry() == alone
