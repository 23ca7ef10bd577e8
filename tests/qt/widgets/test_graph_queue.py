"""The graph panel's queue of layouts, fed in the racy orders a busy machine makes: the
layouts come back when the test hands them back (the app's own renderer, on this
thread), so a graph arriving while another is laid out is exactly placed. The panel
always ends on the newest graph it was given, with its caption."""
import dataclasses

from gradviz.qt.graph_renderer import GraphRenderer
from gradviz.qt.widgets.demo import recorded_graph
from gradviz.qt.widgets.graph_view import GraphView


def held_view(qtbot):
    """An op-view panel whose layouts wait in `asked` until handed to `lay_out`."""
    view = GraphView()
    qtbot.addWidget(view)
    view.set_module_view(False)
    view.resize(900, 600)
    view.show()
    qtbot.waitExposed(view)
    asked: list = []
    view.requestLayout.connect(lambda *request: asked.append(request))
    renderer = GraphRenderer()
    renderer.layoutReady.connect(view.on_layout)
    renderer.layoutFailed.connect(view.on_failed)
    renderer.layoutCancelled.connect(view.on_cancelled)

    def lay_out() -> None:
        """Every layout asked for comes back, in the order asked (and those it asks)."""
        while asked:
            renderer.render(*asked.pop(0))
    return view, asked, lay_out


def relabelled(graph):
    """The same graph with one op named otherwise: another structure, another layout."""
    first_op = next(i for i, n in enumerate(graph.nodes) if n.kind == "op")
    nodes = list(graph.nodes)
    nodes[first_op] = dataclasses.replace(nodes[first_op], label="Renamed")
    return dataclasses.replace(graph, nodes=nodes)


def test_a_graph_of_the_shape_on_screen_is_not_replaced_by_an_older_layout(qtbot):
    view, asked, lay_out = held_view(qtbot)
    first = recorded_graph()
    view.show_graph(first, "after reset")
    lay_out()
    other = relabelled(first)
    view.show_graph(other, "after the change")   # its layout still running ...
    assert asked
    newest = recorded_graph()                    # ... as one of the first's shape comes
    view.show_graph(newest, "at the error")
    lay_out()                                    # the older graph's layout lands late
    assert view.idle
    assert view.caption.text().startswith("Graph at the error")
    assert view.graph is newest


def test_the_newest_of_several_waiting_graphs_is_drawn(qtbot):
    view, asked, lay_out = held_view(qtbot)
    first = recorded_graph()
    view.show_graph(first, "after reset")
    lay_out()
    view.show_graph(relabelled(first), "after the change")   # laid out ...
    view.show_graph(relabelled(first), "after the change")   # ... these wait
    newest = relabelled(relabelled(first))
    view.show_graph(newest, "at the error")
    lay_out()
    assert view.idle
    assert view.caption.text().startswith("Graph at the error")
    assert view.graph is newest
