"""The graph's key: it lists what the graph on screen has, and it goes beside the graph
in a wide panel and in rows below it in a squarer one, so the graph keeps the room."""
import pytest

from gradviz.core.session import Session
from gradviz.plain.config.config import Config
from gradviz.qt.widgets.graph_view import GraphView
from gradviz.render import style
from gradviz.render.layout import layout_graph


def _graph(config: Config, phases: int | None = None):
    """The graph after a whole step, or after the first `phases` phases of one."""
    session = Session(config)
    if phases is None:
        session.step()
    else:
        for _ in range(phases):
            session.advance_phase()
    return session.graph(show_saved=False)


def _view(qtbot, width: int, height: int, graph) -> GraphView:
    view = GraphView()
    qtbot.addWidget(view)
    view.resize(width, height)
    view.show()
    qtbot.waitExposed(view)
    view.on_layout(graph, layout_graph(graph, rankdir="TB"), "after one step")
    return view


def test_before_any_graph_the_key_lists_nothing(qtbot):
    """A fresh graph panel listed every kind, "detach cut" included, with no graph drawn."""
    view = GraphView()
    qtbot.addWidget(view)
    view.resize(900, 500)
    view.show()
    qtbot.waitExposed(view)
    assert view.legend.entries() == []
    assert view.legend.rows() == 0


def test_the_key_names_only_kinds_the_graph_on_screen_has(qtbot):
    graph = _graph(Config(batch_size=16))
    view = _view(qtbot, 900, 500, graph)
    kinds = {n.kind for n in graph.nodes}
    named = {name: kind for kind, name in style.KIND_NAMES.items()}
    listed = [e for e in view.legend.entries() if e in named]
    assert listed and all(named[e] in kinds for e in listed)
    assert {style.KIND_NAMES[k] for k in kinds if k in style.KIND_NAMES} == set(listed)


def test_a_cut_is_in_the_key_only_where_a_head_reads_a_detached_z(qtbot):
    plain = _view(qtbot, 900, 500, _graph(Config(batch_size=16)))
    detached = _view(qtbot, 900, 500, _graph(Config(batch_size=16, detach=(1,))))
    assert "detach cut" not in plain.legend.entries()
    assert "detach cut" in detached.legend.entries()
    # the three heads' colours, each named by its loss
    assert [e for e in plain.legend.entries() if e.endswith(" only")] == [
        "head0 only", "head1 only", "head2 only"]


def test_freed_is_in_the_key_only_once_backward_has_run(qtbot):
    # zero_grad then forward: nothing freed yet; after the step's backward its saved
    # tensors are gone
    before = _view(qtbot, 900, 500, _graph(Config(batch_size=16), phases=2))
    after = _view(qtbot, 900, 500, _graph(Config(batch_size=16)))
    assert "freed by backward" not in before.legend.entries()
    assert "freed by backward" in after.legend.entries()


def test_no_colour_bar_without_per_node_gradients(qtbot):
    # probes "default" measure no gradient per node: the bar would read "— to —"
    view = _view(qtbot, 900, 500, _graph(Config(batch_size=16)))
    assert "gradient in the last backward" not in view.legend.entries()
    measured = _view(qtbot, 900, 500, _graph(Config(batch_size=16, probes="all")))
    assert "gradient in the last backward" in measured.legend.entries()


@pytest.mark.parametrize("size", [(460, 470), (620, 600), (455, 300), (300, 800)])
def test_in_a_squarish_panel_the_key_is_rows_below_the_graph(qtbot, size):
    view = _view(qtbot, *size, _graph(Config(batch_size=16, detach=(1,))))
    qtbot.waitUntil(lambda: not view.key_beside())
    canvas, key = view.canvas.geometry(), view.side_scroll.geometry()
    assert canvas.width() >= 0.9 * view.width()        # beside, it had under 60%
    assert key.top() >= canvas.bottom()                 # below it
    assert key.height() <= 0.45 * view.height()
    # a few rows, not a column of a dozen lines: every entry whole within the key
    legend = view.legend
    assert 1 < legend.rows() < len(legend.entries())
    placed, _ = legend._flow(legend.width())
    assert all(x + legend._width_of(entry) <= legend.width() for entry, x, _ in placed)


def test_in_a_wide_panel_the_key_is_a_column_beside_the_graph(qtbot):
    view = _view(qtbot, 1200, 400, _graph(Config(batch_size=16)))
    qtbot.waitUntil(view.key_beside)
    canvas, key = view.canvas.geometry(), view.side_scroll.geometry()
    assert key.left() >= canvas.right()
    assert canvas.width() >= 0.65 * view.width()
    assert view.legend.rows() >= 6                      # one entry (or two) a line


def test_the_key_moves_when_the_panel_changes_shape(qtbot):
    view = _view(qtbot, 1200, 400, _graph(Config(batch_size=16)))
    qtbot.waitUntil(view.key_beside)
    view.resize(500, 500)
    qtbot.waitUntil(lambda: not view.key_beside())
    view.resize(1300, 420)
    qtbot.waitUntil(view.key_beside)


def test_a_divider_the_user_dragged_stays_when_the_next_graph_comes(qtbot):
    graph = _graph(Config(batch_size=16))
    view = _view(qtbot, 500, 500, graph)
    qtbot.waitUntil(lambda: not view.key_beside())
    total, key = sum(view.split.sizes()), view.split.sizes()[1] + 40
    view.split.setSizes([total - key, key])     # as a drag of the divider does
    view.on_layout(graph, layout_graph(graph, rankdir="TB"), "after two steps")
    assert view.split.sizes()[1] == key


def test_the_hover_hint_moves_to_the_tooltip_where_the_caption_has_no_room(qtbot):
    graph = _graph(Config(batch_size=16))
    wide = _view(qtbot, 1400, 500, graph)
    narrow = _view(qtbot, 420, 500, graph)   # the caption on a line of its own, too short
    hint = "hover a loss to see where its gradient flows"
    assert hint in wide.caption.text()
    assert hint not in narrow.caption.text() and hint in narrow.caption.toolTip()
    assert "nodes" in narrow.caption.text()
    narrow.resize(1400, 500)
    qtbot.waitUntil(lambda: hint in narrow.caption.text())


def test_an_export_message_is_shown_whole_however_narrow(qtbot, tmp_path):
    view = _view(qtbot, 450, 500, _graph(Config(batch_size=16)))
    assert view.export("dot", str(tmp_path / "g.dot")) is None
    assert view.caption.text() == f"Graph exported to {tmp_path / 'g.dot'}"


def _whole_graph_in_view(view: GraphView) -> bool:
    canvas = view.canvas
    drawn = canvas.mapFromScene(canvas.scene().sceneRect()).boundingRect()
    return canvas.viewport().rect().adjusted(-2, -2, 2, 2).contains(drawn)


def test_the_graph_is_fitted_to_the_room_the_key_leaves(qtbot):
    # a wide, short dock: the key takes two columns beside the graph, and the graph
    # drawn first (at one column's width) would have run out of the canvas on the right
    view = _view(qtbot, 920, 290, _graph(Config(batch_size=16)))
    view.set_module_view(False)   # the op view, whose point is the whole picture
    width = view.side_scroll.width()
    # then a graph with more to explain: a cut, and the colour bar of measured gradients
    graph = _graph(Config(batch_size=16, detach=(1,), probes="all"))
    view.on_layout(graph, layout_graph(graph, rankdir="LR"), "after one step")
    assert view.key_beside() and view.side_scroll.width() > width
    assert _whole_graph_in_view(view)


def test_in_a_narrow_dock_the_caption_has_a_line_of_its_own_above_the_buttons(qtbot):
    view = _view(qtbot, 370, 460, _graph(Config(batch_size=16)))
    # beside the buttons it wrapped to four lines of two words each
    qtbot.waitUntil(lambda: view.caption_above() and
                    view.caption.geometry().bottom() <= view.fit_button.geometry().top())
    caption = view.caption.geometry()
    lines = caption.height() / view.caption.fontMetrics().lineSpacing()
    assert lines < 2.5, view.caption.text()
    view.resize(1200, 460)          # room again: back beside them, on their line
    qtbot.waitUntil(lambda: not view.caption_above())
    qtbot.waitUntil(lambda: abs(view.caption.geometry().center().y()
                                - view.fit_button.geometry().center().y()) < 8)
