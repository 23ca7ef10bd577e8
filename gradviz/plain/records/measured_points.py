"""The rows of a growing column where something was measured (finite), found in the rows
added since the last look only: a history's rows never change once appended, and going
over all of them every frame made the junction and memory charts' updates grow with the
run (4-5 ms more a frame each at 800,000 rows)."""
from __future__ import annotations

import numpy as np


class MeasuredPoints:
    def __init__(self) -> None:
        self._looked = 0                 # rows of the column already looked at
        self._steps = np.empty(0)
        self._values = np.empty(0)
        self._n = 0                      # points found so far

    def take(self, steps: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(steps, values) where both are finite, in order, of all rows so far; views
        of what was found (copy before changing them)."""
        new_steps, new_values = steps[self._looked:], values[self._looked:]
        ok = np.isfinite(new_steps) & np.isfinite(new_values)
        found = int(np.count_nonzero(ok))
        if found:
            self._room_for(self._n + found)
            self._steps[self._n: self._n + found] = new_steps[ok]
            self._values[self._n: self._n + found] = new_values[ok]
            self._n += found
        self._looked = len(steps)
        return self._steps[: self._n], self._values[: self._n]

    def _room_for(self, points: int) -> None:
        if points <= len(self._steps):
            return
        size = max(points, 2 * len(self._steps), 256)
        for name in ("_steps", "_values"):
            bigger = np.empty(size)
            bigger[: self._n] = getattr(self, name)[: self._n]
            setattr(self, name, bigger)
