"""A recorded run's window, smoke-tested: it draws a folder's steps as the script
appends them, says that nothing trains here, shows ranks side by side. (A folder dropped
on the main window opens in one: test_desktop_habits.py; what it reads:
tests/plain/test_recorded_run.py.)"""
from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from gradviz.plain.graph.graph_data import LOSS, PARAM, GraphData, GraphEdge, GraphNode
from gradviz.plain.records.records import StepRecord
from gradviz.plain.run_files.watch_stream import StreamWriter
from gradviz.qt.run_header import RECORDED_ONLY
from gradviz.qt.run_window import RUNS_MS, RunWindow

from waits import WAIT_MS


def _record(step: int, a: float = 1.0) -> StepRecord:
    return StepRecord(step=step, losses={"depth": a + step, "seg": 2.0},
                      total=a + step + 2.0, grad_norms={"w": 0.5}, global_grad_norm=0.5)


def _writer(folder) -> StreamWriter:
    return StreamWriter(folder, {"param_names": ["w"], "model": "Net"}).open()


@pytest.fixture
def open_run(qtbot):
    made = []

    def make(folder) -> RunWindow:
        window = RunWindow(folder)
        qtbot.addWidget(window)
        window.resize(1024, 700)
        window.show()
        made.append(window)
        return window

    yield make
    for window in made:
        window.close()


def _totals(window) -> list[float]:
    return list(window.loss_plot.data().get("total", ((), ()))[1])


def test_the_window_follows_the_folder_and_trains_nothing(qtbot, open_run, tmp_path):
    writer = _writer(tmp_path)
    writer.add_graph(0, GraphData(nodes=[GraphNode("p", PARAM, "w", shape=(2,)),
                                         GraphNode("l", LOSS, "depth")],
                                  edges=[GraphEdge("l", "p")]).to_dict())
    for step in range(2):
        writer.add_step(_record(step), 1)
    w = open_run(tmp_path)
    qtbot.waitUntil(lambda: _totals(w) == [3.0, 4.0], timeout=WAIT_MS)
    assert w.header.why.text() == RECORDED_ONLY and w.header.why.isVisible()
    assert not w.run_bar.isVisible() and not w.controls_dock.isVisible()
    assert "following the folder as the script writes it" in w.header.status.text()
    writer.add_step(_record(2), 1)   # the script goes on: the window follows
    qtbot.waitUntil(lambda: _totals(w) == [3.0, 4.0, 5.0], timeout=WAIT_MS)
    writer.close(3)
    qtbot.waitUntil(lambda: w.header.status.text().endswith("3 steps (0 to 2); finished"),
                    timeout=WAIT_MS)
    qtbot.waitUntil(lambda: w.graph_view.graph is not None, timeout=WAIT_MS)
    assert {n.label for n in w.graph_view.graph.nodes} >= {"depth"}


def test_ranks_side_by_side(qtbot, open_run, tmp_path):
    for rank, a in ((0, 1.0), (1, 3.0)):
        writer = _writer(tmp_path / f"rank-{rank}")
        for step in range(2):
            writer.add_step(_record(step, a), 1)
    w = open_run(tmp_path)
    qtbot.waitUntil(lambda: _totals(w) == [3.0, 4.0], timeout=WAIT_MS)
    assert w.header.streams.isVisible() and w.header.streams.currentText() == "rank-0"
    lines = w.header.ranks.text().splitlines()
    assert lines[2] == ("ranks agree: equal gradient norms at all 2 steps they share "
                        "(norms only: no gradient fingerprints recorded)")
    assert w.loss_plot.ghost_label == "rank-1 (dashed)"   # the other rank, dashed
    assert w.grad_bars._title.text().startswith(
        "Gradient norm per parameter: rank-0 | rank-1 (pale)")
    w.header.streams.setCurrentText("rank-1")
    qtbot.waitUntil(lambda: _totals(w) == [5.0, 6.0], timeout=WAIT_MS)


def test_a_folder_of_runs_not_there_yet_waits_then_lists_them(qtbot, open_run, tmp_path):
    runs = tmp_path / "runs"
    w = open_run(runs)
    # the window's own timer lists the folder again; at its 2 s the test waited 2 s
    assert w.runs_timer.isActive() and w.runs_timer.interval() == RUNS_MS
    w.runs_timer.setInterval(50)
    qtbot.waitUntil(lambda: "no such folder" in w.header.status.text(), timeout=WAIT_MS)
    for name, a in (("exp2", 3.0), ("exp1", 1.0)):
        _writer(runs / name).add_step(_record(0, a), 1)
    # both listed, ticked and drawn over each other, each run its own line
    qtbot.waitUntil(lambda: _run_totals(w) == {"exp1": [3.0], "exp2": [5.0]},
                    timeout=WAIT_MS)
    assert [w.header.runs.itemText(i) for i in range(w.header.runs.count())] == \
        ["exp1", "exp2"]
    assert w.source.run.folder.name == "exp1"   # its panels', listed first
    w.header.runs.setCurrentText("exp2")
    qtbot.waitUntil(lambda: f"{runs / 'exp2'}: Net, 1 step" in w.header.status.text(),
                    timeout=WAIT_MS)
    w.viewer.controller.tick("exp1", False)   # one run ticked: its own charts again
    qtbot.waitUntil(lambda: _totals(w) == [5.0], timeout=WAIT_MS)


def _run_totals(window) -> dict[str, list[float]]:
    return {name: list(y) for name, (_, y) in window.viewer.runs_loss.data().items()}


def test_a_mixed_precision_run_draws_its_scale_and_marks_skipped_steps(
        qtbot, open_run, tmp_path):
    writer = _writer(tmp_path)
    scales = [65536.0, 32768.0, 32768.0, 65536.0]
    for step, scale in enumerate(scales):
        record = _record(step)
        record.amp_scale, record.amp_skipped = scale, step == 1
        writer.add_step(record, 1)
    w = open_run(tmp_path)
    qtbot.waitUntil(lambda: w.global_norm.scale_plot is not None, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: len(w.global_norm.scale_plot.curve.xData) == 4, timeout=WAIT_MS)
    assert list(w.global_norm.scale_plot.curve.xData) == [0, 1, 2, 3]
    assert w.global_norm.scale_plot.scales() == scales   # drawn as powers of two
    assert w.global_norm.skipped_steps() == [1]
    assert w.global_norm._title.text() == "Global gradient norm · AMP 2^16, 1 skipped"


def test_a_line_the_reader_skips_is_said_under_the_status_and_the_rest_drawn(
        qtbot, open_run, tmp_path):
    writer = _writer(tmp_path)
    for step in range(2):
        writer.add_step(_record(step), 1)
    with open(tmp_path / "steps.jsonl", "a", encoding="utf-8") as f:
        f.write('{"step": "abc", "losses": [1]}\n')   # a stranger's broken line
    writer.add_step(_record(2), 1)
    w = open_run(tmp_path)
    qtbot.waitUntil(lambda: _totals(w) == [3.0, 4.0, 5.0], timeout=WAIT_MS)
    qtbot.waitUntil(lambda: w.header.notes.isVisible(), timeout=WAIT_MS)
    note = w.header.notes.text()
    assert note.startswith(f"{tmp_path / 'steps.jsonl'}:3: ") and "\n" not in note
    assert w.header.notes.textFormat() == Qt.TextFormat.PlainText
