"""`gradviz report DIR`: a run folder summed up in a few lines (no torch needed).

The folder may be anyone's: what cannot be read is one line (exit 2 where there is no
run at all), each line printed with its control characters escaped (shown_text), and
a reader that has gone (`gradviz report DIR | head`) ends it quietly with 0."""
from __future__ import annotations

import argparse
import sys

from ..exit_codes import EXIT_OK
from ..plain.run_files.watch_read import RunFolderError
from ..plain.runs.watch_summary import summary_lines
from ..plain.text.shown_text import escaped, shown_path
from .options import fail
from .stdout_gone import stdout_to_devnull


def main(args: argparse.Namespace) -> int:
    try:
        lines = summary_lines(args.folder)
    except RunFolderError as exc:
        fail(f"gradviz: report: {escaped(str(exc))}")
    except OSError as exc:   # the reader's own files are refused in lines; this is the folder
        fail(f"gradviz: report: {shown_path(args.folder)}: cannot be read "
             f"({exc.strerror or type(exc).__name__})")
    try:
        sys.stdout.write("".join(escaped(line) + "\n" for line in lines))
        sys.stdout.flush()
    except BrokenPipeError:
        stdout_to_devnull()
    return EXIT_OK
