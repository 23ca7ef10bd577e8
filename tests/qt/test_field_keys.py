"""A settings number field claims only the keys a number is typed with; any other
printable key (Space, R, M, B...) is left to the window's shortcuts."""
from hypothesis import given, settings
from hypothesis import strategies as st
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QApplication, QDoubleSpinBox, QWidget

from gradviz.qt.field_keys import NUMBER_TEXT, FieldKeys


def _claimed(field, char: str, modifiers=Qt.NoModifier) -> bool:
    named = {" ": Qt.Key_Space, ".": Qt.Key_Period, "-": Qt.Key_Minus, "+": Qt.Key_Plus,
             ",": Qt.Key_Comma}
    key = named.get(char) or (Qt.Key(ord(char.upper())) if char.isascii() and char.isalnum()
                              else Qt.Key_unknown)
    event = QKeyEvent(QEvent.ShortcutOverride, key, modifiers, char)
    event.ignore()
    QApplication.sendEvent(field, event)
    return event.isAccepted()


@settings(max_examples=200, deadline=None)
@given(char=st.characters(codec="utf-8").filter(lambda c: c.isprintable()))
def test_a_number_field_claims_only_what_numbers_are_typed_with(qapp, char):
    panel = QWidget()
    field = QDoubleSpinBox(panel)
    keys = FieldKeys()
    keys.install(panel)
    if char not in NUMBER_TEXT:
        assert not _claimed(field, char)
    panel.deleteLater()


def test_digits_and_the_decimal_point_stay_the_fields(qapp):
    panel = QWidget()
    field = QDoubleSpinBox(panel)
    keys = FieldKeys(panel)   # kept alive by its parent, as the window's is
    keys.install(panel)
    claimed = {c for c in "0123456789.-" if _claimed(field, c)}
    assert claimed == set("0123456789.-")
    assert _claimed(field, "r") is False and _claimed(field, " ") is False
