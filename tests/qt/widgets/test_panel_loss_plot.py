"""LossPlot draws each head's loss and the total; log scale and smoothing change it."""
import time

import numpy as np
from PySide6 import QtCore

from gradviz.qt.theme import DARK, LIGHT
from gradviz.qt.widgets.loss_plot import SMOOTHING_ALPHA, LossPlot

from panel_data import head_names, make_history, make_records


def drawn(panel, name):
    panel.grab()  # a paint: autorange and clipping happen here
    return panel.curves()[name].getData()


def reference_ema(values, alpha):
    out, prev = [], None
    for v in values:
        prev = v if prev is None else (1 - alpha) * prev + alpha * v
        out.append(prev)
    return np.array(out)


def truth(records, name):
    steps = np.array([r.step for r in records], dtype=float)
    if name == "total":
        return steps, np.array([r.total for r in records])
    return steps, np.array([r.losses[name] for r in records])


def test_names_and_controls(show):
    panel = show(LossPlot)
    assert panel.objectName() == "lossPlot"
    assert panel.findChild(type(panel.log_scale), "lossLogScale") is panel.log_scale
    assert panel.findChild(type(panel.smoothing), "lossSmoothing") is panel.smoothing
    assert list(panel.curves()) == ["head0", "head1", "head2", "total"]
    assert [label.text for _, label in panel.legend.items] == ["head0", "head1", "head2", "total"]


def test_draws_every_loss_and_the_total(show):
    records = make_records(steps=80)
    panel = show(LossPlot)
    panel.update_from(make_history(records))
    for name in ("head0", "head1", "head2", "total"):
        x, y = truth(records, name)
        np.testing.assert_allclose(panel.data()[name][0], x)
        np.testing.assert_allclose(panel.data()[name][1], y)
        dx, dy = drawn(panel, name)
        np.testing.assert_allclose(dx, x)
        np.testing.assert_allclose(dy, y)


def test_log_scale_checkbox_draws_log10(show, qtbot):
    records = make_records(steps=40)
    panel = show(LossPlot)
    panel.update_from(make_history(records))
    qtbot.mouseClick(panel.log_scale, QtCore.Qt.MouseButton.LeftButton)
    assert panel.log_scale.isChecked()
    np.testing.assert_allclose(drawn(panel, "head1")[1], np.log10(truth(records, "head1")[1]))
    assert panel.plot.getAxis("left").logMode
    qtbot.mouseClick(panel.log_scale, QtCore.Qt.MouseButton.LeftButton)
    np.testing.assert_allclose(drawn(panel, "head1")[1], truth(records, "head1")[1])


def test_smoothing_checkbox_draws_an_ema_over_the_faint_raw_curve(show, qtbot):
    records = make_records(steps=300)
    history = make_history(records)
    panel = show(LossPlot)
    panel.update_from(history)
    assert not any(c.isVisible() for c in panel.raw_curves().values())
    qtbot.mouseClick(panel.smoothing, QtCore.Qt.MouseButton.LeftButton)
    for name in ("head0", "head2", "total"):
        _, raw = truth(records, name)
        np.testing.assert_allclose(drawn(panel, name)[1], reference_ema(raw, SMOOTHING_ALPHA))
        assert panel.raw_curves()[name].isVisible()
        np.testing.assert_allclose(panel.raw_curves()[name].getData()[1], raw)
        assert panel.raw_curves()[name].opts["pen"].widthF() < 2  # thin, faint
    qtbot.mouseClick(panel.smoothing, QtCore.Qt.MouseButton.LeftButton)
    np.testing.assert_allclose(drawn(panel, "head0")[1], truth(records, "head0")[1])
    assert not panel.raw_curves()["head0"].isVisible()


def test_smoothing_follows_a_growing_history(show):
    records = make_records(steps=400)
    history = make_history(records[:150])
    panel = show(LossPlot)
    panel.smoothing.setChecked(True)
    panel.update_from(history)
    history.extend(records[150:])
    panel.update_from(history)
    np.testing.assert_allclose(panel.data()["total"][1],
                               reference_ema(truth(records, "total")[1], SMOOTHING_ALPHA))


def test_a_new_history_restarts_the_smoothing(show):
    panel = show(LossPlot)
    panel.smoothing.setChecked(True)
    panel.update_from(make_history(make_records(steps=100, seed=1)))
    records = make_records(steps=50, seed=2)
    panel.update_from(make_history(records))
    np.testing.assert_allclose(panel.data()["head0"][1],
                               reference_ema(truth(records, "head0")[1], SMOOTHING_ALPHA))


def test_set_model_changes_the_number_of_curves(show):
    panel = show(LossPlot)
    panel.update_from(make_history(make_records(steps=20)))
    panel.set_model([f"head{k}" for k in range(5)], [])
    assert len(panel.curves()) == 6 and len(panel.legend.items) == 6
    assert list(panel.data()) == head_names(5) + ["total"]
    assert all(len(x) == len(y) == 0 for x, y in panel.data().values())  # cleared
    panel.update_from(make_history(make_records(heads=5, steps=20)))
    assert len(panel.data()) == 6
    panel.set_model(["head0"], [])
    assert list(panel.curves()) == ["head0", "total"]
    plotted = [i for i in panel.plot.listDataItems() if i.isVisible()]
    assert len(plotted) == 2  # the old curves are gone, not just hidden


def test_head_colours_and_thick_lines(show):
    panel = show(LossPlot)
    panel.apply_theme(DARK)
    for k in range(3):
        pen = panel.curves()[f"head{k}"].opts["pen"]
        assert pen.color().name().lower() == DARK.head_colour(k).lower()
        assert pen.widthF() >= 2.5
    assert panel.curves()["total"].opts["pen"].color().name().lower() == DARK.total_colour.lower()


def test_clicking_a_legend_entry_hides_its_curves(show):
    panel = show(LossPlot)
    panel.smoothing.setChecked(True)
    sample = panel.legend.items[1][0]
    sample.item.setVisible(False)  # what a click on the swatch does, then it signals
    panel.legend.sigSampleClicked.emit(sample.item)
    assert not panel.curves()["head1"].isVisible()
    assert not panel.raw_curves()["head1"].isVisible()
    assert panel.curves()["head0"].isVisible()


def test_fifty_thousand_steps_update_and_paint(show):
    panel = show(LossPlot)
    panel.smoothing.setChecked(True)
    records = make_records(steps=50_000, sample_every=50)
    history = make_history(records[:49_000])
    panel.update_from(history)
    panel.grab()
    history.extend(records[49_000:])
    start = time.perf_counter()
    for _ in range(5):
        history.append(make_records(steps=1, first_step=len(history))[0])
        panel.update_from(history)
        panel.grab()
    each_ms = (time.perf_counter() - start) / 5 * 1000
    print(f"an update of a 50,000-step history took {each_ms:.0f} ms")
    assert len(panel.data()["total"][0]) == 50_005


def test_bs_dashed_lines_draw_no_more_points_than_as_own(show):
    """A long dashed path is what Qt strokes slowest: B's ghost lines are downsampled
    as A's thick lines are, to a point or so per pixel column, not 4,000 points."""
    panel = show(LossPlot)
    panel.set_ghost(make_history(make_records(steps=20_000, seed=1)))
    panel.update_from(make_history(make_records(steps=20_000)))
    panel.grab()
    width = panel.plot.getViewBox().width()
    for name, ghost in panel.ghost_curves().items():
        x, y = ghost.getData()
        assert 0 < len(x) <= max(2 * width, len(panel.curves()[name].getData()[0])), name
        # still B's own numbers: the peaks of its loss survive the downsampling
        assert y.max() == panel.ghost_data()[name][1].max()


def test_update_without_new_steps_is_skipped(show):
    panel = show(LossPlot)
    history = make_history(make_records(steps=10))
    panel.update_from(history)
    before = panel.curves()["head0"].getData()
    panel.curves()["head0"].setData([], [])
    panel.update_from(history)  # nothing new: the curve is not touched again
    assert len(panel.curves()["head0"].getData()[0] or []) == 0
    assert len(before[0]) == 10


def test_dark_theme_changes_the_background(show):
    panel = show(LossPlot)
    panel.apply_theme(LIGHT)
    light = panel.plot_widget.backgroundBrush().color().name()
    panel.apply_theme(DARK)
    assert panel.plot_widget.backgroundBrush().color().name().lower() == DARK.background.lower()
    assert light.lower() != DARK.background.lower()
    assert panel.plot.getViewBox().background.brush().color().name().lower() == DARK.panel.lower()
    assert panel.log_scale.font().pointSizeF() == DARK.font_pt


def test_double_click_follows_the_data_again_after_a_zoom(show, qtbot):
    panel = show(LossPlot)
    panel.update_from(make_history(make_records(steps=100)))
    panel.plot.setXRange(10, 20)  # as a pan or zoom does: autorange off
    assert not panel.plot.getViewBox().autoRangeEnabled()[0]
    centre = panel.plot_widget.mapFromScene(panel.plot.getViewBox().sceneBoundingRect().center())
    left = QtCore.Qt.MouseButton.LeftButton
    qtbot.mouseDClick(panel.plot_widget.viewport(), left, pos=centre)
    qtbot.mouseRelease(panel.plot_widget.viewport(), left, pos=centre)  # QTest sends none
    assert panel.plot.getViewBox().autoRangeEnabled()[0]


def test_a_secondary_chart_keeps_a_readable_plot_beside_a_long_legend(show, qtbot):
    """Lesson 09 slide 2 after Ctrl+= twice at 1024x768: the loss chart, second on the
    stage (about 640 x 250), drew its five legend entries (the slide before's dashed
    line among them) in three rows above the plot, which was left a 40 px strip. The
    legend goes beside the plot where above it would eat the plot."""
    from gradviz.qt.theme import TEXT_STEP
    from gradviz.qt.widgets.line_panel import SLIDE_GHOST_LABEL

    records = make_records(steps=20)
    panel = show(LossPlot, size=(640, 250))
    panel.set_controls_shown(False)   # as on a lesson's stage
    panel.apply_theme(LIGHT.zoomed(TEXT_STEP ** 2))
    panel.update_from(make_history(records))
    panel.set_ghost(make_history(make_records(steps=20, seed=1)), SLIDE_GHOST_LABEL)
    panel.resize(641, 250)   # (a resize lays the legend out, as the stage's does)

    def readable() -> bool:
        panel.grab()
        plot = panel.plot.getViewBox().sceneBoundingRect()
        return plot.height() >= 100 and plot.width() >= 250
    qtbot.waitUntil(readable)
    assert len(panel.legend.items) == 5   # every entry still there
    # beside a long narration strip at 1024x768 it had 455 x 335 (with its title on
    # three lines beside log scale and smooth, which a slide shows none of)
    panel.resize(455, 335)
    qtbot.waitUntil(lambda: panel.grab() is not None and
                    panel.plot.getViewBox().sceneBoundingRect().height() >= 120 and
                    panel.plot.getViewBox().sceneBoundingRect().width() >= 300)
    assert panel._title.height() < 60
    # with room to spare, the legend stays above the plot
    panel.resize(900, 600)
    qtbot.waitUntil(lambda: panel.legend.sceneBoundingRect().bottom()
                    <= panel.plot.getViewBox().sceneBoundingRect().top() + 1)
