"""Keeps the window's panels up to date without freezing it: at most PAINT_HZ frames a
second and PAINT_SHARE of the GUI thread's time, and within a frame one panel per pass of
the event loop (a panel's repaint cannot be interrupted; all of them in one pass kept the
window from answering for 60 ms and more)."""
from __future__ import annotations

import collections
import time
from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer

from ..plain.history import History
from ..plain.records import StepRecord

PAINT_HZ = 25              # the fastest the panels repaint
PAINT_SHARE = 0.3          # ...but at most this share of the GUI thread's time: the
                           # engine needs a core too (and in-process, the GIL)


class PanelPainter(QObject):
    def __init__(self, parent: QObject, panels: Callable[[], list], history: Callable,
                 shown_key: Callable[[], tuple], before_frame: Callable[[], None]):
        """panels(): the panels; history(): what they show; shown_key(): what a panel
        that is up to date has drawn; before_frame(): new steps in, before each frame."""
        super().__init__(parent)
        self._panels, self._history = panels, history
        self._shown_key, self._before_frame = shown_key, before_frame
        self._shown: dict = {}        # panel -> the shown_key() it last drew
        self._due: list = []          # panels this frame has still to bring up to date
        self._frame_started = 0.0
        self.frame_timer = QTimer(self)
        self.frame_timer.setSingleShot(True)
        self.frame_timer.timeout.connect(self._frame)
        self._panel_timer = QTimer(self)   # between panels: input and other timers get in
        self._panel_timer.setSingleShot(True)
        self._panel_timer.setInterval(1)
        self._panel_timer.timeout.connect(self._paint_next)

    def start(self) -> None:
        self.frame_timer.start(1000 // PAINT_HZ)

    def stop(self) -> None:
        self.frame_timer.stop()
        self._panel_timer.stop()

    def paint_all(self) -> None:
        """Every shown panel up to date now (screenshots, tests)."""
        for panel in self._panels_due():
            self._update(panel)

    def _frame(self) -> None:
        self._frame_started = time.perf_counter()
        self._before_frame()
        self._due = self._panels_due()
        self._paint_next()

    def _paint_next(self) -> None:
        if self._due:
            self._update(self._due.pop(0))
            self._panel_timer.start()
        else:
            self._frame_done()

    def _frame_done(self) -> None:
        """Schedule the next frame so that painting keeps to its share of the time."""
        busy_ms = (time.perf_counter() - self._frame_started) * 1000
        wait_ms = max(1000 / PAINT_HZ - busy_ms, busy_ms * (1 / PAINT_SHARE - 1))
        self.frame_timer.start(int(min(wait_ms, 1000)))

    def _panels_due(self) -> list:
        # a panel in a hidden tab costs nothing and catches up once shown
        shown = self._shown_key()
        return [p for p in self._panels() if p.isVisible() and self._shown.get(p) != shown]

    def _update(self, panel) -> None:
        panel.update_from(self._history())
        self._shown[panel] = self._shown_key()


def drain(records: collections.deque[tuple[int, StepRecord]], generation: int,
          history: History) -> int:
    """Move the engine's finished steps into the history; how many were new. A record
    of another generation is of a model already replaced: dropped."""
    new = 0
    while records:
        record_generation, record = records.popleft()
        if record_generation == generation:
            history.append(record)
            new += 1
    return new
