"""Nothing of the slide before stays on the next one, in the whole window, as a lecturer
pages: Compare pinned on a slide, its verdict on the stage and B's lines on the charts;
PageDown onto a slide with figures, then onto an error slide, which never sends a step of
B. Each time, from the key on, the verdict is gone (B starts again at step 0), B's lines
are empty and the figures are the new slide's, also once the error has come. (When each
part starts again is tests/plain/test_lesson_compare.py's, without a window.)"""
import html

from PySide6.QtCore import Qt

from gradviz.engine import protocol as p
from gradviz.plain.lessons.lesson_figures import NOT_YET
from gradviz.plain.lessons.lessons import find_lesson

from shared_window import shared_window_fixture, window_fixture  # noqa: F401
from waits import on_record

STARTED = "A and B start together at step 0."   # what the stage's line says on a pin


def test_pagedown_across_a_pinned_compare_onto_an_error_slide_keeps_nothing(qtbot, window):
    w = window
    w.drawn_off_screen = True
    w.resize(1024, 740)
    line, ghosts = w.compare.line, (w.loss_plot, w.global_norm, w.memory)
    w.lessons.open(find_lesson("add-or-separate"), 1)   # one backward per loss
    qtbot.waitUntil(lambda: w.model.preparing is None)
    w.compare.controller.pin_slide(0)                   # B: one backward on the sum
    qtbot.waitUntil(lambda: w.compare.view.record is not None)
    said = html.escape(w.compare.view.record.verdict)
    assert said in line.text()
    failed: list = []
    on_record(w.engine, p.Failed, failed.append)

    qtbot.keyClick(w, Qt.Key_PageDown)   # 01/3: in-loop, three figures over slide 1's
    assert w.model.slide == 2 and said not in line.text() and STARTED in line.text()
    assert all(chart.ghost is w.compare.history_b for chart in ghosts)
    assert len(w.compare.history_b) == 0
    figures = w.lessons.narration.figures.text().splitlines()
    assert len(figures) == 3 and all(NOT_YET in figure for figure in figures)
    qtbot.waitUntil(lambda: w.model.preparing is None and w.compare.view.record is not None
                    and len(w.compare.history_b) >= 1)
    said = html.escape(w.compare.view.record.verdict)
    assert said in line.text() and "head 0: 0.33×" in said   # the sum beside in-loop

    qtbot.keyClick(w, Qt.Key_PageDown)   # 02/1: the second backward through a freed graph
    assert w.model.lesson == "02-backward-twice" and w.model.slide == 0
    assert said not in line.text() and STARTED in line.text()
    assert len(w.compare.history_b) == 0 and w.lessons.narration.figures.text() == ""
    qtbot.waitUntil(lambda: w.model.preparing is None and bool(failed))   # its error
    assert "backward through the graph a second time" in failed[-1].event.message
    assert said not in line.text() and STARTED in line.text()
    assert w.compare.view.record is None and len(w.compare.history_b) == 0
    assert all(chart.ghost is w.compare.history_b for chart in ghosts)
    assert w.lessons.narration.figures.text() == "" and w.model.focus == "freed"
