"""TensorBoard's smoothing of a chart's line: a debiased exponential moving average.

Over the finite points in order, s_n = w * s_(n-1) + (1 - w) * y_n from s_0 = 0, and the
point drawn is s_n / (1 - w ** n): dividing by what the weights of the n points so far
add up to takes away the pull towards the starting 0, so the line starts at the first
value, not below it. A point that is not finite (NaN, an inf) is drawn as it is and
leaves the average alone; a line whose every point is the same is drawn unchanged (the
division would add float noise to it). w is the weight of the past, 0 (no smoothing)
to 1. This is the formula of TensorBoard's scalar charts ("classic smoothing"), so a
line smoothed at 0.6 here reads as it does there.

The window smooths 8 runs of 100,000 steps again whenever the weight moves, so the
recurrence is computed in numpy (in closed form over blocks, or as a short convolution
where the weight forgets within a few steps), and a growing line is extended from where
its average stopped (Smoothed), never recomputed whole.
"""
from __future__ import annotations

import math

import numpy as np

SMOOTHING_RANGE = (0.0, 0.99)   # the slider's: at 1 the line would never move
# the block form multiplies by w ** -j: kept so that w ** -j times the largest value
# stays under 1e300 (float64's largest is 1.8e308), whatever the values
_EXPONENT = 300.0
# below this many steps of memory (w ** K under 1e-18, past float64's precision) the
# average is a convolution with the K weights: the block form would take tiny blocks
# (about where the two cost the same on 100,000 points: w near 0.35)
_SHORT_MEMORY = 40


def clamp_weight(weight: float) -> float:
    """A weight as TensorBoard takes it: not finite is 0, the rest clamped to 0..1."""
    return min(1.0, max(0.0, float(weight))) if math.isfinite(weight) else 0.0


def _average(finite: np.ndarray, weight: float, start: float) -> np.ndarray:
    """s_1..s_m of the finite values, continuing from s_0 = start."""
    m = len(finite)
    if weight == 0.0:
        return finite.astype(float, copy=True)
    if weight == 1.0:
        return np.full(m, start)
    log_w = math.log(weight)
    memory = math.ceil(-18 * math.log(10) / log_w)
    if memory <= _SHORT_MEMORY:
        kernel = _powers(weight, np.arange(min(memory, m)))
        out = (1 - weight) * np.convolve(finite, kernel)[:m]
        reach = min(memory, m)   # how far the start still counts
        out[:reach] += start * _powers(weight, np.arange(1, reach + 1))
        return out
    largest = float(np.abs(finite).max()) if m else 0.0
    room = _EXPONENT - math.log10(max(largest, 1.0))
    block = max(1, int(room * math.log(10) / -log_w))
    out = np.empty(m)
    back = _powers(weight, -np.arange(1, min(block, m) + 1))   # w^-(i+1)
    ahead = 1.0 / back                                   # w^(j+1)
    prev = start
    for a in range(0, m, block):
        b = min(a + block, m)
        # s_(a+j) = w^(j+1) * (prev + (1 - w) * sum_(i<=j) w^-(i+1) y_(a+i))
        out[a:b] = ahead[:b - a] * (prev + (1 - weight) * np.cumsum(finite[a:b] * back[:b - a]))
        prev = out[b - 1]
    return out


def _powers(weight: float, exponents: np.ndarray) -> np.ndarray:
    """weight ** exponents (weight in (0, 1)) as exp(exponents * log weight): numpy's
    float power took 24 ms for 100,000 exponents on a busy machine, exp under 1 ms."""
    return np.exp(exponents * math.log(weight))


class Smoothed:
    """One growing line, smoothed: extend() it with the whole line so far (the same
    values as before, more at its end) and it averages only the new points."""

    def __init__(self, weight: float):
        self.weight = clamp_weight(weight)
        self._reset()

    def _reset(self) -> None:
        self.done = 0             # points averaged
        self._s = 0.0             # the average so far (s_n), not debiased
        self._n = 0               # finite points so far
        self._first: float | None = None
        self._constant = True     # every point so far equal to the first
        self._out = np.empty(0)   # the smoothed points, debiased

    def extend(self, values: np.ndarray) -> np.ndarray:
        """The smoothed line of values (the line so far; a shorter one starts again)."""
        y = np.asarray(values, dtype=float)
        if len(y) < self.done:
            self._reset()   # another line: afresh
        new = y[self.done:]
        if len(new):
            if self._first is None:
                self._first = float(new[0])
            # as TensorBoard's test: == is False for NaN, so a NaN breaks "constant"
            self._constant = self._constant and bool(np.all(new == self._first))
            self._out = np.concatenate([self._out, self._debiased(new)])
            self.done = len(y)
        return y.copy() if self._constant else self._out

    def _debiased(self, new: np.ndarray) -> np.ndarray:
        out = new.copy()   # points not finite are drawn as they are
        finite = np.isfinite(new)
        if not finite.any():
            return out
        s = _average(new[finite], self.weight, self._s)
        w, n = self.weight, self._n
        self._s, self._n = float(s[-1]), n + len(s)
        if 0.0 < w < 1.0:
            # 1 - w ** n is 1 to float precision once w ** n < 1e-17: divided only before
            biased = max(0, min(len(s), math.ceil(-17 * math.log(10) / math.log(w)) - n))
            s[:biased] /= 1 - _powers(w, n + np.arange(1, biased + 1))
        out[finite] = s
        return out


class Smoothings:
    """The smoothed lines of a chart, each by a key of the caller's (the run's history
    and the line's name): one weight for all; a new weight, or a line no longer drawn,
    starts afresh."""

    def __init__(self) -> None:
        self.weight = 0.0
        self._lines: dict[object, Smoothed] = {}

    def set_weight(self, weight: float) -> bool:
        """Whether the weight changed (then every line is averaged again)."""
        weight = clamp_weight(weight)
        if weight == self.weight:
            return False
        self.weight, self._lines = weight, {}
        return True

    def line(self, key: object, values: np.ndarray) -> np.ndarray:
        smoothed = self._lines.get(key)
        if smoothed is None:
            smoothed = self._lines[key] = Smoothed(self.weight)
        return smoothed.extend(values)

    def keep_only(self, keys: set) -> None:
        """Forget the lines not in keys (a run unticked, a history replaced)."""
        for key in [k for k in self._lines if k not in keys]:
            del self._lines[key]
