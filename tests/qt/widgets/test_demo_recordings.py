"""The widget demos open on data recorded from a real session (resources/demo), not on
a session of their own: no torch in their process, and the recordings are still what a
real session makes."""
import dataclasses

from gradviz.core.session import Session
from gradviz.plain.config.config import Config
from gradviz.qt.widgets.demo import recorded_event, recorded_graph

NO_TORCH = """
import sys
from gradviz.qt.widgets import demo, events_view, graph_view
graph, event = demo.recorded_graph(), demo.recorded_event()
print(len(graph.nodes), event.title, "torch" in sys.modules)
"""


def test_the_demos_data_loads_without_torch(run_script):
    done = run_script(NO_TORCH)
    assert done.returncode == 0, done.stderr
    nodes, *title, torch_loaded = done.stdout.split()
    assert int(nodes) > 10 and " ".join(title) == "Backward through a freed graph"
    assert torch_loaded == "False"


def test_the_recorded_graph_is_the_graph_a_real_session_makes():
    session = Session(Config(detach=(1,), probes="all"))
    session.step()
    real, recorded = session.graph(show_saved=False), recorded_graph()
    assert recorded.structure_key() == real.structure_key()
    assert recorded.modules == real.modules and recorded.sweeps == real.sweeps
    assert {n.id: n.heads_reaching for n in recorded.nodes} == \
        {n.id: n.heads_reaching for n in real.nodes}


def test_the_recorded_error_is_pytorchs_error_for_separate_without_retain():
    session = Session(Config(strategy="separate", retain_graph="never"))
    session.step()
    real = dataclasses.asdict(session.error)
    assert dataclasses.asdict(recorded_event()) == real


def test_the_graph_view_draws_the_recorded_graph(qtbot):
    from gradviz.qt.widgets.graph_view import GraphView
    view = GraphView()
    qtbot.addWidget(view)
    with qtbot.waitSignal(view.requestLayout, timeout=10_000) as asked:
        view.show_graph(recorded_graph(), "after one step")
    assert asked.args[0] is not None
