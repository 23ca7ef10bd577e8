"""Gradient panels: per-parameter bars, global norm, junction norms, cosine heat map."""
import numpy as np
import pytest

from gradviz.qt.theme import DARK, LIGHT
from gradviz.qt.widgets.grad_views import (
    CosineHeatmap,
    GlobalNormPlot,
    GradNormBars,
    JunctionPlot,
    split_name,
)
from gradviz.qt.widgets.line_panel import SLIDE_GHOST_LABEL

from panel_data import head_names, make_history, make_records, param_names


def is_reddish(c):
    return c.red() > c.blue() + 40


def is_bluish(c):
    return c.blue() > c.red() + 40


# -- GradNormBars -------------------------------------------------------------------------
def test_bars_show_the_latest_norms_trunk_first(show):
    records = make_records(steps=7)
    panel = show(GradNormBars)
    assert panel.objectName() == "gradNormBars"
    panel.update_from(make_history(records))
    expected = records[-1].grad_norms
    assert list(panel.data()) == param_names(3)  # the model's order is trunk first already
    assert panel.data() == pytest.approx(expected)
    np.testing.assert_allclose(panel.bars.opts["height"], [expected[n] for n in param_names(3)])


def test_bars_are_grouped_even_when_heads_come_first():
    names = ["heads.0.0.weight", "trunk.0.weight", "heads.1.0.bias", "trunk.0.bias"]
    panel = GradNormBars()
    panel.set_model(head_names(2), names)
    assert list(panel.data()) == ["trunk.0.weight", "trunk.0.bias",
                                  "heads.0.0.weight", "heads.1.0.bias"]
    assert panel.labels() == ["0.w", "0.b", "0.w", "0.b"]


def test_a_slides_ghost_draws_the_slide_befores_norms_pale_and_says_whose(show):
    """A lesson slide that keeps the one before as a ghost (lesson 12's `.data` against
    the clean run): the bars of the slide before beside this slide's, titled as such."""
    records, before = make_records(steps=7), make_records(steps=5, seed=3)
    panel = show(GradNormBars)
    panel.set_ghost(make_history(before), SLIDE_GHOST_LABEL)
    panel.update_from(make_history(records))
    assert "this slide | slide before (pale)" in panel._title.text()
    np.testing.assert_allclose(panel.bars_b.opts["height"],
                               [before[-1].grad_norms[n] for n in param_names(3)])
    panel.set_ghost(make_history(before))           # Compare's B: its own title
    panel.update_from(make_history(records))
    assert "A | B (pale)" in panel._title.text()
    panel.set_ghost(None)
    panel.update_from(make_history(records))
    assert "pale" not in panel._title.text()


def test_bar_colours_trunk_neutral_heads_in_their_colour(show):
    panel = show(GradNormBars)
    for theme in (LIGHT, DARK):
        panel.apply_theme(theme)
        colours = panel.bar_colours()
        trunk = {colours[n] for n in param_names(3) if n.startswith("trunk")}
        assert len(trunk) == 1 and trunk.isdisjoint({theme.head_colour(k) for k in range(8)})
        for k in range(3):
            assert colours[f"heads.{k}.2.bias"] == theme.head_colour(k)
        drawn = [b.color().name().lower() for b in panel.bars.opts["brushes"]]
        assert drawn == [colours[n].lower() for n in param_names(3)]


@pytest.mark.parametrize("name, expected", [
    ("trunk.0.weight", (None, "trunk", "0.w")), ("heads.1.2.bias", (1, "head1", "2.b")),
    ("heads.7.0.weight", (7, "head7", "0.w")), ("scale", (None, "model", "s"))])
def test_short_names(name, expected):
    assert split_name(name, head_names(8)) == expected


def test_bar_count_follows_the_model_and_labels_turn_upright_when_crowded(show):
    panel = show(GradNormBars, heads=2)
    assert len(panel.data()) == 4 + 4 * 2
    panel.grab()
    assert not panel.axis.upright()
    panel.set_model(head_names(8), param_names(8))
    panel.update_from(make_history(make_records(heads=8, steps=2)))
    panel.resize(500, 400)
    panel.grab()
    assert len(panel.data()) == 4 + 4 * 8 and len(panel.bars.opts["height"]) == 36
    assert panel.axis.upright()


def test_bars_without_a_probed_step_stay_at_zero(show):
    panel = show(GradNormBars)
    records = make_records(steps=1)
    records[0].grad_norms = None
    panel.update_from(make_history(records))
    assert set(panel.data().values()) == {0.0}


# -- GlobalNormPlot and JunctionPlot -------------------------------------------------------
def test_global_norm_over_steps(show):
    records = make_records(steps=30)
    panel = show(GlobalNormPlot)
    assert panel.objectName() == "globalNormPlot"
    panel.update_from(make_history(records))
    (x, y), = panel.data().values()
    np.testing.assert_allclose(x, [r.step for r in records])
    np.testing.assert_allclose(y, [r.global_grad_norm for r in records])
    assert panel.curves()["global grad norm"].opts["pen"].widthF() >= 2.5


def test_junction_norms_join_the_sampled_steps(show):
    records = make_records(steps=60, sample_every=5)
    panel = show(JunctionPlot)
    assert panel.objectName() == "junctionPlot"
    panel.update_from(make_history(records))
    sampled = [r for r in records if r.junction_grad_norms is not None]
    for k in range(3):
        x, y = panel.data()[f"head{k}"]
        np.testing.assert_allclose(x, [r.step for r in sampled])
        np.testing.assert_allclose(y, [r.junction_grad_norms[f"head{k}"] for r in sampled])
        panel.grab()
        assert len(panel.curves()[f"head{k}"].getData()[0]) == len(sampled)
        assert panel.curves()[f"head{k}"].opts["pen"].color().name().lower() == \
            LIGHT.head_colour(k).lower()
    assert [label.text for _, label in panel.legend.items] == head_names(3)


def test_junction_line_breaks_where_the_probe_was_off(show):
    records = make_records(steps=40, sample_every=1) + \
        make_records(steps=40, sample_every=1, first_step=200)
    history = make_history(records)
    panel = show(JunctionPlot)
    panel.update_from(history)
    x, y = panel.data()["head0"]
    assert np.isnan(x).sum() == 1 and np.isfinite(y).sum() == 80
    assert panel.curves()["head0"].opts["connect"] == "finite"


def test_junction_curves_follow_the_number_of_heads(show):
    panel = show(JunctionPlot)
    # a curve per head, and z.grad's (empty, and not in the legend, until retain_grad)
    panel.set_model(head_names(6), [])
    assert len(panel.curves()) == 7 and len(panel.legend.items) == 6
    panel.set_model(head_names(1), [])
    assert len(panel.curves()) == 2
    assert len(panel.plot.listDataItems()) == 2


# -- CosineHeatmap ----------------------------------------------------------------------------
def test_cosine_cells_show_the_matrix_with_red_for_conflict(show):
    cos = [[1.0, -0.6, 0.3], [-0.6, 1.0, np.nan], [0.3, np.nan, 1.0]]
    panel = show(CosineHeatmap)
    assert panel.objectName() == "cosineHeatmap"
    panel.update_from(make_history(make_records(steps=11, cosine=cos)))
    np.testing.assert_allclose(panel.data(), cos)
    assert panel.cell_text(0, 1) == "-0.60" and panel.cell_text(2, 0) == "0.30"
    assert panel.cell_text(1, 2) == "–" and panel.cell_text(2, 1) == "–"
    assert is_reddish(panel.cell_colour(0, 1))
    assert is_bluish(panel.cell_colour(0, 2)) and is_bluish(panel.cell_colour(1, 1))
    grey = panel.cell_colour(1, 2)
    assert grey.red() == grey.green() == grey.blue()


def test_cosine_colour_range_is_fixed(show):
    panel = show(CosineHeatmap, heads=2)
    panel.update_from(make_history(make_records(heads=2, steps=1,
                                                cosine=[[1.0, -1.0], [-1.0, 0.0]])))
    strongest_red, white = panel.cell_colour(0, 1), panel.cell_colour(1, 1)
    assert is_reddish(strongest_red) and strongest_red.lightness() < 120
    assert min(white.red(), white.green(), white.blue()) > 230
    panel.update_from(make_history(make_records(heads=2, steps=1,
                                                cosine=[[1.0, -0.1], [-0.1, 1.0]])))
    assert panel.cell_colour(0, 1).lightness() > 200  # -0.1 is pale: no autoscaling


def test_cosine_cells_follow_the_number_of_heads(show):
    panel = show(CosineHeatmap)
    assert panel.data().shape == (3, 3)
    panel.set_model(head_names(5), [])
    assert panel.data().shape == (5, 5) and panel.cell_text(4, 4) == "–"
    ticks = panel.plot.getAxis("left")._tickLevels[0]
    assert [name for _, name in ticks] == head_names(5)
    texts = [i for i in panel.plot.items if type(i).__name__ == "TextItem"]
    assert len(texts) == 25


def test_cosine_keeps_the_last_sampled_matrix(show):
    records = make_records(steps=12, sample_every=5)  # last sample at step 10
    panel = show(CosineHeatmap)
    panel.update_from(make_history(records))
    np.testing.assert_allclose(panel.data(), records[10].cosine)


def _title_fits(axis) -> bool:
    label = axis.label
    return label.boundingRect().width() - 2 * label.document().documentMargin() <= axis.height()


def test_a_short_chart_shortens_its_axis_title_and_a_tall_one_gets_it_back(show, qtbot):
    # the global norm under the loss curves with the Compare dock open at 1280x720: the
    # full title, 190 px rotated, ran past a 100 px axis and was cut off
    panel = show(GlobalNormPlot, size=(930, 150))
    panel.update_from(make_history(make_records(steps=30)))
    axis = panel.plot.getAxis("left")
    qtbot.waitUntil(lambda: axis.labelText == "‖grad‖")
    assert _title_fits(axis)
    panel.resize(700, 450)
    qtbot.waitUntil(lambda: axis.labelText == "‖grad‖ (all parameters)")
    assert _title_fits(axis)
    panel.apply_theme(LIGHT.zoomed(2.0))   # the lecturer's Ctrl+= : the same panel, larger text
    qtbot.waitUntil(lambda: axis.labelText == "‖grad‖")
    assert _title_fits(axis)


def _junction_history(rows: list[list[float]]):
    from gradviz.plain.records.history import History
    from gradviz.plain.records.records import StepRecord
    h = History(head_names(3), param_names(3))
    for t, row in enumerate(rows):
        h.append(StepRecord(step=t, losses=dict(zip(head_names(3), [1.0] * 3)), total=3.0,
                            junction_grad_norms=dict(zip(head_names(3), row))))
    return h


def test_a_push_of_zero_sits_at_the_bottom_of_the_axis_never_below(show):
    # z.detach_() before the first head: no head pushes the trunk, every norm 0; the
    # axis ran from -0.04 to 0.04, as if a norm could be negative
    panel = show(JunctionPlot)
    panel.update_from(_junction_history([[0.0, 0.0, 0.0]] * 20))
    panel.grab()
    low, high = panel.plot.getViewBox().viewRange()[1]
    assert -0.1 <= low <= 0.0 < high and high >= 0.5
    panel.update_from(_junction_history([[0.0, 0.0, 0.0]] * 20 + [[0.0, 3.0, 0.0]]))
    panel.grab()   # a push at last: the axis follows the data again
    low, high = panel.plot.getViewBox().viewRange()[1]
    assert high >= 3.0 and low <= 0.0


def test_a_clipped_norm_is_a_flat_line_from_zero_not_float_noise(show):
    """clip_grad_norm_(..., 0.5) on lesson 09: every step's norm is 0.5 but for float
    rounding (0.49999960 to 0.49999972), and the axis spanned just that: the noise
    filled the chart as wild swings. A norm that does not change sits on 0 to it."""
    from gradviz.plain.records.history import History
    from gradviz.plain.records.records import StepRecord

    rng = np.random.default_rng(0)
    norms = 0.5 - rng.uniform(0, 4e-7, 20)
    h = History(head_names(3), param_names(3))
    for t, norm in enumerate(norms):
        h.append(StepRecord(step=t, losses=dict(zip(head_names(3), [1.0] * 3)), total=3.0,
                            global_grad_norm=float(norm)))
    panel = show(GlobalNormPlot)
    panel.update_from(h)
    panel.grab()
    low, high = panel.plot.getViewBox().viewRange()[1]
    assert -0.05 <= low <= 0.0 and 0.5 <= high <= 0.6
    # a norm that does change (the unclipped one falling from 1.4): the axis follows it
    h.append(StepRecord(step=20, losses=dict(zip(head_names(3), [1.0] * 3)), total=3.0,
                        global_grad_norm=1.4))
    panel.update_from(h)
    panel.grab()
    low, high = panel.plot.getViewBox().viewRange()[1]
    assert high >= 1.4 and low > 0.3


def test_an_empty_chart_has_neutral_axes_not_the_last_runs(show):
    # a new slide (or Reset) empties the history: the last run's ranges looked like data
    panel = show(GlobalNormPlot)
    panel.update_from(make_history(make_records(steps=60)))
    panel.grab()
    assert panel.plot.getViewBox().viewRange()[0][1] >= 59
    panel.update_from(make_history([], heads=3))
    panel.grab()
    (x0, x1), (y0, y1) = panel.plot.getViewBox().viewRange()
    assert (x0, x1) == pytest.approx((0, 10), abs=0.5)
    assert (y0, y1) == pytest.approx((0, 1), abs=0.1)
    panel.update_from(make_history(make_records(steps=30)))   # data again: axes follow it
    panel.grab()
    assert panel.plot.getViewBox().viewRange()[0][1] >= 29


def test_one_step_is_a_dot_on_an_axis_of_steps_from_zero(show):
    # a slide whose second step fails: one step of history. A line needs two points (so
    # nothing was drawn) and the x axis ran from -4 to 4 optimizer steps
    panel = show(GlobalNormPlot)
    record = make_records(steps=1)[0]
    panel.update_from(make_history([record]))
    panel.grab()
    (x0, x1), (y0, y1) = panel.plot.getViewBox().viewRange()
    assert -0.5 <= x0 <= 0.0 and x1 >= 5
    assert y0 <= record.global_grad_norm <= y1
    curve = next(iter(panel.curves().values()))
    assert curve.opts["symbol"] == "o"
    assert curve.opts["symbolBrush"] is not None
    panel.update_from(make_history(make_records(steps=40)))   # a run again: a line,
    panel.grab()                                               # axes following it
    assert curve.opts["symbol"] is None
    assert panel.plot.getViewBox().viewRange()[0][1] >= 39


def test_z_grad_is_drawn_and_named_only_where_retain_grad_kept_it(show):
    import dataclasses

    from gradviz.qt.widgets.grad_views import Z_GRAD
    panel = show(JunctionPlot)
    records = make_records(steps=12, sample_every=1)
    # z.retain_grad(): each step's record holds ‖z.grad‖
    kept = [dataclasses.replace(r, z_grad_norm=0.1 + r.step / 100) for r in records]
    # each history held: the panel knows a history by its id, which a freed one's
    # successor may reuse
    plain, retained, plain_again = (make_history(records), make_history(kept),
                                    make_history(records))
    panel.update_from(plain)
    legend = [label.text for _, label in panel.legend.items]
    assert Z_GRAD not in legend and len(panel.data()[Z_GRAD][0]) == 0
    panel.update_from(retained)
    assert Z_GRAD in [label.text for _, label in panel.legend.items]
    x, y = panel.data()[Z_GRAD]
    assert list(x) == [r.step for r in kept]
    assert y == pytest.approx([r.z_grad_norm for r in kept])
    panel.update_from(plain_again)               # retain_grad off again (a new slide)
    assert Z_GRAD not in [label.text for _, label in panel.legend.items]


@pytest.mark.parametrize("width", range(330, 480, 8))
def test_every_legend_entry_is_whole_in_the_panel(show, width):
    """Lesson 06 slide 2 at 1024x768: the junction chart's legend had "z.grad
    (retain_grad)" in its first column and "head2" in its third, cut at the panel's
    right edge ("head"): a column was counted narrower than it was laid out."""
    import dataclasses

    from PySide6.QtCore import QRectF
    panel = show(JunctionPlot, size=(width, 430))
    kept = [dataclasses.replace(r, z_grad_norm=0.1) for r in make_records(steps=12)]
    panel.update_from(make_history(kept))
    panel.grab()
    view = panel.plot_widget
    for sample, label in panel.legend.items:
        for item in (sample, label):
            shown = view.mapFromScene(item.mapRectToScene(item.boundingRect())).boundingRect()
            assert QRectF(view.rect()).contains(QRectF(shown)), (label.text, shown, view.width())
