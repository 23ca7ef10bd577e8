"""The torchjd strategies in the window: chosen in the settings, applied by the engine,
shown in the code panel, and each head's cosine with the trunk update under the matrix."""
import math

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QLabel

from gradviz.plain.config.config import Config

from waits import WAIT_MS

# lesson 13's settings: head 2 weighted 4, head 1 conflicts with the sum at the start
CONFLICT = Config(heads=3, loss_weights=(1.0, 1.0, 4.0), batch_size=64)


def _update_line(w) -> QLabel:
    """The line under the cosine matrix, its dock (and tab) brought to the front."""
    w.gradients_dock.raise_()
    if w.gradients_panel.compact:
        w.gradients_panel.tabs.setCurrentWidget(w.cosine)
    label = w.findChild(QLabel, "cosineUpdateLine")
    assert label is not None
    return label


def _step_once(qtbot, w, steps_before: int) -> None:
    qtbot.keyClick(w, Qt.Key_Right, Qt.ShiftModifier)   # one step

    def arrived():
        w.refresh()
        return len(w.history) > steps_before
    qtbot.waitUntil(arrived, timeout=WAIT_MS)


def _shown(label: QLabel) -> dict[str, float]:
    """'with the update: head0 +0.24 · head1 −0.02 · …' -> {head: value}."""
    text = label.text().splitlines()[0].split(": ", 1)[1]   # then the step's readout
    out = {}
    for part in text.split(" · "):
        name, value = part.split(" ")
        out[name] = math.nan if value == "–" else float(value.replace("−", "-"))
    return out


def test_choosing_upgrad_the_engine_aggregates_and_no_head_is_worked_against(qtbot,
                                                                           shared_window):
    w = shared_window(CONFLICT)
    combo = w.controls.findChild(QComboBox, "strategyCombo")
    assert combo.findData("upgrad") >= 0 and "UPGrad" in combo.itemText(combo.findData("upgrad"))
    line = _update_line(w)
    assert line.textFormat() == Qt.TextFormat.PlainText

    _step_once(qtbot, w, 0)   # under sum first: head 1's cosine is below 0
    sum_cosines = _shown(line)
    assert sum_cosines["head1"] < 0
    assert sum_cosines["head1"] == round(w.history.last_update_cosine[1], 2)

    combo.setCurrentIndex(combo.findData("upgrad"))
    qtbot.waitUntil(lambda: w.engine.session.config.strategy == "upgrad", timeout=WAIT_MS)
    assert "jac_to_grad(trunk_params, UPGrad())" in w.code_view.code()
    _step_once(qtbot, w, 1)
    record = w.engine.session.last_record
    assert [c.loss for c in record.backward_calls] == ["mtl_backward + upgrad"]
    shown = _shown(line)
    assert all(v > 0 for v in shown.values()), line.text()
    assert shown == {h: round(v, 2) for h, v in record.update_cosine.items()}
    # the step's readout: the trunk's step, against the sum's; no head worked against
    assert line.text().splitlines()[1:] == [
        f"trunk step {record.trunk_step:.3g} (gradient {record.trunk_grad_norm:.3g}) · "
        f"{record.trunk_step_vs_sum:.2f}× the sum's"]


def test_the_tooltip_says_what_upgrad_does(qtbot):
    from gradviz.qt.controls import ControlsPanel
    panel = ControlsPanel(CONFLICT)     # the settings panel alone: the tooltip is its own
    qtbot.addWidget(panel)
    combo = panel.findChild(QComboBox, "strategyCombo")
    tip = combo.itemData(combo.findData("upgrad"), Qt.ItemDataRole.ToolTipRole)
    assert "torchjd" in tip and "UPGrad" in tip


def test_upgrad_with_retain_grad_is_not_applied_and_says_why_in_one_line(qtbot,
                                                                        shared_window):
    from PySide6.QtWidgets import QCheckBox
    w = shared_window(CONFLICT)
    w.controls.findChild(QCheckBox, "retainGradCheck").click()
    qtbot.waitUntil(lambda: w.engine.session.config.retain_grad, timeout=WAIT_MS)
    combo = w.controls.findChild(QComboBox, "strategyCombo")
    combo.setCurrentIndex(combo.findData("upgrad"))
    problem = w.controls.findChild(QLabel, "controlsProblem")
    qtbot.waitUntil(lambda: "retain-grad with strategy upgrad" in problem.text(),
                    timeout=WAIT_MS)
    assert "\n" not in problem.text()
    assert w.engine.session.config.strategy == "sum"   # the engine kept what it had
