"""The window's size and dock layout at launch: the remembered ones, checked before Qt
sees them, or the first-launch ones."""
from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QDockWidget, QMainWindow, QWidget

from .settings import warn as settings_warning
from .window_state import BadLayout, check_window_state

# the least room gradviz is laid out for, and the largest screen that is a projector's
# (1024x768, 1280x720, 1366x768): there the first launch takes the whole screen, which
# at 92% of it left a 100 px strip at 1280x720 and 68 px at 1024x768 unused
LEAST_ROOM, PROJECTOR_AT_MOST = (1024, 700), (1366, 800)


def add_dock(window: QMainWindow, title: str, name: str, widget: QWidget,
             area: Qt.DockWidgetArea) -> QDockWidget:
    """widget in a dock of its own, named (saveState keeps docks by name), in area."""
    dock = QDockWidget(title, window)
    dock.setObjectName(name)
    dock.setWidget(widget)
    window.addDockWidget(area, dock)
    return dock


def restore_layout(window, remembered) -> None:
    """The remembered size and dock layout, or the first-launch ones where there are
    none or Qt refuses the saved bytes (a file from another Qt, or edited by hand)."""
    geometry, state = remembered.geometry, remembered.window_state
    if geometry is not None and not window.restoreGeometry(geometry):
        settings_warning("geometry is not a window geometry Qt accepts; "
                         "using the first-launch size")
        geometry = None
    if geometry is None:   # first launch: most of the screen, or on a projector all of it
        screen = QApplication.primaryScreen().availableGeometry()
        if _projector(screen.width(), screen.height()):
            window.setGeometry(screen)   # where no window manager acts on the next line
            window.setWindowState(window.windowState() | Qt.WindowState.WindowMaximized)
        else:
            window.resize(max(LEAST_ROOM[0], int(screen.width() * 0.92)),
                          max(LEAST_ROOM[1], int(screen.height() * 0.9)))
    if state is not None and not restore_state(window, state):
        settings_warning("window_state is not a window layout Qt accepts; "
                         "using the first-launch layout")
        state = None
    if state is None:
        QTimer.singleShot(0, window.first_layout)


def _projector(width: int, height: int) -> bool:
    return (LEAST_ROOM[0] <= width and LEAST_ROOM[1] <= height
            and (width <= PROJECTOR_AT_MOST[0] or height <= PROJECTOR_AT_MOST[1]))


def restore_state(window, state) -> bool:
    """restoreState, but only for bytes gradviz's own check accepts: Qt trusts them,
    and a crafted layout crashed it."""
    # "lessonDock" held the narration before lessons had a stage of their own: layouts
    # saved then are still the user's (Qt keeps a place for a name it no longer has)
    docks = {dock.objectName() for dock in window.findChildren(QDockWidget)} | {"lessonDock"}
    try:
        check_window_state(bytes(state.data()), docks)
    except BadLayout:
        return False
    return window.restoreState(state)
