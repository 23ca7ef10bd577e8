"""An exception said in one line, as a status line shows a fault: its type and its
message, never a traceback. psygnal wraps an observer's exception in EmitLoopError,
whose message is a report of many lines: the observer's own exception is said."""
from __future__ import annotations

from psygnal import EmitLoopError

MOST = 300   # characters of the message: a line, not a page (a message may quote a file)


def fault_line(error: BaseException) -> str:
    while isinstance(error, EmitLoopError) and error.__cause__ is not None:
        error = error.__cause__
    said = " ".join(str(error).split())
    if len(said) > MOST:
        said = said[:MOST - 1] + "…"
    return type(error).__name__ + (f": {said}" if said else "")
