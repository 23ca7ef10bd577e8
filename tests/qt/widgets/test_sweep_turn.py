"""A slide's sweep pace on the graph panel: each box gets the slide's turn in the module
view, and the op view's longer sweep goes faster so that it ends within the same time."""
from graph_panels import shown_graph_view

from gradviz.core.session import Session
from gradviz.plain.config.config import Config
from gradviz.plain.graph.module_graph import module_graph

from waits import WAIT_MS

TURN_MS = 60


def _after_first_backward():
    session = Session(Config(device="cpu", batch_size=16, strategy="separate", probes="all"))
    while session.advance_phase().name != "backward":
        pass
    return session.graph(show_saved=False)


def test_each_box_gets_the_slides_turn_and_the_op_view_fits_the_same_time(qtbot):
    graph = _after_first_backward()
    boxes = len(module_graph(graph).sweeps[-1])
    view = shown_graph_view(qtbot, (1000, 700))
    view.animate_next_backward(400, TURN_MS)
    view.show_graph(graph, "after backward 1 of 3")
    qtbot.waitUntil(lambda: view.sweep.running, timeout=WAIT_MS)
    assert view.sweep.tick_ms == TURN_MS and len(view.sweep.order) == boxes
    qtbot.waitUntil(lambda: not view.sweep.running, timeout=WAIT_MS)
    assert view.sweep.lit == view.sweep.order
    view.set_module_view(False)           # every op: more of them, within the same time
    view.animate_next_backward(400, TURN_MS)
    view.show_graph(graph, "after backward 1 of 3")
    qtbot.waitUntil(lambda: view.sweep.running, timeout=WAIT_MS)
    ops = len(view.sweep.order)
    assert ops > boxes and view.sweep.tick_ms * ops <= TURN_MS * boxes
