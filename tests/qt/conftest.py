"""A main window per test, with its settings in a temp dir and its engine stopped after.
The engine runs on a thread of the test's process (tests look inside its session);
tests/qt/test_engine_process.py drives the real two-process app."""
import pytest

from gradviz.core.config import Config
from gradviz.qt.settings import AppSettings, Remembered


@pytest.fixture
def settings(tmp_path):
    return AppSettings(tmp_path / "settings.json")


@pytest.fixture
def make_window(qtbot, settings):
    from gradviz.qt.main_window import MainWindow
    made = []

    def make(config: Config = Config(), remembered: Remembered | None = None):
        window = MainWindow(remembered or Remembered(config), settings,
                            engine_in_process=True)
        qtbot.addWidget(window)
        window.show()
        qtbot.waitUntil(lambda: window.generation >= 0, timeout=10_000)
        made.append(window)
        return window

    yield make
    for window in made:
        window.close()
