"""A recorded run's window never dies from a folder's data: each of its parts that Qt
calls (a timer, a signal, a pick in its header, a panel's frame) that raises has its
fault said in one line, in the window's status line, and the window goes on (its next
look at the folder, its next frame, try again). A fault of the window's own code has no
other way in: it would otherwise reach Qt's event loop, where the app ends (crash_exit)."""
from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from ..plain.text.fault_line import fault_line

F = TypeVar("F", bound=Callable[..., Any])


class FaultLines:
    """The faults standing, by where they happened, newest last."""

    def __init__(self) -> None:
        self._lines: dict[str, str] = {}

    def say(self, where: str, line: str) -> None:
        self._lines.pop(where, None)
        self._lines[where] = line

    def clear(self, where: str) -> bool:
        """Whether there was one to clear."""
        return self._lines.pop(where, None) is not None

    def line(self) -> str | None:
        """The newest fault's line, or None."""
        return next(reversed(self._lines.values()), None)


class ShowsFaults(Protocol):
    def show_fault(self, where: str, line: str | None) -> None: ...


def says_faults(doing: str) -> Callable[[F], F]:
    """A method of a window (show_fault) that says its fault, doing "draw the graph",
    rather than raising it to Qt; a call that returns clears the fault it said before."""
    def wrap(method: F) -> F:
        @functools.wraps(method)
        def guarded(self: ShowsFaults, *args: Any) -> Any:
            try:
                result = method(self, *args)
            except Exception as exc:   # the window never dies from a folder's data
                self.show_fault(doing, f"Could not {doing}: {fault_line(exc)}")
                return None
            self.show_fault(doing, None)
            return result
        return guarded  # type: ignore[return-value]
    return wrap
