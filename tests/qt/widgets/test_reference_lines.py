"""A slide's reference lines on the line charts: a labelled horizontal line at its value,
in its series' colour, on the chart's own axes and in its range (lesson 09's 1.4 above a
norm clipped to 0.5 was out of view), legible, and gone with the next slide's []."""
import numpy as np
import pyqtgraph as pg
import pytest

from gradviz.plain.lessons.lesson_references import DrawnReference
from gradviz.plain.records.records import StepRecord
from gradviz.qt.theme import DARK, LIGHT
from gradviz.qt.widgets.grad_views import GlobalNormPlot, JunctionPlot

from panel_data import make_history, make_records

# a stage's chart at 1024x768: half the width beside another panel, under the narration
STAGE_CHART = (500, 320)


def _clipped(steps: int = 20) -> list[StepRecord]:
    """A run whose gradient norm was clipped to 0.5 every step (lesson 09's slide 8)."""
    return [StepRecord(step=t, losses={"head0": 1.0}, total=1.0, global_grad_norm=0.5)
            for t in range(steps)]


def _in_view(panel, value: float) -> bool:
    low, high = panel.plot.getViewBox().viewRange()[1]
    return low <= value <= high


def test_a_reference_is_a_labelled_line_at_its_value_in_its_heads_colour(show):
    panel = show(JunctionPlot, size=STAGE_CHART)
    panel.update_from(make_history(make_records(steps=20, sample_every=1)))
    panel.set_references([DrawnReference("junction.head2", 0.079, "head2, clean run")])
    ((ref, line),) = panel.references()
    assert isinstance(line, pg.InfiniteLine) and line in panel.plot.items
    assert line.angle == 0 and line.value() == pytest.approx(0.079)
    assert line.label.toPlainText() == "head2, clean run"
    assert line.pen.color().name() == LIGHT.head_colour(2).lower()
    assert _in_view(panel, 0.079)
    panel.apply_theme(DARK)   # restyled with the theme, not left in the light one
    assert line.pen.color().name() == DARK.head_colour(2).lower()
    assert line.label.color.name() == pg.mkColor(DARK.foreground).name()


def test_its_label_is_as_large_as_the_charts_text_and_inside_the_plot(show, qtbot):
    panel = show(JunctionPlot, size=STAGE_CHART)
    panel.update_from(make_history(make_records(steps=20, sample_every=1)))
    panel.set_references([DrawnReference("junction.head2", 0.05, "head2, clean run")])
    ((_, line),) = panel.references()
    assert line.label.textItem.font().pointSizeF() >= panel.theme.font_pt
    view = panel.plot.getViewBox().sceneBoundingRect()
    qtbot.waitUntil(lambda: view.contains(line.label.sceneBoundingRect()))


def test_a_reference_above_a_clipped_norm_is_in_view_from_zero(show, qtbot):
    """0.5 every step: the axis ran 0 to 0.5 and a line at 1.37 was out of view (now at
    the top of the range, its label below it, in view too)."""
    panel = show(GlobalNormPlot, size=STAGE_CHART)
    panel.update_from(make_history(_clipped(), heads=1))
    assert not _in_view(panel, 1.37)   # what lesson 09's slide showed
    panel.set_references([DrawnReference("global_grad_norm", 1.37, "before clipping")])
    assert _in_view(panel, 1.37) and _in_view(panel, 0.0) and _in_view(panel, 0.5)
    ((_, line),) = panel.references()
    assert line.pen.color().name() == pg.mkColor(panel.theme.total_colour).name()
    view = panel.plot.getViewBox().sceneBoundingRect()
    qtbot.waitUntil(lambda: view.contains(line.label.sceneBoundingRect()))


def test_a_reference_is_in_view_where_the_axis_follows_the_data(show, qtbot):
    """Not flat: the axis follows the data, and the line's value with it."""
    panel = show(JunctionPlot, size=STAGE_CHART)
    panel.set_references([DrawnReference("junction.head0", 0.5, "far above")])
    panel.update_from(make_history(make_records(steps=20, sample_every=1)))   # 0.01-0.1
    qtbot.waitUntil(lambda: _in_view(panel, 0.5) and _in_view(panel, 0.01))


def test_the_next_slides_empty_list_takes_the_lines_away(show):
    panel = show(GlobalNormPlot, size=STAGE_CHART)
    panel.update_from(make_history(_clipped(), heads=1))
    data_items = len(panel.plot.listDataItems())
    panel.set_references([DrawnReference("global_grad_norm", 1.37, "a"),
                          DrawnReference("global_grad_norm", 0.9, "b")])
    lines = [line for _, line in panel.references()]
    assert [line.value() for line in lines] == [1.37, 0.9]
    panel.set_references([])
    assert panel.references() == [] and not any(line in panel.plot.items for line in lines)
    assert len(panel.plot.listDataItems()) == data_items   # nothing left behind
    panel.update_from(make_history(_clipped(3), heads=1))
    assert not _in_view(panel, 1.37)   # the range is the data's again
    assert np.allclose(panel.data()["global grad norm"][1], 0.5)
