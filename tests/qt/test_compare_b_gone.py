"""The app with B pinned in a process of its own: B's process killed while its
comparison sits paused is said in the Compare dock, in words, without a step of A's (it
was said only at A's next step: paused, the dock said nothing for as long as A stayed
paused). The engine runs on a thread of the test, as window tests run it, with B in a
process of its own, as the app's engine pins it (on a thread it would pin B beside A)."""
import os
import signal

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextDocument

from gradviz.engine import engine_main
from gradviz.engine.b_runner import ProcessB
from gradviz.plain.config.config import Config

from waits import WAIT_MS

pytestmark = pytest.mark.skipif(os.name != "posix", reason="B's process needs POSIX")


def _dock(w) -> str:
    """The dock's verdict and details as a reader sees them (they are rich text)."""
    view = w.compare.view
    document = QTextDocument()
    document.setHtml(view.verdict.text() + "<br>" + view.details.text())
    return document.toPlainText()


def test_b_killed_while_its_comparison_sits_paused_is_said_in_the_dock(
        qtbot, make_window, monkeypatch):
    loop_class = engine_main.EngineLoop

    def b_in_a_process(config, b_in_own_process=False, **kwargs):
        return loop_class(config, b_in_own_process=True, **kwargs)
    monkeypatch.setattr(engine_main, "EngineLoop", b_in_a_process)
    w = make_window(Config(device="cpu", batch_size=16))
    w.compare.pin_settings()                      # B beside A, in a process of its own
    qtbot.keyClick(w, Qt.Key_Space)
    qtbot.waitUntil(lambda: len(w.compare.history_b or ()) > 2, timeout=WAIT_MS)
    qtbot.keyClick(w, Qt.Key_Space)
    session = w.engine.loop.session
    qtbot.waitUntil(lambda: not w.model.running and len(w.history) == session.step_index,
                    timeout=WAIT_MS)   # paused, every step of A's shown
    steps = session.step_index
    runner = w.engine.loop.pinning.pinned.b
    assert isinstance(runner, ProcessB) and runner.pid != os.getpid()
    os.kill(runner.pid, signal.SIGKILL)
    qtbot.waitUntil(lambda: "B's engine process stopped (exit code -9 / killed by signal "
                    "SIGKILL)." in _dock(w), timeout=WAIT_MS)
    assert "B stopped at step" in _dock(w)
    assert not w.model.running and session.step_index == steps   # A stayed paused
