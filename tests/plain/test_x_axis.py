"""The charts' x axis: steps as they are, or each step's recorded wall time, since the
run started or as it was; the unit of the time since the start suits the longest run;
a run without times is drawn by step, said by axis_shown (the controller's note)."""
from __future__ import annotations

import numpy as np
import pytest

from gradviz.plain.charts.x_axis import XAxis, axis_shown, run_start, time_unit
from gradviz.plain.records.history import History
from gradviz.plain.records.records import StepRecord

T0 = 1_700_000_000.0


def _history(times: list[float | None], first_step: int = 0) -> History:
    h = History(["a"], ["w"])
    for k, t in enumerate(times):
        h.append(StepRecord(step=first_step + k, losses={"a": 1.0}, total=1.0, wall_time=t))
    return h


def test_by_step_the_steps_are_the_x():
    h = _history([T0 + 1, T0 + 2])
    np.testing.assert_array_equal(XAxis("step").x(h, np.array([0.0, 1.0])), [0.0, 1.0])


def test_wall_time_is_each_step_s_own_time():
    h = _history([T0 + 5.0, None, T0 + 9.0, T0 + 10.0], first_step=10)
    x = XAxis("wall").x(h, h.column("step"))
    # step 11 recorded none: between its neighbours'
    np.testing.assert_array_equal(x, [T0 + 5.0, T0 + 7.0, T0 + 9.0, T0 + 10.0])
    # a sampled line's break (NaN) stays a break; a step past the times is a gap
    x = XAxis("wall").x(h, np.array([10.0, np.nan, 20.0]))
    assert x[0] == T0 + 5.0 and np.isnan(x[1:]).all()


def test_time_since_the_start_counts_from_the_header_s_started():
    h = _history([T0 + 30.0, T0 + 90.0, T0 + 150.0])
    axis = XAxis.for_runs("relative", [(h, T0)])
    assert axis.unit == (60.0, "min")      # 150 s: minutes
    np.testing.assert_allclose(axis.x(h, h.column("step")), [0.5, 1.5, 2.5])
    assert axis.title == "time since the run started (min)"


@pytest.mark.parametrize("started, start", [(T0, T0), (T0 + 100.0, T0 + 30.0),
                                            ("yesterday", T0 + 30.0), (True, T0 + 30.0),
                                            (None, T0 + 30.0), (float("nan"), T0 + 30.0)])
def test_a_start_after_the_first_step_or_not_a_time_is_the_first_step_s(started, start):
    assert run_start(_history([T0 + 30.0, T0 + 40.0]), started) == start


@pytest.mark.parametrize("seconds, unit", [(0.0, "s"), (119.0, "s"), (120.0, "min"),
                                           (7199.0, "min"), (7200.0, "h")])
def test_the_unit_suits_the_longest_run(seconds, unit):
    assert time_unit(seconds)[1] == unit


def test_two_runs_share_the_longer_one_s_unit_each_from_its_own_start():
    short = _history([T0 + 1.0, T0 + 2.0])
    long = _history([T0 + 1000.0, T0 + 9000.0])
    axis = XAxis.for_runs("relative", [(short, T0), (long, T0 + 1000.0)])
    assert axis.unit[1] == "h"
    np.testing.assert_allclose(axis.x(long, long.column("step")), [0.0, 8000 / 3600])
    np.testing.assert_allclose(axis.x(short, short.column("step")), [1 / 3600, 2 / 3600])


def test_time_asked_of_runs_without_it_is_step_and_says_which():
    timed, untimed = _history([T0, T0 + 1.0]), _history([None, None])
    assert axis_shown("wall", {"a": timed, "b": None}) == ("wall", "")
    shown, note = axis_shown("relative", {"a": timed, "b": untimed, "": untimed})
    assert shown == "step" and note.startswith("by step: b, this run recorded no time")
    assert axis_shown("step", {"b": untimed}) == ("step", "")
