"""Ending the engine's process, gently first: it is given JOIN_SECONDS to stop by itself
(it sees EOF on its pipe once the window closes its end), then terminated, then killed,
so quitting or a Reset never waits long on an engine stuck in a step. An engine run on
a thread (tests) has no terminate or kill: it is only waited for."""
from __future__ import annotations

from typing import Any

JOIN_SECONDS = 0.5        # quitting: how long the engine may take to stop by itself


def end_process(process: Any, at_once: bool = False) -> Any:
    """End process (its pipe already closed); the process where it is still alive (a
    thread that did not stop), else None. at_once: kill it without waiting for it to
    stop by itself (a build that runs the file's own loop never reads the pipe's end)."""
    if at_once and hasattr(process, "kill"):
        process.kill()
        process.join(1.0)   # SIGKILL cannot be caught: it ends within the kernel's next turn
    else:
        process.join(JOIN_SECONDS)
    if process.is_alive() and hasattr(process, "terminate"):
        process.terminate()
        process.join(0.3)
        if process.is_alive():
            process.kill()
            process.join(0.2)
    still = process if process.is_alive() else None
    if hasattr(process, "close") and not process.is_alive():
        process.close()
    return still
