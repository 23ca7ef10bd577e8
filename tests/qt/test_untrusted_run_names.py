"""A run folder from a stranger: its losses, parameters, model and runs are named in
markup (an image of a file on this machine, a link, bold). The recorded run's window shows
every name as written, in its charts' legends and titles, its labels, its graph and its
tooltips, and renders none of them: no image is fetched, no link made."""
from __future__ import annotations

import pyqtgraph as pg
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextDocument

from gradviz.plain.graph.graph_data import LOSS, PARAM, GraphData, GraphEdge, GraphNode
from gradviz.plain.records.records import StepRecord
from gradviz.plain.run_files.watch_stream import StreamWriter
from gradviz.qt.plain_text import plain_tip
from gradviz.qt.run_window import RunWindow
from gradviz.qt.theme import THEMES
from gradviz.qt.widgets.plain_legend import PlainLegend
from gradviz.qt.widgets.plot_style import style_legend

from shown_text import looks_rich, rendered_markup, shown_texts, write_png
from waits import WAIT_MS


@pytest.fixture
def names(tmp_path) -> dict[str, str]:
    """Each hostile name by the word only it contains."""
    secret = tmp_path / "secret.png"
    write_png(secret)
    return {"secret.png": f'<img src="{secret.as_uri()}">',
            "linkname": '<a href="x">linkname</a>', "boldname": "<b>boldname</b>"}


def _write_run(folder, names: dict[str, str], scale: float) -> None:
    losses, params = list(names.values()), [f"{n}.weight" for n in names.values()]
    writer = StreamWriter(folder, {"param_names": params, "model": "<b>boldname</b>Net"}).open()
    writer.add_graph(0, GraphData(
        nodes=[GraphNode("p", PARAM, params[0], shape=(2,)), GraphNode("l", LOSS, losses[2])],
        edges=[GraphEdge("l", "p")]).to_dict())
    k = len(losses)
    for step in range(3):
        writer.add_step(StepRecord(
            step=step, losses={n: scale * (i + 1 + step) for i, n in enumerate(losses)},
            total=scale * (6 + 3 * step), grad_norms={p: 0.5 + i for i, p in enumerate(params)},
            global_grad_norm=0.5, junction_grad_norms={n: 0.1 * (i + 1) for i, n in
                                                       enumerate(losses)},
            cosine=[[1.0 if i == j else 0.5 for j in range(k)] for i in range(k)],
            saved_bytes=1000, saved_bytes_peak=2000, graph_nodes=4,
            update_cosine={n: 0.5 for n in losses}), 1)
    writer.close(3)


def test_every_name_from_the_folder_is_shown_as_written(qtbot, tmp_path, names):
    runs = tmp_path / "runs"
    _write_run(runs / "<b>runA", names, 1.0)   # a folder's name has no "/": no end tag
    _write_run(runs / "<i>runB", names, 2.0)
    losses = set(names.values())
    names = {**names, "runA": "<b>runA", "runB": "<i>runB"}
    w = RunWindow(runs, compare=runs / "<i>runB")
    qtbot.addWidget(w)
    w.resize(1400, 900)
    w.show()
    # both runs ticked, drawn over each other: their names in the runs' list and legend
    qtbot.waitUntil(lambda: len(w.viewer.runs_loss.data()) == 2, timeout=WAIT_MS)
    w.refresh()
    wrong = rendered_markup(shown_texts(w), names)
    assert wrong == [], "\n".join(wrong)
    legend = [label.item.toPlainText() for _, label in w.viewer.runs_loss.legend.items]
    assert legend == ["<b>runA", "<i>runB"]
    assert w.viewer.sidebar.ticked() == ["<b>runA", "<i>runB"]
    runs_list = w.viewer.sidebar.runs
    runs_list.item(1).setCheckState(Qt.CheckState.Unchecked)   # B unticked: A's charts
    qtbot.waitUntil(lambda: len(w.loss_plot.data().get("total", ((), ()))[1]) == 3,
                    timeout=WAIT_MS)
    qtbot.waitUntil(lambda: w.graph_view.graph is not None, timeout=WAIT_MS)
    w.refresh()
    shown = shown_texts(w)
    wrong = rendered_markup(shown, names)
    assert wrong == [], "\n".join(wrong)
    # and the names are there, as written: the loss legend's labels read them literally
    legend = [label.item.toPlainText() for _, label in w.loss_plot.legend.items]
    assert losses <= set(legend)
    assert legend[-1] == "B = <i>runB (dashed)"
    assert w.grad_bars._title.text() == ("Gradient norm per parameter: A = <b>runA | "
                                         "B = <i>runB (pale), both at step 2")
    read = {s.text for s in shown}
    assert "rows and columns: 0 {}, 1 {}, 2 {}".format(*names.values()) in read
    w.close()


def test_a_tooltip_reads_as_written_lines_and_all():
    assert plain_tip("grad norm: 0.5") == "grad norm: 0.5"   # nothing Qt would render
    text = '<b>boldname</b> & <img src="x.png">\n  second line'
    tip = plain_tip(text)
    assert looks_rich(tip)   # rendered, as QToolTip renders it: to the same characters
    document = QTextDocument()
    document.setHtml(tip)
    assert document.toPlainText() == text


def test_a_legend_keeps_a_name_as_given_and_draws_it_escaped(qtbot):
    legend = PlainLegend()
    curve = pg.PlotDataItem([0, 1], [0, 1])
    legend.addItem(curve, "<b>boldname</b>")
    (_, label), = legend.items
    assert label.text == "<b>boldname</b>"            # as given: found by its name
    assert label.item.toPlainText() == "<b>boldname</b>"
    style_legend(legend, THEMES["dark"])               # set again in a theme: still plain
    assert label.item.toPlainText() == "<b>boldname</b>"
    legend.removeItem("<b>boldname</b>")
    assert legend.items == []
