"""A lecturer's habits in the window: `--lesson NAME:N` opens at slide N; Esc gives the
window back as it was before the lesson, the run's steps trained again bit for bit; and
the title names the slide while a slide on a model file, and the next on the built-in
model, start their fresh engines (and a DDP slide its ranks)."""
import argparse

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction

from gradviz.app import main
from gradviz.plain.config.config import Config
from gradviz.plain.controllers.lesson_controller import BASE_TITLE, slide_title
from gradviz.plain.lessons.lessons import find_lesson
from gradviz.qt.launch import _lesson

from shared_window import fresh_run, shared_window_fixture, window_fixture  # noqa: F401
from waits import WAIT_MS


def test_lesson_name_colon_n_opens_the_lesson_at_slide_n(qtbot, window):
    w = window
    lesson, index = _lesson(argparse.Namespace(lesson="leaves-and-grad:2"))   # as launched
    assert (lesson.name, index) == ("06-leaves-and-grad", 1)
    w.lessons.open(lesson, index)
    assert w.windowTitle() == slide_title(lesson, 1) and w.model.slide == 1
    qtbot.waitUntil(lambda: w.engine.session.config.retain_grad, timeout=WAIT_MS)
    w.lessons.open_named("backward-twice:2")           # the same words, from a menu or a test
    assert w.model.slide == 1 and "slide 2/2" in w.windowTitle()


def test_lesson_name_colon_n_past_the_last_slide_is_one_line_and_exit_2(capsys, monkeypatch,
                                                                         tmp_path):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    code = None
    try:
        main(["--lesson", "leaves-and-grad:3", "--screenshot", str(tmp_path / "x.png")])
    except SystemExit as exc:
        code = exc.code
    err = capsys.readouterr().err
    assert code == 2 and err == ("gradviz: --lesson leaves-and-grad:3: lesson "
                                 "06-leaves-and-grad has 2 slides: give slide 1 to 2 (got 3)\n")


def test_esc_gives_back_the_window_and_the_steps_trained_before_the_lesson(qtbot, window):
    w = window
    mine = Config(heads=2, batch_size=16, lr=0.05, strategy="separate")
    fresh_run(qtbot, w, mine)
    # the user's window: a pace of their own, the graph's every op, phase by phase
    w.run_bar.speed.setValue(3)
    pace = w.model.pace_ms
    w.graph_dock.show()
    w.graph_dock.raise_()
    qtbot.waitUntil(w.graph_view.module_toggle.isVisible, timeout=WAIT_MS)
    if w.graph_view.module_view:
        qtbot.mouseClick(w.graph_view.module_toggle, Qt.LeftButton)
    assert not w.graph_view.module_view
    qtbot.keyClick(w, Qt.Key_P)
    assert w.model.play_mode == "phases"
    for step in range(1, 6):                           # five steps, one at a time
        qtbot.keyClick(w, Qt.Key_Right, Qt.ShiftModifier)
        qtbot.waitUntil(lambda s=step: len(w.history) == s and w.model.step == s,
                        timeout=WAIT_MS)
    totals = w.history.column("total").copy()
    norms = w.history.column("global_grad_norm").copy()
    layout = w.saveState()
    w.findChild(QAction, "lesson_04-detach-vs-detach_").trigger()
    qtbot.keyClick(w, Qt.Key_PageDown)                 # a slide on: detach_
    qtbot.waitUntil(lambda: w.controls.config().detach_mode == "detach_", timeout=WAIT_MS)
    qtbot.keyClick(w, Qt.Key_Escape)
    assert w.model.lesson is None and w.windowTitle() == BASE_TITLE
    # the settings, pace, phase by phase, the graph's view and the docks, as before
    assert w.model.requested == mine and w.controls.config() == mine
    assert w.model.pace_ms == pace and w.run_bar.delay_ms() == pace
    assert w.model.play_mode == "phases" and w.run_bar.phase_play.isChecked()
    assert not w.graph_view.module_view and w.saveState() == layout
    # ... and the run: its 5 steps trained again, the same numbers bit for bit, paused
    qtbot.waitUntil(lambda: len(w.history) == 5 and w.engine.session.step_index == 5
                    and w.engine.session.config == mine, timeout=WAIT_MS)
    w.refresh()
    assert np.array_equal(w.history.column("total"), totals)
    assert np.array_equal(w.history.column("global_grad_norm"), norms)
    assert not w.model.running and w.engine.sent_settings.delay_ms == pace


def test_the_title_names_the_slide_while_model_file_and_ddp_slides_start(qtbot, window):
    w = window
    cnn, ddp = find_lesson("14-cnn-two-heads"), find_lesson("15-ddp-accumulation")
    w.lessons.open(cnn, len(cnn.slides) - 1)           # on the model file cnn_two_heads
    title = slide_title(cnn, len(cnn.slides) - 1)
    assert w.windowTitle() == title
    qtbot.waitUntil(lambda: w.model.model_name == "cnn_two_heads.py"
                    and w.model.preparing is None, timeout=WAIT_MS)
    assert w.windowTitle() == title                    # not "gradviz — cnn_two_heads.py"
    qtbot.keyClick(w, Qt.Key_PageDown)                 # the next lesson: the built-in model
    qtbot.waitUntil(lambda: w.model.model_name == "" and w.model.preparing is None,
                    timeout=WAIT_MS)
    assert w.windowTitle() == slide_title(ddp, 0)      # not the bare "gradviz — autograd…"
    qtbot.keyClick(w, Qt.Key_PageDown)                 # 2 DDP ranks start
    assert w.windowTitle() == slide_title(ddp, 1)
    qtbot.waitUntil(lambda: w.model.preparing is None, timeout=WAIT_MS)
    assert w.windowTitle() == slide_title(ddp, 1)
    qtbot.keyClick(w, Qt.Key_Escape)
    assert w.windowTitle() == BASE_TITLE
