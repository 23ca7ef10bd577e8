"""The desktop app driven as a user drives it: clicks and keys on named widgets."""
import dataclasses
import sys

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QCheckBox, QComboBox, QPushButton, QSpinBox

from gradviz.engine import protocol as p
from gradviz.plain.config.config import Config

from waits import WAIT_MS, on_record

SMALL = Config(batch_size=32)


def widget(window, cls, name):
    found = window.findChild(cls, name)
    assert found is not None, name
    return found


def choose(combo: QComboBox, value: str) -> None:
    combo.setCurrentIndex(combo.findData(value))


def engine_config(window):
    return window.engine.session.config


def round_trip(qtbot, window):
    """Ask the engine for a graph and wait for it: the engine answers commands in order,
    so everything it sent before has arrived too."""
    graphs: list = []
    on_record(window.engine, p.Graph, graphs.append)
    window.engine.request_graph()
    qtbot.waitUntil(lambda: len(graphs) > 0, timeout=WAIT_MS)


def wait_steps(qtbot, window, n, timeout=WAIT_MS):
    """Wait until the window's history holds n steps (refresh drains and repaints)."""
    def enough():
        window.refresh()
        return len(window.history) >= n
    qtbot.waitUntil(enough, timeout=timeout)


def test_play_trains_and_the_curves_grow_pause_stops_them(qtbot, shared_window):
    w = shared_window(SMALL)
    play = widget(w, QPushButton, "playButton")
    qtbot.mouseClick(play, Qt.LeftButton)
    # a few steps are curves (the panels take each frame's new steps in)
    qtbot.waitUntil(lambda: len(w.history) >= 5, timeout=WAIT_MS)
    assert len(w.loss_plot.data()["total"][1]) >= 5
    assert len(w.loss_plot.data()["head2"][1]) >= 5
    qtbot.mouseClick(play, Qt.LeftButton)
    qtbot.waitUntil(lambda: not w.model.running, timeout=WAIT_MS)
    round_trip(qtbot, w)          # every step the engine made before pausing has arrived
    w.refresh()
    settled = len(w.history)
    round_trip(qtbot, w)          # and no step came after
    w.refresh()
    assert len(w.history) == settled
    assert play.text().startswith("▶")           # Play again (its word where there is room)


def test_right_arrow_advances_exactly_one_phase(qtbot, shared_window):
    w = shared_window(SMALL.replace(strategy="separate"))
    expected = ["zero_grad", "forward", "backward 1 of 3", "backward 2 of 3",
                "backward 3 of 3", "optimizer step"]
    for i, words in enumerate(expected):
        qtbot.keyClick(w, Qt.Key_Right)
        qtbot.waitUntil(lambda words=words: words in w.phase_label.text(), timeout=WAIT_MS)
        w.refresh()
        assert len(w.history) == (1 if i == len(expected) - 1 else 0)
    assert w.engine.session.step_index == 1


def test_shift_right_does_one_step_and_r_resets(qtbot, shared_window):
    w = shared_window(SMALL)
    for n in (1, 2):
        qtbot.keyClick(w, Qt.Key_Right, Qt.ShiftModifier)
        wait_steps(qtbot, w, n)
    assert [int(s) for s in w.history.column("step")] == [0, 1]
    qtbot.keyClick(w, Qt.Key_R)
    qtbot.waitUntil(lambda: len(w.history) == 0 and w.engine.session.step_index == 0,
                    timeout=WAIT_MS)


def test_space_plays_and_pauses(qtbot, shared_window):
    w = shared_window(SMALL)
    qtbot.keyClick(w, Qt.Key_Space)
    qtbot.waitUntil(lambda: w.model.running and len(w.history) > 3, timeout=WAIT_MS)
    qtbot.keyClick(w, Qt.Key_Space)
    qtbot.waitUntil(lambda: not w.model.running, timeout=WAIT_MS)


def test_space_after_typing_a_number_applies_it_and_plays(qtbot, shared_window):
    """Space after typing in a spin box went into the box, and Play never started."""
    from PySide6.QtWidgets import QDoubleSpinBox
    w = shared_window(SMALL)
    qtbot.waitUntil(lambda: w.model.generation >= 1, timeout=WAIT_MS)
    lr = w.findChild(QDoubleSpinBox, "lrSpin")
    lr.setFocus()
    lr.selectAll()
    qtbot.keyClicks(lr, "0.03")
    qtbot.keyClick(lr, Qt.Key_Space)
    qtbot.waitUntil(lambda: w.model.running and w.engine.session.config.lr == pytest.approx(0.03),
                    timeout=WAIT_MS)
    assert lr.hasFocus() and " " not in lr.text()                # nothing typed into it
    qtbot.keyClick(lr, Qt.Key_Space)                            # and Space pauses again
    qtbot.waitUntil(lambda: not w.model.running, timeout=WAIT_MS)


def test_a_fresh_model_shows_no_speed_left_from_the_run_before(qtbot, shared_window):
    """The status bar said "19 steps/s" on the next lesson slide, paused at step 0."""
    w = shared_window(SMALL)
    qtbot.keyClick(w, Qt.Key_Space)
    qtbot.waitUntil(lambda: "steps/s" in w.rate_label.text(), timeout=WAIT_MS)
    qtbot.keyClick(w, Qt.Key_Space)
    qtbot.waitUntil(lambda: not w.model.running, timeout=WAIT_MS)
    assert "steps/s" in w.rate_label.text()      # paused: the speed it ran at, still
    generation = w.model.generation
    qtbot.keyClick(w, Qt.Key_R)
    qtbot.waitUntil(lambda: w.model.generation > generation, timeout=WAIT_MS)
    assert w.rate_label.text() == ""


TOGGLES = [
    ("strategyCombo", lambda c: choose(c, "separate"), "strategy", "separate",
     "one backward per loss"),
    ("retainCombo", lambda c: choose(c, "always"), "retain_graph", "always", "retain_graph=True"),
    ("detachModeCombo", lambda c: choose(c, "detach_"), "detach_mode", "detach_", None),
    ("optimizerCombo", lambda c: choose(c, "adam"), "optimizer", "adam", "torch.optim.Adam"),
    ("accumulateSpin", lambda s: s.setValue(4), "accumulate", 4, "micro_batches(x, targets, 4)"),
    ("batchSizeSpin", lambda s: s.setValue(48), "batch_size", 48, "# 48 examples"),
    ("scaleCheck", lambda b: b.click(), "scale", False, None),
    ("zeroGradCheck", lambda b: b.click(), "zero_grad", False, "# optimizer.zero_grad()"),
    ("keepGraphsCheck", lambda b: b.click(), "keep_graphs", True, "running_loss += total "),
    ("detachHead1", lambda b: b.click(), "detach", (1,), "z.detach() if k in (1,)"),
    ("weightSlider2", lambda s: s.setValue(250), "loss_weights", (1.0, 1.0, 2.5),
     "weights = [1.0, 1.0, 2.5]"),
    ("lrSpin", lambda s: s.setValue(0.2), "lr", 0.2, "lr=0.2"),
]


@pytest.mark.parametrize("name, act, key, value, code_words", TOGGLES, ids=[t[0] for t in TOGGLES])
def test_each_toggle_changes_the_engine_config_and_the_code(qtbot, shared_window, name, act,
                                                           key, value, code_words):
    w = shared_window(SMALL)
    control = w.controls.findChild(object, name)
    assert control is not None, name
    before = w.code_view.code()
    act(control)
    qtbot.waitUntil(lambda: getattr(engine_config(w), key) == value, timeout=WAIT_MS)
    assert getattr(w.controls.config(), key) == value
    if code_words is not None:
        assert code_words in w.code_view.code()
        assert w.code_view.code() != before
    if key == "scale":  # scaling shows only when there are micro-batches
        widget(w, QSpinBox, "accumulateSpin").setValue(2)
        qtbot.waitUntil(lambda: engine_config(w).accumulate == 2, timeout=WAIT_MS)
        assert "/ 2" not in w.code_view.code()


def test_model_changes_reset_and_say_so(qtbot, shared_window):
    w = shared_window(SMALL)
    qtbot.keyClick(w, Qt.Key_Right, Qt.ShiftModifier)
    wait_steps(qtbot, w, 1)
    generation = w.model.generation
    widget(w, QSpinBox, "headsSpin").setValue(2)
    qtbot.waitUntil(lambda: w.model.generation > generation, timeout=WAIT_MS)
    assert engine_config(w).heads == 2
    assert "Fresh model" in w.phase_label.text()
    assert len(w.history) == 0 and w.history.head_names == ["head0", "head1"]
    assert len(w.controls.detach_boxes) == 2 and len(w.controls.weight_sliders) == 2


def test_separate_with_retain_never_shows_pytorchs_error_and_the_app_recovers(qtbot, shared_window):
    w = shared_window(SMALL)
    choose(widget(w, QComboBox, "strategyCombo"), "separate")
    choose(widget(w, QComboBox, "retainCombo"), "never")
    qtbot.waitUntil(lambda: engine_config(w).retain_graph == "never", timeout=WAIT_MS)
    qtbot.mouseClick(widget(w, QPushButton, "playButton"), Qt.LeftButton)
    qtbot.waitUntil(lambda: w.events_view.event is not None, timeout=WAIT_MS)
    text = w.events_view.text()
    assert "backward through the graph a second time" in text
    assert "backward 2 of 3" in text and "What to do" in text
    qtbot.waitUntil(lambda: not w.model.running, timeout=WAIT_MS)
    assert "Paused" in w.phase_label.text()
    choose(widget(w, QComboBox, "retainCombo"), "auto")
    qtbot.waitUntil(lambda: w.events_view.event is None, timeout=WAIT_MS)
    qtbot.keyClick(w, Qt.Key_Right, Qt.ShiftModifier)
    wait_steps(qtbot, w, 1)
    assert w.engine.session.error is None


def test_divergence_is_caught_like_an_error(qtbot, shared_window):
    w = shared_window(SMALL.replace(lr=1000.0, optimizer="sgd", loss_weights=(1000.0,) * 3))
    qtbot.mouseClick(widget(w, QPushButton, "playButton"), Qt.LeftButton)
    qtbot.waitUntil(lambda: w.events_view.event is not None, timeout=WAIT_MS)
    assert w.events_view.event.type == "Divergence"
    assert "Training diverged" in w.events_view.text()


def test_detaching_a_head_drops_its_junction_gradient_to_zero(qtbot, shared_window):
    w = shared_window(SMALL)
    widget(w, QCheckBox, "detachHead1").click()
    qtbot.waitUntil(lambda: engine_config(w).detach == (1,), timeout=WAIT_MS)
    for n in (1, 2, 3):
        qtbot.keyClick(w, Qt.Key_Right, Qt.ShiftModifier)
        wait_steps(qtbot, w, n)
    # on a small screen the charts sit in tabs: bring this one to the front, as a user would
    w.gradients_dock.raise_()
    if w.gradients_panel.compact:
        w.gradients_panel.tabs.setCurrentWidget(w.junction)
    qtbot.waitUntil(lambda: w.junction.isVisible(), timeout=WAIT_MS)
    w.refresh()
    junction = w.history.column("junction")[-1]
    assert junction[1] == 0.0 and junction[0] > 0 and junction[2] > 0
    plotted = w.junction.data()
    assert plotted["head1"][1][-1] == 0.0 and plotted["head0"][1][-1] > 0


def test_code_panel_copies_to_the_clipboard(qtbot, shared_window):
    w = shared_window(SMALL)
    qtbot.mouseClick(w.code_view.copy_button, Qt.LeftButton)
    assert QApplication.clipboard().text() == w.code_view.code()
    assert "total.backward()" in w.code_view.code()


def test_graph_panel_shows_the_step_graph(qtbot, shared_window):
    w = shared_window(SMALL.replace(detach=(1,)))
    graphs: list = []
    on_record(w.engine, p.Graph, graphs.append)
    before = w.graph_view.graph
    qtbot.keyClick(w, Qt.Key_Right, Qt.ShiftModifier)
    # the graph this step sent is the one drawn (not one a test before left on the panel)
    qtbot.waitUntil(lambda: bool(graphs) and w.graph_view.idle
                    and w.graph_view.graph is not None and w.graph_view.graph is not before,
                    timeout=WAIT_MS)
    assert any(e.kind == "cut" for e in w.graph_view.graph.edges)
    assert w.graph_view.canvas.nodes


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="None is immortal from Python 3.12")
def test_repainting_does_not_eat_references_to_none():
    """PySide6 6.12.0 took a reference from None on every void call: on Python 3.11 a
    plot died within ~200 repaints with "Fatal Python error: none_dealloc"."""
    from PySide6.QtGui import QImage, QPainter, QPen
    image = QImage(64, 64, QImage.Format_ARGB32)
    painter = QPainter(image)
    before = sys.getrefcount(None)
    for _ in range(5000):
        painter.setPen(QPen())
        painter.drawLine(0, 0, 10, 10)
    painter.end()
    assert sys.getrefcount(None) >= before - 100


def test_values_beyond_a_widgets_range_survive_touching_another_toggle(qtbot, shared_window):
    """A config file may ask for more than a spin box shows (trunk depth 150, lr 50)."""
    w = shared_window(SMALL.replace(trunk_depth=150, lr=50.0))
    generation = w.model.generation
    choose(widget(w, QComboBox, "optimizerCombo"), "adam")
    qtbot.waitUntil(lambda: engine_config(w).optimizer == "adam", timeout=WAIT_MS)
    assert engine_config(w).trunk_depth == 150 and engine_config(w).lr == 50.0
    assert w.model.generation == generation        # no reset: the model was not touched


def test_a_toggle_changed_mid_step_is_shown_and_applies_at_the_step_boundary(qtbot, shared_window):
    w = shared_window(SMALL)
    qtbot.keyClick(w, Qt.Key_Right)                       # zero_grad: a step is in progress
    qtbot.waitUntil(lambda: "zero_grad" in w.phase_label.text(), timeout=WAIT_MS)
    widget(w, QCheckBox, "keepGraphsCheck").click()
    choose(widget(w, QComboBox, "strategyCombo"), "separate")
    qtbot.waitUntil(lambda: (w.engine.session.pending_config or engine_config(w)).strategy
                    == "separate", timeout=WAIT_MS)
    round_trip(qtbot, w)                                  # the engine's answer has arrived
    assert w.controls.config().keep_graphs and w.controls.config().strategy == "separate"
    assert widget(w, QCheckBox, "keepGraphsCheck").isChecked()
    assert "one backward per loss" in w.code_view.code()
    assert engine_config(w).strategy == "sum"             # the step in progress finishes as sum
    qtbot.keyClick(w, Qt.Key_Right, Qt.ShiftModifier)     # finish it
    qtbot.keyClick(w, Qt.Key_Right, Qt.ShiftModifier)     # the next step uses the new config
    qtbot.waitUntil(lambda: engine_config(w).strategy == "separate"
                    and engine_config(w).keep_graphs, timeout=WAIT_MS)
    assert w.controls.config().strategy == "separate"


def test_a_model_too_big_to_build_is_refused_and_the_app_keeps_working(qtbot, shared_window):
    w = shared_window(SMALL)
    w.controls.set_config(w.controls.config())
    too_big = dataclasses.replace(w.controls.config(), trunk_width=4000, trunk_depth=40)
    w.model.requested = too_big     # as a config from elsewhere would arrive, unchecked
    qtbot.waitUntil(lambda: "gradviz builds at most" in w.phase_label.text(), timeout=WAIT_MS)
    assert engine_config(w).trunk_width == 32
    qtbot.keyClick(w, Qt.Key_Right, Qt.ShiftModifier)
    wait_steps(qtbot, w, 1)
