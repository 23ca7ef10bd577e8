"""The module view on model files (issue 22), driven as a user does: a run of repeated
blocks is one box that a double-click opens into its blocks, a block's box opens into its
autograd ops and closes again, Enter opens the box under the mouse, Backspace closes
what was opened last; in the window, `--model` draws the same boxes. What to expect is
read from the plain model's own named_modules()."""
import runpy
from pathlib import Path

import pytest
from graph_panels import shown_graph_view
from pointer import hover
from PySide6.QtCore import Qt

from gradviz.core.model_file import ModelFile
from gradviz.core.session import Session
from gradviz.plain.config.config import Config
from gradviz.plain.graph.graph_data import MODULE, OP, PARAM
from gradviz.qt.widgets.graph_view import GraphView

from waits import WAIT_MS

ROOT = Path(__file__).resolve().parents[3]
TRANSFORMER = ROOT / "resources" / "models" / "tiny_transformer.py"
CNN = ROOT / "resources" / "models" / "cnn_two_heads.py"


def _plain_modules(path: Path) -> dict[str, object]:
    """The file's modules by the names gradviz gives them: trunk.…, heads.K.…"""
    built = runpy.run_path(str(path))["build"](0)
    named = {f"trunk.{n}": m for n, m in built["trunk"].named_modules() if n}
    for k, head in enumerate(built["heads"]):
        named.update({f"heads.{k}.{n}".rstrip("."): m for n, m in head.named_modules()})
    return named


def _graph(path: Path):
    s = Session(Config(device="cpu", heads=2, batch_size=8), ModelFile(str(path)))
    assert s.step() is not None, s.error
    return s.graph(show_saved=False)


@pytest.fixture
def view(qtbot):
    def make(path: Path) -> GraphView:
        v = shown_graph_view(qtbot, (1280, 720))
        v.set_module_view(True)
        v.show_graph(_graph(path), "after one step")
        qtbot.waitUntil(lambda: v.idle and v.graph is not None, timeout=WAIT_MS)
        return v
    return make


def _labels(view) -> set[str]:
    return {i.node.label for i in view.canvas.nodes.values() if i.node.kind == MODULE}


def _item(view, label):
    return next(i for i in view.canvas.nodes.values() if i.node.label == label)


def _double_click(qtbot, view, item) -> None:
    pos = view.canvas.mapFromScene(item.rect().center())
    qtbot.mouseDClick(view.canvas.viewport(), Qt.LeftButton, pos=pos)


def test_a_cnn_shows_a_box_per_layer_and_no_parameter_boxes(qtbot, view):
    v = view(CNN)
    modules = _plain_modules(CNN)
    leaves = {name for name, m in modules.items() if not list(m.children())}
    # too tall for the panel at the least label size, each Conv2d-ReLU-MaxPool2d block
    # of the trunk is one box (not the trunk, nor a head: those hold the layers)
    blocks = {name for name, m in modules.items() if list(m.children())
              and name.count(".") == 1 + name.startswith("heads.")
              and all(not list(c.children()) for c in m.children())}
    assert blocks == {"trunk.0", "trunk.1", "trunk.2"} and not v.canvas.whole_legible()
    assert _labels(v) == blocks | {n for n in leaves if n.rpartition(".")[0] not in blocks}
    assert not [i for i in v.canvas.nodes.values() if i.node.kind in (PARAM, OP)]


def test_a_run_of_layers_opens_into_layers_a_layer_into_ops_and_closes(qtbot, view):
    v = view(TRANSFORMER)
    modules = _plain_modules(TRANSFORMER)
    layers = sorted(n for n in modules if n.count(".") == 3
                    and n.startswith("trunk.layers.layers."))
    run = f"trunk.layers.layers.0–{len(layers) - 1} ×{len(layers)}"
    assert run in _labels(v) and not any(n.startswith("trunk.layers.layers.0.")
                                         for n in _labels(v))

    _double_click(qtbot, v, _item(v, run))                      # the run: its layers
    attention = f"{layers[0]}.self_attn"
    qtbot.waitUntil(lambda: v.idle and attention in _labels(v), timeout=WAIT_MS)
    assert run not in _labels(v)
    assert {f"{layer}.{part}" for layer in layers
            for part in ("self_attn", "linear1", "linear2", "norm1", "norm2")} <= _labels(v)

    _double_click(qtbot, v, _item(v, attention))                # one layer's attention
    qtbot.waitUntil(lambda: v.idle and any(
        i.node.kind == OP and i.node.module == attention for i in v.canvas.nodes.values()),
        timeout=WAIT_MS)
    assert attention not in _labels(v)
    # its weights are its own leaves now, named as PyTorch names them
    weights = {f"{attention}.{n}" for n, _ in modules[attention].named_parameters()}
    drawn = {i.node.label for i in v.canvas.nodes.values() if i.node.kind == PARAM}
    assert weights <= drawn

    op = next(i for i in v.canvas.nodes.values()
              if i.node.kind == OP and i.node.module == attention)
    _double_click(qtbot, v, op)                                  # an op: its call closes
    qtbot.waitUntil(lambda: v.idle and attention in _labels(v), timeout=WAIT_MS)
    assert not [i for i in v.canvas.nodes.values() if i.node.kind in (OP, PARAM)]

    v.canvas.setFocus()
    qtbot.keyClick(v.canvas, Qt.Key_Backspace)                  # the run closes again
    qtbot.waitUntil(lambda: v.idle and run in _labels(v), timeout=WAIT_MS)
    assert attention not in _labels(v)


def test_enter_opens_the_box_under_the_mouse(qtbot, view):
    v = view(TRANSFORMER)
    box = _item(v, "heads.1")
    hover(v.canvas.viewport(), v.canvas.mapFromScene(box.rect().center()))
    qtbot.waitUntil(lambda: v._hovered == box.node.id, timeout=WAIT_MS)
    v.canvas.setFocus()
    qtbot.keyClick(v.canvas, Qt.Key_Return)
    qtbot.waitUntil(lambda: v.idle and "heads.1" not in _labels(v), timeout=WAIT_MS)
    assert any(i.node.kind == OP and i.node.module == "heads.1"
               for i in v.canvas.nodes.values())
    qtbot.keyClick(v.canvas, Qt.Key_Backspace)
    qtbot.waitUntil(lambda: v.idle and "heads.1" in _labels(v), timeout=WAIT_MS)


def test_in_the_window_a_model_files_run_opens_with_a_double_click(qtbot, make_window):
    w = make_window(Config(device="cpu", heads=2, batch_size=8), model_path=TRANSFORMER)
    qtbot.waitUntil(lambda: w.model.model_name == "tiny_transformer.py", timeout=WAIT_MS)
    view = w.graph_view
    view.set_module_view(True)
    before = w.engine.session.step_index
    qtbot.keyClick(w, Qt.Key_Right, Qt.ShiftModifier)           # one optimizer step
    qtbot.waitUntil(lambda: w.engine.session.step_index > before, timeout=WAIT_MS)

    def run_box():
        return next((i for i in view.canvas.nodes.values()
                     if i.node.kind == MODULE and "×" in i.node.label), None)

    qtbot.waitUntil(lambda: view.idle and run_box() is not None, timeout=WAIT_MS)
    _double_click(qtbot, view, run_box())
    qtbot.waitUntil(lambda: view.idle and "trunk.layers.layers.1.linear2" in _labels(view),
                    timeout=WAIT_MS)


def test_fit_pressed_again_shows_a_real_models_whole_graph_in_a_small_panel(qtbot):
    # the free-mode panel at 1024x768: a CNN's boxes at a size read from a hall do not
    # all fit, so the graph is framed on part of them; Fit pressed then shows every box,
    # and pressed again frames it as before
    v = shown_graph_view(qtbot, (450, 260), key=False)
    v.set_module_view(True)
    v.show_graph(_graph(CNN), "after one step")
    qtbot.waitUntil(lambda: v.idle and v.graph is not None, timeout=WAIT_MS)
    canvas = v.canvas

    def in_view() -> int:
        seen = canvas.mapToScene(canvas.viewport().rect()).boundingRect()
        return sum(seen.contains(i.sceneBoundingRect()) and i.isVisible()
                   for i in canvas.nodes.values())
    fitted = canvas.transform().m11()
    assert in_view() < len(canvas.nodes) and not canvas.whole_legible()
    qtbot.mouseClick(v.fit_button, Qt.LeftButton)
    assert in_view() == len(canvas.nodes) and canvas.transform().m11() < fitted
    qtbot.mouseClick(v.fit_button, Qt.LeftButton)   # and back, legible
    assert canvas.transform().m11() == pytest.approx(fitted)
    assert in_view() < len(canvas.nodes)
