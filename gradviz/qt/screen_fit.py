"""Keep the window on its screen (a 1024x768 or 1280x720 projector included): when the
panels' minimum sizes add up to more than the screen, panels are moved into tabs rather
than crushed, and the window is never sized past the screen's edge."""
from __future__ import annotations

from PySide6.QtWidgets import QApplication


def available(window):
    screen = window.screen() or QApplication.primaryScreen()
    return screen.availableGeometry()


def too_big(window) -> bool:
    room, need = available(window), window.minimumSizeHint()
    return need.width() > room.width() or need.height() > room.height()


def _into_tabs_of(window, anchor, docks) -> None:
    for dock in docks:
        hidden = dock.isHidden()   # a closed lesson stays closed
        # moved to the anchor's area first: Qt 6.12 leaves a dock that is tabbed in
        # another area where it is when asked to tabify it directly
        window.addDockWidget(window.dockWidgetArea(anchor), dock)
        window.tabifyDockWidget(anchor, dock)
        dock.setHidden(hidden)


def fit_to_screen(window) -> None:
    """Tab panels in until the window's minimum fits, then keep its size within reach.

    A window drawn for a picture (--screenshot, at a projector's 1920x1080 whatever the
    screen) sets `drawn_off_screen` and is left as it is."""
    if window.drawn_off_screen:
        return
    bottom = window.graph_dock
    moves = (
        # the gradient charts join the settings (and the lesson) on the left: one column less
        lambda: window.tabifyDockWidget(window.controls_dock, window.gradients_dock),
        # the three gradient charts go into tabs of their own: half the height
        lambda: window.gradients_panel.set_compact(True),
        # the left column joins the graph's tabs at the bottom: the loss curves get the width
        lambda: _into_tabs_of(window, bottom, (window.controls_dock, window.lessons.dock,
                                               window.gradients_dock)),
    )
    for move in moves:
        if not too_big(window):
            break
        move()
        window.graph_dock.raise_()   # the graph stays the tab in front of its group
        window.layout().activate()
    room = available(window)
    width, height = min(window.width(), room.width()), min(window.height(), room.height())
    if (width, height) != (window.width(), window.height()) and not window.isFullScreen():
        window.resize(width, height)
    if window.x() + window.width() > room.right() + 1 or window.y() < room.top():
        window.move(max(room.left(), min(window.x(), room.right() + 1 - width)),
                    max(room.top(), window.y()))
