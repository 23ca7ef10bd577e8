"""A reader of stdout that has gone (`gradviz report DIR | head`, `gradviz run | head`)
is not an error: as the Python docs advise (signal: "Note on SIGPIPE"), stdout is pointed
at devnull, so that nothing more written, nor Python's own flush at exit, raises
BrokenPipeError again, and the command goes on quietly to its normal end."""
from __future__ import annotations

import os
import sys


def stdout_to_devnull() -> None:
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):   # a stdout that is no file (captured, replaced)
        sys.stdout = open(os.devnull, "w")
    finally:
        os.close(devnull)
