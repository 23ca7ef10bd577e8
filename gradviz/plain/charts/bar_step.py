"""The one step two recorded runs' per-parameter bars are drawn at, side by side.

Each run's newest bars were of its own newest step: A at step 79 beside B at step 29
(B's script still early), under a verdict on the steps both recorded, read as one
comparison and it was two. So both are drawn at A's newest step that has gradient
norms where B recorded it too, else at the newest step both recorded, and the chart
says which."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..records.history import History


@dataclass(frozen=True)
class BarStep:
    step: int
    a: dict[str, float | None]      # each parameter's norm; None: no gradient (None)
    b: dict[str, float | None]
    a_newest: bool                  # the step is A's newest with norms (else B lacks it)


def _norm_steps(history: History) -> tuple[np.ndarray, np.ndarray]:
    """(steps, rows) of the rows that recorded gradient norms, in row order."""
    missing = history.column("grad_missing")
    rows = np.flatnonzero(~np.isnan(missing).all(axis=1)) if missing.shape[1] else \
        np.zeros(0, dtype=int)
    return history.column("step")[rows], rows


def _norms(history: History, row: int) -> dict[str, float | None]:
    values = history.column("grad_norms")[row]
    missing = history.column("grad_missing")[row]
    return {name: None if missing[j] == 1.0 else float(values[j])
            for j, name in enumerate(history.param_names) if not np.isnan(missing[j])}


def shared_bar_step(a: History, b: History) -> BarStep | None:
    """The step both are drawn at, with each one's norms there; None where they share
    no step with gradient norms."""
    steps_a, rows_a = _norm_steps(a)
    steps_b, rows_b = _norm_steps(b)
    if not len(steps_a) or not len(steps_b):
        return None
    newest = steps_a[-1]
    # steps grow down a history: B's row of a step found by bisection, not a search
    j = int(np.searchsorted(steps_b, newest))
    if j < len(steps_b) and steps_b[j] == newest:
        return BarStep(int(newest), _norms(a, int(rows_a[-1])), _norms(b, int(rows_b[j])),
                       True)
    both, ia, ib = np.intersect1d(steps_a, steps_b, assume_unique=False,
                                  return_indices=True)
    if not len(both):
        return None
    return BarStep(int(both[-1]), _norms(a, int(rows_a[ia[-1]])),
                   _norms(b, int(rows_b[ib[-1]])), False)
