"""B or '.' blanks the screen, as presentation software does; again, or the next slide,
brings it back."""
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

from waits import WAIT_MS


def _centre(window) -> QColor:
    image = window.grab().toImage()
    return image.pixelColor(image.width() // 2, image.height() // 2)


def test_b_and_period_blank_the_whole_window_and_bring_it_back(qtbot, shared_window):
    w = shared_window()
    assert not w.blank_screen.blank and _centre(w) != QColor("black")
    qtbot.keyClick(w, Qt.Key_B)
    assert w.blank_screen.blank and w.blank_screen.geometry() == w.rect()
    assert _centre(w) == QColor("black")
    w.resize(w.width() - 50, w.height() - 40)        # as F5 going full screen does
    qtbot.waitUntil(lambda: w.blank_screen.geometry() == w.rect(), timeout=WAIT_MS)
    qtbot.keyClick(w, Qt.Key_Period)
    assert not w.blank_screen.blank and _centre(w) != QColor("black")


def test_the_next_slide_on_a_blank_screen_is_seen(qtbot, shared_window):
    w = shared_window()
    w.lessons.open_named("01-add-or-separate")
    qtbot.keyClick(w, Qt.Key_B)
    assert w.blank_screen.blank
    qtbot.keyClick(w, Qt.Key_PageDown)
    assert not w.blank_screen.blank and "slide 2/" in w.windowTitle()
