"""A lesson opened while a model file trains (issue 22): the lesson teaches on the
built-in model, and leaving it (Esc, or Lessons → Leave the lesson) brings back the
model file the user had open, with the settings and pace they had before the lesson.
The rule (which file, which settings, not one opened meanwhile) is tested without a
window in tests/plain/test_lesson_controller.py; this is its wiring to a real engine."""
from PySide6.QtCore import Qt

from gradviz.plain.config.config import Config
from gradviz.plain.window.window_model import PACES_MS
from gradviz.qt.model_menu import example_path
from gradviz.qt.settings import Remembered

from waits import WAIT_MS

# the user's own settings on the file, none of them a lesson's
BEFORE = Config(device="cpu", lr=0.07, strategy="separate", batch_size=24)
SPEED = 3   # the pace slider's position before the lesson


def _on_the_file(w) -> bool:
    s = w.engine.session
    return w.model.model_name == "deep_supervision.py" and s is not None and \
        s.spec is not None


def test_leaving_a_lesson_brings_back_the_model_file_and_its_settings(qtbot, make_window):
    w = make_window(remembered=Remembered(BEFORE, pace_ms=PACES_MS[SPEED]),
                    model_path=example_path("deep_supervision"))
    qtbot.waitUntil(lambda: _on_the_file(w), timeout=WAIT_MS)
    assert w.engine.session.config.lr == BEFORE.lr and w.run_bar.speed.value() == SPEED
    w.lessons.open_named("backward-twice")
    qtbot.waitUntil(lambda: w.model.model_name == "" and w.engine.session is not None
                    and w.engine.session.spec is None, timeout=WAIT_MS)
    qtbot.keyClick(w, Qt.Key_PageDown)             # a slide on, as a lecturer would
    qtbot.waitUntil(lambda: w.lessons.player.index == 1)
    assert w.run_bar.speed.value() != SPEED or w.controls.config().lr != BEFORE.lr
    leave = next(a for a in w.lessons.menu.actions() if a.text().startswith("Leave"))
    leave.trigger()                                # (Esc: the clicker's keys test)
    assert w.lessons.player.lesson is None
    qtbot.waitUntil(lambda: _on_the_file(w) and w.engine.session.config.lr == BEFORE.lr,
                    timeout=WAIT_MS)
    engine = w.engine.session.config
    assert (engine.strategy, engine.batch_size, engine.heads) == ("separate", 24, 3)
    qtbot.waitUntil(lambda: w.controls.config().lr == BEFORE.lr, timeout=WAIT_MS)
    assert w.controls.config().strategy == "separate"
    assert w.run_bar.speed.value() == SPEED and w.engine.sent_settings.delay_ms == \
        w.run_bar.delay_ms()
    assert [label.text for _, label in w.loss_plot.legend.items][:3] == \
        ["shallow", "middle", "deep"]
    assert "deep_supervision.py" in w.windowTitle()
    assert "MODEL_FILE.build(SEED)" in w.code_view.code()


