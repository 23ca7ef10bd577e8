"""A recorded run's History kept within a bound, however many steps the run has: a row
for every step until the history is full, then for every other step, then every 4th...

When the rows reach the bound, every other row is dropped and from then on only every
other step read gets a row (stride doubling, as TensorBoard's scalar sampling keeps
a long run's points evenly spread): a run of a million steps is drawn from a few tens
of thousands of rows, evenly spread from its first step to its last, and its memory
stays what that many rows cost. The newest step is always the newest numbers (the
gradient bars, the cosine matrix), row or no row. history.kept_every says how far
apart the rows are (1: every step), for the window and the report to say so.
"""
from __future__ import annotations

from ..records.history import History
from ..records.records import StepRecord

MAX_ROWS = 1 << 16       # rows of a window's history: 65,536 (27 MB at 51 columns)
MIN_ROWS = 16
# numbers held, at most: a history of many losses or parameters gets fewer rows (its
# arrays hold up to twice its rows: History grows by doubling), so even 16 Ki losses and
# 16 Ki parameters in a stranger's line cost 64 MB, not gigabytes
MAX_CELLS = 1 << 22


def row_bound(losses: int, params: int, max_rows: int = MAX_ROWS) -> int:
    """The most rows a history of so many losses and parameters keeps: a power of two."""
    width = 13 + 6 * losses + 2 * params     # History's columns
    rows = max_rows
    while rows > MIN_ROWS and rows * width > MAX_CELLS:
        rows //= 2
    return rows


def bounded_history(losses: list[str], params: list[str], max_rows: int = MAX_ROWS
                    ) -> History:
    """An empty History whose first arrays fit its bound."""
    rows = row_bound(len(losses), len(params), max_rows)
    return History(losses, params, capacity=min(1024, 2 * rows))


class Thinned:
    """Records into a history that stays within row_bound: add() each record read, in
    order; `history` is the history to draw (a new object each time it is thinned)."""

    def __init__(self, history: History, max_rows: int = MAX_ROWS):
        self.history = history
        self.rows = row_bound(len(history.keys), len(history.param_names), max_rows)
        self.read = 0            # records added

    def wants(self) -> bool:
        """Whether the next record read gets a row (else note() it, or skip it)."""
        return self.read % self.history.kept_every == 0

    def add(self, record: StepRecord) -> None:
        """A record that wants() a row."""
        self.history.append(record)
        self.read += 1
        if len(self.history) >= self.rows:
            self.history = self.history.every_other(capacity=2 * self.rows)

    def skip(self, record: StepRecord | None) -> None:
        """A record without a row: its numbers noted as the newest (None: a record
        whose newest numbers are not needed, not even made)."""
        if record is not None:
            self.history.note(record)
        self.read += 1


def kept_words(history: History | None) -> str:
    """"every 8th step" where the history keeps a row every 8 steps read; "" where it
    keeps every step."""
    every = 1 if history is None else history.kept_every
    if every == 1:
        return ""
    last = every % 10 if every % 100 not in (11, 12, 13) else 0
    return f"every {every}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(last, 'th')} step"
