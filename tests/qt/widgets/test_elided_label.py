"""The status bar's message: cut at a word with "…" where it is longer than its room,
never drawn under the fields at its right."""
import pytest
from hypothesis import given
from hypothesis import strategies as st
from PySide6.QtCore import Qt

from gradviz.qt.widgets.elided_label import ELLIPSIS, elide_at_word

from shared_window import shared_window_fixture, window_fixture  # noqa: F401


def letters(text: str) -> int:   # a width: 1 px a character
    return len(text)


@given(st.text(alphabet="ab c“”.", max_size=60), st.integers(0, 70))
def test_elided_text_fits_and_ends_at_a_word(text, width):
    shown = elide_at_word(text, width, letters)
    if len(text) <= width:
        assert shown == text
        return
    assert shown.endswith(ELLIPSIS)
    kept = shown[:-1]
    assert text.startswith(kept)
    assert len(shown) <= width or shown == ELLIPSIS
    # a cut at a word where the text's first word fits: what follows is a space
    first_word = text.lstrip(" ").split(" ")[0]
    if kept and len(text) - len(text.lstrip(" ")) + len(first_word) + 1 <= width \
            and " " in text.strip(" "):
        assert text[len(kept)] == " "


@pytest.mark.parametrize("presses", [0, 2])
def test_a_long_status_message_is_cut_at_a_word_beside_the_fields(qtbot, window, presses):
    """08-2, 02-1 at 1024x768 after Ctrl+= twice: the message ran under the backward
    time and pace at the status bar's right, cut mid-word ("see “Wh")."""
    w = window
    w.resize(1024, 700)
    for _ in range(presses):
        qtbot.keyClick(w, Qt.Key_Equal, Qt.ControlModifier)
    assert w.theme.zoom == pytest.approx(1.15 ** presses)
    w.walks_label.setText("backward 17.47 ms · trunk walked 3×")
    w.rate_label.setText("10 steps/s")
    message = ("Error at step 3: one of the variables needed for gradient computation has "
               "been modified by an inplace operation. See “What happened”.")
    w.phase_label.setText(message)
    label = w.phase_label
    w.statusBar().layout().activate()
    shown = label.shown_text()   # what is drawn
    drawn = label.fontMetrics().horizontalAdvance(shown)
    right = label.mapTo(w, label.contentsRect().topLeft()).x() + drawn
    assert right <= w.walks_label.mapTo(w, w.walks_label.rect().topLeft()).x()
    assert shown.endswith(ELLIPSIS) and message[len(shown) - 1] == " "
    assert label.text() == message and label.toolTip() == message
