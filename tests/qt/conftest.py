"""A main window per test (make_window) or one a test file's tests share
(shared_window.py), with its settings in a temp dir and its engine stopped after. The
engine runs on a thread of the test's process (tests look inside its session);
tests/qt/test_engine_process.py drives the real two-process app."""
import functools
import os
import subprocess
import sys

import pytest
from PySide6.QtGui import QFont, QPalette
from pytestqt.qtbot import QtBot

from gradviz.plain.config.config import Config
from gradviz.qt.settings import AppSettings, Remembered

from shared_window import (  # noqa: F401  (the *_fixture names: fixtures)
    focused,
    free_mode,
    fresh_run,
    module_window_fixture,
    open_window,
    process_window_fixture,
)
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
    """A window of the test's own, closed after it: for a test about what a new window
    starts with (its settings, a model file) or about closing it."""
    made = []

    def make(config: Config = Config(), remembered: Remembered | None = None,
             model_path=None, in_process: bool = True):
        """model_path: a model file to train, as `gradviz --model PATH` opens it;
        in_process False: the engine in its own process, as the app runs it."""
        window = open_window(remembered or Remembered(config), settings,
                             engine_in_process=in_process,
                             model_path=None if model_path is None else str(model_path))
        qtbot.addWidget(window)
        made.append(window)
        return window

    yield make
    for window in made:
        window.close()


@pytest.fixture
def shared_window(qtbot, module_window):
    """The test file's one window (shared_window.py), paused at step 0 of a fresh model on
    the config given, in free mode, and the active window: `w = shared_window(config)`.
    For tests that change only what these undo (not the docks, lessons' files or the
    settings file)."""
    def get(config: Config = Config()):
        free_mode(module_window)
        fresh_run(qtbot, module_window, config)
        focused(qtbot, module_window)
        return module_window
    return get
