"""The real two-process app: the window never imports torch, survives its engine being
killed or hanging (and says so in "What happened"), Reset starts a fresh engine with
the same settings, and closing ends the engine at once."""
import os
import signal
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from gradviz.engine import protocol as p
from gradviz.plain.config import Config
from gradviz.qt import engine_client
from gradviz.qt.settings import Remembered

from waits import WAIT_MS, on_record, on_running

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

SMALL = Config(batch_size=32, device="cpu", strategy="separate", heads=2)
NO_TORCH = """
import sys
import gradviz.qt.main_window, gradviz.qt.launch, gradviz.qt.screenshot
assert "torch" not in sys.modules, "importing the window's modules loaded torch"
if __name__ == "__main__":
    import os, tempfile
    from PySide6.QtWidgets import QApplication
    from gradviz.plain.config import Config
    from gradviz.qt.main_window import MainWindow
    from gradviz.qt.settings import AppSettings, Remembered
    app = QApplication([])
    w = MainWindow(Remembered(Config()), AppSettings(os.path.join(tempfile.mkdtemp(), "s.json")))
    w.show()
    end = __import__("time").monotonic() + 60
    while w.model.generation < 1 and __import__("time").monotonic() < end:
        app.processEvents()
    w.compare.pin_settings()        # B's records cross the pipe too
    w.toggle_play()
    while (w.compare.history_b is None or len(w.compare.history_b) < 5) \
            and __import__("time").monotonic() < end:
        app.processEvents()
        w.refresh()
    print("steps", len(w.compare.history_b or ()), "torch" in sys.modules, flush=True)
    w.close()
"""


def test_the_window_process_never_imports_torch(run_script):
    out = run_script(NO_TORCH, "no_torch.py")
    assert out.returncode == 0, out.stderr
    count, has_torch = out.stdout.split()[1:3]
    assert int(count) >= 5 and has_torch == "False", out.stdout


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


def _children(pid: int) -> list[int]:
    """The processes whose parent is pid (Linux's /proc; elsewhere none are found)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:   # ended while we looked
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def _running(pid: int) -> bool:
    """pid is a process that has not ended (a zombie waiting to be reaped has)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _compared(w) -> int:
    w.refresh()
    return len(w.compare.history_b or ())


def test_compare_a_killed_engine_and_reset_with_the_settings_it_had(qtbot, real_window):
    """B's process starts when the Compare menu opens and the pin uses it; killing the
    engine (as the out-of-memory killer does) ends B's process too and leaves the window
    saying what happened; Reset starts a fresh engine with the same settings, B pinned."""
    from PySide6.QtCore import QPoint
    linux = sys.platform.startswith("linux")     # the processes are looked for in /proc
    w = real_window(SMALL.replace(trunk_width=48))
    qtbot.waitUntil(lambda: w.model.generation >= 1, timeout=60_000)
    assert _children(w.engine.pid) == []
    w.compare.menu.popup(w.mapToGlobal(QPoint(40, 40)))   # the user opens Compare
    if linux:
        qtbot.waitUntil(lambda: len(_children(w.engine.pid)) == 1, timeout=WAIT_MS)
    started_ahead = _children(w.engine.pid)
    w.compare.menu.hide()
    w.activateWindow()                          # the window's keys again, not the menu's
    qtbot.waitUntil(lambda: QApplication.activeWindow() is w, timeout=WAIT_MS)
    w.compare.pin_settings()                    # B beside A, in a process of the engine's
    qtbot.waitUntil(lambda: w.model.generation >= 1, timeout=60_000)
    _train(qtbot, w, 20)
    qtbot.waitUntil(lambda: _compared(w) > 0, timeout=WAIT_MS)
    assert _children(w.engine.pid) == started_ahead      # the pin used that process
    config, generation = w.model.confirmed, w.model.generation
    b_processes = _children(w.engine.pid)
    assert len(b_processes) == (1 if linux else 0)
    os.kill(w.engine.pid, signal.SIGKILL)
    qtbot.waitUntil(lambda: not w.engine.alive, timeout=WAIT_MS)
    # B's process ends with the engine (it reads the end of its socket): none is left
    qtbot.waitUntil(lambda: not any(_running(pid) for pid in b_processes), timeout=WAIT_MS)
    assert w.isVisible() and not w.model.running
    text = w.events_view.text()
    assert "The training engine stopped (exit code -9 / killed by signal SIGKILL)" in text
    assert "Press Reset (R)" in text
    assert "the system does to a process that runs out of memory" in text
    assert "trunk_width=48" in text and "Shift+R with the default settings" in text
    qtbot.keyClick(w, Qt.Key_R)                           # a fresh engine, same settings
    assert "with the settings it had (" in w.phase_label.text()
    assert "trunk_width=48" in w.phase_label.text()
    qtbot.waitUntil(lambda: w.engine.alive and w.model.generation > generation,
                    timeout=60_000)
    assert w.model.confirmed == config and w.model.confirmed.trunk_width == 48
    assert w.controls.config() == config
    _train(qtbot, w, 20)
    assert w.history.last.losses.keys() == {"head0", "head1"}
    qtbot.waitUntil(lambda: _compared(w) > 0, timeout=WAIT_MS)   # B pinned in the fresh one
    assert "same gradients" in w.compare.view.record.verdict


def _stop_and_wait_for_the_window_to_notice(qtbot, w) -> None:
    """SIGSTOP the engine (it stops making progress) until the window has ended it."""
    pid = w.engine.pid
    os.kill(pid, signal.SIGSTOP)
    try:
        qtbot.waitUntil(lambda: not w.engine.alive, timeout=WAIT_MS)
    finally:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def test_play_phase_by_phase_in_the_real_engine_and_after_a_fresh_one(qtbot, real_window):
    """The toggle reaches the engine process, and a fresh engine (after a kill and
    Reset) is told again: Play goes on phase by phase with it too; after another kill,
    Shift+R starts one with the default settings."""
    w = real_window(SMALL.replace(heads=3))
    qtbot.waitUntil(lambda: w.model.generation >= 1, timeout=60_000)
    phases, graphs = [], []
    on_record(w.engine, p.PhaseDone, lambda _r: phases.append(w.phase_label.text()))
    on_record(w.engine, p.Graph, lambda r: graphs.append(r.when))
    qtbot.keyClick(w, Qt.Key_P)                           # phase by phase
    assert w.run_bar.phase_play.isChecked()
    qtbot.keyClick(w, Qt.Key_Space)
    qtbot.waitUntil(lambda: len(phases) >= 6, timeout=60_000)
    for text, detail in zip(phases, ["zero_grad", "forward", "backward 1 of 3",
                                     "backward 2 of 3", "backward 3 of 3", "optimizer step"]):
        assert detail in text, (detail, text)
    assert "after backward 2 of 3: head1 (retain_graph=True)" in graphs
    generation = w.model.generation
    os.kill(w.engine.pid, signal.SIGKILL)
    qtbot.waitUntil(lambda: not w.engine.alive, timeout=WAIT_MS)
    qtbot.keyClick(w, Qt.Key_R)                           # a fresh engine
    qtbot.waitUntil(lambda: w.model.generation > generation, timeout=60_000)
    del phases[:]
    qtbot.keyClick(w, Qt.Key_Space)
    qtbot.waitUntil(lambda: len(phases) >= 3, timeout=60_000)
    qtbot.keyClick(w, Qt.Key_Space)
    qtbot.waitUntil(lambda: not w.model.running, timeout=WAIT_MS)
    assert "zero_grad" in phases[0] and "forward" in phases[1] and "backward 1 of 3" in phases[2]
    assert all(t.startswith("Playing phase by phase · Step 0 ·") for t in phases[:3])
    os.kill(w.engine.pid, signal.SIGKILL)
    qtbot.waitUntil(lambda: not w.engine.alive, timeout=60_000)
    generation = w.model.generation
    qtbot.keyClick(w, Qt.Key_R, Qt.ShiftModifier)   # a fresh engine, the defaults this time
    qtbot.waitUntil(lambda: w.engine.alive and w.model.generation > generation,
                    timeout=60_000)
    assert w.model.confirmed == w.model.requested == Config()


def test_a_slide_stop_is_exact_and_an_engine_that_stops_answering_is_ended(
        qtbot, real_window, monkeypatch):
    from gradviz.plain.lessons import parse_lesson
    monkeypatch.setattr(engine_client, "SILENT_SECONDS", 1.0)
    w = real_window()
    qtbot.waitUntil(lambda: w.model.generation >= 1, timeout=60_000)
    generation = w.model.generation
    w.lessons.open(parse_lesson("fast", '''title = "t"
[[slides]]
title = "s"
narration = "n"
config = { device = "cpu", heads = 2, batch-size = 16 }
pace = 0
stop = 30
autoplay = false
'''))
    qtbot.waitUntil(lambda: w.model.generation > generation, timeout=60_000)
    running = []
    on_running(w, running.append)
    qtbot.keyClick(w, Qt.Key_Space)
    qtbot.waitUntil(lambda: running == [True, False], timeout=60_000)
    w.refresh()
    assert len(w.history) == 30 and w.history.last.step == 29
    _train(qtbot, w, 5)                                 # Play goes on past the stop
    _stop_and_wait_for_the_window_to_notice(qtbot, w)   # a step that never ends
    assert "showed no sign of life for 1 s" in w.events_view.text()
    assert w.isVisible()


def test_a_slow_start_is_waited_out_and_shown_not_declared_dead(qtbot, real_window,
                                                                 monkeypatch):
    """A busy laptop took 13-14 s to import torch: an engine that takes longer than the
    silence limit to start, beating all the while, is waited for, and the window says
    what it is doing."""
    monkeypatch.setenv("GRADVIZ_SLOW_START", "4")
    monkeypatch.setattr(engine_client, "SILENT_SECONDS", 1.0)
    w = real_window()
    said, failures = [], []
    on_record(w.engine, p.Notice, lambda r: said.append(r.text))
    on_record(w.engine, p.Failed, failures.append)
    qtbot.waitUntil(lambda: w.model.generation >= 1, timeout=120_000)
    assert failures == [] and w.engine.alive
    importing = [line for line in said if "importing torch" in line]
    assert importing, said
    seconds = [int(line.rsplit("(", 1)[1].split()[0]) for line in importing]
    assert max(seconds) >= 2   # shown as it went on, past the silence limit
    _train(qtbot, w, 5)


def test_an_engine_stopped_while_starting_is_still_detected(qtbot, real_window,
                                                             monkeypatch):
    monkeypatch.setenv("GRADVIZ_SLOW_START", "60")
    monkeypatch.setattr(engine_client, "SILENT_SECONDS", 1.0)
    w = real_window()
    qtbot.waitUntil(lambda: w.model.engine_stage == "importing torch", timeout=60_000)
    _stop_and_wait_for_the_window_to_notice(qtbot, w)   # no longer making progress
    assert "showed no sign of life for 1 s" in w.events_view.text()
