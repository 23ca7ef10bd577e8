"""The window's keys (a presenter's keyboard and clicker: Space, arrows, R, F11, P, text
size) and its View menu (theme, text size, full screen, which panels are shown)."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence, QShortcut

from .theme import TEXT_STEP, THEMES


def add_keys(window) -> None:
    keys = ((Qt.Key_Space, window.toggle_play), (Qt.Key_Right, window.sigPhase.emit),
            (QKeySequence(Qt.SHIFT | Qt.Key_Right), window.sigStep.emit),
            (Qt.Key_R, window.sigReset.emit), (Qt.Key_F11, window.toggle_full_screen),
            (QKeySequence(Qt.SHIFT | Qt.Key_R), window.reset_to_defaults),
            (Qt.Key_P, window.run_bar.phase_play.toggle),
            (QKeySequence.ZoomIn, lambda: window.zoom_by(TEXT_STEP)),
            (QKeySequence("Ctrl+="), lambda: window.zoom_by(TEXT_STEP)),
            (QKeySequence.ZoomOut, lambda: window.zoom_by(1 / TEXT_STEP)),
            (QKeySequence("Ctrl+0"), lambda: window.zoom_by(None)))
    window.shortcuts = []
    for key, slot in keys:
        sc = QShortcut(QKeySequence(key), window)
        sc.setContext(Qt.WindowShortcut)
        sc.activated.connect(slot)
        window.shortcuts.append(sc)


def add_view_menu(window) -> None:
    view = window.menuBar().addMenu("&View")
    window.dark_action = QAction("Dark theme", window, checkable=True)
    window.dark_action.setObjectName("darkThemeAction")
    window.dark_action.setChecked(window.theme.name == "dark")
    window.dark_action.toggled.connect(lambda dark: window.apply_theme(
        THEMES["dark" if dark else "light"].zoomed(window.theme.zoom)))
    view.addAction(window.dark_action)
    for text, factor in (("Larger text\tCtrl++", TEXT_STEP),
                         ("Smaller text\tCtrl+-", 1 / TEXT_STEP),
                         ("Normal text size\tCtrl+0", None)):
        view.addAction(text, lambda _checked=False, f=factor: window.zoom_by(f))
    view.addAction("Full screen\tF11", window.toggle_full_screen)
    view.addAction("Blank the screen\tB", window.blank_screen.toggle)
    view.addSeparator()
    for dock in (window.controls_dock, window.gradients_dock, window.graph_dock,
                 window.code_dock, window.memory_dock, window.events_dock):
        view.addAction(dock.toggleViewAction())
