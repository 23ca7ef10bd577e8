"""B or '.' blanks the screen, as presentation software does (a clicker's "blank" button
sends B): a black cover over the whole window, so the hall looks at the lecturer. B or '.'
again, or a change of slide, brings the window back. Blank is the window model's to say
(model.blank): the cover follows it."""
from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QColor, QKeySequence, QPalette, QShortcut
from PySide6.QtWidgets import QWidget

from ..plain.window.window_model import WindowModel


class BlankScreen(QWidget):
    def __init__(self, window: QWidget, model: WindowModel):
        super().__init__(window)
        self.setObjectName("blankScreen")
        self.setAutoFillBackground(True)
        palette = self.palette()
        palette.setColor(QPalette.ColorRole.Window, QColor("black"))
        self.setPalette(palette)
        self.setCursor(Qt.CursorShape.BlankCursor)
        self.hide()
        self._window = window
        self.model = model
        model.events.blank.connect(self._show)
        window.installEventFilter(self)
        self.shortcuts = []
        for key in (Qt.Key.Key_B, Qt.Key.Key_Period):
            shortcut = QShortcut(QKeySequence(key), window)
            shortcut.setContext(Qt.ShortcutContext.WindowShortcut)
            shortcut.activated.connect(self.toggle)
            self.shortcuts.append(shortcut)

    @property
    def blank(self) -> bool:
        return self.isVisible()

    def toggle(self) -> None:
        self.model.blank = not self.model.blank

    def _show(self, blank: bool) -> None:
        if not blank:
            self.hide()
        else:
            self.setGeometry(self._window.rect())
            self.raise_()
            self.show()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._window and event.type() == QEvent.Type.Resize:
            self.setGeometry(self._window.rect())   # full screen (F5) stays blank whole
        return False
