"""One main window (and its engine, on a thread of this process) shared by the test
modules of a test process (an xdist worker): a window costs seconds to start, and most
whole-window tests only drive it. Each module gets it back as a new window is (its first
dock layout, theme, graph view and size, on the module's SHARED_CONFIG at step 0); each
test gets it back in free mode, at its first size and text size, with no lesson and no
comparison open. Two ways to ask for it, one window behind both:
- `shared_window(config)` (tests/qt/conftest.py): the window paused at step 0 of a fresh
  model on config;
- a module that imports `shared_window_fixture, window_fixture` from here gets the
  window itself as `shared_window` (on its SHARED_CONFIG) and as `window` (in free mode
  before and after the test)."""
from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import pytest
from PySide6.QtCore import QEventLoop
from PySide6.QtWidgets import QApplication

from gradviz.plain.config.config import Config
from gradviz.plain.window.window_model import WindowModel
from gradviz.qt.settings import AppSettings, Remembered

from waits import WAIT_MS


def wait_for(condition: Callable[[], bool], timeout_ms: int = WAIT_MS) -> None:
    """Qt's events handled until condition() holds (a module fixture has no qtbot)."""
    deadline = time.monotonic() + timeout_ms / 1000
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout_ms} ms for {condition}")
        QApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)


def open_window(remembered: Remembered, settings: AppSettings, **kwargs):
    """A main window shown, its first model built (kwargs: MainWindow's)."""
    from gradviz.qt.main_window import MainWindow
    window = MainWindow(remembered, settings, **kwargs)
    window.show()
    wait_for(lambda: window.model.generation >= 1)
    return window


def free_mode(window) -> None:
    """The window as a test found it: no presentation, lesson or comparison, the normal
    text size, its first size, Play's pace and mode and the graph's saved tensors as a new
    window has them, laid out for the offscreen screen, paused."""
    if window.lessons.presenting:
        window.lessons.toggle_presenting()
    if window.lessons.player.lesson is not None:
        window.lessons.player.leave()
    if window.compare.comparing:
        window.compare.stop()
    if window.model.running:     # a slide's play goes on after it: paused, as Space does
        window.engine.pause()
    window.model.pace_ms, window.model.play_mode = window.first_pace
    window.model.stop_at, window.model.show_saved = WindowModel.stop_at, WindowModel.show_saved
    window.drawn_off_screen = False
    window.zoom_by(None)
    window.resize(window.first_size)
    wait_for(lambda: not window.lessons.stage.isVisible() and not window.model.running)


@pytest.fixture(scope="session", name="process_window")
def process_window_fixture(qapp, tmp_path_factory) -> Iterator:
    """The test process's one window on the default settings, its settings file in a temp
    dir; closed after the process's last test."""
    settings = AppSettings(tmp_path_factory.mktemp("shared") / "settings.json")
    window = open_window(Remembered(Config()), settings, engine_in_process=True)
    window.first_size = window.size()
    window.first_pace = window.model.pace_ms, window.model.play_mode
    window.first_look = (window.saveState(), window.model.theme,
                         window.graph_view.module_view)
    yield window
    window.close()
    window.deleteLater()


@pytest.fixture(scope="module", name="module_window")
def module_window_fixture(request, process_window) -> Iterator:
    """The process's window as a new one on the module's SHARED_CONFIG (the default
    settings where it names none): what a module before it changed is undone."""
    window = process_window
    free_mode(window)
    state, window.model.theme, module_view = window.first_look
    window.restoreState(state)
    window.graph_view.set_module_view(module_view)
    fresh(window, getattr(request.module, "SHARED_CONFIG", Config()), wait_for)
    yield window


@pytest.fixture(scope="module", name="shared_window")
def shared_window_fixture(module_window) -> Iterator:
    """The module's window itself (for a module that imports this fixture)."""
    yield module_window


@pytest.fixture(name="window")
def window_fixture(shared_window, qtbot):
    """The module's window, in free mode before and after the test, and the active
    window (keys reach it)."""
    free_mode(shared_window)
    focused(qtbot, shared_window)
    yield shared_window
    free_mode(shared_window)


def fresh_run(qtbot, window, config: Config) -> None:
    """The window's engine paused on config, at step 0 of a fresh model (as Reset makes
    it), nothing in What happened: a step left half done by the test before is dropped
    first (a change of settings waits for the step's end)."""
    fresh(window, config, qtbot.waitUntil)


def fresh(window, config: Config, wait: Callable[[Callable[[], bool]], object]) -> None:
    """fresh_run's work, waiting with wait(condition) (a module fixture has no qtbot)."""
    model = window.model
    if model.running:
        window.engine.pause()
        wait(lambda: not model.running)
    generation = model.generation
    window.engine.reset()       # as R does: the next generation, at step 0
    wait(lambda: model.generation > generation and window.engine.session.step_index == 0
         and len(window.history) == 0)
    model.requested = config

    def is_fresh() -> bool:
        session = window.engine.session
        return (model.confirmed == config and session.config == config
                and session.step_index == 0 and not session.in_step
                and session.pending_config is None and session.error is None
                and session.last_record is None and len(window.history) == 0
                and window.events_view.event is None)
    wait(is_fresh)
    window.refresh()


def focused(qtbot, window) -> None:
    """Keys reach the window only while it is the active one (a test's own window may
    have been since)."""
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    window.setFocus()
