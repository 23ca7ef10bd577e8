"""The chart of runs over each other, alone: a line per run in its slot's colour with the
names as written in its legend, a run's several parts told apart by dash (the legend
naming runs by colour and parts by dash), the faint raw lines behind the smoothed ones,
and the wall-clock axis ticked as dates."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt

from gradviz.plain.charts.smoothing import Smoothed
from gradviz.plain.charts.x_axis import XAxis
from gradviz.plain.records.history import History
from gradviz.plain.records.records import StepRecord
from gradviz.qt.theme import LIGHT
from gradviz.qt.widgets.runs_chart import RUN_COLOURS, RunLine
from gradviz.qt.widgets.viewer_charts import cosine_lines_chart, runs_loss_chart

T0 = 1_700_000_000.0


def debiased_ema(values: np.ndarray, weight: float) -> np.ndarray:
    """The whole line smoothed at weight, as a chart's line is from its first point."""
    return Smoothed(weight).extend(values)


def _history(scale: float, steps: int = 40) -> History:
    h = History(["a", "b", "c"], [])
    rng = np.random.default_rng(int(scale * 10))
    for s in range(steps):
        m = np.eye(3) + 0.3 * scale * (1 - np.eye(3))
        h.append(StepRecord(step=s, losses={"a": 1.0, "b": 1.0, "c": 1.0},
                            total=scale * float(np.exp(-s / 10) + rng.normal(0, 0.05)),
                            cosine=m.tolist() if s % 4 == 0 else None,
                            wall_time=T0 + 2.0 * s))
    return h


def _update(qtbot, chart, history) -> None:
    """An update, drawn whole (its lines are computed over turns where they take long)."""
    chart.update_from(history)
    qtbot.waitUntil(lambda: not chart.drawing)


def _legend(chart) -> list[str]:
    return [label.item.toPlainText() for _, label in chart.legend.items]


def test_each_run_its_colour_and_its_name_as_written(qtbot):
    chart = runs_loss_chart()
    qtbot.addWidget(chart)
    lines = [RunLine("<b>first</b>", 0, _history(1.0)), RunLine("second", 5, _history(2.0))]
    chart.lines_source = lambda: lines
    _update(qtbot, chart, lines[0].history)
    assert _legend(chart) == ["<b>first</b>", "second"]
    pens = {name: c.opts["pen"].color().name().upper() for name, c in chart.curves().items()}
    assert pens == {"<b>first</b>": RUN_COLOURS[0], "second": RUN_COLOURS[5]}
    np.testing.assert_array_equal(chart.data()["second"][1], lines[1].history.column("total"))
    chart.set_smoothing(0.9)
    _update(qtbot, chart, lines[0].history)
    np.testing.assert_allclose(chart.data()["second"][1],
                               debiased_ema(lines[1].history.column("total"), 0.9))
    assert all(raw.isVisible() for raw in chart._raw.values())
    chart.set_smoothing(0.0)
    _update(qtbot, chart, lines[0].history)
    assert not any(raw.isVisible() for raw in chart._raw.values())


def test_several_parts_of_several_runs_runs_by_colour_parts_by_dash(qtbot):
    chart = cosine_lines_chart()
    qtbot.addWidget(chart)
    lines = [RunLine("r1", 0, _history(1.0)), RunLine("r2", 1, _history(2.0))]
    chart.lines_source = lambda: lines
    _update(qtbot, chart, lines[0].history)
    assert _legend(chart) == ["r1", "r2", "a · b", "a · c", "b · c"]
    assert len(chart.curves()) == 6
    styles = {name: c.opts["pen"].style() for name, c in chart.curves().items()}
    assert styles["r1 · a · b"] == Qt.PenStyle.SolidLine
    assert styles["r2 · a · c"] == Qt.PenStyle.CustomDashLine
    x, y = chart.data()["r2 · b · c"]
    np.testing.assert_array_equal(x, np.arange(0, 40, 4))   # the sampled steps only
    np.testing.assert_allclose(y, 0.6)
    lines.pop()   # one run: each part its own colour, named in the legend
    _update(qtbot, chart, lines[0].history)
    assert _legend(chart) == ["a · b", "a · c", "b · c"]
    assert len({c.opts["pen"].color().name() for c in chart.curves().values()}) == 3


def test_the_wall_clock_axis_ticks_dates_and_steps_come_back(qtbot):
    chart = runs_loss_chart()
    qtbot.addWidget(chart)
    chart.apply_theme(LIGHT)   # as the window themes it: its grid on
    lines = [RunLine("r", 0, _history(1.0))]
    chart.lines_source = lambda: lines
    chart.set_x_axis(XAxis("wall"))
    _update(qtbot, chart, lines[0].history)
    assert isinstance(chart.plot.getAxis("bottom"), pg.DateAxisItem)
    assert chart.plot.getAxis("bottom").grid   # the grid kept on the new axis item
    assert chart.data()["r"][0][1] == T0 + 2.0
    chart.set_x_axis(XAxis("step"))
    _update(qtbot, chart, lines[0].history)
    bottom = chart.plot.getAxis("bottom")
    assert not isinstance(bottom, pg.DateAxisItem) and bottom.labelText == "optimizer step"
    assert chart.data()["r"][0][1] == 1.0


def test_no_run_with_a_step_yet_is_an_empty_chart(qtbot):
    chart = cosine_lines_chart()
    qtbot.addWidget(chart)
    _update(qtbot, chart, History(["a", "b"], []))   # lines_source: none
    assert chart.curves() == {} and _legend(chart) == []


def test_a_run_of_too_many_losses_has_no_pairs_to_draw(qtbot):
    names = [f"n{i}" for i in range(9)]
    h = History(names, [])
    h.append(StepRecord(step=0, losses=dict.fromkeys(names, 1.0), total=9.0,
                        cosine=np.eye(9).tolist()))
    chart = cosine_lines_chart()
    qtbot.addWidget(chart)
    chart.lines_source = lambda: [RunLine("r", 0, h)]
    _update(qtbot, chart, h)
    assert chart.curves() == {}
