"""What a recorded run's charts put along their x axis, as TensorBoard offers it: the
optimizer step, the time since the run started, or the wall-clock time.

Time needs each step's "wall_time" (seconds since the epoch, when the step ended),
which a recording may not have: a chart asked for time whose runs lack it is drawn by
step, and a note says why (axis_shown). Mixing the two would put one run's steps on
another's seconds. The time since the start counts from the header's "started" (when
gradviz.watch began recording) where it is a time before the first step, else from the
first step's time.
"""
from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from ..records.history import History

X_AXES = ("step", "relative", "wall")
AXIS_NAMES = {"step": "Step", "relative": "Relative", "wall": "Wall"}
AXIS_TIPS = {"step": "By optimizer step",
             "relative": "By the time since each run started (its watch's \"started\")",
             "wall": "By the wall-clock time each step ended"}
NO_WALL_TIME = ("by step: {runs} recorded no time per step (a step's \"wall_time\", "
                "written by a newer gradviz.watch)")
# the unit the time since the start is shown in, by the longest run's length: a run of
# hours read in seconds is a row of six-digit ticks
UNITS = ((2 * 3600.0, 3600.0, "h"), (120.0, 60.0, "min"), (0.0, 1.0, "s"))


def has_wall_time(history: History | None) -> bool:
    return history is not None and bool(np.isfinite(history.column("wall_time")).any())


def axis_shown(asked: str, runs: dict[str, History | None]) -> tuple[str, str]:
    """(the axis the charts draw, a note: "" or why it is not the one asked for). A run
    with no step yet says nothing either way."""
    if asked == "step":
        return "step", ""
    lacking = [name or "this run" for name, history in runs.items()
               if history is not None and len(history) and not has_wall_time(history)]
    if not lacking:
        return asked, ""
    named = ", ".join(lacking[:3]) + (f" and {len(lacking) - 3} more" if len(lacking) > 3
                                      else "")
    return "step", NO_WALL_TIME.format(runs=named)


def run_start(history: History, started: object) -> float:
    """Where a run's time since the start counts from: the header's "started" where it
    is a time no later than the first step's, else the first step's time."""
    times = history.column("wall_time")
    finite = times[np.isfinite(times)]
    first = float(finite[0]) if len(finite) else math.nan
    if isinstance(started, (int, float)) and not isinstance(started, bool) \
            and math.isfinite(started) and not started > first:
        return float(started)
    return first


def time_unit(longest_s: float) -> tuple[float, str]:
    """(seconds per unit, its name) for a run this long."""
    return next((size, name) for least, size, name in UNITS if longest_s >= least)


class XAxis:
    """Steps to x, for one mode: the charts call x(history, steps) for each line."""

    def __init__(self, mode: str = "step", starts: dict[int, float] | None = None,
                 unit: tuple[float, str] = (1.0, "s")):
        """starts: each drawn history's start (by id), for "relative"; unit: its unit."""
        self.mode, self.starts, self.unit = mode, starts or {}, unit

    @classmethod
    def for_runs(cls, mode: str, runs: Iterable[tuple[History, object]]) -> XAxis:
        """The axis for these runs ((history, header's "started") each): their starts,
        and a unit that suits the longest."""
        runs = list(runs)
        starts = {id(h): run_start(h, started) for h, started in runs if len(h)}
        longest = 0.0
        for history, _ in runs:
            times = history.column("wall_time")
            if len(times) and id(history) in starts and np.isfinite(times).any():
                longest = max(longest, float(np.nanmax(times)) - starts[id(history)])
        return cls(mode, starts, time_unit(longest))

    @property
    def title(self) -> str:
        if self.mode == "relative":
            return f"time since the run started ({self.unit[1]})"
        return "wall time" if self.mode == "wall" else "optimizer step"

    def key(self) -> tuple:
        """What a chart drawn on this axis depends on: another key, drawn again."""
        if self.mode != "relative":   # steps, and clock times, are what they are
            return (self.mode,)
        return (self.mode, self.unit, tuple(sorted(self.starts.items())))

    def x(self, history: History, steps: np.ndarray) -> np.ndarray:
        """Each step's x: itself, or the time the history recorded at it (a step without
        one between two that have it: between their times; before or after them: NaN,
        a gap in the line)."""
        steps = np.asarray(steps, dtype=float)
        if self.mode == "step":
            return steps
        times, at = history.column("wall_time"), history.column("step")
        known = np.isfinite(times)
        if len(steps) == len(at) and known.all() and np.array_equal(steps, at):
            x = times.copy()   # a row each (the usual line): its own times, no search
        elif not known.any():
            return np.full(len(steps), np.nan)
        else:
            x = self._between(steps, at[known], times[known])
        if self.mode == "relative":
            x = (x - self.starts.get(id(history), math.nan)) / self.unit[0]
        return x

    @staticmethod
    def _between(steps: np.ndarray, at: np.ndarray, times: np.ndarray) -> np.ndarray:
        """Each step's time, between the recorded ones around it; interp keeps a NaN
        step (a line's break) NaN."""
        return np.interp(steps, at, times, left=np.nan, right=np.nan)
