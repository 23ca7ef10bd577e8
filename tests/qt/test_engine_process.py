"""The real two-process app: the window says the engine is starting, trains, and closing
ends the engine at once. Elsewhere: the window never imports torch (test_closing.py's
Ctrl+C run); an engine killed with B pinned (test_model_window.py); stuck or frozen
(test_stuck_engine_reset.py); when an engine is slow and when stopped
(tests/plain/test_engine_watch.py)."""
import os
import sys

import pytest
from PySide6.QtCore import Qt

from gradviz.plain.config import Config
from gradviz.qt.settings import Remembered

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

SMALL = Config(batch_size=32, device="cpu", strategy="separate", heads=2)
@pytest.fixture
def real_window(qtbot, settings):
    from gradviz.qt.main_window import MainWindow
    made = []

    def make(config: Config = SMALL):
        window = MainWindow(Remembered(config), settings)   # the engine in its own process
        qtbot.addWidget(window)
        window.show()
        made.append(window)
        return window

    yield make
    for window in made:
        window.close()


def _train(qtbot, w, steps: int) -> None:
    before = len(w.history)
    qtbot.keyClick(w, Qt.Key_Space)
    qtbot.waitUntil(lambda: w.model.running and len(w.history) > before + steps, timeout=60_000)


def test_the_window_says_the_engine_is_starting_trains_and_closing_ends_it_at_once(
        qtbot, real_window):
    w = real_window()
    assert w.isVisible() and "Starting the training engine" in w.phase_label.text()
    qtbot.waitUntil(lambda: w.model.generation >= 1, timeout=60_000)
    assert w.model.devices and w.model.devices[0][0] == "cpu"
    assert w.controls.widgets["device"].findData("cpu") >= 0
    _train(qtbot, w, 20)
    # on a busy machine the window gets the CPU before the engine does
    from gradviz.engine.niceness import ENGINE_NICENESS
    assert os.getpriority(os.PRIO_PROCESS, w.engine.pid) == \
        os.getpriority(os.PRIO_PROCESS, 0) + ENGINE_NICENESS
    pid = w.engine.pid                           # closed mid-training
    w.close()
    assert w.engine.stopped      # at once: close() returns with the process gone
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
