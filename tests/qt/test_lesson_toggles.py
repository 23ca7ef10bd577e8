"""The article's later lessons from the app's controls: each toggle reaches the engine,
and the errors they demonstrate are shown and explained, never a crash."""
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QComboBox, QPushButton

from gradviz.engine import protocol as p
from gradviz.plain.config.config import Config

from waits import WAIT_MS, on_record

SMALL = Config(batch_size=32, device="cpu")


def choose(window, name: str, value) -> None:
    combo = window.controls.findChild(QComboBox, name)
    assert combo is not None, name
    combo.setCurrentIndex(combo.findData(value))


def engine(window):
    return window.engine.session.config


def play_until_error(qtbot, w):
    qtbot.mouseClick(w.findChild(QPushButton, "playButton"), Qt.LeftButton)
    qtbot.waitUntil(lambda: w.events_view.event is not None, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: not w.model.running, timeout=WAIT_MS)
    return w.events_view.text()


@pytest.mark.parametrize("name, value, key", [
    ("modelCombo", "rnn", "model"),
    ("accumulateModeCombo", "sum-first", "accumulate_mode"),
    ("misplaceCombo", 1, "misplace_head"),
])
def test_each_lesson_toggle_reaches_the_engine(qtbot, shared_window, name, value, key):
    w = shared_window(SMALL)
    choose(w, name, value)
    qtbot.waitUntil(lambda: getattr(engine(w), key) == value, timeout=WAIT_MS)
    assert getattr(w.controls.config(), key) == value


def test_retain_grad_box_reaches_the_engine_and_the_graph_names_z(qtbot, shared_window):
    w = shared_window(SMALL)
    w.controls.findChild(QCheckBox, "retainGradCheck").click()
    qtbot.waitUntil(lambda: engine(w).retain_grad, timeout=WAIT_MS)
    qtbot.keyClick(w, Qt.Key_Right, Qt.ShiftModifier)
    qtbot.waitUntil(lambda: w.engine.session.last_record is not None
                    and w.engine.session.last_record.z_grad_norm is not None, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: w.graph_view.graph is not None
                    and any(n.tensor == "z" and n.has_grad for n in w.graph_view.graph.nodes),
                    timeout=WAIT_MS)


def test_rnn_never_truncated_shows_the_freed_graph_error(qtbot, shared_window):
    w = shared_window(SMALL)
    choose(w, "modelCombo", "rnn")
    qtbot.waitUntil(lambda: engine(w).model == "rnn", timeout=WAIT_MS)
    truncate = w.controls.findChild(QComboBox, "truncateCombo")
    assert truncate.isEnabled()
    choose(w, "truncateCombo", "never")
    qtbot.waitUntil(lambda: engine(w).truncate == "never", timeout=WAIT_MS)
    # (a graph a test before left on the panel: told apart by identity, since an equal
    # one, the same rnn error of an earlier test, never passed a `not in` test)
    before = w.graph_view.graph
    text = play_until_error(qtbot, w)
    assert "backward through the graph a second time" in text
    assert "carried" in text and "Truncate" in text
    # the graph as it stood at the error: this step's chain and the freed step before
    try:
        qtbot.waitUntil(lambda: w.graph_view.graph is not None
                        and w.graph_view.graph is not before
                        and "at the error" in w.graph_view.caption.text(), timeout=WAIT_MS)
    except qtbot.TimeoutError as exc:   # what the panel showed instead (a rare CI timeout)
        view = w.graph_view
        raise AssertionError(f"caption {view.caption.text()!r}, a new graph "
                             f"{view.graph is not None and view.graph is not before}, "
                             f"idle {view.idle}, running {w.model.running}") from exc
    assert any(n.freed for n in w.graph_view.graph.nodes)


def test_a_live_graph_asked_for_before_the_error_leaves_the_error_graph_shown(
        qtbot, shared_window):
    # the window asks for a live graph while it sees Play running; on a busy machine the
    # request reaches the engine after the failed step, and an answer captioned "live"
    # took "at the error" off the panel (the test above then waited in vain for it)
    w = shared_window(SMALL)
    choose(w, "modelCombo", "rnn")
    qtbot.waitUntil(lambda: engine(w).model == "rnn", timeout=WAIT_MS)
    choose(w, "truncateCombo", "never")
    qtbot.waitUntil(lambda: engine(w).truncate == "never", timeout=WAIT_MS)
    play_until_error(qtbot, w)                  # its graph "at the error" came with it
    graphs: list = []
    on_record(w.engine, p.Graph, graphs.append)
    w.engine.request_graph()                    # as a frame that still saw Play running
    qtbot.waitUntil(lambda: len(graphs) > 0 and w.graph_view.idle, timeout=WAIT_MS)
    assert graphs[-1].when == "at the error"
    assert w.graph_view.caption.text().startswith("Graph at the error")


def test_editing_a_detached_head_in_place_is_explained(qtbot, shared_window):
    w = shared_window(SMALL)
    w.controls.findChild(QCheckBox, "detachHead1").click()
    choose(w, "editDetachedCombo", 1)
    qtbot.waitUntil(lambda: engine(w).edit_detached == 1, timeout=WAIT_MS)
    text = play_until_error(qtbot, w)
    assert "modified by an inplace operation" in text and "shares z" in text


def test_a_misplaced_head_is_explained_with_the_meta_device(qtbot, shared_window):
    w = shared_window(SMALL)
    choose(w, "misplaceCombo", 2)
    qtbot.waitUntil(lambda: engine(w).misplace_head == 2, timeout=WAIT_MS)
    text = play_until_error(qtbot, w)
    assert "Tensor on device meta is not on the expected device cpu" in text
    assert "meta device" in text


def test_an_invalid_combination_is_named_not_applied(qtbot, shared_window):
    w = shared_window(SMALL)
    choose(w, "editDetachedCombo", 0)          # head 0 is not detached
    assert "not detached" in w.controls.problem.text()
    assert engine(w).edit_detached is None


def test_tooltips_tell_leaves_requires_grad_and_grad():
    from gradviz.core.session import Session
    from gradviz.qt.widgets.graph_items import tooltip
    session = Session(SMALL)
    session.step()
    graph = session.graph()
    (z,) = [n for n in graph.nodes if n.tensor == "z"]
    text = tooltip(z, {})
    assert "z: requires_grad=True · not a leaf · .grad is None" in text
    assert "PyTorch: The .grad attribute of a Tensor that is not a leaf" in text
    param = graph.by_kind("param")[0]
    assert "requires_grad=True · a leaf · holds a .grad" in tooltip(param, {})
    x = graph.by_kind("input")[0]
    assert "requires_grad=False · a leaf · .grad is None" in tooltip(x, {})
