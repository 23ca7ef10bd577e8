"""The steps a recorded run's window shows, as CSV: a row per step its History holds (a
long run's history may keep every few steps: those are the rows), the columns named as
metrics.csv names them (loss.NAME, grad_norm.PARAM: a name from a file never starts a
cell, so no spreadsheet takes it for a formula), plus each step's wall time; an empty
cell where a number was not recorded or .grad was None."""
from __future__ import annotations

import csv
import math
from pathlib import Path

import numpy as np

from ..files.atomic_write import atomic_open
from ..records.history import History


def steps_columns(history: History) -> list[str]:
    return (["step", "wall_time", "total"] + [f"loss.{n}" for n in history.head_names]
            + ["global_grad_norm"] + [f"grad_norm.{p}" for p in history.param_names])


def _cell(value: float) -> str:
    return "" if not math.isfinite(value) else repr(float(value))


def steps_rows(history: History):
    """Each row's cells, as strings (a step as a whole number)."""
    n = len(history)
    columns = [history.column("wall_time"), history.column("total")]
    losses, norms = history.column("losses"), history.column("grad_norms")
    steps, global_norm = history.column("step"), history.column("global_grad_norm")
    for i in range(n):
        yield ([str(int(steps[i])) if np.isfinite(steps[i]) else ""]
               + [_cell(c[i]) for c in columns] + [_cell(v) for v in losses[i]]
               + [_cell(global_norm[i])] + [_cell(v) for v in norms[i]])


def write_steps_csv(history: History, path: str | Path) -> Path:
    """The CSV at path (replaced whole, or left as it was on an error)."""
    path = Path(path)
    with atomic_open(path, newline="") as f:
        writer = csv.writer(f)
        writer.writerow(steps_columns(history))
        writer.writerows(steps_rows(history))
    return path
