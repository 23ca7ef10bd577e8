"""An engine started ahead, for a lesson's next slide that trains another model (a model
file, or the built-in model after one): started and built while the slide on screen plays,
so that PageDown swaps it in instead of waiting for a fresh Python to import torch.

Until it is taken, what it says is kept in order (its beats only counted: a standby
left for the length of a lecture must not fill its pipe, which would stop its heartbeat
and then the engine itself), and its end is noticed: a standby that died is never
taken. Whoever takes it reads the kept batches as if they had just come."""
from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, QSocketNotifier, Signal

from ..engine import host
from ..engine import protocol as p
from ..plain.config.config import Config
from .engine_end import end_process


class StandbyEngine(QObject):
    # it has built its model (its first ConfigApplied): PageDown finds it ready
    built = Signal()

    def __init__(self, path: str | None, config: Config, in_process: bool = False,
                 parent: QObject | None = None):
        super().__init__(parent)
        self.path, self.config = path, config
        start = host.start_thread if in_process else host.start_process
        self.process, self.conn = start(config, path)
        self.batches: list[list[Any]] = []   # what it said, beats left out, in order
        self.ready = False       # its model is built
        self.gone = False        # it ended, or its pipe broke
        self._notifier: QSocketNotifier | None = QSocketNotifier(
            self.conn.fileno(), QSocketNotifier.Type.Read, self)
        self._notifier.activated.connect(self._read)

    def serves(self, path: str | None, config: Config) -> bool:
        """Started on this model file (None: the built-in model) and config, and alive."""
        return not self.gone and self.path == path and self.config == config \
            and self.process.is_alive()

    def _read(self, *_: object) -> None:
        conn = self.conn
        try:
            while conn is not None and conn.poll(0):
                batch = p.receive(conn, "the window")
                if not isinstance(batch, list) or \
                        all(isinstance(message, p.Alive) for message in batch):
                    continue   # a beat: the engine taking it is watched from then on
                self.batches.append(batch)
                if not self.ready and any(isinstance(m, p.ConfigApplied) for m in batch):
                    self.ready = True
                    self.built.emit()
        except (EOFError, OSError):
            self.gone = True
            self._quiet()

    def take(self) -> tuple[Any, Any, list[list[Any]]]:
        """(process, pipe, what it said so far) for the engine client to adopt; this
        standby no longer reads the pipe."""
        self._read()
        self._quiet()
        taken = self.process, self.conn, self.batches
        self.process = self.conn = None
        self.batches = []
        self.deleteLater()
        return taken

    def end(self) -> None:
        """Not taken: its pipe closed (it sees EOF and ends), then its process ended."""
        self._quiet()
        if self.conn is not None:
            self.conn.close()
            self.conn = None
        if self.process is not None:
            # it holds nothing: ended at once, with what it started (its process group)
            end_process(self.process, at_once=True)
            self.process = None
        self.deleteLater()

    def _quiet(self) -> None:
        if self._notifier is not None:
            self._notifier.setEnabled(False)
            self._notifier.deleteLater()
            self._notifier = None
