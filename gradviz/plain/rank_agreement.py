"""Whether the ranks of a run agree: under DistributedDataParallel every rank holds the
same all-reduced gradient after backward (equal norms, parameter by parameter), while
each rank's losses are of its own batch (equal only when the ranks read the same data)."""
from __future__ import annotations

import numpy as np

from .history import History

# what disagreeing ranks mean: not an error by itself (ranks may train apart on purpose)
DDP_WORDS = " (after DDP's all-reduce every rank's gradient would be the same)"
AGREE_RTOL = 1e-6   # equal norms, but for the last digits a different summation order gives


def _number(value: float) -> str:
    return "none" if np.isnan(value) else f"{value:.4g}"


def shared_steps(histories: list[History]) -> np.ndarray:
    steps = histories[0].column("step")
    for history in histories[1:]:
        steps = np.intersect1d(steps, history.column("step"))
    return steps


def rows_of(history: History, steps: np.ndarray) -> np.ndarray:
    """The row of each of steps in history (steps all in it)."""
    return np.searchsorted(history.column("step"), steps)


def grad_norms_at(history: History, rows: np.ndarray, params: list[str]) -> np.ndarray:
    """Gradient norms at rows, by params; NaN where the .grad was None."""
    columns = [history.param_names.index(p) for p in params]
    return history.column("grad_norms")[rows][:, columns]


def gradient_line(histories: dict[str, History]) -> str:
    """Where the ranks' gradient norms first differ (a norm against none counts), or
    that they agree at every step they share."""
    names, shown = list(histories), list(histories.values())
    steps = shared_steps(shown)
    first = shown[0]
    for name, other in zip(names[1:], shown[1:]):
        params = [p for p in first.param_names if p in other.param_names]
        a = grad_norms_at(first, rows_of(first, steps), params)
        b = grad_norms_at(other, rows_of(other, steps), params)
        with np.errstate(invalid="ignore"):
            apart = np.abs(a - b) > AGREE_RTOL * np.maximum(np.abs(a), np.abs(b))
        bad = apart | (np.isnan(a) != np.isnan(b))
        if bad.any():
            row, col = np.argwhere(bad)[0]
            return (f"ranks disagree: step {int(steps[row])}, {params[col]}: {names[0]} "
                    f"{_number(a[row, col])}, {name} {_number(b[row, col])}{DDP_WORDS}")
    return f"ranks agree: equal gradient norms at all {len(steps)} steps they share"


def loss_line(histories: dict[str, History]) -> str:
    """At how many shared steps the ranks' losses differ."""
    shown = list(histories.values())
    steps = shared_steps(shown)
    first = shown[0].column("losses")[rows_of(shown[0], steps)]
    differ = np.zeros(len(steps), dtype=bool)
    for other in shown[1:]:
        if other.keys != shown[0].keys:
            return "losses: the ranks name different losses"
        mine = other.column("losses")[rows_of(other, steps)]
        differ |= ~np.isclose(first, mine, rtol=AGREE_RTOL, atol=0.0,
                              equal_nan=True).all(axis=1)
    if not differ.any():
        return f"losses: equal on every rank at all {len(steps)} steps they share"
    return (f"losses: different per rank at {int(differ.sum())} of {len(steps)} steps "
            "(as they are when each rank reads its own batch)")
