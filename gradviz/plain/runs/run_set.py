"""The runs of a folder of runs that are ticked, each followed as its script writes it,
for the charts that draw them over each other. Qt-free: the window polls it on its
timer. The run the window shows (its panels', polled by its own source) is taken as
it is, not read a second time."""
from __future__ import annotations

import time
from pathlib import Path

from ..records.history import History
from ..text.fault_line import fault_line
from .recorded_run import RecordedRun

# a poll's reading, about: eight runs caught up at once held the window for each one's
# reading in turn
POLL_BUDGET_S = 0.01
# runs unticked lately, kept as read: ticked again, a run of 100,000 steps was read again
# from its first line (seconds); more would keep every run ever ticked in memory
KEPT_UNTICKED = 4


class RunSet:
    def __init__(self, folder: str | Path):
        self.folder = Path(folder)
        self.runs: dict[str, RecordedRun] = {}
        self.faults: dict[str, str] = {}   # a run whose last look failed: why, one line
        self._shown: str | None = None
        self._next = 0   # the run the next poll starts with: each gets its turn
        self._unticked: dict[str, RecordedRun] = {}   # newest last

    def follow(self, names: list[str], shown: RecordedRun | None = None) -> None:
        """Follow these runs (by folder name; the shown run's RecordedRun where it is
        one of them), and no others."""
        self._shown = None
        runs = {}
        for name in names:
            if shown is not None and shown.folder == self.folder / name:
                runs[name], self._shown = shown, name
            else:
                runs[name] = self.runs.get(name) or self._unticked.pop(name, None) \
                    or RecordedRun(self.folder / name)
        for name, run in self.runs.items():
            if name not in runs and run is not shown:
                self._unticked[name] = run
        while len(self._unticked) > KEPT_UNTICKED:
            del self._unticked[next(iter(self._unticked))]
        self.runs = runs
        self.faults = {n: f for n, f in self.faults.items() if n in runs}

    def poll(self, budget_s: float = POLL_BUDGET_S) -> int:
        """Read what the runs have new (but the shown run: its own source reads it), run
        after run until budget_s has gone (one at least; the next poll goes on with the
        next run); how many steps came. A run that cannot be read is said in faults, and
        tried again."""
        new = 0
        names = [n for n in self.runs if n != self._shown]
        start, first = time.perf_counter(), self._next
        for k in range(len(names)):
            if k and time.perf_counter() - start > budget_s:
                break
            name = names[(first + k) % len(names)]
            self._next = (first + k + 1) % len(names)
            run = self.runs[name]
            try:
                new += run.poll().new_steps
            except Exception as exc:   # a stranger's folder may hold anything
                self.faults[name] = f"Could not read {name}: {fault_line(exc)}"
            else:
                self.faults.pop(name, None)
        return new

    def histories(self) -> dict[str, History | None]:
        return {name: run.history for name, run in self.runs.items()}

    def started(self, name: str) -> object:
        """The run's header's "started" (None where it has none)."""
        run = self.runs.get(name)
        return None if run is None else run.header().get("started")
