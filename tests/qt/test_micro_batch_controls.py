"""The settings of accumulation that is not the full batch, from the app's controls:
micro-batch sizes typed, the scaling, clipping and BatchNorm chosen by their named
widgets, each reaching the engine; sizes that do not fit are named, not applied."""
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QComboBox, QDoubleSpinBox, QLabel, QLineEdit, QSpinBox

from gradviz.plain.config.config import Config

from waits import WAIT_MS

SMALL = Config(batch_size=32, device="cpu")


def engine(window):
    return window.engine.session.config


def type_sizes(qtbot, window, text: str) -> QLineEdit:
    edit = window.controls.findChild(QLineEdit, "microBatchSizesEdit")
    assert edit is not None
    edit.setFocus()
    edit.selectAll()
    qtbot.keyClicks(edit, text)
    qtbot.keyClick(edit, Qt.Key_Return)
    return edit


def test_typed_sizes_reach_the_engine_and_set_accumulate(qtbot, shared_window):
    w = shared_window(SMALL)
    type_sizes(qtbot, w, "20,4,4,4")
    qtbot.waitUntil(lambda: engine(w).micro_batch_sizes == (20, 4, 4, 4), timeout=WAIT_MS)
    assert engine(w).accumulate == 4
    assert w.controls.findChild(QSpinBox, "accumulateSpin").value() == 4
    scale_by = w.controls.findChild(QComboBox, "scaleByCombo")
    scale_by.setCurrentIndex(scale_by.findData("size"))
    qtbot.waitUntil(lambda: engine(w).scale_by == "size", timeout=WAIT_MS)
    # accumulate alone: equal parts again, the sizes field emptied
    w.controls.findChild(QSpinBox, "accumulateSpin").setValue(2)
    qtbot.waitUntil(lambda: engine(w).accumulate == 2, timeout=WAIT_MS)
    assert engine(w).micro_batch_sizes == ()
    edit = w.controls.findChild(QLineEdit, "microBatchSizesEdit")
    # the engine's confirmation of each config comes back and is shown: the last is this
    qtbot.waitUntil(lambda: w.controls.config() == engine(w) and edit.text() == "",
                    timeout=WAIT_MS)


def test_sizes_that_do_not_add_up_are_named_not_applied(qtbot, shared_window):
    w = shared_window(SMALL)
    type_sizes(qtbot, w, "20,4")
    problem = w.controls.findChild(QLabel, "controlsProblem")
    qtbot.waitUntil(lambda: "add up to 24, not batch-size 32" in problem.text(),
                    timeout=WAIT_MS)
    assert engine(w).micro_batch_sizes == ()


def test_batch_norm_box_builds_a_model_with_batch_norm(qtbot, shared_window):
    w = shared_window(SMALL)
    w.controls.findChild(QCheckBox, "batchNormCheck").click()
    qtbot.waitUntil(lambda: engine(w).batch_norm, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: any(type(m).__name__ == "BatchNorm1d"
                                for m in w.engine.session.model.trunk), timeout=WAIT_MS)


def test_clip_and_where_reach_the_engine(qtbot, shared_window):
    w = shared_window(SMALL)
    clip_at = w.controls.findChild(QComboBox, "clipAtCombo")
    assert not clip_at.isEnabled()           # nothing to place while clipping is off
    w.controls.findChild(QDoubleSpinBox, "clipSpin").setValue(0.5)
    qtbot.waitUntil(lambda: engine(w).clip == 0.5, timeout=WAIT_MS)
    assert clip_at.isEnabled()
    clip_at.setCurrentIndex(clip_at.findData("micro-batch"))
    qtbot.waitUntil(lambda: engine(w).clip_at == "micro-batch", timeout=WAIT_MS)
    # the Code panel shows the line the engine runs
    qtbot.waitUntil(lambda: "clip_grad_norm_(model.parameters(), 0.5)" in w.code_view.code(),
                    timeout=WAIT_MS)
    w.controls.findChild(QDoubleSpinBox, "clipSpin").setValue(0.0)   # "off"
    qtbot.waitUntil(lambda: engine(w).clip is None, timeout=WAIT_MS)


def test_the_panel_shows_the_new_settings_and_reads_them_back(qtbot):
    from gradviz.qt.controls import ControlsPanel
    cfg = SMALL.replace(micro_batch_sizes=(20, 4, 8), accumulate=3, scale_by="size",
                        clip=0.25, clip_at="micro-batch", batch_norm=True)
    panel = ControlsPanel(cfg)
    qtbot.addWidget(panel)
    shown = panel._widget_values()
    assert {k: v for k, v in shown.items() if getattr(cfg, k) != v} == {}
    assert panel.findChild(QDoubleSpinBox, "clipSpin").value() == 0.25
    assert panel.findChild(QLineEdit, "microBatchSizesEdit").text() == "20,4,8"


def test_space_after_typing_sizes_applies_them_and_plays(qtbot, shared_window):
    """The sizes field keeps digits and commas; Space is the window's Play, after the
    typed sizes apply (as in the number fields)."""
    w = shared_window(SMALL)
    edit = w.controls.findChild(QLineEdit, "microBatchSizesEdit")
    edit.setFocus()
    qtbot.keyClicks(edit, "8,8,16")
    qtbot.keyClick(edit, Qt.Key_Space)
    qtbot.waitUntil(lambda: engine(w).micro_batch_sizes == (8, 8, 16), timeout=WAIT_MS)
    assert edit.text() == "8,8,16"
    qtbot.waitUntil(lambda: w.engine.session.step_index > 0, timeout=WAIT_MS)
