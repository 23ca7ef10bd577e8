"""Play phase by phase, driven as a lecturer does: tick "phase by phase", Space plays
the phases one by one (the status line names each), the graph changes as backward frees
buffers call by call, Space pauses; a slide's stop is exact at any pace."""
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QPushButton

from gradviz.engine import protocol as p
from gradviz.plain.config.config import Config
from gradviz.plain.graph.graph_data import ALIVE, SAVED
from gradviz.plain.lessons.lessons import parse_lesson
from gradviz.render import style

from waits import WAIT_MS, on_record, on_running

SEPARATE = Config(device="cpu", heads=3, strategy="separate", batch_size=32)
ONE_STEP = ["zero_grad", "forward", "backward 1 of 3", "backward 2 of 3", "backward 3 of 3",
            "optimizer step"]


def _tick_phase_play(qtbot, w) -> None:
    box = w.findChild(QCheckBox, "phasePlay")
    qtbot.mouseClick(box, Qt.LeftButton)
    assert box.isChecked()


def _record(w, phases: list, graphs: list) -> None:
    """What the status line says after each phase, and every graph the engine sends."""
    on_record(w.engine, p.PhaseDone, lambda _r: phases.append(w.phase_label.text()))
    on_record(w.engine, p.Graph, lambda r: graphs.append((r.when, r.graph)))


def _freed(graph) -> set[str]:
    return {n.id for n in graph.nodes if n.state != ALIVE}


def test_space_plays_phase_by_phase_and_pauses(qtbot, shared_window):
    w = shared_window(SEPARATE)
    w.run_bar.speed.setValue(7)                               # 500 ms between steps
    assert w.run_bar.pace.toolTip() == "≤ 2 steps/s"  # in words
    _tick_phase_play(qtbot, w)
    assert w.run_bar.pace.toolTip() == "≤ 2 phases/s"            # the pace is in phases now
    w.run_bar.speed.setValue(0)                               # the fastest phases go
    phases, graphs = [], []
    _record(w, phases, graphs)
    qtbot.keyClick(w, Qt.Key_Space)
    qtbot.waitUntil(lambda: len(phases) >= 8, timeout=WAIT_MS)   # a step and then some
    qtbot.keyClick(w, Qt.Key_Space)
    qtbot.waitUntil(lambda: not w.model.running, timeout=WAIT_MS)
    assert not w.model.running
    # each phase on the status line, in the order the loop runs them
    for text, detail in zip(phases, ONE_STEP + ["zero_grad", "forward"]):
        assert text.startswith("Playing phase by phase · Step "), text
        assert detail in text, (detail, text)
    assert "Step 0 ·" in phases[0] and "Step 1 ·" in phases[6]
    # every finished step reaches the history (on a busy machine the pause can land a
    # step later than the 8th phase), the phases' text stays on the status line
    finished = w.engine.session.step_index - 1   # step_index counts finished steps
    qtbot.waitUntil(lambda: (w.refresh(), len(w.history) >= 1
                             and w.history.last.step == finished)[1], timeout=WAIT_MS)
    # paused (the engine said so, after every phase it had sent): no phase comes any more
    count, at = len(phases), (w.engine.session.step_index, w.engine.session.in_step)
    sent = len(graphs)
    w.engine.request_graph()                  # a round trip through the engine's loop
    # answered as the graph the pause sent: nothing ran since
    qtbot.waitUntil(lambda: len(graphs) > sent, timeout=WAIT_MS)
    assert graphs[-1][0] == graphs[-2][0] and graphs[-1][0].startswith("paused")
    assert len(phases) == count
    assert (w.engine.session.step_index, w.engine.session.in_step) == at


def test_the_graph_changes_as_each_backward_call_frees_buffers(qtbot, shared_window):
    # retain_graph never: backward 1 of 3 frees the trunk's buffers (and 2 of 3 fails)
    w = shared_window(SEPARATE.replace(retain_graph="never"))
    before = w.graph_view.graph            # (a graph a test before left on the panel)
    _tick_phase_play(qtbot, w)
    w.run_bar.speed.setValue(0)
    phases, graphs = [], []
    _record(w, phases, graphs)
    qtbot.keyClick(w, Qt.Key_Space)
    qtbot.waitUntil(lambda: w.events_view.event is not None, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: not w.model.running, timeout=WAIT_MS)
    received = dict(graphs)
    forward, first = received["after forward"], received["after backward 1 of 3: head0 "
                                                          "(retain_graph=False)"]
    assert _freed(forward) == set() and _freed(first)          # freed by that one call
    assert sum(n.saved_bytes for n in first.nodes) < sum(n.saved_bytes for n in forward.nodes)
    assert "Backward through a freed graph" in w.events_view.text()
    # ...and the graph on screen shows it: a freed op is drawn greyed
    # (by identity: an equal graph an earlier test left would pass no `not in` test)
    qtbot.waitUntil(lambda: w.graph_view.idle and w.graph_view.graph is not None
                    and w.graph_view.graph is not before
                    and bool(_freed(w.graph_view.graph)), timeout=WAIT_MS)
    canvas = w.graph_view.canvas
    freed = [i for i in canvas.nodes.values() if i.node is not None and i.node.freed]
    assert freed and all(i.brush().color().name().upper() == style.FREED_FILL.upper()
                         for i in freed)


def test_retained_calls_keep_the_buffers_and_the_last_one_frees_them(qtbot, shared_window):
    w = shared_window(SEPARATE)                                   # retain_graph auto
    w.model.show_saved = True
    _tick_phase_play(qtbot, w)
    w.run_bar.speed.setValue(0)
    phases, graphs = [], []
    _record(w, phases, graphs)
    qtbot.keyClick(w, Qt.Key_Space)
    qtbot.waitUntil(lambda: len(phases) >= 6, timeout=WAIT_MS)
    qtbot.keyClick(w, Qt.Key_Space)
    qtbot.waitUntil(lambda: not w.model.running, timeout=WAIT_MS)
    received = dict(graphs)
    by_call = [received[f"after backward {k} of 3: head{k - 1} (retain_graph="
                        f"{'False' if k == 3 else 'True'})"] for k in (1, 2, 3)]
    forward = received["after forward"]
    saved = [n for n in forward.nodes if n.kind == SAVED]
    assert saved and _freed(forward) == set()
    assert _freed(by_call[0]) == _freed(by_call[1]) == set()  # retained: nothing freed
    assert _freed(by_call[2])                                 # the last call frees


def _slide(play: str, pace: float, stop: int):
    """A slide that waits for Play (autoplay = false): these tests press it themselves."""
    return parse_lesson("pace", f'''title = "t"
[[slides]]
title = "s"
narration = "n"
config = {{ device = "cpu", heads = 2, batch-size = 16 }}
panels = ["loss"]
play = "{play}"
pace = {pace}
stop = {stop}
autoplay = false
''')


@pytest.fixture
def lesson_window(shared_window):
    """The module's window, its lesson left after the test."""
    w = shared_window()
    yield w
    w.lessons.player.leave()


def test_a_slide_at_full_speed_stops_at_exactly_its_step(qtbot, lesson_window):
    w = lesson_window
    w.lessons.open(_slide("steps", 0, 30))
    qtbot.waitUntil(lambda: w.model.generation >= 1 and w.model.confirmed.heads == 2,
        timeout=WAIT_MS)
    assert w.run_bar.pace.toolTip() == "as fast as it goes"
    assert not w.run_bar.phase_play.isChecked()
    running = []
    on_running(w, running.append)
    qtbot.mouseClick(w.findChild(QPushButton, "playButton"), Qt.LeftButton)
    qtbot.waitUntil(lambda: running == [True, False], timeout=WAIT_MS)   # it paused itself
    w.refresh()
    assert len(w.history) == 30 and w.history.last.step == 29
    assert w.engine.session.step_index == 30
    # Play again at the stop goes on past it
    qtbot.keyClick(w, Qt.Key_Space)
    qtbot.waitUntil(lambda: w.engine.session.step_index > 40, timeout=WAIT_MS)
    qtbot.keyClick(w, Qt.Key_Space)
    qtbot.waitUntil(lambda: not w.model.running, timeout=WAIT_MS)


def test_a_phase_slide_plays_phases_and_stops_at_its_step(qtbot, lesson_window):
    w = lesson_window
    w.lessons.open(_slide("phases", 20, 2))
    qtbot.waitUntil(lambda: w.model.generation >= 1 and w.model.confirmed.heads == 2,
        timeout=WAIT_MS)
    assert w.run_bar.phase_play.isChecked() and w.run_bar.pace.toolTip() == "≤ 20 phases/s"
    phases = []
    on_record(w.engine, p.PhaseDone, lambda r: phases.append((r.phase.step, r.phase.name)))
    qtbot.keyClick(w, Qt.Key_Space)
    qtbot.waitUntil(lambda: w.model.running, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: not w.model.running, timeout=WAIT_MS)
    w.refresh()
    assert len(w.history) == 2 and w.engine.session.step_index == 2
    one_step = ["zero_grad", "forward", "backward", "optimizer step"]   # strategy sum
    assert phases == [(0, name) for name in one_step] + [(1, name) for name in one_step]
    # stopped on its last phase's line, which no longer says it plays
    qtbot.waitUntil(lambda: w.status.texts.phase.startswith(
        "Paused · Step 1 · just done: optimizer step"), timeout=WAIT_MS)


def test_leaving_the_lesson_lifts_its_stop(qtbot, lesson_window):
    w = lesson_window
    w.lessons.open(_slide("steps", 0, 3))
    qtbot.waitUntil(lambda: w.model.generation >= 1 and w.model.confirmed.heads == 2,
        timeout=WAIT_MS)
    qtbot.keyClick(w, Qt.Key_Escape)
    qtbot.keyClick(w, Qt.Key_Space)
    qtbot.waitUntil(lambda: w.engine.session.step_index > 10, timeout=WAIT_MS)
    qtbot.keyClick(w, Qt.Key_Space)
    qtbot.waitUntil(lambda: not w.model.running, timeout=WAIT_MS)


def test_each_backward_call_sweeps_the_graph_at_the_pace(qtbot, shared_window):
    """Phase by phase (→, as a lecturer steps): after each backward call the graph's
    boxes light up in the order that call ran, the head's loss first, the trunk last.
    (Its length at each pace is tests/qt/test_bindings.py's and the box-by-box order
    tests/qt/widgets/test_backward_sweep.py's: here the shortest sweep, 400 ms.)"""
    w = shared_window(SEPARATE)
    w.graph_view.set_module_view(True)
    w.model.pace_ms = 5
    sweep, swept, phases = w.graph_view.sweep, [], []
    on_record(w.engine, p.PhaseDone, lambda r: phases.append(r.phase.name))

    def all_lit(order) -> bool:   # a new sweep (not the call before's), every box lit
        return sweep.order is not order and bool(sweep.order) \
            and len(sweep.lit) == len(sweep.order)
    for done in range(1, 6):        # zero_grad, forward, backward 1, 2 and 3 of 3
        order = sweep.order
        qtbot.keyClick(w, Qt.Key_Right)
        qtbot.waitUntil(lambda done=done: len(phases) == done, timeout=WAIT_MS)
        if done > 2:
            qtbot.waitUntil(lambda order=order: all_lit(order), timeout=WAIT_MS)
            swept.append(list(sweep.lit))
        else:                       # no sweep after zero_grad or the forward pass
            assert sweep.order is order and not sweep.running
    assert phases == ["zero_grad", "forward", "backward", "backward", "backward"]
    boxes = {n.id: n for n in w.graph_view.graph.nodes}
    for k, lit in enumerate(swept):                          # call k: head k's loss first
        assert boxes[lit[0]].heads_reaching == (k,) and "z" in lit
        assert boxes[lit[-1]].label.startswith("trunk.0")
    w.graph_view.set_module_view(False)
