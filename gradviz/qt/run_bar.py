"""The run controls: play/pause, one phase, one step, reset, the pace of training, and
whether Play goes step by step or phase by phase. Where the window is too narrow for
their words (a 1024-pixel projector at a large text size), the buttons keep only their
symbols, so the bar never sets the window's width."""
from __future__ import annotations

from PySide6.QtCore import QEvent, QSignalBlocker, QSize, Qt, QTimer, Signal
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QLabel, QPushButton, QSlider, QWidget

from ..engine.protocol import MIN_PHASE_MS
from ..plain.window.window_model import PACES_MS

# slider position -> pause between steps (ms): from "as fast as it goes" to a pace a
# room can follow while someone talks (the window's model holds one of these)
DELAYS_MS = PACES_MS
PHASE_PLAY_TEXT = ("phase by phase", "phases")     # (full, compact)
QWIDGETSIZE_MAX = (1 << 24) - 1
PLAY_WORDS = {False: ("▶", "▶  Play"), True: ("❚❚", "❚❚  Pause")}   # by running


def pace_text(delay_ms: int, unit: str = "step", short: bool = False) -> str:
    if unit == "phase":   # the engine keeps phases apart, so that each graph is seen
        delay_ms = max(delay_ms, MIN_PHASE_MS)
    if delay_ms == 0:
        return "fastest" if short else "as fast as it goes"
    per_second = 1000 / delay_ms
    if short:
        return f"≤ {per_second:.0f}/s" if per_second >= 1.5 else f"{delay_ms / 1000:g} s"
    return (f"≤ {per_second:.0f} {unit}s/s" if per_second >= 1.5
            else f"{delay_ms / 1000:g} s per {unit}")


class RunBar(QWidget):
    playClicked = Signal()
    phaseClicked = Signal()
    stepClicked = Signal()
    resetClicked = Signal()
    delayChanged = Signal(int)
    phasePlayChanged = Signal(bool)   # Play goes phase by phase (True) or step by step

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("runBar")
        self._play_words = PLAY_WORDS[False]   # (symbol, words) of the Play button
        self.compact = False
        self._widths = (0, 0)         # (full, compact) widths the bar asks for
        # the screen has no room for the symbols' bar (QT_SCALE_FACTOR=2 on a 1280x720
        # screen): its pace's words and the phase box give way, the buttons stay (P and
        # the slider still set them)
        self.least = False
        self.play = self._button("playButton", "Play / pause (Space)", self.playClicked)
        self.phase = self._button("phaseButton", "One phase: forward, a backward call, "
                                  "optimizer step, zero_grad (→)", self.phaseClicked)
        self.step = self._button("stepButton", "One optimizer step (Shift+→)", self.stepClicked)
        self.reset = self._button("resetButton", "Fresh model, step 0 (R)", self.resetClicked)
        self.speed = QSlider(Qt.Orientation.Horizontal)
        self.speed.setObjectName("speedSlider")
        self.speed.setRange(0, len(DELAYS_MS) - 1)
        self.speed.setMinimumWidth(80)   # a 1280-pixel projector has room for little more
        self.speed.setToolTip("Pace: left is as fast as it goes")
        self.pace_caption = QLabel("pace")
        self.pace = QLabel()
        self.pace.setObjectName("paceLabel")
        self.speed.valueChanged.connect(self._on_speed)
        self.phase_play = QCheckBox()
        self.phase_play.setObjectName("phasePlay")
        self.phase_play.setToolTip("Play animates the phases: forward, each backward call, "
                                   "the optimizer step, zero_grad, at the pace (P)")
        self.phase_play.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.phase_play.toggled.connect(self._on_phase_play)
        # hidden twins that measure a text's width without changing what is on screen
        self._probe, self._probe_box = QPushButton(self), QCheckBox(self)
        self._probe.hide()
        self._probe_box.hide()
        self._chooser = QTimer(self)      # words or symbols, once the bar has its size
        self._chooser.setSingleShot(True)
        self._chooser.setInterval(0)
        self._chooser.timeout.connect(self.refit)
        layout = self._layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 2, 4, 2)
        for w in (self.play, self.phase, self.step, self.reset):
            layout.addWidget(w)
        layout.addSpacing(8)
        layout.addWidget(self.pace_caption)
        layout.addWidget(self.speed)
        layout.addWidget(self.pace)
        layout.addWidget(self.phase_play)
        layout.addStretch(1)
        self._set_texts(False)
        self._choose()

    def _button(self, name: str, tip: str, signal) -> QPushButton:
        b = QPushButton()
        b.setObjectName(name)
        b.setToolTip(tip)
        b.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # keys go to the window's shortcuts
        b.clicked.connect(lambda _checked=False: signal.emit())
        return b

    # ---- words or symbols -----------------------------------------------------------
    def _set_texts(self, compact: bool) -> None:
        self.compact = compact
        for button, texts in ((self.play, self._play_words), (self.phase, ("›", "Phase ›")),
                              (self.step, ("»", "Step »")), (self.reset, ("⟲", "⟲  Reset"))):
            button.setText(texts[0] if compact else texts[1])
            if compact:   # a symbol needs no button as wide as the style's least
                button.setFixedWidth(self._symbol_width())
            else:
                button.setMinimumWidth(0)
                button.setMaximumWidth(QWIDGETSIZE_MAX)
        self.pace_caption.setVisible(not compact)
        narrow = self.least and self.width() < self._widths[1]
        self.pace.setVisible(not narrow)
        self.phase_play.setVisible(not narrow)
        self.phase_play.setText(PHASE_PLAY_TEXT[1 if compact else 0])
        self._show_pace()

    def measure(self) -> tuple[int, int]:
        """The bar's least width (full words, symbols only) at the text size now."""
        probe, box = self._probe, self._probe_box
        box.setStyleSheet(self.phase_play.styleSheet())

        def button(text: str) -> int:
            probe.setText(text)
            return probe.sizeHint().width()

        def check(text: str) -> int:
            box.setText(text)
            return box.sizeHint().width()

        def pace(short: bool) -> int:
            metrics = self.pace.fontMetrics()
            return max(metrics.horizontalAdvance(pace_text(d, u, short)) for d in DELAYS_MS
                       for u in ("step", "phase")) + 6

        # the layout's gaps: between the widgets shown, none beside a spacer
        layout = self._layout
        margins = layout.contentsMargins()
        gap = max(layout.spacing(), 0)
        common = margins.left() + margins.right() + 8 + self.speed.minimumWidth() + 4
        words = sum(button(t) for t in ("❚❚  Pause", "Phase ›", "Step »", "⟲  Reset"))
        full = common + words + self.pace_caption.sizeHint().width() + pace(False) \
            + check(PHASE_PLAY_TEXT[0]) + 8 * gap
        compact = common + 4 * self._symbol_width() + pace(True) \
            + check(PHASE_PLAY_TEXT[1]) + 6 * gap
        return full, compact

    def _symbol_width(self) -> int:
        """A button that shows only its symbol: no wider than it needs."""
        return round(self._probe.fontMetrics().height() * 2.2)

    def refit(self) -> None:
        """Words or symbols, for the bar's width at the text size now."""
        widths = self.measure()
        if widths != self._widths:
            self._widths = widths
            self.updateGeometry()      # the window's least width follows
        # (again at the same mode: a new text size changes the symbols' buttons; texts
        # and sizes set to what they are already change nothing)
        self._set_texts(self.width() < widths[0])

    def allow_least(self) -> None:
        """From now on as narrow as its buttons and slider (the screen fitting's last
        move for a screen too small for the symbols' bar beside the docks)."""
        if not self.least:
            self.least = True
            self.updateGeometry()
            self._choose()

    def _least_width(self) -> int:
        layout = self._layout
        margins = layout.contentsMargins()
        return (margins.left() + margins.right() + 8 + self.speed.minimumWidth()
                + 4 * self._symbol_width() + 5 * max(layout.spacing(), 0))

    def minimumSizeHint(self) -> QSize:
        width = self._least_width() if self.least else self._widths[1]
        return QSize(width, super().minimumSizeHint().height())

    def sizeHint(self) -> QSize:
        # no more than the symbols need: the words are shown where there is room, but
        # never take it from the panels beside (the window's docks size from hints)
        return QSize(self._widths[1], super().sizeHint().height())

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._choose()

    def event(self, event) -> bool:
        # a child's new size (a new font reaches them one by one): measure again, once
        # they all have it
        if event.type() in (QEvent.Type.LayoutRequest, QEvent.Type.FontChange,
                            QEvent.Type.StyleChange):
            self._choose()
        return super().event(event)

    def _choose(self) -> None:
        if not self._chooser.isActive():
            self._chooser.start()

    # ---- pace ---------------------------------------------------------------------------
    def _on_speed(self, position: int) -> None:
        self._show_pace()
        self.delayChanged.emit(DELAYS_MS[position])

    def set_pace(self, position: int, phases: bool) -> None:
        """The slider and the phase box as the window's model has them, shown without a
        word to the engine (the window tells it what it does not have yet: a lesson's
        slide has sent them along with the slide)."""
        blocker = QSignalBlocker(self)
        self.speed.setValue(position)
        self.phase_play.setChecked(phases)
        self._show_pace()
        del blocker

    def show_pace(self, ms: int, phases: bool) -> None:
        """The pace (one of DELAYS_MS) and play mode the window's model holds."""
        self.set_pace(DELAYS_MS.index(ms), phases)

    def delay_ms(self) -> int:
        """The pause between steps (or phases) the slider sets."""
        return DELAYS_MS[self.speed.value()]

    def _on_phase_play(self, on: bool) -> None:
        self._show_pace()
        self.phasePlayChanged.emit(on)

    def _show_pace(self) -> None:
        unit = "phase" if self.phase_play.isChecked() else "step"
        self.pace.setText(pace_text(self.delay_ms(), unit, short=self.compact))
        self.pace.setToolTip(pace_text(self.delay_ms(), unit))
        # the widest of its texts, so that the bar does not jump as the pace changes
        metrics = self.pace.fontMetrics()
        self.pace.setMinimumWidth(max(metrics.horizontalAdvance(pace_text(d, u, self.compact))
                                      for d in DELAYS_MS for u in ("step", "phase")) + 6)

    def set_running(self, running: bool) -> None:
        """Pause while the engine plays, Play while not (the model says which)."""
        if self._play_words != PLAY_WORDS[running]:
            self._play_words = PLAY_WORDS[running]
            self._set_texts(self.compact)
