"""Smoke test of a slide's figures in the window: 12/2 draws "trunk walked 3×" above its
narration, larger than the narration's text, once its run has measured it."""
from PySide6.QtGui import QFontInfo

from waits import WAIT_MS


def test_a_slides_figure_is_drawn_large_and_follows_the_run(qtbot, make_window):
    w = make_window()
    w.resize(1024, 768)
    w.lessons.open_named("one-pass-or-k")
    w.lessons.player.next()                              # 12/2: one backward per loss
    view = w.lessons.narration
    figures = view.figures
    qtbot.waitUntil(lambda: figures.text() == "trunk walked 3×", timeout=WAIT_MS)
    assert figures.isVisible()
    assert QFontInfo(figures.font()).pixelSize() > QFontInfo(view.text.font()).pixelSize()
    # on the stage, above the narration's text and inside the narration's part
    assert figures.geometry().bottom() <= view.text.geometry().top()
    w.lessons.player.leave()
    assert not figures.isVisible() or figures.text() == ""
