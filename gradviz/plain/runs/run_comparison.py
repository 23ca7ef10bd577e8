"""Two recorded runs compared, as the app's Compare compares a pinned B with A: on what
both recorded at the steps they share (each parameter's gradient norm, each loss's push
at the features where both measured it, the losses), told by the first step that
differs, with B's value as a multiple of A's. Norms, not whole gradients: a run folder
keeps norms, so "the same" here means equal norms, which equal gradients give."""
from __future__ import annotations

import numpy as np

from ..records.history import History
from ..text.shown_text import shown_name
from .rank_agreement import grad_norms_at, rows_of, shared_steps

# as the app's Compare (core.compare.DEFAULT_RTOL): equal but for float rounding
COMPARE_RTOL = 1e-5


def _number(value: float) -> str:
    return "none" if np.isnan(value) else f"{value:.4g}"


def _times(b: float, a: float) -> str:
    """b as a multiple of a ("0.333×"), or both values where a is 0 or none."""
    if np.isnan(a) or np.isnan(b) or a == 0:
        return f"{_number(b)} (A's {_number(a)})"
    return f"{b / a:.3g}×"


def _apart(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Where a and b differ beyond COMPARE_RTOL (a value against none counts)."""
    with np.errstate(invalid="ignore"):
        beyond = np.abs(a - b) > COMPARE_RTOL * np.maximum(np.abs(a), np.abs(b))
    return beyond | (np.isnan(a) != np.isnan(b))


def _relative(a: np.ndarray, b: np.ndarray) -> float:
    """The largest relative difference where both have a value (0: none differ)."""
    both = ~(np.isnan(a) | np.isnan(b))
    if not both.any():
        return 0.0
    scale = np.maximum(np.abs(a[both]), np.abs(b[both]))
    with np.errstate(invalid="ignore", divide="ignore"):
        rel = np.where(scale > 0, np.abs(a[both] - b[both]) / scale, 0.0)
    return float(rel.max())


def gradient_words(a: History, b: History, steps: np.ndarray) -> str:
    """The gradient norms: the same at every shared step, else the first step that
    differs, told by its parameter that differs most."""
    params = [p for p in a.param_names if p in b.param_names]
    if not params:
        return "gradients: the runs name no parameter alike"
    na = grad_norms_at(a, rows_of(a, steps), params)
    nb = grad_norms_at(b, rows_of(b, steps), params)
    apart = _apart(na, nb)
    if not apart.any():
        rel = _relative(na, nb)
        why = "identical" if rel == 0 else "float rounding"
        return (f"same gradient norms at all {len(steps)} steps both recorded (largest "
                f"relative difference {rel:.1e}, {why})")
    row = int(np.argwhere(apart.any(axis=1))[0][0])
    with np.errstate(invalid="ignore", divide="ignore"):
        gap = np.abs(na[row] - nb[row]) / np.maximum(np.abs(na[row]), np.abs(nb[row]))
    gap = np.where(np.isnan(na[row]) != np.isnan(nb[row]), np.inf, gap)
    col = int(np.nanargmax(np.where(apart[row], gap, -1.0)))
    return (f"different gradients from step {int(steps[row])}: {shown_name(params[col])}'s "
            "norm, B's "
            f"{_times(nb[row, col], na[row, col])} A's; {int(apart.any(axis=1).sum())} "
            f"of {len(steps)} steps differ")


def _per_loss(a: History, b: History, steps: np.ndarray,
              column: str) -> tuple[np.ndarray, np.ndarray]:
    """A per-loss column of A and of B at the steps (rows: steps, columns: losses)."""
    return a.column(column)[rows_of(a, steps)], b.column(column)[rows_of(b, steps)]


def _first_apart(va: np.ndarray, vb: np.ndarray) -> int | None:
    """The first row where A's and B's values differ (None: none does)."""
    apart = _apart(va, vb).any(axis=1)
    return int(np.argwhere(apart)[0][0]) if apart.any() else None


def push_words(a: History, b: History, steps: np.ndarray) -> str | None:
    """Each loss's push at the features, at the steps both measured it (sampled): the
    same, or B's as multiples of A's at the first that differs; None where the runs
    share no measured step or name their losses differently."""
    if a.keys != b.keys:
        return None
    ja, jb = _per_loss(a, b, steps, "junction")
    both = ~(np.isnan(ja).all(axis=1) | np.isnan(jb).all(axis=1))
    if not both.any():
        return None
    ja, jb, measured = ja[both], jb[both], steps[both]
    row = _first_apart(ja, jb)
    if row is None:
        return f"push at the features: the same at all {len(measured)} steps both measured"
    each = ", ".join(f"{shown_name(name)} {_times(jb[row, k], ja[row, k])}"
                     for k, name in enumerate(a.head_names))
    return f"push at the features, step {int(measured[row])}: B's {each} A's"


def loss_words(a: History, b: History, steps: np.ndarray) -> str:
    """The losses: the same at every shared step, or the first step they differ."""
    if a.keys != b.keys:
        return "losses: the runs name different losses"
    la, lb = _per_loss(a, b, steps, "losses")
    row = _first_apart(la, lb)
    if row is None:
        return f"losses: the same at all {len(steps)} steps"
    each = ", ".join(f"{shown_name(name)} A {_number(la[row, k])}, B {_number(lb[row, k])}"
                     for k, name in enumerate(a.head_names))
    return f"losses: different from step {int(steps[row])} ({each})"


def compare_lines(a_name: str, a: History | None, b_name: str,
                  b: History | None) -> list[str]:
    """The verdict on two runs in lines: who A and B are, then the gradients, the push
    at the features (where both measured it) and the losses."""
    a_name, b_name = shown_name(a_name), shown_name(b_name)   # folders: anyone's names
    who = f"A = {a_name} · B = {b_name}"
    if a is None or b is None or not len(a) or not len(b):
        waiting = a_name if a is None or not len(a) else b_name
        return [f"{who}: {waiting} has no finished step yet"]
    steps = shared_steps([a, b])
    if not len(steps):
        return [f"{who}: no step in common to compare"]
    push = push_words(a, b, steps)
    return [who, gradient_words(a, b, steps), *([push] if push else []),
            loss_words(a, b, steps)]
