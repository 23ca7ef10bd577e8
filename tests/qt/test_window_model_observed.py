"""The window follows its model: a field changed by anyone (a lesson, Compare, a test)
is what the run bar, the settings, the docks and the screen show, and the engine is told
only what it does not have yet. Lessons change the model, not the window's widgets."""
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from gradviz.engine import protocol as p
from gradviz.plain.config.config import Config

from shared_window import shared_window_fixture, window_fixture  # noqa: F401
from waits import WAIT_MS

SHARED_CONFIG = Config(device="cpu", batch_size=16)   # the module's one window's

# the run bar's slider, left to right: the pause between steps in ms
PACES = (0, 5, 20, 50, 100, 200, 350, 500, 750, 1000, 1500)
STEP = 1.15   # one Ctrl+=


def _sent(w, monkeypatch) -> list:
    """Every message the window sends its engine from now on (till the test's end), in
    order."""
    sent, send = [], w.engine._send

    def spy(message, busy=True):
        sent.append(message)
        send(message, busy)
    monkeypatch.setattr(w.engine, "_send", spy)
    return sent


def test_the_models_pace_and_play_mode_move_the_run_bar_and_reach_the_engine(
        qtbot, window, monkeypatch):
    w = window
    sent = _sent(w, monkeypatch)
    w.model.pace_ms = 500
    assert w.run_bar.speed.value() == PACES.index(500) and w.run_bar.delay_ms() == 500
    assert not w.run_bar.phase_play.isChecked()
    w.model.play_mode = "phases"
    assert w.run_bar.phase_play.isChecked() and w.run_bar.speed.value() == 7
    # both written, then sent: once, in one record
    qtbot.waitUntil(lambda: len(sent) > 0, timeout=WAIT_MS)
    QApplication.processEvents()
    assert [(m.settings.delay_ms, m.settings.animate_phases) for m in sent] == [(500, True)]
    qtbot.waitUntil(lambda: w.engine.loop.player.settings.delay_ms == 500
                    and w.engine.loop.player.settings.animate_phases, timeout=WAIT_MS)
    # and the other way: the user's slider and P change the model (and the engine)
    del sent[:]
    w.run_bar.speed.setValue(2)
    qtbot.keyClick(w, Qt.Key_P)
    assert (w.model.pace_ms, w.model.play_mode) == (20, "steps")
    qtbot.waitUntil(lambda: len(sent) > 0 and (sent[-1].settings.delay_ms,
                                               sent[-1].settings.animate_phases)
                    == (20, False), timeout=WAIT_MS)
    assert all(isinstance(m, p.Settings) for m in sent) and len(sent) <= 2


def test_a_slide_sets_the_model_and_sends_the_engine_one_message(qtbot, window, monkeypatch):
    """PageDown to lesson 02's second slide (10 steps a second, graph and memory): the
    model holds its panels, pace and config, the run bar and the settings show them,
    and the engine gets the slide as one message, no config nor pace besides it."""
    w = window
    w.lessons.open_named("backward-twice")
    m = w.model
    assert (m.pace_ms, m.play_mode) == (1000, "phases")   # slide 1: one phase a second
    qtbot.waitUntil(lambda: not m.waiting, timeout=WAIT_MS)
    sent = _sent(w, monkeypatch)
    qtbot.keyClick(w, Qt.Key_PageDown)
    slide = w.lessons.slide
    assert (m.lesson, m.slide, m.panels) == ("02-backward-twice", 1, ("graph", "memory"))
    assert w.lessons.stage.shown == ["graph", "memory"]
    assert (m.pace_ms, m.play_mode) == (100, "steps")      # 1000 ms / 10 steps
    assert w.run_bar.delay_ms() == 100 and not w.run_bar.phase_play.isChecked()
    assert m.requested == slide.config and w.controls.config() == slide.config
    slides = [message for message in sent if isinstance(message, p.Slide)]
    assert len(slides) == 1 and slides[0].config == slide.config
    assert (slides[0].settings.delay_ms, slides[0].settings.animate_phases,
            slides[0].settings.stop_at) == (100, False, 20)
    assert not any(isinstance(message, (p.SetConfig, p.Reset)) for message in sent)
    # nothing after it takes the slide's pace back
    assert all((message.settings.delay_ms, message.settings.animate_phases) == (100, False)
               for message in sent if isinstance(message, p.Settings))


def test_the_requested_config_is_shown_and_the_engine_told_once(qtbot, window, monkeypatch):
    w = window
    sent = _sent(w, monkeypatch)
    asked = Config(device="cpu", batch_size=16, heads=2, strategy="in-loop")
    w.model.requested = asked
    assert w.controls.config() == asked and len(w.controls.detach_boxes) == 2
    assert w.code_view.config() == asked
    qtbot.waitUntil(lambda: len(sent) > 0, timeout=WAIT_MS)   # once the writer is done
    QApplication.processEvents()
    assert sent == [p.SetConfig(asked)]


def test_a_lesson_in_the_model_puts_the_docks_away_and_its_end_brings_them_back(
        qtbot, window):
    w = window
    before = w.model.docks_shown
    assert "graphDock" in before and "controlsDock" in before
    w.lessons.open_named("leaky-graphs")
    assert w.model.docks_shown == frozenset() and w.stage.isVisible()
    assert not w.plot_stack.isVisible()
    assert w.graph_view.parent() is not w.graph_dock      # on the stage
    qtbot.keyClick(w, Qt.Key_Escape)
    assert w.model.lesson is None and w.model.docks_shown == before
    assert not w.stage.isVisible() and w.plot_stack.isVisible()
    assert w.graph_dock.widget() is w.graph_view and w.memory_dock.widget() is w.memory


def test_blank_in_the_model_covers_the_window(qtbot, window):
    w = window
    w.model.blank = True
    assert w.blank_screen.isVisible() and w.blank_screen.geometry() == w.rect()
    qtbot.keyClick(w, Qt.Key_B)                            # B again: the window back
    assert not w.model.blank and not w.blank_screen.isVisible()


@pytest.mark.parametrize("presses, after", [(2, STEP), (0, 1.0)])
def test_text_too_large_takes_the_text_a_step_smaller_never_below_normal(
        window, presses, after):
    w = window
    w.model.zoom = STEP ** presses
    w.model.text_too_large = True
    assert w.model.zoom == pytest.approx(after)
    assert f"Text size {after:.0%} is the largest" in w.phase_label.text()
