"""A lecturer's text size on the stage: Ctrl+= for the back row stops where the slide
no longer fits, and the size it stopped at stays through the lesson's later slides."""
import pytest
from PySide6.QtCore import Qt

from gradviz.plain.lessons import load_lesson

from waits import WAIT_MS

LONG = " ".join(["**Notice:** every head's cosine with the update stays above 0."] * 6)


def test_ctrl_plus_stays_on_a_later_more_crowded_slide(qtbot, make_window, tmp_path):
    """Lesson 13 after Ctrl+= twice: from slide 2 (cosine, loss and the code, and a
    longer narration) the text fell back to normal and stayed there: the stage's check
    that took back a Ctrl+= too large for the slide also ran on every new slide."""
    path = tmp_path / "crowded.toml"
    path.write_text('title = "Crowded"\nconfig = { heads = 2, batch-size = 16 }\n'
                    '[[slides]]\ntitle = "One chart"\nnarration = "n"\npanels = ["loss"]\n'
                    'stop = 1\n'
                    f'[[slides]]\ntitle = "Three"\nnarration = """{LONG}"""\n'
                    'panels = ["cosine", "loss", "code"]\nstop = 1\n')
    w = make_window()
    w.resize(760, 600)
    w.lessons.open(load_lesson(path))
    qtbot.waitUntil(lambda: w.lessons.stage.shown == ["loss"], timeout=WAIT_MS)
    for _ in range(2):
        qtbot.keyClick(w, Qt.Key_Equal, Qt.ControlModifier)
    larger = 1.15 ** 2
    placement = w.lessons.stage.placement
    assert placement.fits >= 1 and placement.narration_whole   # slide 1 fits: kept
    assert w.theme.zoom == pytest.approx(larger)
    qtbot.keyClick(w, Qt.Key_PageDown)
    qtbot.waitUntil(lambda: w.lessons.stage.shown == ["cosine", "loss", "code"],
                    timeout=WAIT_MS)
    # the new slide is cramped at this size (what used to take the size back) ...
    cramped = w.lessons.stage.placement
    assert cramped.fits < 1 or not cramped.narration_whole
    # ... and the slide plays to its stop at the lecturer's size
    qtbot.waitUntil(lambda: w.engine.session.step_index >= 1 and not w.model.running,
                    timeout=WAIT_MS)
    qtbot.waitUntil(lambda: not w.screen_fit.timer.isActive(), timeout=WAIT_MS)
    assert w.model.zoom == pytest.approx(larger)
    # Ctrl+= once more on this slide is taken back a step: it does not fit
    qtbot.keyClick(w, Qt.Key_Equal, Qt.ControlModifier)
    qtbot.waitUntil(lambda: w.theme.zoom < 1.15 ** 3, timeout=WAIT_MS)
