"""steps.jsonl's file descriptor: lines appended by os.write, at once or a block at a time.

Everything handed to os.write is the operating system's: a process killed afterwards
(SIGKILL, os._exit, a crash of the interpreter) cannot lose it, and no Python-level
buffer stands in between. What is not yet written is what a kill loses.

every_s 0: each add() writes its line before it returns. every_s above 0: add() only
keeps the item (a cheap append; the caller's loop does not format, nor make a system
call), and a thread of this file writes what is kept every every_s seconds, formatted
together (formatting floats is most of a line's cost, and it runs at about half the
speed between two training steps, whose torch calls evict its code, than in a block);
flush() and close() write the rest at once. A kill then loses at most what was added in
the last every_s seconds before it. While another thread holds Python's GIL throughout
(one long C call that keeps it), the writing thread waits for it; so does a kill's loss.
"""
from __future__ import annotations

import collections
import contextlib
import os
import threading
from collections.abc import Callable
from pathlib import Path


class StepFile:
    """One append-only file of lines, opened emptied. text(items) turns kept items (in
    the order added) into their lines' text."""

    def __init__(self, path: Path, text: Callable[[list], str], every_s: float = 0.0):
        self.every_s = every_s
        self._text = text
        self._fd: int | None = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC
                                       | os.O_APPEND, 0o666)
        self._whole = 0   # bytes of whole lines written: a failed write is cut back to it
        # appended by the loop's thread, taken from the left under _lock by whichever
        # thread writes: deque's append and popleft are each atomic, so nothing added
        # while a block is written is lost or written twice, and blocks keep their order
        self._kept: collections.deque = collections.deque()
        self._lock = threading.Lock()
        self._error: OSError | None = None   # the writing thread's, raised in the loop's
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        if every_s > 0:
            self._thread = threading.Thread(target=self._write_every, daemon=True,
                                            name="gradviz.watch steps.jsonl")
            self._thread.start()

    def add(self, item) -> None:
        """Keep one line's item; written now (every_s 0) or by the next block."""
        if self._thread is None:
            self.write(self._text([item]))
            return
        if self._error is not None:
            error, self._error = self._error, None
            raise error
        self._kept.append(item)

    def write(self, text: str) -> None:
        """every_s 0 only: text (whole lines) written now. Nothing is ever kept then,
        and no thread writes, so the order holds without the lock and the queue (each
        a few microseconds a step, in a loop that pays them every step)."""
        assert self._thread is None, "write() is for a file written at once (every_s 0)"
        if self._fd is None:
            raise ValueError("steps.jsonl is closed")
        self._write_whole(text.encode("utf-8"))

    def _write_whole(self, data: bytes) -> None:
        """data (whole lines) appended, or, where a write fails (a full disk), the file
        cut back to its last whole line and the error raised: a reader never meets half
        a line followed by more."""
        assert self._fd is not None
        try:
            done = 0
            while done < len(data):   # a regular file takes it all at once; a short
                done += os.write(self._fd, data[done:])   # write goes on
        except OSError:
            with contextlib.suppress(OSError):
                os.ftruncate(self._fd, self._whole)
            raise
        self._whole += len(data)

    def gone(self) -> bool:
        """Whether the file was removed (its folder deleted): writes would go nowhere."""
        if self._fd is None:
            return False
        try:
            return os.fstat(self._fd).st_nlink == 0
        except OSError:
            return True

    def flush(self) -> None:
        """Everything kept, written now (one os.write, or more where one writes part)."""
        with self._lock:
            if self._fd is None or not self._kept:
                return
            kept = self._kept
            items = [kept.popleft() for _ in range(len(kept))]
            self._write_whole(self._text(items).encode("utf-8"))

    def _write_every(self) -> None:
        while not self._stop.wait(self.every_s):
            try:
                self.flush()
            except OSError as exc:   # a full disk: the loop hears of it at its next step
                self._error = exc

    def discard(self) -> None:
        """Stop the writing thread and close the file without writing what is kept
        (recording stopped: the file keeps its last whole line)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        with self._lock:
            self._kept.clear()
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None

    def close(self) -> None:
        """Stop the writing thread, write what is kept and close the file (closed even
        where the last write fails; the error then propagates)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        try:
            if self._error is not None:
                error, self._error = self._error, None
                raise error
            self.flush()
        finally:
            with self._lock:
                if self._fd is not None:
                    os.close(self._fd)
                    self._fd = None
