"""One pass vs K passes, .data and no_grad from the settings panel: each choice reaches
the engine, the status bar shows the trunk walks it measured, and the error a mode
demonstrates is explained, never a crash."""
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QComboBox, QPushButton, QWidget

from gradviz.plain.config.config import Config

from waits import WAIT_MS

SMALL = Config(batch_size=32, device="cpu")


def choose(window, name: str, value) -> None:
    combo = window.controls.findChild(QComboBox, name)
    assert combo is not None, name
    index = combo.findData(value)
    assert index >= 0, (name, value)
    combo.setCurrentIndex(index)


def engine(window):
    return window.engine.session.config


def one_step(qtbot, w):
    qtbot.keyClick(w, Qt.Key_Right, Qt.ShiftModifier)
    qtbot.waitUntil(lambda: w.engine.session.last_record is not None, timeout=WAIT_MS)


@pytest.mark.parametrize("strategy, walks", [("backward-list", 1), ("autograd-grad", 3),
                                             ("separate", 3)])
def test_a_strategy_choice_reaches_the_engine_and_the_walks_are_shown(
        qtbot, shared_window, strategy, walks):
    w = shared_window(SMALL)
    choose(w, "strategyCombo", strategy)
    qtbot.waitUntil(lambda: engine(w).strategy == strategy, timeout=WAIT_MS)
    label = w.findChild(QWidget, "walksLabel")
    assert "trunk walked" not in label.text()       # a fresh model: no walks yet
    one_step(qtbot, w)

    def shown():
        w.refresh()
        return f"trunk walked {walks}×" in label.text()
    qtbot.waitUntil(shown, timeout=WAIT_MS)
    assert "backward" in label.text() and " ms" in label.text()
    assert w.engine.session.last_record.trunk_walks == walks


def test_edit_data_reaches_the_engine_and_trains_without_an_error(qtbot, shared_window):
    w = shared_window(SMALL)
    choose(w, "editDataCombo", 1)
    qtbot.waitUntil(lambda: engine(w).edit_data == 1, timeout=WAIT_MS)
    assert w.controls.config().edit_data == 1
    one_step(qtbot, w)
    assert w.engine.session.error is None
    qtbot.waitUntil(lambda: "z.data.mul_(0.5)" in w.code_view.code(), timeout=WAIT_MS)


@pytest.mark.parametrize("mode", ["no_grad", "inference_mode"])
def test_a_head_under_no_grad_is_explained_when_its_loss_is_backwarded(qtbot, shared_window,
                                                                      mode):
    w = shared_window(SMALL.replace(strategy="separate"))
    w.controls.findChild(QCheckBox, "detachHead1").click()
    choose(w, "detachModeCombo", mode)
    qtbot.waitUntil(lambda: engine(w).detach_mode == mode and engine(w).detach == (1,),
                    timeout=WAIT_MS)
    qtbot.mouseClick(w.findChild(QPushButton, "playButton"), Qt.LeftButton)
    qtbot.waitUntil(lambda: w.events_view.event is not None, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: not w.model.running, timeout=WAIT_MS)
    text = w.events_view.text()
    assert "does not require grad" in text and f"torch.{mode}()" in text
