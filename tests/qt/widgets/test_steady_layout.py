"""A panel's update repaints it and nothing more: no layout pass, no resize, while its
size stays the same. Beside the push chart, the cosine matrix once asked for 18 px
more whenever its notes took a wider column, got them, took a wider column... and the
two charts resized each other (and re-laid out their plots) about 20 times a second
while the window played, nothing about it changing."""
import dataclasses

import numpy as np
import pytest
from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication, QLabel, QVBoxLayout, QWidget

from gradviz.qt.panel_painter import PanelPainter
from gradviz.qt.theme import LIGHT
from gradviz.qt.widgets.cosine_heatmap import CosineHeatmap
from gradviz.qt.widgets.grad_views import GlobalNormPlot, GradNormBars, JunctionPlot
from gradviz.qt.widgets.gradients_panel import GradientsPanel
from gradviz.qt.widgets.steady_label import SteadyLabel

from panel_data import head_names, make_history, make_records, param_names

HEADS = 3


class EventCount(QObject):
    """How many events of `kind` each watched object was sent."""

    def __init__(self, kind: QEvent.Type, *watched: QObject):
        super().__init__()
        self.kind, self.counts = kind, {id(w): 0 for w in watched}
        for w in watched:
            w.installEventFilter(self)

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 (Qt's name)
        if event.type() == self.kind and id(obj) in self.counts:
            self.counts[id(obj)] += 1
        return False

    def total(self) -> int:
        return sum(self.counts.values())


def _settle() -> None:
    """Every event posted so far handled, and those it posted (a layout pass, a resize)."""
    for _ in range(3):
        QApplication.processEvents()


def _with_update_cosines(steps: int) -> list:
    rng = np.random.default_rng(1)
    names = head_names(HEADS)
    return [dataclasses.replace(r, update_cosine=dict(zip(names, rng.uniform(-1, 1, HEADS))))
            if r.cosine is not None else r for r in make_records(HEADS, steps, sample_every=2)]


@pytest.fixture
def gradients(qtbot):
    """The Gradients dock's three charts together, at a size where the matrix's notes
    stand beside it and the old hints made the two lower charts resize each other."""
    charts = GradNormBars(), JunctionPlot(), CosineHeatmap()
    for chart in charts:
        chart.set_model(head_names(HEADS), param_names(HEADS))
        chart.apply_theme(LIGHT)
    panel = GradientsPanel(*charts)
    qtbot.addWidget(panel)
    panel.resize(900, 600)
    panel.show()
    qtbot.waitExposed(panel)
    qtbot.waitUntil(lambda: charts[2].plot.getViewBox().width() > 0)
    _settle()
    return panel, charts


def test_updates_at_one_size_lay_nothing_out_again(gradients):
    panel, charts = gradients
    cosine = charts[2]
    records = _with_update_cosines(40)
    history = make_history(records[:1])
    layouts = cosine.layouts
    passes = EventCount(QEvent.Type.LayoutRequest, panel, panel.together_page, cosine)
    resizes = EventCount(QEvent.Type.Resize, *charts, cosine.plot_widget)
    shown = []
    for record in records[1:]:
        history.append(record)
        for chart in charts:
            chart.update_from(history)
        shown.append(cosine.update_line.text())
        _settle()
    assert len(set(shown)) > 10   # the update line did change, step after step
    assert cosine.layouts == layouts
    assert resizes.total() == 0
    assert passes.total() == 0


def test_a_new_size_lays_the_matrix_out_once_more(gradients):
    panel, charts = gradients
    cosine = charts[2]
    layouts = cosine.layouts
    panel.resize(1000, 640)
    _settle()
    assert cosine.layouts > layouts
    after = cosine.layouts
    _settle()
    assert cosine.layouts == after   # and then it stays put


def test_a_steady_label_is_sized_for_its_widest_text_and_repaints_only(qtbot):
    holder = QWidget()
    qtbot.addWidget(holder)
    column = QVBoxLayout(holder)
    label = SteadyLabel()
    label.setWordWrap(True)
    column.addWidget(label)
    widest = "with the update: head0 −0.45 · head1 −0.45 · head2 −0.45"
    label.set_widest(widest)
    label.setText("with the update: not measured yet")
    holder.resize(200, 300)
    holder.show()
    qtbot.waitExposed(holder)
    _settle()
    plain = QLabel(widest)
    plain.setWordWrap(True)
    plain.setFont(label.font())
    assert label.sizeHint() == plain.sizeHint()
    assert label.heightForWidth(150) == plain.heightForWidth(150)
    passes = EventCount(QEvent.Type.LayoutRequest, holder)
    paints = EventCount(QEvent.Type.Paint, label)
    label.setText("with the update: head0 +0.12 · head1 −0.03 · head2 +0.40")
    _settle()
    assert label.text() == "with the update: head0 +0.12 · head1 −0.03 · head2 +0.40"
    assert passes.total() == 0
    assert paints.total() >= 1
    label.setText(label.text())   # the same text: not even a repaint
    before = paints.total()
    _settle()
    assert paints.total() == before


def test_a_chart_takes_its_new_range_before_it_paints(qtbot):
    """Its range follows the data as soon as it is updated, so that its one paint of
    the frame draws it: a range found while painting asks for a second paint."""
    chart = GlobalNormPlot()
    qtbot.addWidget(chart)
    chart.resize(500, 300)
    chart.show()
    qtbot.waitExposed(chart)
    records = make_records(3, 40)
    history = make_history(records[:20])
    key = [(0, 20)]
    owner = QObject()
    painter = PanelPainter(owner, lambda: [chart], lambda: history, lambda: key[0],
                           lambda: None)
    painter.paint_all()
    qtbot.waitUntil(lambda: chart.plot.viewRange()[0][1] >= 19)
    history.extend(records[20:])
    key[0] = (0, 40)
    painter.paint_all()   # no paint between this and the asserts: no event is handled
    (x_low, x_high), (y_low, y_high) = chart.plot.viewRange()
    norms = [r.global_grad_norm for r in records]
    assert x_high >= 39 and y_high >= max(norms) and y_low <= min(norms)


@pytest.mark.parametrize("chart_type", [JunctionPlot, GlobalNormPlot])
def test_a_small_chart_of_a_long_run_comes_to_rest(qtbot, chart_type):
    """At 1024x768 the push chart's plot was 32 px wide: the range followed the
    downsampled data and the downsampling followed the range, a new range at every
    paint, for ever, and the window's timers never fired. Once drawn, it stays put."""
    chart = chart_type()
    qtbot.addWidget(chart)
    chart.set_model(head_names(HEADS), param_names(HEADS))
    chart.apply_theme(LIGHT)
    chart.resize(200, 170)
    chart.show()
    qtbot.waitExposed(chart)
    chart.update_from(make_history(make_records(HEADS, 3000, sample_every=20)))
    _settle()
    _settle()
    paints = EventCount(QEvent.Type.Paint, chart.plot_widget.viewport())
    ranges = chart.plot.viewRange()
    for _ in range(5):
        _settle()
    assert chart.plot.viewRange() == ranges
    assert paints.total() == 0
