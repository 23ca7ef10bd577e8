"""The bench's hold watch: off unless asked for; asked for, a hold of the event loop
leaves the held thread's stack and the hold's length in its file."""
import time

from PySide6.QtCore import QObject

from gradviz.qt.hold_watch import HOLD_S, HOLD_STACKS_ENV, HoldWatch, watch_holds


def test_no_watch_unless_asked_for(monkeypatch, qtbot):
    monkeypatch.delenv(HOLD_STACKS_ENV, raising=False)
    assert watch_holds(QObject()) is None


def _hold_the_event_loop(path) -> None:
    """The loop held (no event handled) until the watch has written this stack."""
    deadline = time.monotonic() + 30
    while "in _hold_the_event_loop" not in path.read_text() and time.monotonic() < deadline:
        pass


def test_a_hold_leaves_the_held_stack_and_its_length(qtbot, tmp_path):
    path = tmp_path / "holds.txt"
    parent = QObject()
    with open(path, "w", encoding="utf-8") as out:
        watch = HoldWatch(parent, out)
        try:
            _hold_the_event_loop(path)
            qtbot.waitUntil(lambda: "HOLD" in path.read_text(), timeout=5000)
        finally:
            watch.stop()
    text = path.read_text()
    assert "in _hold_the_event_loop" in text
    held_ms = int(text.split("HOLD ")[1].split(" ms")[0])
    assert held_ms >= HOLD_S * 1000
