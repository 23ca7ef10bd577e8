"""Python's garbage collector runs in whichever thread happens to allocate. If that is
the training thread, it may finalise Qt widgets there, which deadlocks or crashes Qt
(seen: a QMenu destroyed from the worker thread while the GUI thread waited on it).
So while a window lives, automatic collection is off and the GUI thread collects on a
timer, the way pyqtgraph's GarbageCollector does it."""
from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer

_holders = 0   # windows alive: automatic collection comes back when the last one goes


class GuiThreadGC(QObject):
    def __init__(self, parent: QObject, interval_ms: int = 1000):
        global _holders
        super().__init__(parent)
        _holders += 1
        gc.disable()
        self._timer = QTimer(self)
        self._timer.timeout.connect(self.collect_due)
        self._timer.start(interval_ms)
        self._released = False

    def collect_due(self) -> None:
        """Collect the generations whose thresholds were passed, as gc itself would."""
        counts, thresholds = gc.get_count(), gc.get_threshold()
        if counts[0] > thresholds[0]:
            generation = 2 if counts[2] > thresholds[2] else 1 if counts[1] > thresholds[1] else 0
            gc.collect(generation)

    def settle(self) -> None:
        """Once the window is built: what exists now (modules, widgets, plot items) lives
        as long as the window, so move it out of the collector's way. A full collection
        then scans only what came later (it took ~35 ms with everything in it, a freeze
        of the window that the heartbeat of `gradviz bench --gui` showed)."""
        gc.collect()
        gc.freeze()

    def release(self) -> None:
        """Call once the window's other threads have stopped. No collection here: with
        only the GUI thread left running Python, automatic collection is safe again, and
        a full one (hundreds of ms with torch and pyqtgraph loaded) made closing slow."""
        global _holders
        if self._released:
            return
        self._released = True
        self._timer.stop()
        _holders -= 1
        if _holders == 0:
            gc.unfreeze()
            gc.enable()
