"""A watch's recording on disk, from claiming its folder to how it ended: the stream
writer while writing works, and what a failure does to it (recording stops, the header
says why where it still can, the lock goes). Torch-free: the watch hands it lines.

Every failure here is said, not raised: the training it records goes on.
"""
from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path

from ..run_files.watch_stream import StreamWriter
from .watch_claim import Claim, claim, release
from .watch_metrics import write_metrics
from .watch_write_failure import write_failure


class Recording:
    def __init__(self, out: Path, rank: int | None, header: dict, every_s: float,
                 overwrite: bool, say: Callable[[str, str], None]):
        """Claims out (or the next free sibling) and opens its stream; where out cannot
        be written, says so and records nothing (writer stays None)."""
        self.out, self.folder, self._say = out, out, say
        self.writer: StreamWriter | None = None   # None: nothing is being written
        self._stopped: StreamWriter | None = None  # recording stopped early
        self._claim: Claim | None = None
        try:
            self._claim = claim(out, rank, overwrite)
            if self._claim.why_moved:
                say("moved", f"{self._claim.why_moved}: this run is written to "
                    f"{self._claim.out} instead (overwrite=True replaces a run that is "
                    "not being written)")
            self.out, self.folder = self._claim.out, self._claim.folder
            self.writer = StreamWriter(self.folder, header, every_s=every_s).open()
        except OSError as exc:
            say("open", f"cannot write the run folder {out} ({exc.strerror or exc}): this "
                "run is not recorded (the training goes on); give watch an out folder it "
                "can write")
            self._release()

    def failed(self, exc: OSError, steps: int, at_close: bool = False) -> None:
        """Recording stops (the training goes on): one line that says why and what to
        do; the folder, where it still exists, says after which step."""
        kind, why, line = write_failure(exc, self.folder, steps, at_close)
        self._say(kind, line)
        writer, self.writer = self.writer, None
        if writer is not None:
            writer.abandon(steps, why)
            self._stopped = writer   # its header still says how the run ends

    def end(self, steps: int, ended: dict) -> None:
        """The stream closed, its header saying how it ended, the table written, the
        lock gone."""
        writer, self.writer = self.writer, None
        try:
            if writer is not None:
                writer.close(steps, ended)
                write_metrics(self.folder)   # the steps as a table, as `gradviz run`'s
            elif self._stopped is not None:
                with contextlib.suppress(OSError):   # recording stopped: the header only
                    self._stopped.close(steps, ended)
        except OSError as exc:
            self.writer = writer   # to say in its header why recording stopped
            self.failed(exc, steps, at_close=True)
        finally:
            self._release()

    def flush(self, steps: int) -> None:
        if self.writer is None:
            return
        try:
            self.writer.flush()
        except OSError as exc:
            self.failed(exc, steps)

    def _release(self) -> None:
        if self._claim is not None:
            release(self._claim.lock)
            self._claim = None
