"""Open the desktop app: settings, command-line config, the window, and the
--screenshot mode (train N steps, save a PNG of the window, exit)."""
from __future__ import annotations

import ctypes.util
import os
import sys

from ..commands.options import EXIT_OK, EXIT_USAGE, config_from_args, fail
from ..core.config import Config

SETTINGS_ENV = "GRADVIZ_SETTINGS"  # an INI path; tests and kiosks point it elsewhere


def _check_display() -> None:
    """Say in one line what is missing, before Qt aborts the process over it."""
    platform = os.environ.get("QT_QPA_PLATFORM", "")
    if sys.platform != "linux" or platform in ("offscreen", "minimal", "vnc"):
        return
    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        fail("gradviz: no display found (DISPLAY is not set); run it on a desktop, or set "
             "QT_QPA_PLATFORM=offscreen with --screenshot")
    if os.environ.get("DISPLAY") and not ctypes.util.find_library("xcb-cursor"):
        fail("gradviz: Qt needs libxcb-cursor0 for an X window: "
             "sudo apt-get install libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 "
             "(see README)")


def _quiet_offscreen_warnings() -> None:
    """The offscreen plugin warns about a feature it lacks on every window; that noise
    would bury the one-line messages users are promised."""
    from PySide6.QtCore import qInstallMessageHandler

    def handler(mode, context, message):
        if "propagateSizeHints" not in message:
            sys.stderr.write(message + "\n")
    qInstallMessageHandler(handler)


def launch(args) -> int:
    if args.screenshot is not None and not str(args.screenshot).strip():
        fail("gradviz: --screenshot needs a file name, e.g. --screenshot shot.png")
    _check_display()
    _quiet_offscreen_warnings()
    from PySide6.QtWidgets import QApplication  # PySide6 before pyqtgraph (DESIGN.md)
    import pyqtgraph  # noqa: F401

    from .main_window import MainWindow
    from .settings import AppSettings

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("gradviz")
    app.setOrganizationName("gradviz")
    settings = AppSettings(os.environ.get(SETTINGS_ENV) or None)
    remembered = settings.load(Config())
    given = [k for k in vars(args) if k not in ("command", "screenshot", "config")]
    if args.config or given:
        remembered.config = config_from_args(args, base=Config() if args.config else remembered.config)
    if args.screenshot is not None:
        from .screenshot import take_screenshot
        return take_screenshot(app, remembered, settings, remembered.config.steps, args.screenshot)
    window = MainWindow(remembered, settings)
    window.show()
    app.exec()
    return EXIT_OK
