"""`gradviz report DIR`: a run folder summed up in a few lines (no torch needed)."""
from __future__ import annotations

import argparse

from ..exit_codes import EXIT_OK
from ..plain.watch_read import RunFolderError
from ..plain.watch_summary import summary_lines
from .options import fail


def main(args: argparse.Namespace) -> int:
    try:
        lines = summary_lines(args.folder)
    except (RunFolderError, ValueError, OSError) as exc:
        fail(f"gradviz: report: {exc}")
    print("\n".join(lines))
    return EXIT_OK
