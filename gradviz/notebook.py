"""gradviz.show("runs/exp1"): a run drawn in a Jupyter cell, as HTML with inline SVG, and
redrawn while the run is written, with neither Qt nor torch in the kernel.

It is output, not a window: a notebook served from a remote machine (JupyterHub, a
cluster's node behind an SSH tunnel) shows it as it shows any cell's HTML, with nothing
to install on the viewing side. The cell follows the folder through one IPython display
handle, looked at a few times a second and redrawn only when something changed, until
every stream of the run has ended (finished, ended by an exception or a signal, or its
process gone) or the cell is interrupted (the kernel's Interrupt: the KeyboardInterrupt
is caught, so the cell ends with its drawing, not a traceback; the run goes on).
"""
from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .plain.runs.run_view import RunView

REFRESH_S = 0.3    # between looks at the folder: a few redraws a second at most

__all__ = ["redraw_until_ended", "show"]


def show(folder: str | Path, *, follow: bool = True, refresh_s: float = REFRESH_S) -> None:
    """Display the run folder in the notebook's cell and, with follow, redraw it every
    refresh_s seconds while it is written (until it ends, or the cell is interrupted).
    Outside a Jupyter kernel (a script, the IPython shell) it prints the run's text
    summary once."""
    view = RunView(folder)
    view.read()
    display = _display()
    if display is None:
        print(view.text())
        return None
    handle = display(view, display_id=True)
    if follow and handle is not None:
        redraw_until_ended(view, handle, lambda: time.sleep(refresh_s))
    return None


def redraw_until_ended(view: RunView, handle: Any, wait: Callable[[], None]) -> None:
    """Redraw view through the display handle whenever the folder changed, wait()
    between looks, until the run ends or wait (or a look) is interrupted."""
    try:
        while not view.ended:
            wait()
            if view.read():
                handle.update(view)
    except KeyboardInterrupt:   # the kernel's Interrupt: stop following, no traceback
        view.note = "stopped following (interrupted); the run itself goes on"
        handle.update(view)


def _display() -> Callable[..., Any] | None:
    """IPython's display where this runs in a Jupyter kernel (whose shell has a kernel;
    the IPython shell in a terminal would print the text again at every redraw)."""
    try:
        from IPython import get_ipython
        from IPython.display import display
    except ImportError:
        return None
    return display if getattr(get_ipython(), "kernel", None) is not None else None
