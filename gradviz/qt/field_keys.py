"""The window's keys still work after typing in a number field of the settings: a spin
box claims every printable key before any shortcut sees it, so Space after typing a
learning rate went into the box and Play never started. A number field now keeps only
what a number is typed with; Space first applies what was typed, then plays."""
from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QAbstractSpinBox, QLineEdit

NUMBER_TEXT = set("0123456789.,-+eE")   # what typing a number needs (1e-3, -0.5, 1,5)


class FieldKeys(QObject):
    """Installed on every number field of a panel: keys no number is typed with go to
    the window's shortcuts instead of the field."""

    def install(self, panel) -> None:
        for field in panel.findChildren(QAbstractSpinBox):
            field.installEventFilter(self)
        # a list of numbers typed in a line edit (micro-batch sizes): the same rule; not
        # the line edits inside the spin boxes, which their spin box speaks for
        for field in panel.findChildren(QLineEdit):
            if not isinstance(field.parent(), QAbstractSpinBox):
                field.installEventFilter(self)

    def eventFilter(self, field: QObject, event: QEvent) -> bool:   # noqa: N802 (Qt's name)
        # (a shortcut override is a key event: the isinstance only tells the type checker)
        if event.type() == QEvent.Type.ShortcutOverride and isinstance(event, QKeyEvent) \
                and isinstance(field, (QAbstractSpinBox, QLineEdit)):
            text = event.text()
            mod = Qt.KeyboardModifier
            modified = event.modifiers() & (mod.ControlModifier | mod.AltModifier
                                            | mod.MetaModifier)
            if text and text.isprintable() and not modified and text not in NUMBER_TEXT:
                if event.key() == Qt.Key.Key_Space and isinstance(field, QLineEdit):
                    field.editingFinished.emit()   # the typed list applies before Play
                elif event.key() == Qt.Key.Key_Space and isinstance(field, QAbstractSpinBox):
                    field.interpretText()   # the typed value applies before Play
                event.ignore()              # not the field's: the shortcut fires
                return True
        return False
