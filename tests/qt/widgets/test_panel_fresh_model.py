"""A fresh model of the same heads (a lesson's next slide, Reset) keeps each chart's
curves but none of their data: nothing of the run before is drawn, a series hidden from
the legend is shown again, and a model of other heads has its own curves only."""
import numpy as np
import pytest

from gradviz.qt.widgets.grad_views import GlobalNormPlot, JunctionPlot
from gradviz.qt.widgets.loss_plot import LossPlot
from gradviz.qt.widgets.memory_plot import MemoryPlot

from panel_data import head_names, make_history, make_records, param_names

PANELS = [LossPlot, GlobalNormPlot, JunctionPlot, MemoryPlot]


def plotted(panel) -> list:
    """Every curve on the panel's plots with points in it."""
    items = [item for plot in panel.plot_widget.ci.items.keys()
             if hasattr(plot, "listDataItems") for item in plot.listDataItems()]
    return [item for item in items if item.getData()[0] is not None
            and len(item.getData()[0]) > 0]


@pytest.mark.parametrize("panel_type", PANELS)
def test_a_fresh_model_of_the_same_heads_draws_nothing_of_the_run_before(show, panel_type):
    panel = show(panel_type)
    records = make_records(steps=40)
    panel.update_from(make_history(records))
    panel.grab()
    assert plotted(panel)                      # the run before is drawn
    kept = panel.curves()
    items = len(panel.plot.items)
    panel.set_model(head_names(3), param_names(3))
    panel.grab()
    assert plotted(panel) == []                # none of it after
    assert all(len(x) == 0 for x, _ in panel.data().values())
    assert all(panel.curves()[name] is curve for name, curve in kept.items())
    assert len(panel.plot.items) == items      # none added, none left over
    # the same records again are drawn again, as on a new panel
    panel.update_from(make_history(records))
    fresh = show(panel_type)
    fresh.update_from(make_history(records))
    for name, (x, y) in fresh.data().items():
        np.testing.assert_array_equal(panel.data()[name][0], x)
        np.testing.assert_array_equal(panel.data()[name][1], y)


def test_a_series_hidden_from_the_legend_is_shown_for_the_next_model(show):
    panel = show(LossPlot)
    panel.update_from(make_history(make_records(steps=10)))
    sample = panel._samples["head1"]
    sample.setVisible(False)
    panel._sample_clicked(sample)              # what a click on its legend entry does
    assert not panel.curves()["head1"].isVisible()
    panel.set_model(head_names(3), param_names(3))
    assert all(curve.isVisible() for curve in panel.curves().values())


def test_a_model_of_other_heads_has_its_own_curves_only(show):
    panel = show(LossPlot)
    three = panel.curves()
    items = len(panel.plot.items)
    panel.set_model(head_names(2), param_names(2))
    assert list(panel.curves()) == ["head0", "head1", "total"]
    assert all(item not in panel.plot.items for item in (three["head2"],))
    assert len(panel.plot.items) == items - 3  # head2's thick, raw and dashed curves
    panel.update_from(make_history(make_records(heads=2, steps=10), heads=2))
    records = make_records(heads=2, steps=10)
    np.testing.assert_allclose(panel.data()["head1"][1],
                               [r.losses["head1"] for r in records])
