"""An error whose traceback passes through a model file's code, in words true of it: who
raised it (PyTorch, in a torch op the file's code called, or the file's own code) and
where (the innermost line of the file on its way), with the hint to fix the file.

The known errors (plain.records.events' explanations, a lesson's own) keep their words. The
others are no "combination of settings" refused: the file's code met them, so the hint
is to fix the file.
"""
from __future__ import annotations

import dataclasses
import dis
import traceback
from pathlib import Path
from types import TracebackType

from ..plain.records import events as ev

FIX_THE_FILE = ("Fix the file, then open it again (File → Open model…, or run the same "
                "command again).")
# a `raise` statement's instruction (a bare `raise`, `raise ... from` and `assert` too)
_RAISE = "RAISE_VARARGS"


def _innermost(exc: BaseException) -> TracebackType | None:
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb


def raised_by_statement(exc: BaseException) -> bool:
    """Whether a `raise` statement of the innermost frame raised exc itself. Otherwise
    the frame's instruction was an operation (a call, `@`, an index) whose C code raised
    it: a Python-level callee would have been a frame of its own, deeper."""
    tb = _innermost(exc)
    if tb is None:
        return False
    return any(i.offset == tb.tb_lasti and i.opname == _RAISE
               for i in dis.get_instructions(tb.tb_frame.f_code))


def torch_error(exc: BaseException) -> bool:
    """Whether exc is of a kind torch's C++ ops raise and Python code itself almost never
    does: a RuntimeError (a c10::Error's Python form), RecursionError aside, or a class of
    torch's own (torch.OutOfMemoryError, torch.linalg.LinAlgError). torch's C++ raises
    IndexError, TypeError and ValueError too, but so does Python's own code: those are not
    told apart, and count as the file's."""
    if type(exc).__module__.split(".")[0] == "torch":
        return True
    return isinstance(exc, RuntimeError) and not isinstance(exc, RecursionError)


def who_raised(exc: BaseException, named: str) -> str:
    """PyTorch where torch raised exc: in torch's own code (plain.records.events.who_raised), or
    in a torch op the innermost frame (the file's, or a helper's beside it) called, not
    by a `raise` of its own. Else "model file NAME": its own code raised it (a `raise`,
    a NameError, a TypeError of Python's)."""
    if ev.who_raised(exc) == ev.PYTORCH:
        return ev.PYTORCH
    if torch_error(exc) and not raised_by_statement(exc):
        return ev.PYTORCH
    return f"model file {named}"


def file_frame(exc: BaseException, path: Path) -> traceback.FrameSummary | None:
    """The innermost frame of exc's traceback in the model file at path, or None."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if Path(f.filename) == path]
    return frames[-1] if frames else None


def file_event(event: ev.Event, raised: BaseException, path: Path, named: str) -> ev.Event:
    """event, of the error raised whose traceback passes through the model file at path
    (its source: who_raised's): where no known explanation matched, its words say who
    raised it and at which line of the file."""
    source = event.source
    if event.title not in (ev.GENERIC_TITLE, f"{source} raised an error"):
        return event   # a known error (a lesson's, or PyTorch's well-known): its own words
    frame = file_frame(raised, path)
    at = "" if frame is None else \
        f" at {Path(frame.filename).name}:{frame.lineno} (in {frame.name})"
    if source == ev.PYTORCH:
        title = "PyTorch refused a call in your model file"
        why = (f"PyTorch raised this error, in a torch operation that model file {named} "
               f"calls{at}; its message above says why.")
    else:
        title = "Your model file raised an error"
        why = (f"The code of model file {named} raised this error itself{at}, not "
               "PyTorch; its message above says why.")
    return dataclasses.replace(event, title=title, explanation=why, hint=FIX_THE_FILE)
