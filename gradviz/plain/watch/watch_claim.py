"""Which folder a new watch writes, and its lock.

A watch never writes into a folder another live process writes (the folder's watch.lock
names that writer's host and pid, for the writer and for any reader), and never replaces
a run already there (finished, stopped or a `gradviz run --out` report): it takes the next
free sibling, runs/exp1-1, runs/exp1-2, ... and says so. overwrite=True replaces a run that
is not being written, never a live writer's.
"""
from __future__ import annotations

import contextlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

from ..run_files.stream_writer_process import this_writer, writer_gone
from ..run_files.watch_stream import GRAPHS, HEADER, STEPS

LOCK = "watch.lock"
RUN_FILES = (HEADER, STEPS, GRAPHS, "report.json")
SIBLINGS = 1000     # out-1 ... out-999 tried before giving up


@dataclass
class Claim:
    out: Path           # the run's folder (out, or the sibling taken instead)
    folder: Path        # its stream's folder (out, or out/rank-N)
    lock: Path
    why_moved: str | None = None   # why not the out asked for; None where it was taken


def claim(out: Path, rank: int | None, overwrite: bool = False) -> Claim:
    """The first of out, out-1, out-2... whose stream folder this process can take, its
    lock made. OSError where a folder cannot be made (an unwritable out)."""
    why = None
    for n in range(SIBLINGS):
        candidate = out if n == 0 else out.with_name(f"{out.name}-{n}")
        folder = candidate if rank is None else candidate / f"rank-{rank}"
        lock = folder / LOCK
        if lock.exists() and not writer_gone({"writer": _read(lock)}):
            why = why or f"another process is writing {folder} ({_holder(lock)})"
            continue
        if holds_run(folder) and not (overwrite and n == 0):
            why = why or f"{folder} holds a run already"
            continue
        folder.mkdir(parents=True, exist_ok=True)
        if not _take(lock):   # taken meanwhile
            why = why or f"another process is writing {folder} ({_holder(lock)})"
            continue
        if holds_run(folder) and not (overwrite and n == 0):   # made meanwhile
            release(lock)
            why = why or f"{folder} holds a run already"
            continue
        return Claim(candidate, folder, lock, why if n else None)
    raise FileExistsError(f"{out} and its next {SIBLINGS - 1} siblings are all taken")


def holds_run(folder: Path) -> bool:
    """Whether a run's files are in folder (a live writer's lock is _take's to see)."""
    return any((folder / name).exists() for name in RUN_FILES)


def _take(lock: Path) -> bool:
    """Make the lock, or take over one whose writer is gone (a kill left it)."""
    for _ in range(2):
        try:
            fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            if not writer_gone({"writer": _read(lock)}):
                return False
            with contextlib.suppress(FileNotFoundError):
                lock.unlink()
            continue
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(json.dumps(this_writer()) + "\n")
        return True
    return False


def _read(lock: Path) -> dict | None:
    """The lock's writer ({"host", "pid"}); None where it cannot be read (counted live)."""
    try:
        with open(lock, encoding="utf-8") as f:
            data = json.loads(f.read(4096))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _holder(lock: Path) -> str:
    data = _read(lock) or {}
    return f"pid {data.get('pid')!s:.20} on {data.get('host')!s:.60}"


def release(lock: Path) -> None:
    """Remove the lock if it is still this process's."""
    data = _read(lock)
    if data is not None and data.get("pid") == os.getpid():
        with contextlib.suppress(OSError):
            lock.unlink()
