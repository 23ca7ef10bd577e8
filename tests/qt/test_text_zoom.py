"""Ctrl+= scales every text, as the back row needs: the graph's node and edge labels (on
screen, in view pixels), its legend, the narration, the cosine matrix, the plots' axes;
and the panels' least sizes grow with it, so that none is crushed."""
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QFontInfo
from PySide6.QtWidgets import QPushButton

from gradviz.plain.config.config import Config
from gradviz.plain.graph.graph_data import PARAM

from shared_window import fresh_run, shared_window_fixture, window_fixture  # noqa: F401
from waits import WAIT_MS

ZOOM = 1.15 ** 3          # Ctrl+= three times

SMALL = Config(batch_size=32, heads=3, detach=(1,))
SHARED_CONFIG = SMALL   # the module's one window's


def _larger_text(qtbot, w, times: int = 3) -> None:
    for _ in range(times):
        qtbot.keyClick(w, Qt.Key_Equal, Qt.ControlModifier)
    assert w.theme.zoom == pytest.approx(1.15 ** times)


def _drawn(qtbot, w):
    qtbot.keyClick(w, Qt.Key_Right, Qt.ShiftModifier)          # one step: a graph
    # the step's own graph drawn (not the one from before it), and the window's layout
    # settled: a later fit would change what is measured
    qtbot.waitUntil(lambda: w.graph_view.graph is not None and w.graph_view.idle
                    and w.engine.session.step_index == 1
                    and "after the optimizer step" in w.graph_view.caption.text()
                    and not w.screen_fit.timer.isActive(), timeout=WAIT_MS)
    return w.graph_view.canvas


def _param(canvas) -> str:
    return next(i for i, item in canvas.nodes.items() if item.node.kind == PARAM)


def test_ctrl_plus_scales_the_graphs_labels_on_screen(qtbot, window):
    w = window
    fresh_run(qtbot, w, SMALL)            # step 0: _drawn's step is step 1
    w.graph_view.set_module_view(False)   # the op view: its parameter leaves are boxes
    canvas = _drawn(qtbot, w)
    node = _param(canvas)
    cut = next(e for e in canvas.edges if e.label.isVisible())      # "detach()"
    label = canvas.nodes[node].text

    def fitted() -> float:   # the scale that fits the whole graph in the view as it is now
        scene, view = canvas.scene().sceneRect(), canvas.viewport().rect()
        return min(view.width() / scene.width(), view.height() / scene.height())
    before, cut_before, fit_before = (canvas.height_px(label), canvas.height_px(cut.label),
                                      fitted())
    _larger_text(qtbot, w)
    after, cut_after = canvas.height_px(label), canvas.height_px(cut.label)
    # ZOOM times larger than the graph fitted to its panel (which the larger text around
    # it may have resized: the graph is fitted again then)
    grown = ZOOM * fitted() / fit_before
    assert after / before == pytest.approx(grown, rel=0.06)
    assert cut_after / cut_before == pytest.approx(grown, rel=0.06)
    # Fit keeps the larger text: the graph fitted to the view, then drawn ZOOM times larger
    qtbot.mouseClick(w.findChild(QPushButton, "fitGraphButton"), Qt.LeftButton)
    scene, view = canvas.scene().sceneRect(), canvas.viewport().rect()
    fitted = min(view.width() / scene.width(), view.height() / scene.height())
    zoomed_fit = canvas.transform().m11()
    assert zoomed_fit == pytest.approx(fitted * ZOOM, rel=0.03)
    # ...and Ctrl+0 is the whole graph again, at its normal size: fitted to its panel as
    # the normal text leaves it (not necessarily the first picture's scale)
    qtbot.keyClick(w, Qt.Key_0, Qt.ControlModifier)
    qtbot.waitUntil(lambda: canvas.transform().m11() == pytest.approx(
        min(canvas.viewport().width() / canvas.scene().sceneRect().width(),
            canvas.viewport().height() / canvas.scene().sceneRect().height()), rel=0.03))
    assert zoomed_fit > canvas.transform().m11()


def test_ctrl_plus_scales_the_graph_legend_narration_and_cosine_matrix(qtbot, window):
    w = window
    w.drawn_off_screen = True   # a 1920x1080 projector: room for the slide at every size
    w.resize(1920, 1080)
    w.lessons.open_named("losses-disagree")                    # cosine and junction
    qtbot.waitUntil(lambda: w.model.generation >= 1, timeout=WAIT_MS)
    narration = QFontInfo(w.lessons.narration.text.font()).pointSizeF()
    legend_row, legend_width = w.graph_view.legend.row, w.graph_view.legend.minimumWidth()
    axis = w.cosine.plot.getAxis("left").style["tickFont"].pointSizeF()
    bar = w.cosine.colour_bar.axis.style["tickFont"].pointSizeF()
    loss_axis = w.loss_plot.plot.getAxis("bottom").style["tickFont"].pointSizeF()
    chart = w.cosine.minimumHeight(), w.loss_plot.minimumHeight()
    _larger_text(qtbot, w)
    assert QFontInfo(w.lessons.narration.text.font()).pointSizeF() / narration == \
        pytest.approx(ZOOM, rel=0.08)
    assert w.cosine.plot.getAxis("left").style["tickFont"].pointSizeF() / axis == \
        pytest.approx(ZOOM, rel=0.02)
    assert w.cosine.colour_bar.axis.style["tickFont"].pointSizeF() / bar == \
        pytest.approx(ZOOM, rel=0.02)
    assert w.loss_plot.plot.getAxis("bottom").style["tickFont"].pointSizeF() / loss_axis == \
        pytest.approx(ZOOM, rel=0.02)
    assert w.graph_view.legend.row > legend_row and \
        w.graph_view.legend.minimumWidth() > legend_width
    # the least sizes grow with the text: screen fitting tabs a panel rather than crush it
    assert w.cosine.minimumHeight() == pytest.approx(chart[0] * ZOOM, abs=2)
    assert w.loss_plot.minimumHeight() == pytest.approx(chart[1] * ZOOM, abs=2)


def test_the_cosine_matrix_values_grow_with_the_text(qtbot):
    """Alone at one size: the numbers in the cells are larger at a larger text size
    (as large as the theme asks, while "-0.45" still fits its cell)."""
    import numpy as np

    from gradviz.qt.theme import LIGHT
    from gradviz.qt.widgets.cosine_heatmap import CosineHeatmap
    heatmap = CosineHeatmap()
    qtbot.addWidget(heatmap)
    heatmap.set_model(["head0", "head1"], [])
    heatmap._show(np.array([[1.0, -0.45], [-0.45, 1.0]]))
    heatmap.resize(700, 600)
    heatmap.show()
    qtbot.waitExposed(heatmap)
    sizes = []
    for zoom in (1.0, ZOOM):
        heatmap.apply_theme(LIGHT.zoomed(zoom))
        sizes.append(heatmap._texts[0][1].textItem.font().pixelSize())
    assert sizes[1] / sizes[0] == pytest.approx(ZOOM, rel=0.1)


def test_the_run_bar_keeps_its_symbols_where_its_words_do_not_fit(qtbot):
    from gradviz.qt.run_bar import RunBar
    bar = RunBar()
    qtbot.addWidget(bar)
    bar.show()
    full, compact = bar.measure()
    assert compact < full
    bar.resize(full + 10, bar.height())
    qtbot.waitUntil(lambda: not bar.compact and bar.play.text() == "▶  Play", timeout=WAIT_MS)
    bar.resize((full + compact) // 2, bar.height())
    qtbot.waitUntil(lambda: bar.compact and bar.play.text() == "▶", timeout=WAIT_MS)
    assert bar.phase.toolTip().endswith("(→)") and bar.minimumSizeHint().width() == compact
    assert bar.phase_play.text() == "phases" and bar.pace.text() == "fastest"
    # every widget of the bar inside it, none over the next
    widgets = [bar.play, bar.phase, bar.step, bar.reset, bar.speed, bar.pace, bar.phase_play]
    spans = [(x.x(), x.x() + x.width()) for x in widgets]
    assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:])) and spans[-1][1] <= bar.width()
    bar.set_running(True)
    assert bar.play.text() == "❚❚"


def test_the_text_grows_only_as_far_as_the_screen_has_room(qtbot, make_window):
    from gradviz.qt.screen_fit import available, too_big
    # a window of its own: the shared one's docks, moved by a lesson, fit less text
    w = make_window(SMALL)

    def press() -> float:
        """Ctrl+= once, and the screen's fit of it made: the text size it left."""
        with qtbot.waitSignal(w.screen_fit.fitted, timeout=WAIT_MS):
            qtbot.keyClick(w, Qt.Key_Equal, Qt.ControlModifier)
        return w.theme.zoom
    # pressed until a press is taken back (1.15 ** 8 = 3.06: more than any panel layout
    # fits on this screen); each press past the largest costs seconds of layout
    sizes = [1.0]
    while len(sizes) <= 8 and press() > sizes[-1]:
        sizes.append(w.theme.zoom)
    largest = sizes[-1]
    assert len(sizes) <= 8 and w.theme.zoom == pytest.approx(largest)
    assert 1.0 < largest < 1.15 ** 8
    assert press() == pytest.approx(largest)   # and so is every press past it
    # the window's own resize comes after the fit (on a busy machine, a while after)
    qtbot.waitUntil(lambda: not too_big(w) and not w.screen_fit.timer.isActive()
                    and w.height() <= available(w).height(), timeout=WAIT_MS)
    room = available(w)
    assert w.theme.zoom == pytest.approx(largest)
    assert w.minimumSizeHint().height() <= room.height()
    assert w.height() <= room.height()
    assert f"Text size {largest:.0%} is the largest" in w.phase_label.text()
    qtbot.keyClick(w, Qt.Key_Minus, Qt.ControlModifier)   # smaller still works as ever
    assert w.theme.zoom == pytest.approx(largest / 1.15)
