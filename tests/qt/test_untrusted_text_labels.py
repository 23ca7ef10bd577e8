"""Labels that show text from files, users or PyTorch show it as written: an error
message, a node's name, a graph caption or a compared file's name that looks like HTML
draws no picture and keeps its size."""
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextDocument

from gradviz.plain.graph.graph_data import OP, GraphNode
from gradviz.plain.records.events import from_exception
from gradviz.qt.widgets.compare_view import CompareView
from gradviz.qt.widgets.events_view import EventsView
from gradviz.qt.widgets.graph_items import tooltip
from gradviz.qt.widgets.graph_view import GraphView

ATTACKS = ["<img width=9999 height=9999>", "<img src=secret.png width=400 height=300>",
           "<table background=secret.png><tr><td>x</td></tr></table>", "a & b < c > d"]


def as_read(rich: str) -> str:
    """What a reader sees of rich text: Qt's own rendering of it, as plain text."""
    document = QTextDocument()
    document.setHtml(rich)
    return document.toPlainText()


def shown(qtbot, widget, size=(600, 400)):
    qtbot.addWidget(widget)
    widget.resize(*size)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


@pytest.mark.parametrize("attack", ATTACKS)
def test_a_pytorch_message_with_markup_is_shown_as_written(qtbot, attack):
    view = shown(qtbot, EventsView())
    calm = view.current.sizeHint().height()
    event = from_exception(RuntimeError(f"element 0 of {attack} does not require grad"),
                           3, "backward", "backward")
    view.show_event(event)
    assert f"element 0 of {attack} does not require grad" in " ".join(
        as_read(view.current.text()).replace("\u200b", "").split())
    assert "<img" not in view.current.text() and "<table" not in view.current.text()
    assert view.current.sizeHint().height() < calm + 400      # text, not a 9999 px picture
    assert view.log.item(0).text() == event.one_line()         # list items are plain


@pytest.mark.parametrize("attack", ATTACKS)
def test_a_node_tooltip_shows_names_as_written(attack):
    node = GraphNode("n1", OP, attack, dtype=attack, device=attack, tensor=attack,
                     requires_grad=True, is_leaf=False, has_grad=False, grad_note=attack)
    tip = tooltip(node, {})
    assert "<img" not in tip and "<table" not in tip
    read = as_read(tip)
    assert read.startswith(f"{attack} — ")
    assert read.count(attack) == 5


@pytest.mark.parametrize("attack", ATTACKS)
def test_a_graph_caption_shows_the_reason_as_written(qtbot, attack):
    view = shown(qtbot, GraphView(), size=(700, 450))
    line = view.caption.fontMetrics().height()
    view.on_failed(f"Graphviz said {attack}")
    assert view.caption.textFormat() == Qt.PlainText
    assert view.caption.text() == f"Graph not drawn: Graphviz said {attack}"
    assert view.caption.sizeHint().height() < 4 * line


@pytest.mark.parametrize("attack", ATTACKS)
def test_compared_names_and_reasons_show_as_written(qtbot, attack):
    view = shown(qtbot, CompareView(), size=(800, 500))
    view.show_pinned(f"{attack}.toml", f"strategy {attack}")
    assert view.pinned.textFormat() == Qt.RichText            # our bold A and B...
    assert as_read(view.pinned.text()) == (f"A = these settings · B = {attack}.toml"
                                           f" — strategy {attack}")
    view.show_failed(attack)
    assert as_read(view.verdict.text()) == f"Not compared: {attack}"
    assert view.verdict.sizeHint().height() < 200
