"""A recorded run's window as a TensorBoard user drives it, smoke-tested with 4 runs of a
folder drawn over each other: ticks, the smoothing slider, the x axis by step, time since
the start and wall time, the agreement over time beside the matrix, the menu bar's
exports and Quit. (The numbers: tests/plain/test_smoothing.py, test_x_axis.py; the
choices: test_viewer_controller.py.)"""
from __future__ import annotations

import csv

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage, QKeySequence

from gradviz.plain.charts.smoothing import Smoothed
from gradviz.plain.records.records import StepRecord
from gradviz.plain.run_files.watch_stream import StreamWriter
from gradviz.plain.runs.made_up_runs import write_run, write_runs
from gradviz.qt.run_window import RunWindow

from waits import WAIT_MS

STEPS = 60


def debiased_ema(values: np.ndarray, weight: float) -> np.ndarray:
    """The whole line smoothed at weight, as a chart's line is from its first point."""
    return Smoothed(weight).extend(values)


@pytest.fixture
def four(tmp_path):
    return [p.name for p in write_runs(tmp_path / "runs", runs=4, steps=STEPS, heads=3)]


def _window(qtbot, folder, size=(1280, 720)) -> RunWindow:
    w = RunWindow(folder)
    qtbot.addWidget(w)
    w.resize(*size)
    w.show()
    w.first_layout()   # as gradviz open lays it out
    return w


def _drawn(chart) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    return chart.data()


def _whole(chart, names, points=STEPS) -> bool:
    data = _drawn(chart)
    return sorted(data) == sorted(names) and all(len(x) == points for x, _ in data.values())


def test_four_runs_drawn_over_each_other_smoothed_along_time(qtbot, tmp_path, four):
    w = _window(qtbot, tmp_path / "runs")
    v = w.viewer
    # every run ticked, each in its own colour, on the loss and global-norm charts
    qtbot.waitUntil(lambda: _whole(v.runs_loss, four), timeout=WAIT_MS)
    assert v.sidebar.ticked() == four and v.runs_loss.isVisible()
    assert not w.loss_plot.isVisible() and v.runs_norm.isVisible()
    qtbot.waitUntil(lambda: _whole(v.runs_norm, four), timeout=WAIT_MS)
    legend = [label.item.toPlainText() for _, label in v.runs_loss.legend.items]
    assert legend == four
    colours = {name: c.opts["pen"].color().name() for name, c in v.runs_loss.curves().items()}
    assert len(set(colours.values())) == 4
    raw = {name: y.copy() for name, (_, y) in _drawn(v.runs_loss).items()}

    v.sidebar.slider.setValue(60)   # the user drags the smoothing to 0.6
    assert w.model.smoothing == 0.6 and v.sidebar.weight.text() == "0.60"
    qtbot.waitUntil(lambda: not np.array_equal(_drawn(v.runs_loss)[four[0]][1], raw[four[0]]),
                    timeout=WAIT_MS)
    for name in four:
        np.testing.assert_allclose(_drawn(v.runs_loss)[name][1],
                                   debiased_ema(raw[name], 0.6), rtol=1e-9)
    assert all(c.isVisible() for c in v.runs_loss._raw.values())   # raw values, faint

    v.sidebar.axis_buttons["wall"].click()
    qtbot.waitUntil(lambda: w.model.x_axis_shown == "wall", timeout=WAIT_MS)
    times = w.history.column("wall_time").copy()   # the shown run's: the first ticked
    qtbot.waitUntil(lambda: np.array_equal(_drawn(v.runs_loss)[four[0]][0], times),
                    timeout=WAIT_MS)
    assert v.runs_loss.plot.getAxis("bottom").labelText == "wall time"
    v.sidebar.axis_buttons["relative"].click()
    qtbot.waitUntil(lambda: _drawn(v.runs_loss)[four[0]][0][0] < 60, timeout=WAIT_MS)
    x = _drawn(v.runs_loss)[four[0]][0]
    started = w.source.run.header()["started"]
    np.testing.assert_allclose(x, times - started)   # seconds: the runs are a minute long
    assert v.runs_loss.plot.getAxis("bottom").labelText == "time since the run started (s)"

    # the agreement over time beside the newest matrix: each pair, each run
    w.gradients_panel.tabs.setCurrentIndex(2)
    qtbot.waitUntil(lambda: len(_drawn(v.cosine_lines)) == 4 * 3, timeout=WAIT_MS)
    assert v.cosine_lines.parentWidget() is w.cosine.parentWidget()
    values = w.history.column("cosine_pairs")[:, 1]   # (head0, head2)
    sampled = np.isfinite(values)   # the matrix's steps: every 20th
    pair = f"{four[0]} · head0 · head2"
    qtbot.waitUntil(lambda: len(_drawn(v.cosine_lines)[pair][0]) == sampled.sum(),
                    timeout=WAIT_MS)
    np.testing.assert_allclose(_drawn(v.cosine_lines)[pair][1],
                               debiased_ema(values[sampled], 0.6), rtol=1e-9)

    # two unticked: two runs drawn; a third: the one left gets its own charts again
    for row in (1, 3):
        v.sidebar.runs.item(row).setCheckState(Qt.CheckState.Unchecked)
    qtbot.waitUntil(lambda: sorted(_drawn(v.runs_loss)) == [four[0], four[2]],
                    timeout=WAIT_MS)
    v.sidebar.runs.item(2).setCheckState(Qt.CheckState.Unchecked)
    qtbot.waitUntil(lambda: w.loss_plot.isVisible() and not v.runs_loss.isVisible(),
                    timeout=WAIT_MS)
    qtbot.waitUntil(lambda: len(w.loss_plot.data().get("total", ((),))[0]) == STEPS,
                    timeout=WAIT_MS)
    assert not w.loss_plot.smoothing.isVisible()   # the slider smooths it
    np.testing.assert_allclose(w.loss_plot.data()["total"][0], times - started)
    np.testing.assert_allclose(w.loss_plot.data()["total"][1],
                               debiased_ema(w.history.column("total"), 0.6), rtol=1e-9)
    w.close()


def test_time_asked_of_a_run_without_it_is_drawn_by_step_and_said(qtbot, tmp_path):
    writer = StreamWriter(tmp_path, {"param_names": ["w"]}).open()
    for s in range(3):
        writer.add_step(StepRecord(step=s, losses={"a": 1.0 + s}, total=1.0 + s,
                                   grad_norms={"w": 0.5}, global_grad_norm=0.5), 1)
    w = _window(qtbot, tmp_path)
    qtbot.waitUntil(lambda: len(w.loss_plot.data()["total"][0]) == 3, timeout=WAIT_MS)
    assert not w.viewer.sidebar.runs.isVisible()   # one run: nothing to tick
    w.viewer.sidebar.axis_buttons["relative"].click()
    note = w.viewer.sidebar.axis_note
    qtbot.waitUntil(note.isVisible, timeout=WAIT_MS)
    assert note.text().startswith(f"by step: {tmp_path.name} recorded no time per step")
    assert list(w.loss_plot.data()["total"][0]) == [0.0, 1.0, 2.0]
    assert w.model.x_axis == "relative" and w.model.x_axis_shown == "step"
    w.close()


def test_a_ninth_run_is_refused_and_its_tick_taken_back(qtbot, tmp_path):
    for k in range(9):
        write_run(tmp_path / f"run{k}", k, steps=3)
    w = _window(qtbot, tmp_path)
    side = w.viewer.sidebar
    qtbot.waitUntil(lambda: side.runs.count() == 9, timeout=WAIT_MS)
    assert side.ticked() == [f"run{k}" for k in range(8)]
    side.runs.item(8).setCheckState(Qt.CheckState.Checked)
    assert side.runs_note.isVisible() and "untick one to tick run8" in side.runs_note.text()
    assert side.ticked() == [f"run{k}" for k in range(8)]   # not drawn: not ticked
    w.close()


def test_the_menu_bar_exports_and_quits(qtbot, tmp_path, four):
    w = _window(qtbot, tmp_path / "runs")
    qtbot.waitUntil(lambda: _whole(w.viewer.runs_loss, four), timeout=WAIT_MS)
    menu = w.menu
    assert menu.open_action.shortcut() == QKeySequence(QKeySequence.StandardKey.Open)
    assert menu.quit_action.shortcut() == QKeySequence(QKeySequence.StandardKey.Quit)
    assert [a.text() for a in w.menuBar().actions()] == ["&File"]

    path = menu.export_csv(str(tmp_path / "steps.csv"))
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    assert rows[0][:8] == ["step", "wall_time", "total", "loss.head0", "loss.head1",
                           "loss.head2", "global_grad_norm", "grad_norm.trunk.0.weight"]
    assert len(rows) == 1 + STEPS and rows[1][0] == "0"
    history = w.history
    assert float(rows[-1][2]) == history.column("total")[-1]
    assert float(rows[-1][1]) == history.column("wall_time")[-1]

    for which in ("window", "charts"):
        png = menu.export_png(which, str(tmp_path / f"{which}.png"))
        image = QImage(str(png))
        assert not image.isNull()
        shown = w if which == "window" else w.plot_stack
        assert (image.width(), image.height()) == (shown.width(), shown.height())

    other = w.open_other(str(tmp_path / "runs" / four[1]))   # File > Open run…, chosen
    qtbot.waitUntil(lambda: len(other.history) == STEPS, timeout=WAIT_MS)
    assert other.isVisible() and w.isVisible()
    other.menu.quit_action.trigger()   # Quit: that window, not this one
    assert not other.isVisible() and w.isVisible()
    menu.quit_action.trigger()
    assert not w.isVisible()


def test_a_ticked_run_picked_to_show_is_not_read_again(qtbot, tmp_path, four):
    w = _window(qtbot, tmp_path / "runs")
    qtbot.waitUntil(lambda: _whole(w.viewer.runs_loss, four), timeout=WAIT_MS)
    ticked = w.viewer.run_set.runs[four[2]]
    w.header.runs.setCurrentText(four[2])   # the user picks it in the header
    assert w.source.run is ticked
    qtbot.waitUntil(lambda: w.model.head_names == ("head0", "head1", "head2")
                    and len(w.history) == STEPS and any(w.grad_bars.data().values()),
                    timeout=WAIT_MS)
    assert w.history is ticked.history
    assert f"{four[2]}: MadeUpNet, {STEPS} steps" in w.header.status.text()
    w.close()


def test_a_mixed_precision_run_s_scale_follows_the_time_axis(qtbot, tmp_path):
    import pyqtgraph as pg

    writer = StreamWriter(tmp_path, {"param_names": ["w"], "started": 1000.0}).open()
    for s, scale in enumerate([65536.0, 32768.0, 32768.0]):
        writer.add_step(StepRecord(step=s, losses={"a": 1.0}, total=1.0, grad_norms={"w": 0.5},
                                   global_grad_norm=0.5, amp_scale=scale,
                                   amp_skipped=s == 1), 1, wall_time=1010.0 + 10 * s)
    w = _window(qtbot, tmp_path)
    norm = w.global_norm
    qtbot.waitUntil(lambda: norm.scale_plot is not None
                    and len(norm.scale_plot.curve.xData) == 3, timeout=WAIT_MS)
    w.viewer.sidebar.axis_buttons["wall"].click()
    qtbot.waitUntil(lambda: list(norm.scale_plot.curve.xData) == [1010.0, 1020.0, 1030.0],
                    timeout=WAIT_MS)
    # the row under the norm carries the chart's x axis: clock times, one axis
    assert isinstance(norm.scale_plot.plot.getAxis("bottom"), pg.DateAxisItem)
    assert not isinstance(norm.plot.getAxis("bottom"), pg.DateAxisItem)
    assert list(norm.data()["global grad norm"][0]) == [1010.0, 1020.0, 1030.0]
    w.close()
