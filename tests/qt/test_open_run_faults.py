"""A recorded run's window never dies from a folder's data: what raises while it reads
the folder or draws a panel is one line in its status line, the window stays and looks
again, and shows the run once the fault is gone. A fault of the window's own code (an
exception that reaches Qt's event loop) ends `gradviz open` with its own exit status
and one line, never a traceback and a 0."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QTimer

from gradviz.exit_codes import EXIT_WINDOW_FAILED
from gradviz.plain.records.records import StepRecord
from gradviz.plain.run_files.watch_stream import StreamWriter
from gradviz.plain.runs.recorded_run import RecordedRun
from gradviz.qt.launch import SETTINGS_ENV
from gradviz.qt.run_launch import launch_run
from gradviz.qt.run_source import POLL_MS
from gradviz.qt.run_window import RunWindow

from waits import WAIT_MS


def _record(step: int) -> StepRecord:
    return StepRecord(step=step, losses={"depth": 1.0 + step}, total=1.0 + step,
                      grad_norms={"w": 0.5 + step}, global_grad_norm=0.5 + step)


@pytest.fixture
def run(tmp_path):
    writer = StreamWriter(tmp_path / "run", {"param_names": ["w"], "model": "Net"}).open()
    for step in range(2):
        writer.add_step(_record(step), 1)
    return writer


@pytest.fixture
def window(qtbot, run):
    w = RunWindow(run.folder)
    qtbot.addWidget(w)
    w.resize(1024, 700)
    w.show()
    qtbot.waitUntil(lambda: _totals(w) == [1.0, 2.0], timeout=WAIT_MS)
    yield w
    w.close()


def _totals(w) -> list[float]:
    return list(w.loss_plot.data().get("total", ((), ()))[1])


def _norms(w) -> list[float]:
    return list(w.global_norm.data().get("global grad norm", ((), ()))[1])


class Breaks:
    """Makes a method raise while on, as a reader or a panel meeting odd data would."""

    def __init__(self, monkeypatch, owner, name: str, error: Exception):
        self.on, self.calls = True, 0
        original = getattr(owner, name)

        def broken(*args, **kwargs):
            if self.on:
                self.calls += 1
                raise error
            return original(*args, **kwargs)
        monkeypatch.setattr(owner, name, broken)


def test_a_reader_that_raises_is_one_line_and_the_window_looks_again(
        qtbot, monkeypatch, window, run):
    w = window
    breaks = Breaks(monkeypatch, RecordedRun, "poll",
                    ValueError("line 3 of steps.jsonl:\nnot a step"))
    qtbot.waitUntil(lambda: "Could not read" in w.header.status.text(), timeout=WAIT_MS)
    assert w.header.status.text() == (
        "Could not read run: ValueError: line 3 of steps.jsonl: not a step "
        f"(the window goes on; looked at again every {POLL_MS} ms)")
    calls = breaks.calls
    qtbot.waitUntil(lambda: breaks.calls > calls + 1, timeout=WAIT_MS)   # it looks again
    assert w.isVisible() and w.source.timer.isActive() and _totals(w) == [1.0, 2.0]
    run.add_step(_record(2), 1)
    breaks.on = False                      # the reader reads again: so does the window
    qtbot.waitUntil(lambda: _totals(w) == [1.0, 2.0, 3.0], timeout=WAIT_MS)
    qtbot.waitUntil(lambda: "Could not" not in w.header.status.text(), timeout=WAIT_MS)
    assert "3 steps (0 to 2)" in w.header.status.text()


def test_a_panel_that_raises_is_one_line_and_the_others_are_drawn(
        qtbot, monkeypatch, window, run):
    w = window
    Breaks(monkeypatch, w.loss_plot, "update_from", OverflowError("cannot draw 1e999"))
    run.add_step(_record(2), 1)
    qtbot.waitUntil(lambda: "Could not draw" in w.header.status.text(), timeout=WAIT_MS)
    assert w.header.status.text().startswith(
        "Could not draw Loss per head and total: OverflowError: cannot draw 1e999 "
        "(the window goes on")
    qtbot.waitUntil(lambda: _norms(w) == [0.5, 1.5, 2.5], timeout=WAIT_MS)   # the others
    monkeypatch.undo()
    run.add_step(_record(3), 1)            # its next data: drawn again, the line gone
    qtbot.waitUntil(lambda: _totals(w) == [1.0, 2.0, 3.0, 4.0], timeout=WAIT_MS)
    qtbot.waitUntil(lambda: "Could not" not in w.header.status.text(), timeout=WAIT_MS)


def test_a_fault_of_the_window_itself_ends_it_with_its_status_and_one_line(
        qtbot, monkeypatch, capsys, run, tmp_path):
    monkeypatch.setenv(SETTINGS_ENV, str(tmp_path / "settings.json"))
    first_layout = RunWindow.first_layout

    def then_a_fault(self):
        first_layout(self)
        QTimer.singleShot(0, lambda: {}["no such key"])   # once the event loop runs
    monkeypatch.setattr(RunWindow, "first_layout", then_a_fault)
    assert launch_run(str(run.folder)) == EXIT_WINDOW_FAILED
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(
        "gradviz: the window failed: KeyError: 'no such key' at tests/qt/"
        "test_open_run_faults.py:"), err
    assert err[0].endswith(f"it is closed (exit status {EXIT_WINDOW_FAILED})")


def test_b_beside_a_run_with_no_step_yet_is_drawn_without_a_fault(qtbot, tmp_path):
    """B read before A's first step: the gradient bars had B's beside none of A's, and
    pyqtgraph raised on the empty list of their pens."""
    StreamWriter(tmp_path / "a", {"param_names": ["w"], "model": "Net"}).open()
    b = StreamWriter(tmp_path / "b", {"param_names": ["w"], "model": "Net"}).open()
    b.add_step(_record(0), 1)
    w = RunWindow(tmp_path, compare=tmp_path / "b")
    qtbot.addWidget(w)
    w.show()
    qtbot.waitUntil(lambda: w.grad_bars.ghost is not None, timeout=WAIT_MS)
    w.refresh()
    assert "no finished step yet" in w.header.status.text()
    assert "Could not" not in w.header.status.text()
    w.close()
