"""The window's size and dock layout at launch: the remembered ones, checked before Qt
sees them, or the first-launch ones."""
from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QDockWidget

from .settings import warn as settings_warning
from .window_state import BadLayout, check_window_state


def restore_layout(window, remembered) -> None:
    """The remembered size and dock layout, or the first-launch ones where there are
    none or Qt refuses the saved bytes (a file from another Qt, or edited by hand)."""
    geometry, state = remembered.geometry, remembered.window_state
    if geometry is not None and not window.restoreGeometry(geometry):
        settings_warning("geometry is not a window geometry Qt accepts; "
                         "using the first-launch size")
        geometry = None
    if geometry is None:   # first launch: most of the screen, which on a projector is all
        screen = QApplication.primaryScreen().availableGeometry()
        window.resize(max(1024, int(screen.width() * 0.92)), max(700, int(screen.height() * 0.9)))
    if state is not None and not restore_state(window, state):
        settings_warning("window_state is not a window layout Qt accepts; "
                         "using the first-launch layout")
        state = None
    if state is None:
        QTimer.singleShot(0, window.first_layout)


def restore_state(window, state) -> bool:
    """restoreState, but only for bytes gradviz's own check accepts: Qt trusts them,
    and a crafted layout crashed it."""
    docks = {dock.objectName() for dock in window.findChildren(QDockWidget)}
    try:
        check_window_state(bytes(state.data()), docks)
    except BadLayout:
        return False
    return window.restoreState(state)
