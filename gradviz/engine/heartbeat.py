"""A child's sign of life: a thread that tells the parent, twice a second, what the child
is doing ("importing torch", "building the model", ...) and for how long. Standard
library only: it starts before torch is imported, which can take 15 s on a busy laptop.

A parent judges a child by these beats, not by a stopwatch: a child that is slow but
beating is waited for (and its stage shown); one whose beats stop (frozen, stopped, or
dead) has stopped making progress."""
from __future__ import annotations

import os
import threading
import time

# (the stages it beats are named in plain.records.engine_stages: the window reads them too)
from ..plain.records.engine_stages import BUILDING_MODEL_FILE as BUILDING_MODEL_FILE

BEAT_SECONDS = 0.5
SLOW_START_ENV = "GRADVIZ_SLOW_START"   # seconds: start as a busy, slow laptop does


def slow_start() -> None:
    """Wait GRADVIZ_SLOW_START seconds (beating meanwhile) before importing torch: a
    busy laptop took 13-14 s to import it, and a parent must wait that out. Lets
    anyone (and the tests) see gradviz start as it does on such a machine."""
    try:
        seconds = float(os.environ.get(SLOW_START_ENV, "0"))
    except ValueError:
        return
    if 0 < seconds < 3600:
        time.sleep(seconds)


class SharedConnection:
    """A Connection that the heartbeat thread and the main thread both send on: each
    send is whole (one pickle at a time); receiving stays the main thread's."""

    def __init__(self, conn):
        self._conn = conn
        self._lock = threading.Lock()

    def send(self, message) -> None:
        with self._lock:
            self._conn.send(message)

    def recv(self):
        return self._conn.recv()

    def poll(self, timeout: float | None = 0.0) -> bool:
        return self._conn.poll(timeout)

    def fileno(self) -> int:
        return self._conn.fileno()

    def close(self) -> None:
        self._conn.close()


class Heartbeat:
    """Sends make_beat(stage, seconds in that stage) every BEAT_SECONDS until stopped or
    the parent's end closes. Set `stage` as the work moves on."""

    def __init__(self, conn: SharedConnection, make_beat, stage: str = "starting"):
        self._conn = conn
        self._make_beat = make_beat
        # (stage, when it began), one attribute: the beat thread reads both at once,
        # never a new stage with the old one's start ("working" for an idle minute)
        self._state = (stage, time.monotonic())
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name="heartbeat", daemon=True)

    @property
    def stage(self) -> str:
        return self._state[0]

    @stage.setter
    def stage(self, stage: str) -> None:
        self._state = (stage, time.monotonic())

    def start(self) -> Heartbeat:
        self._beat()   # at once: the parent learns the child is up before any import
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopped.set()

    def _beat(self) -> bool:
        try:
            stage, since = self._state
            self._conn.send(self._make_beat(stage, time.monotonic() - since))
            return True
        except (OSError, EOFError, ValueError):   # the parent is gone: so is the point
            return False

    def _run(self) -> None:
        while not self._stopped.wait(BEAT_SECONDS):
            if not self._beat():
                return
