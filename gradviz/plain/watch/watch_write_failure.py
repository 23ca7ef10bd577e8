"""What a failed write of a watched stream means, in words: a full disk (its steps so far
kept), the folder removed under the training, or another failure (permissions, a
read-only file system). The watch says it once and stops recording; the training goes
on."""
from __future__ import annotations

import errno
from pathlib import Path

from ..run_files.watch_stream import DISK_FULL


def write_failure(exc: OSError, folder: Path, steps: int,
                  at_close: bool) -> tuple[str, str, str]:
    """(kind, why, the line without "gradviz: "); steps: the steps counted so far (the
    step being written is steps, the last one written steps - 1)."""
    if exc.errno in DISK_FULL:
        kind, why = "disk", f"the disk holding {folder} is full"
        todo = "its steps so far are kept; free some space for the next run"
    elif exc.errno == errno.ENOENT or not folder.is_dir():
        kind, why = "removed", f"the run folder {folder} was removed"
        todo = "the steps written before are gone with it"
    else:
        kind, why = "write", f"writing {folder} failed ({exc.strerror or exc})"
        todo = "the steps written before are kept"
    when = ("at the end" if at_close else f"when step {steps} was written"
            if kind == "removed" else f"after step {steps - 1}")
    return kind, why, f"{why}: recording stopped {when} (the training goes on); {todo}"
