"""Each view bound to the window's model alone (no window, no engine process): the
model's fields shown, the user's input written back, the engine's commands called; the
engine is a mock of the adapter's class. Milliseconds each."""
import collections
from unittest.mock import MagicMock

import pytest
from PySide6.QtCore import Qt

from gradviz.engine import protocol as p
from gradviz.plain.config.config import Config
from gradviz.plain.records.history import History
from gradviz.plain.records.records import PhaseRecord, StepRecord
from gradviz.plain.window.status_line import sweep_ms
from gradviz.plain.window.window_model import WindowModel
from gradviz.qt.bindings.code_view import bind_code_view
from gradviz.qt.bindings.graph_view import bind_graph_view
from gradviz.qt.bindings.memory_plot import bind_memory_plot
from gradviz.qt.bindings.run_bar import bind_run_bar, toggle_play
from gradviz.qt.bindings.settings_panel import bind_settings_panel
from gradviz.qt.controls import ControlsPanel
from gradviz.qt.engine_client import EngineClient
from gradviz.qt.panel_painter import drain
from gradviz.qt.run_bar import RunBar
from gradviz.qt.widgets.code_view import CodeView
from gradviz.qt.widgets.graph_view import GraphView
from gradviz.qt.widgets.memory_plot import MemoryPlot

B = Config(heads=2, batch_size=64)


class Engine:
    """The adapter's commands, recorded, and its received signal (a real one)."""
    def __init__(self):
        self.client = EngineClient(WindowModel())
        self.mock = MagicMock(spec=EngineClient)
        self.mock.received = self.client.received


@pytest.fixture
def engine(qapp):
    return Engine()


def test_the_run_bar_shows_the_models_pace_mode_and_running(qtbot, engine):
    bar, m = RunBar(), WindowModel(pace_ms=500, play_mode="phases")
    qtbot.addWidget(bar)
    bind_run_bar(bar, m, engine.mock)
    assert bar.delay_ms() == 500 and bar.phase_play.isChecked()   # shown at once
    m.pace_ms, m.play_mode = 20, "steps"
    assert bar.delay_ms() == 20 and not bar.phase_play.isChecked()
    assert bar.pace.text() == "≤ 50 steps/s"
    m.running = True
    assert "Pause" in bar.play.text()
    m.running = False
    assert "Play" in bar.play.text()


def test_the_user_on_the_run_bar_writes_the_model_and_calls_the_engine(qtbot, engine):
    bar, m = RunBar(), WindowModel()
    qtbot.addWidget(bar)
    bind_run_bar(bar, m, engine.mock)
    bar.speed.setValue(4)
    bar.phase_play.setChecked(True)
    assert (m.pace_ms, m.play_mode) == (100, "phases")
    bar.phase_play.setChecked(False)
    assert m.play_mode == "steps"
    for button, command in ((bar.phase, "step_phase"), (bar.step, "step_once"),
                            (bar.reset, "reset")):
        qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
        getattr(engine.mock, command).assert_called_once_with()
    qtbot.mouseClick(bar.play, Qt.MouseButton.LeftButton)
    engine.mock.play.assert_called_once_with()
    engine.mock.pause.assert_not_called()


@pytest.mark.parametrize("running, command, other", [(False, "play", "pause"),
                                                     (True, "pause", "play")])
def test_space_plays_a_paused_engine_and_pauses_a_playing_one(engine, running, command,
                                                             other):
    toggle_play(WindowModel(running=running), engine.mock)
    getattr(engine.mock, command).assert_called_once_with()
    getattr(engine.mock, other).assert_not_called()


def test_the_settings_panel_and_the_requested_config_both_ways(qtbot, engine):
    panel, m = ControlsPanel(Config()), WindowModel()
    qtbot.addWidget(panel)
    bind_settings_panel(panel, m, engine.mock)
    m.requested = B
    assert panel.config() == B and len(panel.detach_boxes) == 2
    panel.widgets["batch_size"].setValue(128)        # the user types a batch size
    assert m.requested == Config(heads=2, batch_size=128)
    m.devices = (("cpu", "the CPU"), ("cuda:0", "a GPU"))
    combo = panel.widgets["device"]
    assert [combo.itemData(i) for i in range(combo.count())][-2:] == ["cpu", "cuda:0"]
    m.model_name = "two.py"
    assert not panel.widgets["heads"].isEnabled()
    panel.widgets["model"].setCurrentIndex(panel.widgets["model"].findData("mlp"))
    panel.widgets["clip"].setValue(0.5)              # the controls enabled again...
    assert not panel.widgets["heads"].isEnabled()    # ...but not the file's
    assert "two.py builds its own model" in panel.widgets["heads"].toolTip()
    m.model_name = ""
    assert panel.widgets["heads"].isEnabled()


def test_the_settings_panel_says_why_a_setting_was_not_applied_until_one_is(qtbot, engine):
    panel, m = ControlsPanel(Config()), WindowModel()
    qtbot.addWidget(panel)
    bind_settings_panel(panel, m, engine.mock)
    engine.client.received.emit(p.ConfigRejected("batch_size 0 is not positive"))
    assert panel.problem.text() == "Not applied: batch_size 0 is not positive"
    engine.client.received.emit(p.ConfigApplied(Config(), False, []))
    assert panel.problem.text() == ""


def test_the_code_shows_the_model_file_only_once_the_engine_built_it(qtbot):
    view, m = CodeView(), WindowModel()
    qtbot.addWidget(view)
    bind_code_view(view, m)
    assert view.config() == m.requested
    m.requested = B
    assert view.config() == B
    m.model_path = "/models/two.py"                  # opened, not built yet
    assert view.model_path() is None
    m.model_name = "two.py"                          # built
    assert view.model_path() == "/models/two.py"
    m.model_path = None                              # back to the built-in model
    assert view.model_path() is None


def test_the_memory_chart_shares_its_height_as_the_slide_names_its_metrics(qtbot):
    chart, m = MemoryPlot(), WindowModel(named_metrics=("graph_nodes",))
    qtbot.addWidget(chart)
    bind_memory_plot(chart, m)
    assert chart.nodes_share is not None and chart.nodes_share > 0.5   # as bound
    m.named_metrics = ("graph_nodes", "saved_bytes")
    assert chart.nodes_share == 0.5
    m.named_metrics = ("saved_bytes_peak",)
    assert chart.nodes_share is None
    m.named_metrics = ()
    assert chart.nodes_share is None


def test_the_graph_views_saved_tensors_both_ways_and_the_graphs_it_is_sent(qtbot, engine):
    view, m = GraphView(), WindowModel()
    qtbot.addWidget(view)
    bind_graph_view(view, m, engine.mock)
    m.show_saved = True
    assert view.show_saved.isChecked()
    view.show_saved.setChecked(False)
    assert m.show_saved is False
    view.torchvizRequested.emit("/tmp/g.dot")
    engine.mock.export_torchviz.assert_called_once_with("/tmp/g.dot")


@pytest.mark.parametrize("running, mode, name, swept", [
    (False, "steps", "backward", True),     # one phase at a time: its sweep shown
    (True, "phases", "backward", True),     # played phase by phase: too
    (True, "steps", "backward", False),     # played by steps: no sweep
    (False, "steps", "forward", False)])    # not a backward call
def test_a_backward_phase_is_swept_where_it_is_seen_alone(qtbot, engine, running, mode,
                                                          name, swept):
    view, m = GraphView(), WindowModel(running=running, play_mode=mode, pace_ms=1000)
    qtbot.addWidget(view)
    calls: list = []
    view.animate_next_backward = lambda *timing: calls.append(timing)
    bind_graph_view(view, m, engine.mock)
    engine.client.received.emit(p.PhaseDone(PhaseRecord(step=0, name=name, detail="")))
    assert calls == ([(sweep_ms(1000), 0)] if swept else [])   # no slide's sweep pace


def test_drain_keeps_the_steps_of_this_generation_only():
    records = collections.deque([(1, StepRecord(step=0, losses={}, total=1.0)),
                                 (2, StepRecord(step=0, losses={}, total=2.0)),
                                 (2, StepRecord(step=1, losses={}, total=3.0)),
                                 (3, StepRecord(step=0, losses={}, total=4.0))])
    history = History([], [])
    assert drain(records, 2, history) == 2
    assert list(history.column("total")) == [2.0, 3.0] and not records
