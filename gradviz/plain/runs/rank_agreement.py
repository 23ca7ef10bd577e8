"""Whether the ranks of a run agree: under DistributedDataParallel every rank holds the
same all-reduced gradient after backward, while each rank's losses are of its own batch
(equal only when the ranks read the same data).

Equal gradient norms are not equal gradients (a gradient with its sign flipped has the
same norm), so the gradients are compared twice: their norms at every step the ranks
share, and, at the sampled steps where a watch recorded them, their fingerprints (a few
fixed random projections of each parameter's gradient, core.grad_fingerprint), which
differ where the direction does. The line says which of the two it compared."""
from __future__ import annotations

import numpy as np

from ..records.history import History
from ..text.shown_text import shown_name

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


def _count(n: int, what: str) -> str:
    return f"{n} {what}" + ("" if n == 1 else "s")


def _norm_difference(first: History, other: History, steps: np.ndarray
                     ) -> tuple[int, str, float, float] | None:
    """The first (step, parameter, norm, other's norm) where the gradient norms differ
    (a norm against none counts), or None."""
    params = [p for p in first.param_names if p in other.param_names]
    a = grad_norms_at(first, rows_of(first, steps), params)
    b = grad_norms_at(other, rows_of(other, steps), params)
    with np.errstate(invalid="ignore"):
        apart = np.abs(a - b) > AGREE_RTOL * np.maximum(np.abs(a), np.abs(b))
    bad = apart | (np.isnan(a) != np.isnan(b))
    if not bad.any():
        return None
    row, col = np.argwhere(bad)[0]
    return int(steps[row]), params[col], float(a[row, col]), float(b[row, col])


def fingerprint_steps(histories: list[History], steps: np.ndarray) -> np.ndarray:
    """Those of steps at which every history recorded a gradient fingerprint; none
    where the histories' fingerprints hold different numbers of projections (they
    cannot be compared)."""
    if len({h.fingerprints[0].shape[1] for h in histories if h.fingerprints}) > 1:
        return steps[:0]
    for history in histories:
        steps = np.intersect1d(steps, history.fingerprint_steps)
    return steps


def _fingerprints_at(history: History, steps: np.ndarray, params: list[str]
                     ) -> np.ndarray:
    """(steps, params, projections): the fingerprints at steps (all recorded)."""
    at = {step: i for i, step in enumerate(history.fingerprint_steps)}
    columns = [history.param_names.index(p) for p in params]
    return np.stack([history.fingerprints[at[int(s)]] for s in steps])[:, columns]


def _fingerprint_difference(first: History, other: History, steps: np.ndarray
                            ) -> tuple[int, str] | None:
    """The first (step, parameter) at which the fingerprints differ, or None. Each
    projection is of a unit vector, so it is at most the gradient's norm in size: two
    differ when apart by more than AGREE_RTOL of the larger norm (the last digits a
    different summation order gives stay within it; a sign flip is 2 |projection|).
    A projection against none (one .grad None) counts."""
    params = [p for p in first.param_names if p in other.param_names]
    a = _fingerprints_at(first, steps, params)
    b = _fingerprints_at(other, steps, params)
    norms = np.fmax(grad_norms_at(first, rows_of(first, steps), params),
                    grad_norms_at(other, rows_of(other, steps), params))[:, :, None]
    with np.errstate(invalid="ignore"):
        apart = np.abs(a - b) > AGREE_RTOL * norms
    bad = (apart | (np.isnan(a) != np.isnan(b))).any(axis=2)
    if not bad.any():
        return None
    row, col = np.argwhere(bad)[0]
    return int(steps[row]), params[col]


def gradient_line(histories: dict[str, History]) -> str:
    """Whether the ranks hold the same gradient: where their gradient norms first
    differ, else where their gradient fingerprints first differ (equal norms, another
    direction), else that they agree, saying at how many steps each was compared."""
    names, shown = list(histories), list(histories.values())
    steps = shared_steps(shown)
    first = shown[0]
    for name, other in zip(names[1:], shown[1:]):
        found = _norm_difference(first, other, steps)
        if found is not None:
            step, param, a, b = found
            return (f"ranks disagree: step {step}, {shown_name(param)}: gradient norm {names[0]} "
                    f"{_number(a)}, {name} {_number(b)}{DDP_WORDS}")
    sampled = fingerprint_steps(shown, steps)
    if len(sampled):
        for name, other in zip(names[1:], shown[1:]):
            differs = _fingerprint_difference(first, other, sampled)
            if differs is not None:
                step, param = differs
                return (f"ranks disagree: {name}'s gradient differs from {names[0]}'s "
                        f"at step {step} ({shown_name(param)}): same norm, different direction"
                        f"{DDP_WORDS}")
    where = "the 1 step" if len(steps) == 1 else f"all {len(steps)} steps"
    norms = f"ranks agree: equal gradient norms at {where} they share"
    if not len(sampled):   # norms alone: a sign flip would pass, so it says so
        return f"{norms} (norms only: no gradient fingerprints recorded)"
    return (f"{norms}, equal gradient fingerprints at "
            f"{_count(len(sampled), 'sampled step')}")


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
