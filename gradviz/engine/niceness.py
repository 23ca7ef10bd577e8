"""The engine's processes (A's and a pinned B's) give the window the CPU first."""
from __future__ import annotations

import os

ENGINE_NICENESS = 5     # how much lower than the window's the engine's CPU priority is


def yield_to_the_window() -> None:
    """When the machine is busy, the window's process gets the CPU first: a window that
    stutters in front of a lecture hall costs more than a slower step."""
    try:
        os.nice(ENGINE_NICENESS)
    except (AttributeError, OSError):   # not on this system, or not allowed: carry on
        pass
