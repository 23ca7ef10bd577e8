"""The recorded-run window's left column, as TensorBoard's: the smoothing slider, what
the charts are drawn along (step, the time since the run started, the wall-clock time),
and a folder's runs, each with a tick (drawn on the charts) and its colour. It shows
what it is told (show_*) and says what the user did through its signals; the window's
model and its controller sit between (bindings.viewer)."""
from __future__ import annotations

from PySide6 import QtGui
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QRadioButton,
    QSlider,
    QVBoxLayout,
    QWidget,
)

from ...plain.charts.smoothing import SMOOTHING_RANGE
from ...plain.charts.x_axis import AXIS_NAMES, AXIS_TIPS, X_AXES
from ..plain_text import plain_label, plain_tip
from .runs_chart import run_colour

SLIDER_STEPS = 100   # the slider's positions per unit of weight: TensorBoard's 0.01
SWATCH_PX = 12
SMOOTHING_TIP = ("TensorBoard's smoothing: each point drawn is a moving average of the "
                 "points so far, the past weighted this much (0: none), debiased so the "
                 "line starts at its first value; the raw values stay faint behind")
RUNS_TIP = "Tick a run to draw it on the charts, in its colour (at most 8 at once)"


class RunsSidebar(QWidget):
    smoothing_moved = Signal(float)    # the user moved the slider to this weight
    axis_picked = Signal(str)          # ...picked an x axis (X_AXES)
    run_ticked = Signal(str, bool)     # ...ticked (True) or unticked a run

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("runsSidebar")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setObjectName("smoothingSlider")
        self.slider.setRange(int(SMOOTHING_RANGE[0] * SLIDER_STEPS),
                             int(SMOOTHING_RANGE[1] * SLIDER_STEPS))
        self.slider.setToolTip(SMOOTHING_TIP)
        self.weight = QLabel("0.00")
        self.weight.setObjectName("smoothingWeight")
        row = QHBoxLayout()
        row.addWidget(QLabel("Smoothing"))
        row.addWidget(self.slider, 1)
        row.addWidget(self.weight)
        layout.addLayout(row)
        self.slider.valueChanged.connect(
            lambda v: self.smoothing_moved.emit(v / SLIDER_STEPS))
        layout.addWidget(QLabel("Horizontal axis"))
        axes = QHBoxLayout()
        self.axis_buttons: dict[str, QRadioButton] = {}
        self._axis_group = QButtonGroup(self)
        for mode in X_AXES:
            button = QRadioButton(AXIS_NAMES[mode])
            button.setObjectName(f"xAxis{AXIS_NAMES[mode]}")
            button.setToolTip(AXIS_TIPS[mode])
            button.toggled.connect(self._axis_toggled(mode))
            self._axis_group.addButton(button)
            self.axis_buttons[mode] = button
            axes.addWidget(button)
        axes.addStretch(1)
        layout.addLayout(axes)
        self.axis_note = plain_label(QLabel())
        self.axis_note.setObjectName("xAxisNote")
        self.axis_note.setWordWrap(True)
        layout.addWidget(self.axis_note)
        self.runs_title = QLabel("Runs")
        layout.addWidget(self.runs_title)
        self.runs = QListWidget()   # an item's text is plain text: names as written
        self.runs.setObjectName("runTicks")
        self.runs.setToolTip(RUNS_TIP)
        self.runs.itemChanged.connect(self._item_changed)
        layout.addWidget(self.runs, 100)
        self.runs_note = plain_label(QLabel())
        self.runs_note.setObjectName("runsNote")
        self.runs_note.setWordWrap(True)
        layout.addWidget(self.runs_note)
        # the room the list leaves (all of it, for one run: no list), kept at the bottom
        # rather than spread between the controls
        layout.addStretch(1)
        self._filling = False
        self.show_runs((), ())
        self.show_note(self.axis_note, "")
        self.show_note(self.runs_note, "")

    # ---- shown as told ---------------------------------------------------------------
    def show_smoothing(self, weight: float) -> None:
        self.weight.setText(f"{weight:.2f}")
        position = round(weight * SLIDER_STEPS)
        if self.slider.value() != position:
            self.slider.blockSignals(True)   # showing it is no move of the user's
            self.slider.setValue(position)
            self.slider.blockSignals(False)

    def show_x_axis(self, mode: str) -> None:
        button = self.axis_buttons[mode]
        if not button.isChecked():
            button.blockSignals(True)
            button.setChecked(True)
            button.blockSignals(False)

    def show_runs(self, names: tuple[str, ...], slots: tuple[str | None, ...]) -> None:
        """The folder's runs, ticked where they have a slot, each in its slot's colour."""
        self._filling = True   # filling the list is no tick of the user's
        try:
            if [self.runs.item(i).text() for i in range(self.runs.count())] != list(names):
                self.runs.clear()
                for name in names:
                    item = QListWidgetItem(name)
                    item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
                    item.setToolTip(plain_tip(name))
                    self.runs.addItem(item)
            for i in range(self.runs.count()):
                item = self.runs.item(i)
                slot = slots.index(item.text()) if item.text() in slots else None
                item.setCheckState(Qt.CheckState.Unchecked if slot is None
                                   else Qt.CheckState.Checked)
                item.setIcon(_swatch(None if slot is None else run_colour(slot)))
        finally:
            self._filling = False
        shown = bool(names)
        self.runs.setVisible(shown)
        self.runs_title.setVisible(shown)

    @staticmethod
    def show_note(label: QLabel, text: str) -> None:
        label.setText(text)
        label.setVisible(bool(text))

    def ticked(self) -> list[str]:
        """The runs ticked in the list (tests, screenshots)."""
        return [self.runs.item(i).text() for i in range(self.runs.count())
                if self.runs.item(i).checkState() == Qt.CheckState.Checked]

    def _axis_toggled(self, mode: str):
        def toggled(on: bool) -> None:
            if on:   # the one turned on (the other's toggling off says nothing)
                self.axis_picked.emit(mode)
        return toggled

    def _item_changed(self, item: QListWidgetItem) -> None:
        if not self._filling:
            self.run_ticked.emit(item.text(), item.checkState() == Qt.CheckState.Checked)


def _swatch(colour: str | None) -> QtGui.QIcon:
    """A run's colour as a square (ticked), or an empty one (not drawn)."""
    pixmap = QtGui.QPixmap(SWATCH_PX, SWATCH_PX)
    pixmap.fill(QtGui.QColor(colour) if colour else Qt.GlobalColor.transparent)
    return QtGui.QIcon(pixmap)
