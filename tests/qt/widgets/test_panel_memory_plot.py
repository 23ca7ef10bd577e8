"""MemoryPlot: bytes of the storages the graph keeps alive (held and peak) and the saved
tensors' own bytes at the peak, in a readable unit, and graph nodes."""
import numpy as np
import pytest
from PySide6.QtCore import QRectF

from gradviz.plain.records.history import History
from gradviz.plain.records.records import StepRecord
from gradviz.qt.widgets.memory_plot import HELD, NODES, OWN, PEAK, MemoryPlot

from panel_data import make_history, make_records


def test_bytes_in_kib_and_nodes_on_their_own_plot(show):
    records = make_records(steps=50, sample_every=5)  # peaks 50,000-90,000 bytes
    panel = show(MemoryPlot)
    assert panel.objectName() == "memoryPlot"
    panel.update_from(make_history(records))
    sampled = [r for r in records if r.saved_bytes is not None]
    steps = [r.step for r in sampled]
    assert panel.unit() == ("KiB", 1024)
    assert "KiB" in panel.plot.getAxis("left").labelText
    data = panel.data()
    np.testing.assert_allclose(data[HELD][0], steps)
    np.testing.assert_allclose(data[HELD][1], [r.saved_bytes / 1024 for r in sampled])
    np.testing.assert_allclose(data[PEAK][1], [r.saved_bytes_peak / 1024 for r in sampled])
    np.testing.assert_allclose(data[OWN][0], steps)
    np.testing.assert_allclose(data[OWN][1],
                               [r.saved_tensor_bytes_peak / 1024 for r in sampled])
    np.testing.assert_allclose(data[NODES][1], [r.graph_nodes for r in sampled])
    panel.grab()
    np.testing.assert_allclose(panel.nodes_curve.getData()[1], [r.graph_nodes for r in sampled])
    # the short title where the full one is longer than the axis (the font size depends
    # on what the tests before this one left the app's font at)
    assert panel.nodes_plot.getAxis("left").labelText in ("graph nodes", "nodes")
    assert _titles_legible(panel)


def _legend_names(panel) -> list[str]:
    return [label.text for _, label in panel.legend.items]


def test_the_saved_tensors_own_bytes_are_drawn_only_where_they_differ_from_the_peak(show):
    panel = show(MemoryPlot, heads=1)
    h = History(["head0"], [])
    for t in range(10):   # the built-in model's gathered batches: the same count
        h.append(StepRecord(step=t, losses={"head0": 1.0}, total=1.0, saved_bytes=0,
                            saved_bytes_peak=33_028, saved_tensor_bytes_peak=33_028,
                            graph_nodes=42))
    panel.update_from(h)
    panel.grab()
    assert OWN not in _legend_names(panel) and not panel._curves[OWN].isVisible()
    np.testing.assert_allclose(panel.data()[OWN][1], panel.data()[PEAK][1])
    # a batch sliced from a dataset: its storage kept alive, its rows what backward needs
    h.append(StepRecord(step=10, losses={"head0": 1.0}, total=1.0, saved_bytes=0,
                        saved_bytes_peak=4_000_544, saved_tensor_bytes_peak=864,
                        graph_nodes=42))
    panel.update_from(h)
    panel.grab()
    assert OWN in _legend_names(panel) and panel._curves[OWN].isVisible()
    size = panel.unit()[1]
    assert panel.data()[OWN][1][-1] * size == 864
    assert panel.data()[PEAK][1][-1] * size == 4_000_544
    panel.set_model(["head0"], [])   # a new run: none until it differs again
    panel.update_from(leak(5, 10))   # (no own bytes measured at all)
    panel.grab()
    assert OWN not in _legend_names(panel)


def leak(steps: int, per_step: int, base: int = 30_000) -> History:
    h = History(["head0"], [])
    for t in range(steps):
        h.append(StepRecord(step=t, losses={"head0": 1.0}, total=1.0,
                            saved_bytes=t * per_step, saved_bytes_peak=t * per_step + base,
                            graph_nodes=40 * t))
    return h


def test_unit_follows_the_data(show):
    panel = show(MemoryPlot, heads=1)
    panel.update_from(leak(100, 100 * 1024))  # up to ~10 MiB
    assert panel.unit() == ("MiB", 2 ** 20)
    assert panel.plot.getAxis("left").labelText == "storages kept (MiB)"
    np.testing.assert_allclose(panel.data()[HELD][1][-1], 99 * 100 / 1024)
    panel.set_model(["head0"], [])
    panel.update_from(leak(10, 10, base=100))  # at most 190 bytes
    assert panel.unit() == ("B", 1)
    assert panel.plot.getAxis("left").labelText == "storages kept (B)"


def test_nothing_measured_draws_nothing(show):
    panel = show(MemoryPlot, heads=1)
    records = make_records(heads=1, steps=5, sample_every=100)[1:]  # none sampled
    panel.update_from(make_history(records))
    assert all(len(x) == 0 for x, _ in panel.data().values())
    panel.grab()


def test_fifty_thousand_steps(show):
    panel = show(MemoryPlot, heads=1)
    history = leak(50_000, 64)
    panel.update_from(history)
    panel.grab()
    assert len(panel.data()[HELD][0]) == 50_000
    assert np.isfinite(panel.data()[NODES][1]).all()


def _title_box(plot):
    """Where a plot's rotated y-axis title is drawn, in scene coordinates, less the
    margin Qt keeps around a text."""
    label = plot.getAxis("left").label
    assert label.isVisible()
    margin = label.document().documentMargin()
    return label.mapRectToScene(label.boundingRect()).adjusted(margin, margin, -margin, -margin)


def _titles_legible(panel) -> bool:
    """Both titles drawn whole inside the canvas, neither over the other (stacked in a
    short panel, "storages kept (KiB)" and "graph nodes" ran into each other)."""
    canvas = panel.plot_widget.mapToScene(panel.plot_widget.viewport().rect()).boundingRect()
    plots = (panel.plot, panel.nodes_plot)
    boxes = [_title_box(plot) for plot in plots]
    # each within its own axis's height: one longer runs on beside the other plot
    axes = [p.getAxis("left") for p in plots]
    spans = [a.mapRectToScene(QRectF(0, 0, a.width(), a.height())) for a in axes]
    within = all(box.top() >= span.top() - 2 and box.bottom() <= span.bottom() + 2
                 for box, span in zip(boxes, spans))
    return within and all(canvas.contains(box) for box in boxes) and \
        not boxes[0].intersects(boxes[1])


@pytest.mark.parametrize("size", [(1180, 230), (660, 230)])
def test_a_wide_short_panel_puts_nodes_beside_bytes_with_every_title_legible(show, qtbot, size):
    # the Memory dock along the bottom of a 1280x720 window, alone and beside Compare
    panel = show(MemoryPlot, size=size)
    panel.update_from(make_history(make_records(steps=50, sample_every=5)))
    qtbot.waitUntil(lambda: panel.side_by_side)
    panel.grab()
    bytes_box = panel.plot.sceneBoundingRect()
    nodes_box = panel.nodes_plot.sceneBoundingRect()
    assert nodes_box.left() >= bytes_box.right() - 1        # beside, not below
    assert abs(nodes_box.top() - bytes_box.top()) < 40
    # the legend over the bytes it names, in rows of their width: one row wider than the
    # first column made it wider and left the nodes plot a sliver under the legend's end
    assert nodes_box.width() > 0.25 * (nodes_box.right() - bytes_box.left())
    assert panel.legend.sceneBoundingRect().right() <= nodes_box.left() + 1
    assert _titles_legible(panel)
    for plot in (panel.plot, panel.nodes_plot):   # each has its own step axis
        assert plot.getAxis("bottom").labelText == "optimizer step"
        assert plot.getAxis("bottom").style["showValues"]


def test_a_tall_panel_stacks_them_on_one_step_axis_and_goes_back(show, qtbot):
    panel = show(MemoryPlot, size=(1180, 230))
    qtbot.waitUntil(lambda: panel.side_by_side)
    panel.resize(600, 600)
    qtbot.waitUntil(lambda: not panel.side_by_side)
    panel.update_from(make_history(make_records(steps=50, sample_every=5)))
    panel.grab()
    assert panel.nodes_plot.sceneBoundingRect().top() >= panel.plot.sceneBoundingRect().bottom() - 1
    assert not panel.plot.getAxis("bottom").style["showValues"]
    assert _titles_legible(panel)


def test_node_counts_are_ticked_at_whole_numbers(show):
    h = History(["head0"], [])
    for t in range(30):   # a healthy loop: the same 42 nodes every step, a flat line
        h.append(StepRecord(step=t, losses={"head0": 1.0}, total=1.0, saved_bytes=0,
                            saved_bytes_peak=1000, graph_nodes=42))
    panel = show(MemoryPlot, heads=1)
    panel.update_from(h)
    panel.grab()
    axis = panel.nodes_plot.getAxis("left")
    low, high = panel.nodes_plot.getViewBox().viewRange()[1]
    ticks = [v for _, values in axis.tickValues(low, high, axis.height()) for v in values]
    assert ticks and all(float(v).is_integer() for v in ticks)
    assert 42 in ticks


def test_a_small_stacked_panel_keeps_its_titles_apart(show, qtbot):
    # beside the graph in a lesson at 1024x768: "saved (MiB)" ran on into "nodes"
    panel = show(MemoryPlot, size=(500, 240))
    panel.update_from(leak(100, 100 * 1024))
    panel.grab()
    assert not panel.side_by_side
    assert _titles_legible(panel)


def test_stacked_after_ctrl_plus_twice_the_bytes_keep_the_larger_plot(show, qtbot):
    """Lesson 09 slide 2 at 1024x768 after Ctrl+= twice (about 556 x 330 under a long
    narration): the nodes plot kept a height for its long rotated title and left the
    bytes, the slide's point (32 KiB vs 8 KiB), a 30 px strip with 20 and 10 on top of
    each other."""
    from gradviz.qt.theme import LIGHT, TEXT_STEP

    panel = show(MemoryPlot, size=(556, 330))
    panel.apply_theme(LIGHT.zoomed(TEXT_STEP ** 2))
    panel.update_from(make_history(make_records(steps=20, sample_every=1)))
    panel.resize(557, 330)
    qtbot.waitUntil(lambda: not panel.side_by_side)

    def heights():
        panel.grab()
        return (panel.plot.getViewBox().sceneBoundingRect().height(),
                panel.nodes_plot.getViewBox().sceneBoundingRect().height())
    qtbot.waitUntil(lambda: heights()[0] >= 70 and heights()[0] >= heights()[1])
    assert _titles_legible(panel)


def _heights(panel) -> tuple[float, float]:
    """The bytes plot's and the nodes plot's drawing heights (their axes aside)."""
    return panel.plot.getViewBox().height(), panel.nodes_plot.getViewBox().height()


def test_a_share_for_the_node_count_is_applied_and_taken_back_exactly(show, qtbot):
    """Stacked, the bytes plot gets the larger part; a slide about the node count gives
    the nodes plot its share of the drawing height (Qt's stretch factors alone left it a
    third at 1:1); back to None, the rows are as they were before."""
    panel = show(MemoryPlot, size=(586, 659))    # the right column at 1024x768
    panel.update_from(leak(40, 0))
    qtbot.waitUntil(lambda: not panel.side_by_side and _heights(panel)[1] > 0)
    own = _heights(panel)
    assert own[1] < own[0] / 2
    for share in (0.5, 0.6):
        panel.set_nodes_share(share)
        qtbot.waitUntil(lambda s=share: abs(_heights(panel)[1] - s * sum(_heights(panel)))
                        < 2)
        assert abs(sum(_heights(panel)) - sum(own)) < 2   # the same room, shared again
    panel.set_nodes_share(None)
    qtbot.waitUntil(lambda: _heights(panel) == own)


def test_a_shared_panel_made_lower_keeps_its_step_axis_inside_it(show, qtbot):
    # a share measured in a taller panel held its canvas taller than a lower one (lesson
    # 03's last slide after the one before: the step axis cut off below the panel)
    panel = show(MemoryPlot, size=(586, 659))
    panel.update_from(leak(40, 100 * 1024))
    panel.set_nodes_share(0.5)
    qtbot.waitUntil(lambda: abs(_heights(panel)[0] - _heights(panel)[1]) < 2)
    panel.resize(586, 330)
    qtbot.waitUntil(lambda: abs(_heights(panel)[0] - _heights(panel)[1]) < 2
                    and sum(_heights(panel)) < 250)
    canvas = panel.plot_widget
    axis = panel.nodes_plot.getAxis("bottom")
    bottom = canvas.mapFromScene(axis.label.sceneBoundingRect()).boundingRect().bottom()
    assert axis.label.isVisible() and bottom <= canvas.height() + 1
    assert _titles_legible(panel)
