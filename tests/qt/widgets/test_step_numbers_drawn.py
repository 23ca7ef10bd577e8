"""What the panels say of a parameter without a gradient (None, not a bar of 0), of the
trunk's step and of a head's loss change split in two; and what the memory panel says
its peak counts."""
import numpy as np

from gradviz.plain.records.history import History
from gradviz.plain.records.records import StepRecord
from gradviz.qt.widgets.grad_views import NO_GRAD_KEY, NO_GRAD_MARK, CosineHeatmap, GradNormBars
from gradviz.qt.widgets.memory_plot import PEAK, MemoryPlot

from panel_data import head_names, param_names


def _record(norms: dict, **more) -> StepRecord:
    return StepRecord(0, {h: 1.0 for h in head_names(3)}, 3.0, norms, **more)


def test_a_parameter_without_a_gradient_is_marked_not_drawn_as_zero(show):
    panel = show(GradNormBars)
    names = param_names(3)
    norms = {n: (None if n.startswith("trunk") else 0.5) for n in names}
    norms["heads.1.2.bias"] = 0.0   # a gradient of zeros: a bar of 0, no mark
    history = History(head_names(3), names)
    history.append(_record(norms))
    panel.update_from(history)
    trunk = [n for n in names if n.startswith("trunk")]
    assert panel.missing() == trunk
    marks = [m for m in panel._marks]
    assert len(marks) == len(trunk)
    assert all(m.toPlainText() == NO_GRAD_MARK and "None" in m.toolTip() for m in marks)
    assert panel._title.text().endswith(NO_GRAD_KEY)
    # the next step with every gradient there: no marks, no key
    history.append(_record({n: 0.5 for n in names}))
    panel.update_from(history)
    assert panel.missing() == [] and not panel._marks
    assert not panel._title.text().endswith(NO_GRAD_KEY)


def test_history_keeps_none_apart_from_zero():
    names = ["a.weight", "a.bias"]
    history = History(["head0"], names)
    history.append(StepRecord(0, {"head0": 1.0}, 1.0, {"a.weight": None, "a.bias": 0.0}))
    history.append(StepRecord(1, {"head0": 1.0}, 1.0))   # not sampled
    missing = history.column("grad_missing")
    assert missing[0].tolist() == [1.0, 0.0] and np.isnan(missing[1]).all()
    assert history.last_grad_norms == {"a.weight": None, "a.bias": 0.0}


def test_the_cosine_panel_reads_the_step_and_a_losing_heads_two_parts(show):
    panel = show(CosineHeatmap)
    names = head_names(3)
    history = History(names, [])
    history.append(_record(None, update_cosine={"head0": 0.24, "head1": -0.016,
                                                "head2": 0.97},
                           trunk_grad_norm=2.352, trunk_step=0.1176,
                           trunk_step_vs_sum=1.0,
                           loss_change={"head0": -0.05, "head1": -0.0021, "head2": -0.13},
                           loss_change_trunk={"head0": -0.015, "head1": 0.00032,
                                              "head2": -0.065},
                           loss_change_head={"head0": -0.04, "head1": -0.0025,
                                             "head2": -0.073}))
    panel.update_from(history)
    lines = panel.update_line.text().splitlines()
    assert lines[0].startswith("with the update: head0 +0.24")
    assert lines[1] == "trunk step 0.118 (gradient 2.35) · 1.00× the sum's"
    assert lines[2] == "head1: loss −0.0021 · trunk +0.00032 · own layers −0.0025"
    assert len(lines) == 3   # heads the update helps get no line
    assert "optimizer.step()" in panel.update_line.toolTip()


def test_the_memory_panel_says_what_its_peak_counts(show):
    panel = show(MemoryPlot)
    assert PEAK == "peak after forward"
    tip = panel.plot_widget.toolTip()
    assert "saved for backward" in tip and "after each forward" in tip
    # what is counted: the storages kept alive, and beside them the tensors' own bytes
    assert "storages" in tip and "whole tensor it was cut from" in tip
    assert "own elements" in tip
    assert "Gradients (.grad)" in tip and "not counted" in tip
