"""Open watches are closed when their process ends without closing them: at interpreter
exit (no with block, no close(): finished, or the uncaught exception that ends the script)
and on SIGTERM (torchrun stopping its ranks, a job scheduler's time limit), so the folder
says how the stream ended.

SIGTERM's handler is installed only where the process would otherwise die at once (the
handler was the default) and only from the main thread; it closes the streams, puts the
default back and sends the signal again, so the process still ends by SIGTERM, as it
would have. A handler the user (or a library) set is left alone.
"""
from __future__ import annotations

import atexit
import os
import signal
import sys
import threading
from typing import Protocol

from ..run_files.watch_end import exception_end


class Ending(Protocol):
    def end(self, ended: dict) -> None: ...


_open: list[Ending] = []
_at_exit_registered = False
_term_installed = False


def register(watch: Ending) -> None:
    global _at_exit_registered
    _open.append(watch)
    if not _at_exit_registered:
        atexit.register(_at_exit)
        _at_exit_registered = True
    _install_term()


def unregister(watch: Ending) -> None:
    if watch in _open:
        _open.remove(watch)
    if not _open:
        _uninstall_term()


def _install_term() -> None:
    global _term_installed
    if _term_installed or threading.current_thread() is not threading.main_thread():
        return
    try:
        if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
            signal.signal(signal.SIGTERM, _on_term)
            _term_installed = True
    except (ValueError, OSError, AttributeError):   # no such signal here, or not allowed
        pass


def _uninstall_term() -> None:
    global _term_installed
    if not _term_installed or threading.current_thread() is not threading.main_thread():
        return
    try:
        if signal.getsignal(signal.SIGTERM) is _on_term:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
    except (ValueError, OSError):
        return
    _term_installed = False


def _end_all(ended: dict) -> None:
    for watch in list(_open):
        watch.end(ended)


def _on_term(signum: int, frame: object) -> None:
    _end_all({"how": "signal", "what": "SIGTERM"})
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGTERM)   # ends the process as the default would have


def _at_exit() -> None:
    # an uncaught exception is kept here by the interpreter before atexit runs
    exc = getattr(sys, "last_exc", None) or getattr(sys, "last_value", None)
    _end_all(exception_end(exc))
