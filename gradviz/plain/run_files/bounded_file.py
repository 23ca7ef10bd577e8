"""A run folder's files read within bounds, whatever is in the folder: only regular files
are opened, a line is at most a cap long, and what is held in memory at once is at most
a budget, however large the file.

- Opened without following a symbolic link and without blocking (O_NOFOLLOW,
  O_NONBLOCK), then looked at (fstat): a link (to /dev/zero, to a file outside the
  folder), a FIFO (whose open or read would wait for a writer for ever), a device or a
  socket is refused in one line, never read.
- A line longer than its cap (MAX_LINE_BYTES for a step) is skipped with one line saying
  so, read in chunks without ever being held whole; a hole in a sparse file (no data,
  so no newline) is stepped over without reading it.
- A file followed as it grows (LineFile) is read from where the last look stopped: only
  what was appended. A file replaced by another (rsync writes a new file and renames it
  over the old: a new inode), or cut shorter, is read again from its start, and the
  caller is told.
"""
from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from ..text.shown_text import shown_path

MAX_LINE_BYTES = 1 << 20       # a step line: a watch writes about 1 KB (16 Ki names: 650 KB)
MAX_GRAPH_LINE_BYTES = 16 << 20   # a graph: a ResNet-50's is about 1 MB
MAX_HEADER_BYTES = 4 << 20     # watch.json: 16 Ki parameter names of 256 characters
CHUNK_BYTES = 1 << 20          # read at a time
READ_BUDGET_BYTES = 1 << 20    # lines read by one LineFile.read(): decoded a batch at a time

_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISDIR, "a folder"))
_FLAGS = (os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)
          | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))


class FileRefused(Exception):
    """A file that is not read: str() is one line naming it and why."""


def open_regular(path: Path) -> tuple[int, os.stat_result] | None:
    """(a descriptor, its stat) of a regular file; None where there is no such file;
    FileRefused where it is something else or cannot be opened."""
    try:
        fd = os.open(path, _FLAGS)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise FileRefused(f"{shown_path(path)}: a symbolic link, not followed "
                              "(a run's files are read only as regular files)") from None
        raise FileRefused(f"{shown_path(path)}: cannot be read "
                          f"({exc.strerror or type(exc).__name__})") from None
    try:
        st = os.fstat(fd)
    except OSError as exc:
        os.close(fd)
        raise FileRefused(f"{shown_path(path)}: cannot be read ({exc.strerror})") from None
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        kind = next((words for test, words in _KINDS if test(st.st_mode)), "not a file")
        raise FileRefused(f"{shown_path(path)}: {kind}, not a regular file: not read")
    return fd, st


def read_whole(path: Path, cap: int) -> bytes | None:
    """A small file's bytes (a header); None where there is none; FileRefused where it
    is no regular file or longer than cap."""
    opened = open_regular(path)
    if opened is None:
        return None
    fd, st = opened
    try:
        if st.st_size > cap:
            raise FileRefused(f"{shown_path(path)}: {st.st_size:,} bytes, over the "
                              f"{cap >> 20} MiB a gradviz file of its kind is at most")
        chunks, size = [], 0
        while size <= cap:   # as big as it is now: it may grow while read
            chunk = os.read(fd, min(CHUNK_BYTES, cap + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise FileRefused(f"{shown_path(path)}: cannot be read ({exc.strerror})") from None
    finally:
        os.close(fd)
    if size > cap:
        raise FileRefused(f"{shown_path(path)}: over the {cap >> 20} MiB a gradviz file "
                          "of its kind is at most")
    return b"".join(chunks)


def read_start(path: Path, size: int) -> bytes | None:
    """A file's first size bytes at most (None: no such file; FileRefused: no regular
    file)."""
    opened = open_regular(path)
    if opened is None:
        return None
    fd, _ = opened
    try:
        return os.pread(fd, size, 0)
    except OSError as exc:
        raise FileRefused(f"{shown_path(path)}: cannot be read ({exc.strerror})") from None
    finally:
        os.close(fd)


@dataclass
class Lines:
    """What one look at a LineFile found."""
    lines: list[tuple[int, bytes]] = field(default_factory=list)   # (line number, bytes)
    notes: list[str] = field(default_factory=list)   # lines skipped: one line each
    replaced: bool = False    # the file was replaced or cut: read again from its start
    more: bool = False        # the budget ran out before the end of what is written


class LineFile:
    """The complete lines appended to one file since the last look (a last line without
    its newline is still being written, or was cut by a kill: left for later)."""

    def __init__(self, path: Path, max_line: int = MAX_LINE_BYTES):
        self.path, self.max_line = path, max_line
        self.offset = 0           # where the next look starts: after a newline
        self.line = 0             # lines passed so far (numbered from 1)
        self._identity: tuple[int, int] | None = None
        self._skipping = False    # inside a line over the cap, skipped to its newline

    def restart(self) -> None:
        self.offset, self.line, self._skipping = 0, 0, False

    def read(self, budget: int = READ_BUDGET_BYTES) -> Lines:
        """The complete lines from where the last look stopped, about budget bytes of
        them at most (more: there is more to read). FileRefused where the path is no
        regular file."""
        found = Lines()
        opened = open_regular(self.path)
        if opened is None:
            return found
        fd, st = opened
        try:
            identity = (st.st_dev, st.st_ino)
            if self._identity is not None and (identity != self._identity
                                               or st.st_size < self.offset):
                self.restart()
                found.replaced = True
            self._identity = identity
            self._read(fd, st.st_size, budget, found)
        except OSError as exc:
            raise FileRefused(f"{shown_path(self.path)}: cannot be read "
                              f"({exc.strerror})") from None
        finally:
            os.close(fd)
        return found

    def _read(self, fd: int, size: int, budget: int, found: Lines) -> None:
        start, position = self.offset, self.offset
        pending = b""      # a line not yet ended: the file's bytes from offset to position
        step = max(4096, min(CHUNK_BYTES, budget))
        while position < size:
            if self.offset - start >= budget:   # enough for one look: the rest later
                found.more = True
                return
            if self._skipping:
                position = self.offset = max(position, self._past_hole(fd, position, size))
                if position >= size:
                    return
            chunk = os.pread(fd, min(step, size - position), position)
            if not chunk:
                return
            position += len(chunk)
            if self._skipping:
                newline = chunk.find(b"\n")
                if newline < 0:
                    self.offset = position
                    continue
                self._skipping, self.offset = False, position - len(chunk) + newline + 1
                chunk = chunk[newline + 1:]
            pending = self._split(pending + chunk, found)
            if len(pending) > self.max_line:   # too long: said once, skipped to its end
                self.line += 1
                found.notes.append(self._too_long())
                self._skipping, self.offset, pending = True, position, b""

    def rest(self) -> bytes:
        """What follows the last complete line (a last line without its newline), at
        most a line's cap."""
        opened = open_regular(self.path)
        if opened is None:
            return b""
        fd, _ = opened
        try:
            return b"" if self._skipping else os.pread(fd, self.max_line + 1, self.offset)
        except OSError as exc:
            raise FileRefused(f"{shown_path(self.path)}: cannot be read "
                              f"({exc.strerror})") from None
        finally:
            os.close(fd)

    def _too_long(self) -> str:
        return (f"{shown_path(self.path)}:{self.line}: a line over "
                f"{self.max_line >> 20} MiB: skipped")

    def _split(self, data: bytes, found: Lines) -> bytes:
        """data's complete lines into found (offset and numbers moved past them); the
        rest, a line not yet ended, returned."""
        last = data.rfind(b"\n")
        if last < 0:
            return data
        parts = data[:last].split(b"\n")
        for part in parts:
            self.line += 1
            if len(part) > self.max_line:
                found.notes.append(self._too_long())
            else:
                found.lines.append((self.line, part))
        self.offset += last + 1
        return data[last + 1:]

    @staticmethod
    def _past_hole(fd: int, position: int, size: int) -> int:
        """Where data starts again from position: a hole of a sparse file holds no
        newline, so a line being skipped is stepped over it unread."""
        seek_data = getattr(os, "SEEK_DATA", None)
        if seek_data is None:
            return position
        try:
            return os.lseek(fd, position, seek_data)
        except OSError:   # ENXIO: no data after position (a hole to the end)
            return size
