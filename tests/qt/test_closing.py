"""Quitting: closing the window mid-training stops every thread, without waiting for a
layout in flight, and closing again is harmless; Ctrl+C in the terminal quits the same
way, with exit status 130 (and the window's process never imported torch), and a kill
(SIGTERM) or a closed terminal (SIGHUP) saves the settings as closing does. (How
long closing takes is a speed claim: `gradviz bench --gui` measures it, not a test.)"""
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from gradviz.plain.config.config import Config
from gradviz.qt.settings_file import beside

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


# a kill (SIGTERM) or a closed terminal (SIGHUP) saves as closing the window does: the
# app quit as soon as its window is up. SIGHUP as a terminal leaves it: a test run
# started under nohup hands its children SIGHUP ignored, and gradviz then keeps ignoring
# it (as `nohup gradviz` asks; see test_settings_files.py's test_nohup_is_respected), so
# the SIGHUP case waited out its 60 s
KILL_DRIVER = """
import signal
signal.signal(signal.SIGHUP, signal.SIG_DFL)
import sys
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

app = QApplication(sys.argv[:1])

def ready():
    window = next(w for w in app.topLevelWidgets() if w.objectName() == "mainWindow")
    window.zoom_by(1.3)     # something the quit must save
    print("READY", flush=True)

QTimer.singleShot(0, ready)   # runs once the app's event loop runs, the window shown
from gradviz.app import main
raise SystemExit(main([]))
"""


def _app(driver: str, settings: Path) -> subprocess.Popen:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", GRADVIZ_SETTINGS=str(settings))
    return subprocess.Popen([sys.executable, "-c", driver], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT, SIGTERM and SIGHUP are POSIX")
def test_ctrl_c_a_kill_or_a_closed_terminal_quit_cleanly_and_save_the_settings(tmp_path):
    """The app as a user starts it, three at once (independent launches, each with its
    settings file): Ctrl+C mid-training quits with status 130 and its window process never
    imported torch (the engine's process owns every tensor; B's records cross the pipe
    too); SIGTERM and SIGHUP quit with 128 + the signal. Each saves the settings; SIGTERM's
    app also starts on a newer version's file: quitting leaves it as it was and saves
    beside it, with one line each time that says so."""
    from test_settings_files import FOREIGN, warnings
    files = {name: tmp_path / f"{name}.json" for name in ("SIGINT", "SIGTERM", "SIGHUP")}
    files["SIGTERM"].write_bytes(FOREIGN["a newer version"])
    procs = {"SIGTERM": _app(KILL_DRIVER, files["SIGTERM"]),
             "SIGHUP": _app(KILL_DRIVER, files["SIGHUP"]),
             "SIGINT": _app(DRIVER, files["SIGINT"])}
    stderr = {}
    try:
        for name in ("SIGTERM", "SIGHUP"):
            assert procs[name].stdout.readline().strip() == "READY"   # the window is up
            procs[name].send_signal(getattr(signal, name))
        ready, b_steps, has_torch = procs["SIGINT"].stdout.readline().split()  # 5 steps
        assert ready == "READY" and int(b_steps) >= 5 and has_torch == "False"
        procs["SIGINT"].send_signal(signal.SIGINT)       # what the terminal sends
        for name, proc in procs.items():
            stderr[name] = proc.communicate(timeout=300)[1]
    finally:
        for proc in procs.values():
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
    for name, proc in procs.items():
        assert proc.returncode == 128 + getattr(signal, name), (name, stderr[name])
        assert "Traceback" not in stderr[name], (name, stderr[name])
    assert procs["SIGINT"].returncode == 130 and "KeyboardInterrupt" not in stderr["SIGINT"]
    lines = warnings(stderr["SIGTERM"])
    assert len(lines) == 2 and "version 3" in lines[0] and "version 3" in lines[1], lines
    assert files["SIGTERM"].read_bytes() == FOREIGN["a newer version"]
    files["SIGTERM"] = beside(files["SIGTERM"])
    for name, settings in files.items():
        saved = json.loads(settings.read_text())
        assert saved["version"] == 2 and saved["zoom"] == pytest.approx(1.3), name
