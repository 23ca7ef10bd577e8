"""The window's keys (a presenter's keyboard and clicker: Space, arrows, R, F11, P, text
size) and its View menu (theme, text size, full screen, which panels are shown).

The View menu changes the window's model (plain.window.window_model), never a widget: its ticks
follow the model, so a dock closed by its own button, put away by a lesson or brought
back by a remembered layout is unticked or ticked the same way as one the menu closed.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtWidgets import QDockWidget, QMainWindow, QWidget

from ..plain.window.window_model import WindowModel
from .theme import TEXT_STEP

Slot = Callable[[], object]
Key = Qt.Key | QKeySequence | QKeySequence.StandardKey | str


def add_keys(widget: QWidget, keys: Sequence[tuple[Key, Slot]]) -> list[QShortcut]:
    """Each key a shortcut of the window (not of the focused panel only)."""
    shortcuts = []
    for key, slot in keys:
        shortcut = QShortcut(QKeySequence(key), widget)
        shortcut.setContext(Qt.ShortcutContext.WindowShortcut)
        shortcut.activated.connect(slot)
        shortcuts.append(shortcut)
    return shortcuts


def view_keys(model: WindowModel) -> list[tuple[Key, Slot]]:
    """The text size and F11: changes of the model, which the window then shows."""
    return [(QKeySequence.StandardKey.ZoomIn, lambda: model.scale_text(TEXT_STEP)),
            (QKeySequence("Ctrl+="), lambda: model.scale_text(TEXT_STEP)),
            (QKeySequence.StandardKey.ZoomOut, lambda: model.scale_text(1 / TEXT_STEP)),
            (QKeySequence("Ctrl+0"), lambda: model.scale_text(None)),
            (Qt.Key.Key_F11, lambda: setattr(model, "full_screen", not model.full_screen))]


class ViewMenu(QObject):
    """The View menu, on the window's menu bar. docks: the panels it can show or close
    (its ticks); blank: what blanks the screen (B)."""

    def __init__(self, window: QMainWindow, model: WindowModel,
                 docks: Sequence[QDockWidget], blank: Slot):
        super().__init__(window)
        self.model = model
        menu = window.menuBar().addMenu("&View")
        menu.setObjectName("viewMenu")
        self.dark = self._ticked(menu, "Dark theme", "darkThemeAction",
                                 lambda on: setattr(model, "theme", "dark" if on else "light"))
        for text, name, factor in (("Larger text\tCtrl++", "largerTextAction", TEXT_STEP),
                                   ("Smaller text\tCtrl+-", "smallerTextAction", 1 / TEXT_STEP),
                                   ("Normal text size\tCtrl+0", "normalTextAction", None)):
            def scale(_checked: bool = False, f: float | None = factor) -> None:
                model.scale_text(f)
            action = menu.addAction(text, scale)
            action.setObjectName(name)
        self.full_screen = self._ticked(menu, "Full screen\tF11", "fullScreenAction",
                                        lambda on: setattr(model, "full_screen", on))
        menu.addAction("Blank the screen\tB", blank)
        menu.addSeparator()
        self.dock_actions: dict[str, QAction] = {}
        for dock in docks:
            name = dock.objectName()
            def show(on: bool, n: str = name) -> None:
                model.show_dock(n, on)
            self.dock_actions[name] = self._ticked(menu, dock.windowTitle(), f"show_{name}",
                                                   show)
        self.menu = menu
        model.events.theme.connect(self._tick)
        model.events.full_screen.connect(self._tick)
        model.events.docks_shown.connect(self._tick)
        self._tick()

    def _ticked(self, menu, text: str, name: str, changed: Callable[[bool], None]) -> QAction:
        # triggered, not toggled: only the user's click changes the model; a tick set
        # to follow the model changes nothing
        action = QAction(text, self, checkable=True)
        action.setObjectName(name)
        action.triggered.connect(changed)
        menu.addAction(action)
        return action

    def _tick(self, *_changed) -> None:
        model = self.model
        self.dark.setChecked(model.theme == "dark")
        self.full_screen.setChecked(model.full_screen)
        for name, action in self.dock_actions.items():
            action.setChecked(name in model.docks_shown)


class DockWatch(QObject):
    """The docks shown or closed as model.docks_shown says, and the model told of every
    dock shown or closed by other hands (its close button, a lesson's stage, a
    remembered layout, Compare): the model is always what is on screen."""

    def __init__(self, model: WindowModel, docks: Sequence[QDockWidget]):
        super().__init__(docks[0].parent() if docks else None)
        self.model = model
        self.docks = {dock.objectName(): dock for dock in docks}
        for dock in docks:
            # sent on an explicit show or hide, also while the window is not shown yet
            dock.installEventFilter(self)
        self._applying = False
        model.events.docks_shown.connect(self._show)
        self._told()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:   # noqa: N802 (Qt's name)
        if event.type() in (QEvent.Type.ShowToParent, QEvent.Type.HideToParent) \
                and not self._applying:
            self._told()
        return False

    def _told(self) -> None:
        self.model.docks_shown = frozenset(name for name, dock in self.docks.items()
                                           if not dock.isHidden())

    def _show(self, shown: frozenset[str]) -> None:
        # told once all are done: each dock's own event would tell a set half applied
        self._applying = True
        try:
            for name, dock in self.docks.items():
                if dock.isHidden() == (name in shown):
                    dock.setVisible(name in shown)
        finally:
            self._applying = False
        self._told()   # (a dock that refused stays as it is, and so does its tick)
