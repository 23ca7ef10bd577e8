"""Quitting: closing the window mid-training stops every thread, without waiting for a
layout in flight, and closing again is harmless; Ctrl+C in the terminal quits the same
way, with exit status 130 (and the window's process never imported torch). (How
long closing takes is a speed claim: `gradviz bench --gui` measures it, not a test.)"""
import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest
from PySide6.QtCore import Qt

from gradviz.plain.config import Config

from waits import WAIT_MS


def _close_timed(window) -> float:
    start = time.perf_counter()
    window.close()
    return time.perf_counter() - start


def test_closing_mid_training_stops_the_threads_and_closing_again_is_harmless(
        qtbot, make_window):
    w = make_window(Config())
    qtbot.keyClick(w, Qt.Key_Space)
    qtbot.waitUntil(lambda: w.model.running and len(w.history) > 20, timeout=WAIT_MS)
    seconds = _close_timed(w)
    print(f"closing mid-training took {seconds * 1000:.0f} ms")
    assert w.engine.stopped and w.render_thread.isFinished()
    w.close()                  # twice, and disposed of: nothing more to stop, no error
    w.shutdown_threads()
    assert w.engine.stopped


def test_closing_does_not_wait_for_a_graph_layout_in_flight(qtbot, make_window, monkeypatch):
    """A Graphviz layout of a big graph takes seconds; closing kills it instead."""
    from gradviz.qt import graph_renderer
    from gradviz.render.layout import LayoutCancelled
    started = threading.Event()

    def slow_layout(graph, rankdir="TB", cancel=None, **_):
        started.set()
        if cancel.wait(30):   # what the real one does: poll, kill Graphviz on cancel
            raise LayoutCancelled("the layout was cancelled")
        raise AssertionError("the layout was never cancelled")
    monkeypatch.setattr(graph_renderer, "layout_graph", slow_layout)
    w = make_window(Config())
    qtbot.keyClick(w, Qt.Key_Right, Qt.ShiftModifier)     # one step: its graph is laid out
    qtbot.waitUntil(started.is_set, timeout=WAIT_MS)
    _close_timed(w)
    # the fake layout waits 30 s unless cancelled: finished now, so closing cancelled it
    assert w.render_thread.isFinished()


DRIVER = """
import sys

import gradviz.qt.main_window, gradviz.qt.launch, gradviz.qt.screenshot
assert "torch" not in sys.modules, "importing the window's modules loaded torch"
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

app = QApplication(sys.argv[:1])

def ready():
    window = next((w for w in app.topLevelWidgets() if w.objectName() == "mainWindow"),
                  None)
    if window is None or window.model.generation < 1:   # shown, its engine's first model
        QTimer.singleShot(50, ready)
        return
    window.zoom_by(1.3)     # something the quit must save
    window.compare.pin_settings()   # B's records cross the pipe too
    window.toggle_play()    # and training, which the quit must stop
    def trained():         # READY once A's and B's steps have arrived: the quit interrupts
        window.refresh()
        b = len(window.compare.history_b or ())
        if len(window.history) >= 5 and b >= 5:
            print("READY", b, "torch" in sys.modules, flush=True)
        else:
            QTimer.singleShot(20, trained)
    trained()

QTimer.singleShot(50, ready)   # fires inside the app's event loop
from gradviz.app import main
raise SystemExit(main([]))
"""


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT is a POSIX terminal's Ctrl+C")
def test_ctrl_c_in_the_terminal_quits_cleanly_with_status_130_and_no_torch(tmp_path):
    """The app as a user starts it: its window process never imports torch (the engine's
    process owns every tensor; B's records cross the pipe too), and Ctrl+C mid-training
    quits with status 130, the settings saved."""
    settings = tmp_path / "settings.json"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", GRADVIZ_SETTINGS=str(settings))
    proc = subprocess.Popen([sys.executable, "-c", DRIVER], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    try:
        ready, b_steps, has_torch = proc.stdout.readline().split()   # training, 5 steps
        assert ready == "READY" and int(b_steps) >= 5 and has_torch == "False"
        proc.send_signal(signal.SIGINT)                  # what the terminal sends
        _, stderr = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr, stderr
    saved = json.loads(settings.read_text())
    assert saved["version"] == 2 and saved["zoom"] == pytest.approx(1.3)
