"""The interactive graph panel, driven as a user does: hover, click, export."""
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from pointer import hover
from PySide6.QtCore import QEvent, QPoint, Qt
from PySide6.QtGui import QColor, QHelpEvent
from PySide6.QtWidgets import QApplication, QPushButton, QToolTip

from gradviz.engine import protocol as p
from gradviz.plain.config.config import Config
from gradviz.plain.graph.graph_data import CUT, LOSS, OP, PARAM
from gradviz.render import style

from shared_window import fresh_run, shared_window_fixture, window_fixture  # noqa: F401
from waits import WAIT_MS, on_record

SMALL = Config(batch_size=32)


@pytest.fixture
def make_window(qtbot, window):
    """The module's window on a config, from step 0, its graph panel in the op view (M):
    these tests are about the autograd ops; tests/qt/widgets/test_graph_modules.py drives
    the module view."""
    def make(config: Config = SMALL):
        window.graph_view.set_module_view(False)
        fresh_run(qtbot, window, config)
        qtbot.waitUntil(lambda: window.graph_view.idle)
        window.graph_view.graph = None   # the test before's: the waits below are for this run's
        return window
    return make


def step(qtbot, w, n=1, phase=False):
    before = w.engine.session.step_index
    for _ in range(n):
        qtbot.keyClick(w, Qt.Key_Right, Qt.NoModifier if phase else Qt.ShiftModifier)
    if not phase:
        qtbot.waitUntil(lambda: w.engine.session.step_index >= before + n, timeout=WAIT_MS)


def wait_drawn(qtbot, w, condition=lambda g: True):
    def ready():
        g = w.graph_view.graph
        return g is not None and w.graph_view.idle and condition(g)
    qtbot.waitUntil(ready, timeout=WAIT_MS)
    return w.graph_view.graph


def centre(w, node_id) -> QPoint:
    item = w.graph_view.canvas.nodes[node_id]
    return w.graph_view.canvas.mapFromScene(item.rect().center())


def test_drawn_nodes_and_edges_are_the_engines_graph(qtbot, make_window):
    w = make_window(SMALL.replace(detach=(1,)))
    step(qtbot, w)
    graph = wait_drawn(qtbot, w)
    canvas = w.graph_view.canvas
    assert set(canvas.nodes) == {n.id for n in graph.nodes}
    drawn = {(e.edge_path.src, e.edge_path.dst, e.edge_path.kind) for e in canvas.edges}
    assert drawn == {(e.src, e.dst, e.kind) for e in graph.edges}
    cut = [e for e in canvas.edges if e.edge_path.kind == CUT]
    assert len(cut) == 1
    assert cut[0].pen().style() == Qt.DashLine
    assert cut[0].pen().color() == QColor(style.CUT_COLOUR)
    assert cut[0].label.text() == "detach()"


def test_freed_after_a_plain_backward_not_after_a_retained_one(qtbot, make_window):
    w = make_window(SMALL)
    for _ in range(3):      # zero_grad, forward, the one backward (retain_graph=False)
        step(qtbot, w, phase=True)
    qtbot.waitUntil(lambda: "backward 1 of 1" in w.phase_label.text(), timeout=WAIT_MS)
    graph = wait_drawn(qtbot, w, lambda g: any(n.freed for n in g.nodes))
    items = w.graph_view.canvas.nodes
    freed = [n for n in graph.nodes if n.kind == OP and n.freed]
    assert freed
    assert all(items[n.id].brush().color() == QColor(style.FREED_FILL) for n in freed)
    assert all("(freed)" in items[n.id].text.text() for n in freed)

    w2 = make_window(SMALL.replace(retain_graph="always"))
    for _ in range(3):
        step(qtbot, w2, phase=True)
    qtbot.waitUntil(lambda: "backward 1 of 1" in w2.phase_label.text(), timeout=WAIT_MS)
    graph2 = wait_drawn(qtbot, w2, lambda g: any(n.kind == OP and n.saved_bytes for n in g.nodes))
    assert not any(n.freed for n in graph2.nodes if n.kind == OP)


def test_hover_a_loss_highlights_where_its_gradient_flows(qtbot, make_window):
    w = make_window(SMALL)
    step(qtbot, w)
    graph = wait_drawn(qtbot, w)
    canvas = w.graph_view.canvas
    loss1 = next(n for n in graph.nodes if n.kind == LOSS and n.heads_reaching == (1,))
    hover(canvas.viewport(), centre(w, loss1.id))
    qtbot.waitUntil(lambda: canvas.highlighted == 1, timeout=WAIT_MS)
    head0_only = next(n for n in graph.nodes if n.kind == OP and n.heads_reaching == (0,))
    shared = next(n for n in graph.nodes if n.kind == OP and len(n.heads_reaching) == 3)
    assert canvas.nodes[head0_only.id].opacity() < 0.5
    assert canvas.nodes[shared.id].opacity() == 1.0
    hover(canvas.viewport(), QPoint(2, 2))       # off the node: everything back
    qtbot.waitUntil(lambda: canvas.highlighted is None, timeout=WAIT_MS)
    assert canvas.nodes[head0_only.id].opacity() == 1.0


def test_tooltips_say_kind_shape_dtype_device_gradient_and_state(qtbot, make_window):
    w = make_window(SMALL)
    step(qtbot, w)
    graph = wait_drawn(qtbot, w, lambda g: any(n.grad_norm for n in g.nodes))
    param = next(n for n in graph.nodes if n.kind == PARAM and n.label == "trunk.0.weight")
    viewport = w.graph_view.canvas.viewport()
    pos = centre(w, param.id)
    hover(viewport, pos)
    QApplication.sendEvent(viewport, QHelpEvent(QEvent.ToolTip, pos, viewport.mapToGlobal(pos)))
    qtbot.waitUntil(lambda: "trunk.0.weight" in QToolTip.text(), timeout=WAIT_MS)
    tip = QToolTip.text()
    assert "trunk.0.weight" in tip and "parameter" in tip and "(32, 8)" in tip
    assert "float32" in tip and "cpu" in tip
    assert f"{param.grad_norm:.4g}" in tip
    expected = w.engine.session.last_record.grad_norms["trunk.0.weight"]
    assert np.isclose(param.grad_norm, expected, rtol=1e-5)


def test_click_a_parameter_shows_its_gradient_norm_history(qtbot, make_window):
    w = make_window(SMALL)
    step(qtbot, w, n=4)
    graph = wait_drawn(qtbot, w)

    def four_steps_arrived() -> bool:   # the engine's step count runs ahead of its records
        w.refresh()
        return len(w.history) >= 4
    qtbot.waitUntil(four_steps_arrived, timeout=WAIT_MS)
    param = next(n for n in graph.nodes if n.kind == PARAM and n.label == "heads.1.0.weight")
    qtbot.mouseClick(w.graph_view.canvas.viewport(), Qt.LeftButton, pos=centre(w, param.id))
    plot = w.graph_view.history_plot
    qtbot.waitUntil(plot.isVisible, timeout=WAIT_MS)
    x, y = w.graph_view.history_curve.getData()
    assert list(x) == [0, 1, 2, 3]
    steps_, norms = w.history.param_history("heads.1.0.weight")
    np.testing.assert_allclose(y, norms)


def test_layout_stays_put_between_steps_and_changes_with_structure(qtbot, make_window):
    w = make_window(SMALL)
    step(qtbot, w)
    wait_drawn(qtbot, w)
    canvas = w.graph_view.canvas
    layout = canvas.graph_layout
    positions = {k: (i.box.x, i.box.y) for k, i in canvas.nodes.items()}
    step(qtbot, w, n=2)
    graphs: list = []   # this step's graph
    on_record(w.engine, p.Graph, graphs.append)
    w.engine.request_graph()
    qtbot.waitUntil(lambda: len(graphs) > 0, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: w.graph_view.idle, timeout=WAIT_MS)
    assert canvas.graph_layout is layout
    assert {k: (i.box.x, i.box.y) for k, i in canvas.nodes.items()} == positions
    strategy = w.controls.widgets["strategy"]
    strategy.setCurrentIndex(strategy.findData("in-loop"))
    qtbot.waitUntil(lambda: w.engine.session.config.strategy == "in-loop", timeout=WAIT_MS)
    step(qtbot, w)
    qtbot.waitUntil(lambda: canvas.graph_layout is not layout and w.graph_view.idle,
                    timeout=WAIT_MS)


def test_export_svg_png_dot_and_torchviz(qtbot, make_window, tmp_path):
    w = make_window(SMALL.replace(detach=(1,)))
    step(qtbot, w)
    graph = wait_drawn(qtbot, w)
    view = w.graph_view
    view.export("svg", str(tmp_path / "g.svg"))
    root = ET.parse(tmp_path / "g.svg").getroot()
    assert root.tag.endswith("svg")
    svg_text = (tmp_path / "g.svg").read_text()
    assert "detach()" in svg_text and "trunk.0.weight" in svg_text
    view.export("png", str(tmp_path / "g.png"))
    assert (tmp_path / "g.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    view.export("dot", str(tmp_path / "g.dot"))
    dot = (tmp_path / "g.dot").read_text()
    assert dot.startswith("digraph") and all(f'"{n.id}"' in dot for n in graph.nodes)
    view.export("torchviz", str(tmp_path / "tv.dot"))
    qtbot.waitUntil(lambda: (tmp_path / "tv.dot").exists(), timeout=WAIT_MS)
    assert "AddmmBackward0" in (tmp_path / "tv.dot").read_text()


def test_fit_button_fits_the_graph(qtbot, make_window):
    w = make_window(SMALL)
    step(qtbot, w)
    wait_drawn(qtbot, w)
    canvas = w.graph_view.canvas
    canvas.zoom(4.0)
    qtbot.mouseClick(w.findChild(QPushButton, "fitGraphButton"), Qt.LeftButton)
    visible = canvas.mapToScene(canvas.viewport().rect()).boundingRect()
    assert visible.contains(canvas.scene().itemsBoundingRect().adjusted(5, 5, -5, -5))


def test_export_to_a_bad_path_says_why_and_writes_nothing(qtbot, make_window, tmp_path):
    w = make_window(SMALL)
    step(qtbot, w)
    wait_drawn(qtbot, w)
    for kind in ("svg", "png", "dot"):
        reason = w.graph_view.export(kind, str(tmp_path / "missing" / f"g.{kind}"))
        assert reason and "could not write" in reason
        assert "Export failed" in w.graph_view.caption.text()
    assert w.graph_view.export("pdf", str(tmp_path / "g.pdf")) == "cannot export as 'pdf'"
    assert not any(tmp_path.iterdir())


def test_a_failed_export_keeps_the_older_file_and_leaves_no_partial_one(
        qtbot, make_window, tmp_path, monkeypatch):
    from PySide6.QtGui import QImage
    w = make_window(SMALL)
    step(qtbot, w)
    wait_drawn(qtbot, w)
    target = tmp_path / "g.png"
    target.write_bytes(b"the lecturer's older picture")
    monkeypatch.setattr(QImage, "save", lambda self, path, fmt=None: False)   # disk full
    reason = w.graph_view.export("png", str(target))
    assert reason is not None and "Export failed" in w.graph_view.caption.text()
    assert target.read_bytes() == b"the lecturer's older picture"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.png"]
