"""A main window per test (or one a test file's tests share, reset between them), with its
settings in a temp dir and its engine stopped after. The engine runs on a thread of the
test's process (tests look inside its session); tests/qt/test_engine_process.py drives the
real two-process app."""
import functools
import os
import subprocess
import sys

import pytest
from PySide6.QtGui import QFont, QPalette
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from gradviz.plain.config import Config
from gradviz.plain.window_model import WindowModel
from gradviz.qt.settings import AppSettings, Remembered

from waits import WAIT_MS


def _generous(wait):
    """pytest-qt's wait with WAIT_MS where the test names no timeout (its own default, 5 s,
    failed tests on a busy 2-core machine)."""
    @functools.wraps(wait)
    def generous(self, *args, timeout: int = WAIT_MS, **kwargs):
        return wait(self, *args, timeout=timeout, **kwargs)
    return generous


for _name in ("waitUntil", "waitSignal", "waitSignals", "waitCallback", "waitExposed",
              "waitActive"):
    setattr(QtBot, _name, _generous(getattr(QtBot, _name)))


@pytest.fixture(autouse=True)
def _app_look_restored(qapp):
    """Each test starts with the application's font and palette as Qt made them: a theme
    applied at a larger text size (appearance.apply sets both application-wide) must not
    change how the next test's widgets measure their text."""
    font, palette = QFont(qapp.font()), QPalette(qapp.palette())
    yield
    qapp.setFont(font)
    qapp.setPalette(palette)


@pytest.fixture
def run_script(tmp_path):
    """Run a script's text in a fresh Python process, offscreen, as a user's command
    would run: the finished process (returncode, stdout, stderr as text)."""
    def run(text: str, name: str = "script.py", timeout: float = 600):
        script = tmp_path / name
        script.write_text(text)
        env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
        return subprocess.run([sys.executable, str(script)], capture_output=True,
                              text=True, env=env, timeout=timeout)
    return run


@pytest.fixture
def narration_view(qtbot):
    """A lesson's narration view alone, shown; the system browser replaced by a list of
    the addresses it was asked to open (`opened`)."""
    from gradviz.qt.theme import LIGHT
    from gradviz.qt.widgets.narration_view import NarrationView
    v = NarrationView()
    qtbot.addWidget(v)
    v.apply_theme(LIGHT)
    v.resize(700, 450)
    v.show()
    qtbot.waitExposed(v)
    v.opened = []
    v.open_url = v.opened.append
    return v


@pytest.fixture
def settings(tmp_path):
    return AppSettings(tmp_path / "settings.json")


@pytest.fixture
def make_window(qtbot, settings):
    from gradviz.qt.main_window import MainWindow
    made = []

    def make(config: Config = Config(), remembered: Remembered | None = None,
             model_path=None, in_process: bool = True):
        """model_path: a model file to train, as `gradviz --model PATH` opens it;
        in_process False: the engine in its own process, as the app runs it."""
        window = MainWindow(remembered or Remembered(config), settings,
                            engine_in_process=in_process,
                            model_path=None if model_path is None else str(model_path))
        qtbot.addWidget(window)
        window.show()
        qtbot.waitUntil(lambda: window.model.generation >= 1, timeout=WAIT_MS)
        made.append(window)
        return window

    yield make
    for window in made:
        window.close()


@pytest.fixture(scope="module")
def _module_window(qapp, tmp_path_factory):
    """One in-process window for a test file's tests (per xdist worker): made on first use,
    closed after the file's last test."""
    held: list = []
    yield held
    for window in held:
        window.close()


@pytest.fixture
def shared_window(qtbot, _module_window, tmp_path_factory):
    """A window as make_window gives one, shared by the tests of a file: each test gets it
    paused at step 0 of a fresh model on its config, nothing in What happened, and Play's
    pace and mode and the graph's saved tensors as a new window has them. For tests that
    change only what these undo (not the theme, zoom, docks, lessons or settings file)."""
    from gradviz.qt.main_window import MainWindow

    def get(config: Config = Config()):
        if not _module_window:
            settings = AppSettings(tmp_path_factory.mktemp("shared") / "settings.json")
            window = MainWindow(Remembered(config), settings, engine_in_process=True)
            window.show()
            _module_window.append(window)
        window = _module_window[0]
        _fresh_on(qtbot, window, config)
        return window
    return get


def _fresh_on(qtbot, window, config: Config) -> None:
    """The window paused, at step 0 of a fresh model on config (a Reset after it)."""
    model = window.model
    qtbot.waitUntil(lambda: model.generation >= 1, timeout=WAIT_MS)
    if model.running:
        window.engine.pause()
        qtbot.waitUntil(lambda: not model.running, timeout=WAIT_MS)
    model.play_mode, model.stop_at = WindowModel.play_mode, WindowModel.stop_at
    model.pace_ms, model.show_saved = WindowModel.pace_ms, WindowModel.show_saved
    # Reset first: a config asked for mid-step would wait for the step's end
    generation = model.generation
    window.engine.reset()
    qtbot.waitUntil(lambda: model.generation > generation, timeout=WAIT_MS)
    model.requested = config
    session = window.engine.session
    qtbot.waitUntil(lambda: model.confirmed == config and session.config == config
                    and session.step_index == 0 and not session.in_step
                    and session.pending_config is None and session.error is None
                    and session.last_record is None and window.events_view.event is None,
                    timeout=WAIT_MS)
    window.refresh()
    # its keys reach it only while it is the active window (a test's own window was since)
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=WAIT_MS)
    window.setFocus()
