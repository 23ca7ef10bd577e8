"""The status bar's lines: a new text repaints a line and asks for no new layout where
its size is unchanged (a QLabel asked at every text, every step while playing); a field
at the right grows to its widest text and gives its room back only when empty; the phase
line is cut at a word where the bar is too narrow for it."""
import pytest
from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QApplication, QLabel, QMainWindow

from gradviz.qt.status_text import StatusText
from gradviz.qt.widgets.elided_label import ELLIPSIS


class Counter(QObject):
    """Counts the events of one kind a widget gets: the layout passes the status bar
    is asked for, or a line's repaints."""
    def __init__(self, watched, kind=QEvent.Type.LayoutRequest):
        super().__init__()
        self.count, self.kind = 0, kind
        watched.installEventFilter(self)

    def eventFilter(self, _obj, event) -> bool:   # noqa: N802 (Qt's name)
        if event.type() == self.kind:
            self.count += 1
        return False


@pytest.fixture
def bar(qtbot):
    window = QMainWindow()
    qtbot.addWidget(window)
    window.resize(800, 300)
    phase = StatusText("starting", "phaseLabel", stretches=True)
    walks = StatusText("", "walksLabel")
    window.statusBar().addWidget(phase, 1)
    window.statusBar().addPermanentWidget(walks)
    window.show()
    qtbot.waitExposed(window)
    QApplication.processEvents()
    return window, phase, walks, Counter(window.statusBar())


def _settle() -> None:
    QApplication.processEvents()


def test_a_label_asks_for_a_layout_at_every_text_the_phase_line_never(bar):
    window, phase, _walks, requests = bar
    label = QLabel("x")                       # what the status bar had: the control
    window.statusBar().addWidget(label)
    _settle()
    requests.count = 0
    label.setText("a longer text than before")
    _settle()
    assert requests.count >= 1
    requests.count = 0
    for step in range(20):
        phase.setText(f"Training · step {step} done · total loss {1 / (step + 1):.4g}")
        _settle()
    assert requests.count == 0 and phase.relayouts == 0
    assert phase.text() == "Training · step 19 done · total loss 0.05"


def test_a_field_grows_to_its_widest_text_and_keeps_that_room_until_empty(bar):
    _window, _phase, walks, requests = bar
    walks.setText("backward 0.42 ms · trunk walked 3×")
    _settle()
    assert walks.relayouts == 1 and walks.width() > 0
    wide = walks.width()
    requests.count = 0
    walks.setText("backward 0.41 ms · trunk walked 1×")    # as wide or narrower: no layout
    walks.setText("backward 1 ms")
    _settle()
    assert walks.relayouts == 1 and requests.count == 0 and walks.width() == wide
    walks.setText("backward 123456.78 ms · trunk walked 3×")   # wider: room asked once
    _settle()
    assert walks.relayouts == 2 and walks.width() > wide
    walks.setText("")                                          # empty: its room given back
    _settle()
    assert walks.relayouts == 3 and walks.width() == 0


def test_the_same_text_again_changes_nothing_not_even_a_repaint(bar):
    _window, phase, walks, _requests = bar
    walks.setText("10 steps/s")
    _settle()
    paints = Counter(walks, QEvent.Type.Paint)
    walks.setText("10 steps/s")
    _settle()
    assert paints.count == 0 and walks.relayouts == 1 and walks.toolTip() == "10 steps/s"
    walks.setText("11 steps/s")                    # a new text: repainted, no new room
    _settle()
    assert paints.count >= 1 and walks.relayouts == 1
    phase.setText("starting")
    assert phase.text() == "starting"


def test_a_phase_line_too_long_for_the_bar_is_cut_at_a_word(bar):
    window, phase, _walks, _requests = bar
    window.resize(300, 300)
    _settle()
    message = ("Paused at step 3: one of the variables needed for gradient computation has "
               "been modified by an inplace operation — see “What happened”")
    phase.setText(message)
    shown = phase.shown_text()
    assert shown.endswith(ELLIPSIS) and message.startswith(shown[:-1].rstrip())
    assert message[len(shown) - 1] == " "            # cut where a word ends
    assert phase.fontMetrics().horizontalAdvance(shown) <= phase.width()
    assert phase.text() == message and phase.toolTip() == message


def test_markup_in_a_line_is_drawn_as_its_characters(bar):
    _window, phase, _walks, _requests = bar
    phase.setText("Not applied: <img width=9999 height=9999>")
    assert phase.textFormat() == Qt.TextFormat.PlainText
    assert phase.shown_text() == "Not applied: <img width=9999 height=9999>"
    assert phase.sizeHint().height() < 3 * phase.fontMetrics().height()
