"""`gradviz open DIR`: a recorded run's window, in the theme and text size the app
remembers; a path that is no folder is one line and exit 2 (a folder that holds no run
yet opens, and its window says what it waits for)."""
from __future__ import annotations

import sys
from pathlib import Path

from ..commands.options import fail
from ..exit_codes import EXIT_OK
from .display import display_problem
from .launch import CtrlC, load_settings, quiet_offscreen_warnings


def launch_run(folder: str) -> int:
    import os
    path = Path(folder)
    if not path.is_dir():
        fail(f"gradviz open: {folder}: " + ("not a folder (a run is a folder: the out= "
                                            "of gradviz.watch or gradviz run --out)"
                                            if path.exists() else "no such folder"))
    problem = display_problem(os.environ, sys.platform)
    if problem is not None:
        fail(problem)
    ctrl_c = CtrlC()
    try:
        return _open(path, ctrl_c)
    finally:
        ctrl_c.restore()


def _open(path: Path, ctrl_c: CtrlC) -> int:
    quiet_offscreen_warnings()
    import shiboken6
    from PySide6.QtWidgets import QApplication

    # isort: split
    import pyqtgraph  # noqa: F401

    from .run_window import RunWindow
    from .theme import THEMES

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("gradviz")
    app.setOrganizationName("gradviz")
    _, remembered = load_settings()
    window = RunWindow(path, THEMES[remembered.theme].zoomed(remembered.zoom))
    window.resize(1280, 800)
    window.show()
    window.first_layout()
    ctrl_c.watch(window.close)
    app.exec()
    window.shutdown()
    # deleted now, while Python is whole (as MainWindow.dispose says why)
    shiboken6.delete(window)
    return ctrl_c.exit_status if ctrl_c.pressed else EXIT_OK
