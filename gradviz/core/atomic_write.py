"""Files the user keeps are written whole or not at all: to a temporary name in the same
folder, flushed to disk, then renamed into place (a rename within a folder is atomic), so
a full disk, an error or a kill -9 mid-write never leaves a truncated file that looks done.
"""
from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import IO, Iterator


@contextlib.contextmanager
def atomic_open(path: str | Path, mode: str = "w", encoding: str | None = "utf-8",
                newline: str | None = None) -> Iterator[IO]:
    """Open a temporary file beside path for writing; on success it replaces path.

    On any error (or interruption) the temporary file is removed and path is untouched.
    """
    path = Path(path)
    binary = "b" in mode
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    try:
        with os.fdopen(fd, "wb" if binary else "w", encoding=None if binary else encoding,
                       newline=newline) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _sync_folder(path.parent)


def _sync_folder(folder: Path) -> None:
    """Make the rename itself durable (POSIX only; elsewhere a no-op)."""
    if hasattr(os, "O_DIRECTORY"):
        with contextlib.suppress(OSError):
            fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)


def write_text(path: str | Path, text: str) -> Path:
    with atomic_open(path, "w") as f:
        f.write(text)
    return Path(path)


def write_bytes(path: str | Path, data: bytes) -> Path:
    with atomic_open(path, "wb") as f:
        f.write(data)
    return Path(path)


def check_writable(folder: str | Path) -> None:
    """Raise OSError unless a file can be created (and removed) in folder."""
    fd, tmp = tempfile.mkstemp(prefix=".gradviz-check.", dir=folder)
    os.close(fd)
    os.unlink(tmp)
