"""`gradviz open DIR` started from Python (a notebook, a script) as a process of its own:
the caller never imports Qt (a Jupyter kernel with Qt in it fights the notebook's event
loop), and closing the window ends only that process."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def open_run(path: str | Path, compare: str | Path | None = None) -> subprocess.Popen:
    """Open the run folder at path in gradviz's window, as `python -I -m gradviz open
    path` (isolated: the caller's working folder is not on its import path), compared
    with the run at compare where given. Returns at once with the process; the window
    follows the folder while the run writes it."""
    command = [sys.executable, "-I", "-m", "gradviz", "open", str(Path(path).resolve())]
    if compare is not None:
        command += ["--compare", str(Path(compare).resolve())]
    return subprocess.Popen(command, stdin=subprocess.DEVNULL)
