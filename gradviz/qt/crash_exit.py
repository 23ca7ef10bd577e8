"""A fault in the window's own code, an exception that escapes to Qt's event loop, ends
the app with EXIT_WINDOW_FAILED and one line on stderr that says what was raised and
where. PySide hands such an exception to sys.excepthook and goes on: Python's hook
printed a traceback, and the window went on half updated and exited 0, so a script or a
launcher never learned of it. What a file's data does wrong is no such fault: the window
catches it where it reads or draws the data and says it in words."""
from __future__ import annotations

import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import TextIO

from ..exit_codes import EXIT_WINDOW_FAILED
from ..plain.text.fault_line import fault_line

PACKAGE = Path(__file__).resolve().parents[1]   # gradviz/: where names are cut from


def crash_line(error: BaseException, tb: TracebackType | None) -> str:
    """The one line: the exception and the innermost place it was raised from."""
    frames = traceback.extract_tb(tb)
    where = ""
    if frames:
        last = frames[-1]
        path = Path(last.filename)
        try:
            shown = str(path.resolve().relative_to(PACKAGE.parent))
        except (ValueError, OSError):
            shown = str(path)
        where = f" at {shown}:{last.lineno} ({last.name})"
    return (f"gradviz: the window failed: {fault_line(error)}{where}; a fault of gradviz's, it is "
            f"closed (exit status {EXIT_WINDOW_FAILED})")


class CrashExit:
    """sys.excepthook while the window's event loop runs: the first exception that
    reaches it is said in one line and the loop is ended with EXIT_WINDOW_FAILED
    (exit(status): QApplication.exit). Later ones, while the window closes, are not
    said again. Ctrl+C is left to the hook before."""

    def __init__(self, exit: Callable[[int], object], stderr: TextIO | None = None):
        self._exit = exit
        self._stderr = stderr
        self.failed = False
        self._previous = sys.excepthook

    def install(self) -> CrashExit:
        self._previous = sys.excepthook
        sys.excepthook = self._hook
        return self

    def restore(self) -> None:
        if sys.excepthook == self._hook:
            sys.excepthook = self._previous

    def _hook(self, kind: type[BaseException], error: BaseException,
              tb: TracebackType | None) -> None:
        if issubclass(kind, KeyboardInterrupt):
            self._previous(kind, error, tb)
            return
        if self.failed:
            return
        self.failed = True
        print(crash_line(error, tb), file=self._stderr or sys.stderr, flush=True)
        self._exit(EXIT_WINDOW_FAILED)
