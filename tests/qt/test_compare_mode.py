"""The Compare menu driven as a user does: pin B, change a toggle, step; the verdict per
step, the table per group, B's ghost lines, bars and memory, B's error while A goes on, a
lesson's other slide, and Stop comparing. Which B, its refusal, a saved file's B and the
dock's words are tests/plain/test_compare_controller.py's (no window, no engine)."""
import html
import re

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QComboBox

from gradviz.plain.config.config import Config

from shared_window import fresh_run, shared_window_fixture, window_fixture  # noqa: F401
from waits import WAIT_MS

SMALL = Config(batch_size=32, device="cpu")
SHARED_CONFIG = SMALL   # the module's one window's


def text_of(label) -> str:
    return " ".join(html.unescape(re.sub("<[^>]+>", " ", label.text())).split())


def menu_action(window, name: str) -> QAction:
    action = window.findChild(QAction, name)
    assert action is not None, name
    return action


def wait_pinned(qtbot, w, generation: int) -> None:
    """B is pinned and A restarted beside it (a fresh model: history from step 0)."""
    qtbot.waitUntil(lambda: w.compare.history_b is not None and w.model.generation > generation,
                    timeout=WAIT_MS)


def step_compared(qtbot, w, more: int) -> None:
    """Shift+→ `more` times, until B's step beside A's last one is shown."""
    total = len(w.compare.history_b) + more
    for _ in range(more):
        qtbot.keyClick(w, Qt.Key_Right, Qt.ShiftModifier)

    def shown():
        w.refresh()
        return len(w.compare.history_b) >= total and w.compare.view.record is not None \
            and w.compare.view.record.step >= total - 1
    qtbot.waitUntil(shown, timeout=WAIT_MS)


def test_pin_these_settings_then_a_toggle_compares_live(qtbot, window):
    w = window
    fresh_run(qtbot, w, SMALL)
    menu = [a for a in w.menuBar().actions() if a.text() == "&Compare"]
    assert menu and w.menuBar().actions().index(menu[0]) == 1       # just after File
    assert not menu_action(w, "stopCompareAction").isEnabled() or not w.compare.comparing
    generation = w.model.generation
    menu_action(w, "pinAction").trigger()
    wait_pinned(qtbot, w, generation)
    assert w.compare.dock.isVisible()
    step_compared(qtbot, w, 2)
    assert "same gradients" in text_of(w.compare.view.verdict)
    assert "identical" in text_of(w.compare.view.verdict)
    # A runs in-loop from here, B the pinned settings (sum)
    strategy = w.findChild(QComboBox, "strategyCombo")
    strategy.setCurrentIndex(strategy.findData("in-loop"))
    qtbot.waitUntil(lambda: "strategy: A in-loop, B sum" in text_of(w.compare.view.pinned),
                    timeout=WAIT_MS)   # the engine said it applied the change
    step_compared(qtbot, w, 2)
    verdict = text_of(w.compare.view.verdict)
    assert verdict.startswith("different: B's gradient on the trunk, head 0: 0.33× A's, "
                              "head 1: 0.50× (step 2)")
    assert "This step (3): different: B's gradient on the trunk, head 0: 0.3" in verdict
    rows = w.compare.view.table_rows()
    assert [r[0] for r in rows] == ["trunk", "head0", "head1", "head2"]
    assert float(rows[0][2]) > 0.1                        # the trunk's relative difference
    assert "Peak saved memory since pinned: A" in text_of(w.compare.view.details)
    # the bars side by side, A | B, and B's ghost lines
    a, b = w.grad_bars.data(), w.grad_bars.data_b()
    assert a.keys() == b.keys() and all(v > 0 for v in b.values())
    assert w.grad_bars.bars_b.isVisible()
    assert a["trunk.0.weight"] != b["trunk.0.weight"]
    ghost = w.loss_plot.ghost_data()
    assert list(ghost["total"][0]) == [0, 1, 2, 3]
    assert ghost["total"][1][0] == w.loss_plot.data()["total"][1][0]   # the same step 0
    w.memory_dock.raise_()
    qtbot.waitUntil(lambda: (w.refresh() or True) and "held at step end" in
                    w.memory.ghost_data(), timeout=WAIT_MS)
    assert len(w.memory.ghost_data()["held at step end"][0]) == 4
    # Stop comparing: A goes on alone
    menu_action(w, "stopCompareAction").trigger()
    assert w.compare.history_b is None and not w.grad_bars.bars_b.isVisible()
    assert w.loss_plot.ghost_data() == {} and "Not comparing" in text_of(w.compare.view.verdict)


def test_b_stops_at_its_error_and_a_goes_on(qtbot, window, tmp_path):
    w = window
    fresh_run(qtbot, w, SMALL)
    b = tmp_path / "never.toml"
    b.write_text('strategy = "separate"\nretain_graph = "never"\n')
    generation = w.model.generation
    w.compare.compare_with_file(str(b))
    wait_pinned(qtbot, w, generation)
    for _ in range(3):
        qtbot.keyClick(w, Qt.Key_Right, Qt.ShiftModifier)
    qtbot.waitUntil(lambda: (w.refresh() or True) and len(w.history) == 3, timeout=WAIT_MS)
    assert w.compare.view.record.error is not None
    assert text_of(w.compare.view.verdict).startswith(
        "B stopped at step 0: Backward through a freed graph")
    details = text_of(w.compare.view.details)
    assert "Trying to backward through the graph a second time" in details
    assert "A goes on" in details
    assert "B stopped" not in details and "PyTorch says" in details   # said once, above
    assert w.events_view.event is None          # A had no error


def test_compare_with_this_lessons_other_slide(qtbot, window):
    w = window
    assert not w.compare.slides_menu.isEnabled()          # no lesson open
    w.lessons.open_named("backward-twice")                  # slide 1: separate, never
    assert w.compare.slides_menu.isEnabled()
    qtbot.waitUntil(lambda: not w.model.waiting)            # the engine on the slide
    other = w.findChild(QAction, "compareSlide2")
    assert other is not None and "Slide 2" in other.text()
    generation = w.model.generation
    other.trigger()
    wait_pinned(qtbot, w, generation)
    assert "slide 2" in text_of(w.compare.view.pinned)
    assert w.compare.b_config.retain_graph != "never"


def test_sum_pinned_beside_upgrad_differs_on_the_trunk_only(qtbot, window):
    """Lesson 13's settings side by side: UPGrad changes what the trunk is handed, and
    each head's own layers get their own loss's gradient under both."""
    w = window
    fresh_run(qtbot, w, SMALL.replace(heads=3, loss_weights=(1.0, 1.0, 4.0)))
    generation = w.model.generation
    menu_action(w, "pinAction").trigger()                  # B: sum, as A is now
    wait_pinned(qtbot, w, generation)
    step_compared(qtbot, w, 1)
    strategy = w.findChild(QComboBox, "strategyCombo")
    strategy.setCurrentIndex(strategy.findData("upgrad"))
    qtbot.waitUntil(lambda: "strategy: A upgrad, B sum" in text_of(w.compare.view.pinned),
                    timeout=WAIT_MS)
    step_compared(qtbot, w, 1)                             # one step: the weights still equal
    assert text_of(w.compare.view.verdict).startswith("different")
    rows = {r[0]: float(r[2]) for r in w.compare.view.table_rows()}
    assert rows["trunk"] > 0.01
    assert all(rows[h] < 1e-4 for h in ("head0", "head1", "head2")), rows
