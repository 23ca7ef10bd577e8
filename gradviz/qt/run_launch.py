"""`gradviz open DIR`: a recorded run's window, in the theme and text size the app
remembers, sized to the screen; a path that is a file is one line and exit 2. A folder
that holds no run yet, or is not there yet (the script has not started), opens: its
window says so, and shows the run once the script has written one."""
from __future__ import annotations

import sys
from pathlib import Path

from ..commands.options import fail
from ..exit_codes import EXIT_OK, EXIT_WINDOW_FAILED
from .crash_exit import CrashExit
from .display import display_problem
from .launch import CtrlC, load_settings, quiet_offscreen_warnings

WIDTH, HEIGHT = 1600, 1000   # the window's size, where the screen has room for it


def launch_run(folder: str, compare: str | None = None) -> int:
    import os
    path = Path(folder)
    for given in (folder, compare):
        if given is not None and Path(given).exists() and not Path(given).is_dir():
            fail(f"gradviz open: {given}: not a folder (a run is a folder: the out= of "
                 "gradviz.watch or gradviz run --out)")
    problem = display_problem(os.environ, sys.platform)
    if problem is not None:
        fail(problem)
    ctrl_c = CtrlC()
    try:
        return _open(path, compare, ctrl_c)
    finally:
        ctrl_c.restore()


def _open(path: Path, compare: str | None, ctrl_c: CtrlC) -> int:
    quiet_offscreen_warnings()
    import shiboken6
    from PySide6.QtGui import QGuiApplication
    from PySide6.QtWidgets import QApplication

    # isort: split
    import pyqtgraph  # noqa: F401

    from .run_window import RunWindow
    from .theme import THEMES

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("gradviz")
    app.setOrganizationName("gradviz")
    _, remembered = load_settings()
    window = RunWindow(path, THEMES[remembered.theme].zoomed(remembered.zoom), compare)
    room = QGuiApplication.primaryScreen().availableGeometry()
    window.resize(min(WIDTH, room.width()), min(HEIGHT, room.height()))
    window.show()
    window.first_layout()
    ctrl_c.watch(window.close)
    crash = CrashExit(app.exit).install()
    try:
        app.exec()
    finally:
        crash.restore()
    window.shutdown()
    # deleted now, while Python is whole (as MainWindow.dispose says why)
    shiboken6.delete(window)
    if crash.failed:
        return EXIT_WINDOW_FAILED
    return ctrl_c.exit_status if ctrl_c.pressed else EXIT_OK
