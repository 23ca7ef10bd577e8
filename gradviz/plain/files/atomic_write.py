"""Files the user keeps are written whole or not at all: to a temporary name in the same
folder, flushed to disk, then renamed into place (a rename within a folder is atomic), so
a full disk, an error or a kill -9 mid-write never leaves a truncated file that looks done.
A new file's mode follows the umask, as open() would give it; a replaced file keeps its own.
"""
from __future__ import annotations

import contextlib
import glob
import os
import secrets
import stat
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO


@contextlib.contextmanager
def atomic_open(path: str | Path, mode: str = "w", encoding: str | None = "utf-8",
                newline: str | None = None) -> Iterator[IO]:
    """Open a temporary file beside path for writing; on success it replaces path.

    On any error (or interruption) the temporary file is removed and path is untouched.
    """
    path = Path(path)
    binary = "b" in mode
    fd, tmp = _create_temp(path)
    try:
        with os.fdopen(fd, "wb" if binary else "w", encoding=None if binary else encoding,
                       newline=newline) as f:
            keep_mode(tmp, path)
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _sync_folder(path.parent)


def temp_name(path: Path) -> Path:
    """A hidden name beside path that says whose it is: .NAME.XXXXXXXX.part"""
    return path.with_name(f".{path.name}.{secrets.token_hex(4)}.part")


def _create_temp(path: Path) -> tuple[int, Path]:
    # not mkstemp: it makes 0600 files, and the kernel applies the umask to 0666 for us
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    for _ in range(100):
        tmp = temp_name(path)
        try:
            return os.open(tmp, flags, 0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name beside {path}")


def keep_mode(new: str | Path, old: str | Path) -> None:
    """Give new the permission bits of the file old (a 0755 script stays executable);
    nothing when old is not there yet or is not a regular file."""
    try:
        info = os.stat(old)
    except OSError:
        return
    if stat.S_ISREG(info.st_mode):
        with contextlib.suppress(OSError):   # e.g. a file system without modes
            os.chmod(new, stat.S_IMODE(info.st_mode))


def remove_stale_parts(folder: Path, names: Iterable[str]) -> list[str]:
    """Remove .NAME.*.part files an earlier, killed write of NAME left in folder."""
    removed = []
    for name in names:
        for part in folder.glob(f".{glob.escape(name)}.*.part"):
            with contextlib.suppress(OSError):
                part.unlink()
                removed.append(part.name)
    return removed


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
