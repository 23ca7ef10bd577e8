"""Keeps the window's panels up to date without freezing it: at most PAINT_HZ frames a
second and PAINT_SHARE of the GUI thread's time, and within a frame one panel per pass of
the event loop (a panel's repaint cannot be interrupted; all of them in one pass kept the
window from answering for 60 ms and more)."""
from __future__ import annotations

import collections
import time
from collections.abc import Callable

import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject, QTimer

from ..plain.records.history import History
from ..plain.records.records import StepRecord

PAINT_HZ = 25              # the fastest the panels repaint
PAINT_SHARE = 0.3          # ...but at most this share of the GUI thread's time: the
                           # engine needs a core too (and in-process, the GIL)
LONGEST_WAIT_MS = 1000     # between frames, at most
# the status line's step count follows the newest step this often, between frames too:
# a frame that waits out its share of the time, on a busy machine, held the count still
# for longer than a second (1.05 s, measured by `gradviz bench --soak`)
STEPS_MS = 250


class PanelPainter(QObject):
    def __init__(self, parent: QObject, panels: Callable[[], list], history: Callable,
                 shown_key: Callable[[], tuple], before_frame: Callable[[], None],
                 clock: Callable[[], float] = time.thread_time,
                 between_frames: Callable[[], None] = lambda: None,
                 on_fault: Callable[[object, BaseException | None], None] | None = None):
        """panels(): the panels; history(): what they show; shown_key(): what a panel
        that is up to date has drawn; before_frame(): new steps in, before each frame;
        between_frames(): every STEPS_MS, the newest step shown where it is cheap (the
        status line's count), the panels and their history left to the next frame.
        clock: the GUI thread's CPU time, in seconds. A frame's share is of the time the
        thread worked, not of the wall clock: on a busy machine the wall clock counts the
        other programs' turns too, and the painter waited up to a second after each
        frame (six frames in ten seconds at a load of 12).
        on_fault(panel, error): where given, a panel whose drawing raises is said there
        (and drawn again with the next data, not at every frame), and on_fault(panel,
        None) once it draws again; without it, the error goes on to Qt (a recorded run's
        window draws a stranger's folder; the main window, what its engine measured)."""
        super().__init__(parent)
        self._clock = clock
        self._panels, self._history = panels, history
        self._shown_key, self._before_frame = shown_key, before_frame
        self._shown: dict = {}        # panel -> the shown_key() it last drew
        self._due: list = []          # panels this frame has still to bring up to date
        self._watched: set[int] = set()   # the panels whose showing is watched (ids)
        self._frame_started = 0.0
        self._on_fault = on_fault
        self._failed: set[int] = set()   # the panels whose last drawing raised (ids)
        self.frame_timer = QTimer(self)
        self.frame_timer.setSingleShot(True)
        self.frame_timer.timeout.connect(self._frame)
        self._panel_timer = QTimer(self)   # between panels: input and other timers get in
        self._panel_timer.setSingleShot(True)
        self._panel_timer.setInterval(1)
        self._panel_timer.timeout.connect(self._paint_next)
        self._steps_timer = QTimer(self)
        self._steps_timer.setInterval(STEPS_MS)
        self._steps_timer.timeout.connect(between_frames)

    def start(self) -> None:
        self.frame_timer.start(1000 // PAINT_HZ)
        self._steps_timer.start()

    def stop(self) -> None:
        self.frame_timer.stop()
        self._panel_timer.stop()
        self._steps_timer.stop()

    def paint_all(self) -> None:
        """Every shown panel up to date now (screenshots, tests)."""
        for panel in self._panels_due():
            self._update(panel)

    def _frame(self) -> None:
        self._frame_started = self._clock()
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
        busy_ms = (self._clock() - self._frame_started) * 1000
        wait_ms = max(1000 / PAINT_HZ - busy_ms, busy_ms * (1 / PAINT_SHARE - 1))
        self.frame_timer.start(int(min(wait_ms, LONGEST_WAIT_MS)))

    def _panels_due(self) -> list:
        # a panel in a hidden tab (or a closed dock) costs nothing, and catches up as it
        # is shown (eventFilter)
        shown, panels = self._shown_key(), self._panels()
        for panel in panels:
            if id(panel) not in self._watched:
                self._watched.add(id(panel))
                panel.installEventFilter(self)
        return [p for p in panels if p.isVisible() and self._shown.get(p) != shown]

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        if event.type() == QEvent.Type.Show and watched in self._panels() \
                and self._shown.get(watched) != self._shown_key():
            self._update(watched)   # shown out of date: brought up to date before it paints
        return False

    def _update(self, panel) -> None:
        if self._on_fault is None:
            self._draw(panel)
            return
        try:
            self._draw(panel)
        except Exception as exc:   # said by on_fault; drawn again with the next data
            self._shown[panel] = self._shown_key()
            self._failed.add(id(panel))
            self._on_fault(panel, exc)
            return
        if id(panel) in self._failed:
            self._failed.discard(id(panel))
            self._on_fault(panel, None)

    def _draw(self, panel) -> None:
        panel.update_from(self._history())
        settle_ranges(panel)
        self._shown[panel] = self._shown_key()


def settle_ranges(panel) -> None:
    """The panel's plots that follow their data take their new ranges now, not while
    they paint: a range found during a paint changes the axes and asks for a second
    paint at once (the loss and norm charts were painted about 1.3 times a frame)."""
    for canvas in panel.findChildren(pg.GraphicsLayoutWidget):
        for item in canvas.ci.items:
            if isinstance(item, pg.PlotItem) and any(item.getViewBox().autoRangeEnabled()):
                item.getViewBox().updateAutoRange()


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
