"""Bench-only, off by default: what held the window's event loop. With GRADVIZ_HOLD_STACKS
set to a file's path, every thread's Python stack is written there whenever the loop has
not turned for HOLD_S, with each hold's length and each slow garbage collection."""
from __future__ import annotations

import faulthandler
import gc
import os
import time
from typing import IO

from PySide6.QtCore import QObject, QTimer

HOLD_STACKS_ENV = "GRADVIZ_HOLD_STACKS"
HOLD_S = 0.3          # a turn of the loop this late: its stacks are written
REARM_MS = 50         # the loop re-arms the dump this often while it turns
SLOW_GC_S = 0.05      # a garbage collection this long is written down too


class HoldWatch(QObject):
    """faulthandler's dump runs on a C thread of its own, without the GIL: it sees the
    GUI thread's stack even while that thread holds the GIL in C code (a collection, a
    numpy copy), where a Python watchdog thread could not run until the hold was over."""

    def __init__(self, parent: QObject, out: IO[str]):
        super().__init__(parent)
        self._out = out
        self._last = time.perf_counter()
        self._last_cpu = time.thread_time()   # the GUI thread's: work, not waiting
        self._gc_started = 0.0
        self._timer = QTimer(self)
        self._timer.timeout.connect(self._turned)
        gc.callbacks.append(self._gc)
        faulthandler.dump_traceback_later(HOLD_S, repeat=True, file=out)
        self._timer.start(REARM_MS)

    def _turned(self) -> None:
        now, cpu = time.perf_counter(), time.thread_time()
        away, worked = now - self._last, cpu - self._last_cpu
        self._last, self._last_cpu = now, cpu
        faulthandler.dump_traceback_later(HOLD_S, repeat=True, file=self._out)
        if away > HOLD_S:
            self._write(f"HOLD {away * 1000:.0f} ms ({worked * 1000:.0f} ms of it the GUI "
                        f"thread's CPU time), ended at {time.monotonic():.3f}")

    def _gc(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._gc_started = time.perf_counter()
            return
        took = time.perf_counter() - self._gc_started
        if took > SLOW_GC_S:
            self._write(f"GC generation {info['generation']} took {took * 1000:.0f} ms "
                        f"({info['collected']} collected), ended at {time.monotonic():.3f}")

    def _write(self, line: str) -> None:
        self._out.write(line + "\n")
        self._out.flush()

    def stop(self) -> None:
        self._timer.stop()
        faulthandler.cancel_dump_traceback_later()
        if self._gc in gc.callbacks:
            gc.callbacks.remove(self._gc)


def watch_holds(parent: QObject) -> HoldWatch | None:
    """A HoldWatch writing to GRADVIZ_HOLD_STACKS's file, where that is set."""
    path = os.environ.get(HOLD_STACKS_ENV)
    if not path:
        return None
    return HoldWatch(parent, open(path, "a", encoding="utf-8"))  # noqa: SIM115 (lives with the window)
