"""One main window (and its engine) shared by a test module's tests: a window costs seconds
to start, and most whole-window tests only drive it. Each test gets it back in free mode,
at its first size and text size, with no lesson and no comparison open. A module imports
the fixtures (`from shared_window import shared_window_fixture, window_fixture`)."""
from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import pytest
from PySide6.QtCore import QEventLoop
from PySide6.QtWidgets import QApplication

from gradviz.plain.config import Config
from gradviz.qt.settings import AppSettings, Remembered

from waits import WAIT_MS


def wait_for(condition: Callable[[], bool], timeout_ms: int = WAIT_MS) -> None:
    """Qt's events handled until condition() holds (a module fixture has no qtbot)."""
    deadline = time.monotonic() + timeout_ms / 1000
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout_ms} ms for {condition}")
        QApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)


def free_mode(window) -> None:
    """The window as a test found it: no presentation, lesson or comparison, the normal
    text size, its first size and pace, laid out for the offscreen screen, paused."""
    if window.lessons.presenting:
        window.lessons.toggle_presenting()
    if window.lessons.player.lesson is not None:
        window.lessons.player.leave()
    if window.compare.comparing:
        window.compare.stop()
    if window.model.running:     # a slide's play goes on after it: paused, as Space does
        window.engine.pause()
    window.model.pace_ms, window.model.play_mode = window.first_pace
    window.drawn_off_screen = False
    window.zoom_by(None)
    window.resize(window.first_size)
    wait_for(lambda: not window.lessons.stage.isVisible() and not window.model.running)


@pytest.fixture(scope="module", name="shared_window")
def shared_window_fixture(request, qapp, tmp_path_factory) -> Iterator:
    """The module's window on its SHARED_CONFIG (the default settings where it names
    none), its engine on a thread of this process."""
    from gradviz.qt.main_window import MainWindow
    settings = AppSettings(tmp_path_factory.mktemp("shared") / "settings.json")
    config = getattr(request.module, "SHARED_CONFIG", Config())
    window = MainWindow(Remembered(config), settings, engine_in_process=True)
    window.show()
    wait_for(lambda: window.model.generation >= 1)
    window.first_size = window.size()
    window.first_pace = window.model.pace_ms, window.model.play_mode
    yield window
    window.close()
    window.deleteLater()


@pytest.fixture(name="window")
def window_fixture(shared_window, qtbot):
    """The module's window, in free mode before and after the test."""
    free_mode(shared_window)
    yield shared_window
    free_mode(shared_window)


def fresh_run(qtbot, window, config: Config) -> None:
    """The window's engine on config, at step 0 of a fresh model (as Reset makes it; a
    step left half done by the test before is dropped first: a change of settings waits
    for the step's end)."""
    reset(qtbot, window)
    window.model.requested = config
    qtbot.waitUntil(lambda: window.engine.session.config == config)
    reset(qtbot, window)


def reset(qtbot, window) -> None:
    generation = window.model.generation
    window.engine.reset()
    qtbot.waitUntil(lambda: window.model.generation > generation
                    and window.engine.session.step_index == 0 and len(window.history) == 0)
