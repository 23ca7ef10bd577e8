"""Two recorded runs compared in the recorded-run window, smoke-tested: a folder of runs
offers its other runs as B, B's losses are drawn dashed beside A's and the header says
where they first differ, live as B's script appends; `--compare` picks B from the
start. (The verdict's numbers: tests/core/test_run_comparison.py.)"""
from __future__ import annotations

from gradviz.plain.records.records import StepRecord
from gradviz.plain.run_files.watch_stream import StreamWriter
from gradviz.qt.run_header import NO_COMPARISON
from gradviz.qt.run_window import RunWindow

from waits import WAIT_MS


def _write(folder, grads: list[float]) -> StreamWriter:
    writer = StreamWriter(folder, {"param_names": ["w"], "model": "Net"}).open()
    for step, g in enumerate(grads):
        writer.add_step(StepRecord(step=step, losses={"depth": 1.0 + step}, total=1.0 + step,
                                   grad_norms={"w": g}, global_grad_norm=g), 1)
    return writer


def _shown(qtbot, window: RunWindow) -> RunWindow:
    qtbot.addWidget(window)
    window.resize(1024, 700)
    window.show()
    window.first_layout()   # as gradviz open lays it out
    return window


def test_a_folder_of_runs_compares_the_run_shown_with_another(qtbot, tmp_path):
    _write(tmp_path / "exp1", [0.5, 0.5])
    later = _write(tmp_path / "exp2", [0.5, 0.5])
    w = _shown(qtbot, RunWindow(tmp_path))
    qtbot.waitUntil(lambda: w.header.compare.count() == 2, timeout=WAIT_MS)
    assert w.header.compare.currentText() == NO_COMPARISON
    # at a projector's size the gradient charts are tabs: side by side, the push chart
    # was 90 px wide beside the cosine matrix
    assert w.gradients_panel.compact
    assert not w.header.verdict.isVisible() and w.loss_plot.ghost is None
    w.header.compare.setCurrentText("exp2")   # as the user picks it
    qtbot.waitUntil(lambda: w.header.verdict.isVisible(), timeout=WAIT_MS)
    lines = w.header.verdict.text().splitlines()
    assert lines[0] == "A = exp1 · B = exp2"
    assert lines[1].startswith("same gradient norms at all 2 steps")
    assert w.loss_plot.ghost is w.source.compared.history   # B drawn dashed
    later.add_step(StepRecord(step=2, losses={"depth": 3.0}, total=3.0,
                              grad_norms={"w": 1.5}, global_grad_norm=1.5), 1)
    qtbot.waitUntil(lambda: len(w.source.compared.history) == 3, timeout=WAIT_MS)
    assert "all 2 steps both recorded" in w.header.verdict.text()   # the steps both have
    w.header.compare.setCurrentText(NO_COMPARISON)
    assert not w.header.verdict.isVisible() and w.loss_plot.ghost is None
    w.close()


def test_compare_from_the_start_tells_the_first_step_apart(qtbot, tmp_path):
    _write(tmp_path / "a", [0.5, 0.5, 0.5])
    _write(tmp_path / "b", [0.5, 1.0, 0.5])
    w = _shown(qtbot, RunWindow(tmp_path / "a", compare=tmp_path / "b"))
    qtbot.waitUntil(lambda: w.header.verdict.isVisible(), timeout=WAIT_MS)
    assert w.header.verdict.text().splitlines()[1] == (
        "different gradients from step 1: w's norm, B's 2× A's; 1 of 3 steps differ")
    assert not w.header.compare.isVisible()   # one run, not a folder of runs
    w.close()


def test_both_runs_bars_are_of_one_step_and_say_which(qtbot, tmp_path):
    # the same script, B's still early: A's newest bars (step 79) beside B's (step 29)
    # under a verdict of "identical" read as two different gradients
    grads = [0.1 * (1 + step) for step in range(80)]
    _write(tmp_path / "a", grads)
    b = _write(tmp_path / "b", grads[:30])
    w = _shown(qtbot, RunWindow(tmp_path / "a", compare=tmp_path / "b"))
    bars = w.grad_bars
    qtbot.waitUntil(lambda: bars.bar_step is not None and bars.bar_step.step == 29,
                    timeout=WAIT_MS)
    w.gradients_panel.tabs.setCurrentWidget(bars)
    qtbot.waitUntil(lambda: bars.data() == {"w": grads[29]}, timeout=WAIT_MS)
    assert bars.data_b() == {"w": grads[29]}
    assert "identical" in w.header.verdict.text()
    assert bars._title.text().endswith(", both at step 29 (the newest both have)")
    for step in range(30, 80):   # B catches up: both at A's newest
        b.add_step(StepRecord(step=step, losses={"depth": 1.0 + step}, total=1.0 + step,
                              grad_norms={"w": grads[step]}, global_grad_norm=grads[step]), 1)
    qtbot.waitUntil(lambda: bars._title.text().endswith(", both at step 79"), timeout=WAIT_MS)
    assert bars.data() == bars.data_b() == {"w": grads[79]}
    w.close()
