"""Engines ended without the window waiting for them: an engine replaced by the one
started ahead for a lesson's next slide is given its pipe's end and looked at a few
times a second, so PageDown does not wait while it stops (a process with torch loaded
takes a tenth of a second or more to go, longer on a busy machine); one that has not
stopped by itself within JOIN_SECONDS is killed, with its process group. Quitting ends
what is left at once."""
from __future__ import annotations

import time
from typing import Any

from PySide6.QtCore import QObject, QTimer

from .engine_end import JOIN_SECONDS, end_process

LOOK_MS = 50   # how often the engines being ended are looked at


class EndingEngines(QObject):
    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._ending: list[tuple[Any, float]] = []   # (process, when its pipe closed)
        self._timer = QTimer(self)
        self._timer.setInterval(LOOK_MS)
        self._timer.timeout.connect(self._look)

    def add(self, process: Any) -> None:
        """process: its pipe already closed (it sees EOF and stops)."""
        self._ending.append((process, time.monotonic()))
        self._timer.start()

    @property
    def pids(self) -> list[int]:
        return [process.pid for process, _ in self._ending if hasattr(process, "pid")]

    def _look(self) -> None:
        now, left = time.monotonic(), []
        for process, since in self._ending:
            if not process.is_alive():
                end_process(process)   # reaped; what it left in its group ends
            elif now - since > JOIN_SECONDS and hasattr(process, "kill"):
                end_process(process, at_once=True)
            else:
                left.append((process, since))
        self._ending = left
        if not left:
            self._timer.stop()

    def finish(self) -> None:
        """Quitting: each one left ended now."""
        self._timer.stop()
        ending, self._ending = self._ending, []
        for process, _ in ending:
            end_process(process, at_once=hasattr(process, "kill"))
