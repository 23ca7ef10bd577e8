"""Smoke test of the graph panel on two lesson slides' real graphs (the rules are tested
plain in tests/plain/test_graph_room.py): 04/2's cut labelled beside its bar, over no
box and in view; 02/2's "changed in place" boxes all framed in a short, wide panel."""
import pytest
from graph_panels import shown_graph_view

from gradviz.core.session import Session
from gradviz.plain.graph.graph_data import CUT, STALE
from gradviz.plain.lessons.lessons import find_lesson

from waits import WAIT_MS


def _graph(lesson: str, index: int, steps: int):
    slide = find_lesson(lesson).slides[index]
    session = Session(slide.config.replace(device="cpu"))
    for _ in range(steps):
        if session.step() is None:
            break
    return slide, session.graph(show_saved=False)


def _panel(qtbot, size, slide, graph):
    view = shown_graph_view(qtbot, size, key=False)
    view.set_module_view(True)
    view.set_focus(slide.focus)
    view.show_graph(graph, "after the step")
    qtbot.waitUntil(lambda: view.idle and view.graph is not None, timeout=WAIT_MS)
    return view


@pytest.mark.parametrize("size", [(400, 300), (560, 400)])
def test_a_cut_is_labelled_beside_its_bar_over_no_box(qtbot, size):
    slide, graph = _graph("04-detach-vs-detach_", 1, 3)   # detach_() after head 0: error
    canvas = _panel(qtbot, size, slide, graph).canvas
    (cut,) = [e for e in canvas.edges if e.edge is not None and e.edge.kind == CUT]
    label = cut.label.mapRectToScene(cut.label.boundingRect())
    assert cut.label.isVisible() and cut.label.text() == "detach_()"
    seen = canvas.mapToScene(canvas.viewport().rect()).boundingRect()
    assert seen.contains(label)
    assert not [i.node.label for i in canvas.nodes.values() if i.isVisible()
                and i.mapRectToScene(i.rect()).intersects(label)]


def test_every_changed_box_is_framed_in_a_short_wide_panel(qtbot):
    slide, graph = _graph("02-backward-twice", 1, 3)
    assert slide.focus == "changed"
    canvas = _panel(qtbot, (620, 300), slide, graph).canvas
    changed = [i for i in canvas.nodes.values() if i.node.state == STALE]
    assert len(changed) >= 4   # heads 0 and 1 keep their buffers: their two Linears
    seen = canvas.mapToScene(canvas.viewport().rect()).boundingRect().adjusted(-1, -1, 1, 1)
    assert all(seen.contains(i.mapRectToScene(i.rect())) for i in changed)
    assert canvas.label_line_px() >= 13.9
