"""The run controls: play/pause, one phase, one step, reset, and the pace of training."""
from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QSlider, QWidget

# slider position -> pause between steps (ms): from "as fast as it goes" to a pace a
# room can follow while someone talks
DELAYS_MS = (0, 5, 20, 50, 100, 200, 350, 500, 750, 1000, 1500)


def pace_text(delay_ms: int) -> str:
    if delay_ms == 0:
        return "as fast as it goes"
    per_second = 1000 / delay_ms
    return f"≤ {per_second:.0f} steps/s" if per_second >= 1.5 else f"{delay_ms / 1000:g} s per step"


class RunBar(QWidget):
    playClicked = Signal()
    phaseClicked = Signal()
    stepClicked = Signal()
    resetClicked = Signal()
    delayChanged = Signal(int)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("runBar")
        self.play = self._button("playButton", "▶  Play", "Play / pause (Space)", self.playClicked)
        self.phase = self._button("phaseButton", "Phase ›", "One phase: forward, a backward "
                                  "call, optimizer step, zero_grad (→)", self.phaseClicked)
        self.step = self._button("stepButton", "Step »", "One optimizer step (Shift+→)",
                                 self.stepClicked)
        self.reset = self._button("resetButton", "⟲  Reset", "Fresh model, step 0 (R)",
                                  self.resetClicked)
        self.speed = QSlider(Qt.Horizontal)
        self.speed.setObjectName("speedSlider")
        self.speed.setRange(0, len(DELAYS_MS) - 1)
        self.speed.setMinimumWidth(80)   # a 1280-pixel projector has room for little more
        self.speed.setToolTip("Pace: left is as fast as it goes")
        self.pace = QLabel(pace_text(0))
        self.pace.setObjectName("paceLabel")
        self.pace.setMinimumWidth(90)
        self.speed.valueChanged.connect(self._on_speed)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 2, 4, 2)
        for w in (self.play, self.phase, self.step, self.reset):
            layout.addWidget(w)
        layout.addSpacing(8)
        layout.addWidget(QLabel("pace"))
        layout.addWidget(self.speed)
        layout.addWidget(self.pace)
        layout.addStretch(1)

    def _button(self, name: str, text: str, tip: str, signal) -> QPushButton:
        b = QPushButton(text)
        b.setObjectName(name)
        b.setToolTip(tip)
        b.setFocusPolicy(Qt.NoFocus)  # keys go to the window's shortcuts
        b.clicked.connect(lambda _checked=False: signal.emit())
        return b

    def _on_speed(self, position: int) -> None:
        delay = DELAYS_MS[position]
        self.pace.setText(pace_text(delay))
        self.delayChanged.emit(delay)

    def set_running(self, running: bool) -> None:
        self.play.setText("❚❚  Pause" if running else "▶  Play")
